"""Issue 11 defect 6: min_frequency / max_categories pooling, the cost guard, discretize."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.preprocessing import OneHotEncoder

import catembed
from catembed import CatEmbedError, CatEmbedWarning, OneHotEmbedder
from catembed.stats import INFREQUENT, ValueStatistics, compute_statistics


def _table(seed=0, n=200):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "a": rng.zipf(1.6, n).clip(max=60).astype(str),
        "b": rng.choice(list("pqrst"), n, p=[0.5, 0.3, 0.15, 0.04, 0.01]),
        "c": rng.choice(list("xy"), n),
    })


@pytest.mark.parametrize("kw", [
    {"min_frequency": 3}, {"min_frequency": 0.05}, {"max_categories": 4},
    {"min_frequency": 2, "max_categories": 6}, {"max_categories": 1},
])
def test_infrequent_values_are_scikit_learns(kw):
    X = _table()
    ref = OneHotEncoder(**kw, handle_unknown="infrequent_if_exist", sparse_output=False).fit(X)
    st = ValueStatistics.from_frame(X)
    for cats, mask, ref_inf in zip(st.categories, st.infrequent(**kw),
                                   ref.infrequent_categories_, strict=True):
        assert sorted(cats[mask]) == sorted([] if ref_inf is None else list(ref_inf))


@pytest.mark.parametrize("kw", [{"min_frequency": 3}, {"max_categories": 4}])
def test_onehot_with_pooling_equals_scikit_learn(kw):
    X = _table(1)
    ref = OneHotEncoder(**kw, handle_unknown="infrequent_if_exist", sparse_output=False).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        ours = OneHotEmbedder(**kw).fit(X)
    np.testing.assert_array_equal(ours.transform(X), ref.transform(X))
    assert [n.replace("infrequent_sklearn", "infrequent") for n in ref.get_feature_names_out()
            ] == list(ours.get_feature_names_out())


def test_pooled_statistics_equal_counting_the_pooled_table():
    X = _table(2)
    st = ValueStatistics.from_frame(X)
    masks = st.infrequent(min_frequency=4)
    pooled = st.pool(masks)
    # oracle: replace the rare values by one marker and count again
    Y = X.copy()
    for col, cats, m in zip(X.columns, st.categories, masks, strict=True):
        if m.sum() >= 2:
            Y[col] = Y[col].where(~Y[col].isin(set(cats[m])), "~rare")
    ref = ValueStatistics.from_frame(Y)
    ours_index = [(f, "~rare" if v is INFREQUENT else v)
                  for f, v in pooled.value_index().tolist()]
    pos = pd.Index(ref.value_index().tolist()).get_indexer(ours_index)
    assert (pos >= 0).all()
    np.testing.assert_array_equal(pooled.counts, ref.counts[pos])
    np.testing.assert_array_equal(pooled.cooc_dense(), ref.cooc_dense()[np.ix_(pos, pos)])


def test_pooling_commutes_with_chunked_counting():
    X = _table(3, n=300)
    whole = ValueStatistics.from_frame(X)
    chunked = compute_statistics(X.iloc[i : i + 70] for i in range(0, 300, 70))
    kw = {"min_frequency": 3, "max_categories": 8}
    a = whole.pool(whole.infrequent(**kw))
    b = chunked.pool(chunked.infrequent(**kw))
    assert all(np.array_equal(x.astype(str), y.astype(str))
               for x, y in zip(a.categories, b.categories, strict=True))
    np.testing.assert_array_equal(a.cooc_dense(), b.cooc_dense())
    sparse = ValueStatistics.from_frame(X, dense_limit=1)
    c = sparse.pool(sparse.infrequent(**kw))
    np.testing.assert_array_equal(a.cooc_dense(), c.cooc_dense())


def test_transform_maps_pooled_values_to_the_infrequent_vector(tmp_path):
    X = _table(4)
    with pytest.warns(CatEmbedWarning, match=r"pooled rare values .*min_frequency=5.*a keeps"):
        est = catembed.CDE(min_frequency=5, random_state=0).fit(X)
    inf = est.infrequent_categories_[0]
    assert len(inf) >= 2 and INFREQUENT in list(est.categories_[0])
    Z = est.transform(X)
    rows = np.flatnonzero(X["a"].isin(set(inf)).to_numpy())
    w = est._tables[0].shape[1]  # column a's block
    np.testing.assert_array_equal(Z[rows, :w], np.repeat(Z[rows[:1], :w], len(rows), axis=0))
    est.save(tmp_path / "m.npz")
    back = catembed.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.transform(X), Z)
    assert [list(map(str, i)) if i is not None else None for i in back.infrequent_categories_
            ] == [list(map(str, i)) if i is not None else None for i in est.infrequent_categories_]


def test_quadratic_methods_pool_by_default_linear_ones_do_not():
    X = pd.DataFrame({"id": [f"v{i % 150}" for i in range(300)], "b": list("xy") * 150})
    with pytest.warns(CatEmbedWarning, match="max_categories=100"):
        est = catembed.OneHotPCA().fit(X)
    assert est.stats_.sizes.tolist() == [100, 2]
    assert OneHotEmbedder().fit(X).stats_.sizes.tolist() == [150, 2]


@pytest.mark.parametrize("kw, message", [
    ({"min_frequency": 0}, "min_frequency must be"),
    ({"min_frequency": 1.5}, "min_frequency must be"),
    ({"max_categories": 0}, "max_categories must be"),
    ({"max_categories": 2.5}, "max_categories must be"),
])
def test_pooling_parameters_are_checked(kw, message):
    with pytest.raises(CatEmbedError, match=message):
        catembed.IDFEmbedder(**kw).fit(_table())


def test_cost_guard_refuses_before_allocating(monkeypatch):
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "100K")
    X = pd.DataFrame({"a": [f"v{i % 90}" for i in range(400)],
                      "b": [f"w{i % 80}" for i in range(400)]})
    with pytest.raises(CatEmbedError,
                       match=r"would need about 2 MiB \(limit 100 KiB, .*min_frequency"):
        catembed.CDE().fit(X)
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "lots")
    with pytest.raises(CatEmbedError, match="CATEMBED_MAX_MEMORY"):
        catembed.CDE().fit(X)


def test_discretize_works_on_an_all_numeric_table():
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"u": rng.normal(size=60), "v": rng.uniform(size=60)})
    est = catembed.OneHotEmbedder(numeric="discretize", n_bins=3).fit(X)
    assert est.transform(X).shape == (60, 6)
    assert list(est.numeric_features_) == ["u", "v"]


def test_cost_guard_refuses_on_time_before_counting(monkeypatch):
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "1")
    # 20 columns of 97 values: CDE's estimate (l^2 / 2e6 s) is about 2 s
    X = pd.DataFrame({f"c{j}": [f"v{(i * (j + 1)) % 97}" for i in range(300)]
                      for j in range(20)})

    def no_counting(*args, **kwargs):
        raise AssertionError("counted before the cost check")

    # the check runs between the factorisation and the co-occurrence counting
    monkeypatch.setattr("catembed.stats._value_statistics.count_codes", no_counting)
    with pytest.raises(CatEmbedError, match=r"CDE on 1\d{3} distinct values in 20 columns "
                                            r"would take about 2 s \(limit 1 s, "
                                            r"CATEMBED_MAX_SECONDS\)"):
        catembed.CDE().fit(X)


def test_cli_discretize_embeds_an_all_numeric_csv(tmp_path):
    from catembed.cli import main

    rng = np.random.default_rng(1)
    path, out = tmp_path / "num.csv", tmp_path / "out.csv"
    pd.DataFrame(rng.normal(size=(40, 2)), columns=["u", "v"]).to_csv(path, index=False)
    assert main(["embed", str(path), "--method", "onehot", "--numeric", "discretize",
                 "--n-bins", "2", "-q", "-o", str(out)]) == 0
    res = pd.read_csv(out)
    assert res.shape == (40, 4)
    np.testing.assert_array_equal(res.sum(axis=1), np.full(40, 2.0))


# CPU seconds and fit memory (MB) of one fit of a planted table of 20,000 rows, 8 columns of
# 100 values (l = 800), measured with benchmarks/bench_cde_values.py --child on 2026-11-24
# (2 cores, load average 4.0-4.7); the method's docstring of _cost_seconds has the others.
MEASURED_AT_800 = {"UNTIE": (7.6, 108), "CDEPlusPlus": (45.3, 1172), "LCME": (3.3, 42)}


@pytest.mark.parametrize("name", sorted(MEASURED_AT_800))
def test_cost_estimates_follow_the_measured_fits(name):
    seconds, mb = MEASURED_AT_800[name]
    est = getattr(catembed, name)()
    sizes = np.full(8, 100)
    assert seconds / 2.5 <= est._cost_seconds(sizes) <= seconds * 2.5
    assert mb / 2 <= 8 * est._cost_cells(sizes) / 2**20 <= mb * 2


def test_cost_guard_refuses_cdepp_on_thousands_of_values(monkeypatch):
    # CDE++'s dense value-cluster indicator grows as l^3 (0.3 l^3 cells measured)
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "16G")
    X = pd.DataFrame({f"c{j}": [f"v{(i + j) % 100}" for i in range(200)]
                      for j in range(30)})
    with pytest.raises(CatEmbedError, match=r"CDEPlusPlus on 3000 distinct values in 30 "
                                            r"columns would need about 60\.\d GiB"):
        catembed.CDEPlusPlus().fit(X)
