"""The deep clusterers' degeneracy guard and restart criterion (issue 20, item 3)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler
from sklearn.utils import check_random_state

from catembed import CatEmbedError, CatEmbedWarning

torch = pytest.importorskip("torch")

from catembed.deep import (  # noqa: E402
    IDEC,
    AttentionClusterer,
    AutoencoderKMeans,
    ThesisClusterer,
    _guard,
    clustering,
    thesis,
)
from test_deep import _one_thread, planted  # noqa: E402, F401 (autouse fixture)

KW = {"pretrain_steps": 40, "cluster_steps": 20, "update_interval": 10, "batch_size": 32}
TKW = {"epochs": 1, "cluster_epochs": 1, "n_blocks": 1}


def _reference_kmeans(X, k, random_state):
    """Oracle, computed without catembed: k-means of the z-scored numbers beside the label
    codes (z-scored), the one-hot indicators (a column's of total variance 1) and the
    chi-square one-hot (an indicator over the root of its share), with the first restart
    seed; the partition that agrees most with the other two."""
    seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    cat = X.select_dtypes(exclude="number").columns
    num = StandardScaler().fit_transform(X.select_dtypes(include="number").to_numpy(float))
    codes = StandardScaler().fit_transform(OrdinalEncoder().fit_transform(X[cat].astype(str)))
    unit, chi2 = [], []
    for c in cat:
        onehot = OneHotEncoder(sparse_output=False).fit_transform(X[[c]].astype(str))
        p = onehot.mean(axis=0)
        unit.append(onehot / np.sqrt(1.0 - (p ** 2).sum()))
        chi2.append(onehot / np.sqrt(p))
    spaces = [np.hstack([codes, num]), sparse.csr_matrix(np.hstack(unit + [num])),
              sparse.csr_matrix(np.hstack(chi2 + [num]))]
    parts = [KMeans(k, n_init=10, random_state=seed).fit(z).labels_ for z in spaces]
    agree = [np.mean([adjusted_rand_score(parts[i], parts[j]) for j in range(3) if j != i])
             for i in range(3)]
    return parts[int(np.argmax(agree))]


def _rank_kmeans(X, k, random_state):
    """Oracle of the rank reference (issue 42), computed without catembed: k-means
    (``n_init=10``, the first restart seed) of the one-hot indicators (a column's of total
    variance 1) beside the numbers' normal scores of their ranks (mid-ranks), z-scored."""
    from scipy.stats import norm, rankdata

    seed = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
    cat = X.select_dtypes(exclude="number").columns
    nums = X.select_dtypes(include="number").to_numpy(float)
    scores = np.column_stack([norm.ppf((rankdata(c) - 0.5) / len(c)) for c in nums.T])
    unit = []
    for c in cat:
        onehot = OneHotEncoder(sparse_output=False).fit_transform(X[[c]].astype(str))
        unit.append(onehot / np.sqrt(1.0 - (onehot.mean(axis=0) ** 2).sum()))
    z = np.hstack(unit + [StandardScaler().fit_transform(scores)])
    return KMeans(k, n_init=10, random_state=seed).fit(sparse.csr_matrix(z)).labels_


def test_reference_spaces_by_hand() -> None:
    codes = np.array([[0, 1], [1, 1], [2, 0], [0, 1]])
    nums = np.array([[1.0], [3.0], [5.0], [7.0]])
    state = _guard.reference_state(codes, nums)
    assert state["sizes"].tolist() == [3, 2]
    np.testing.assert_allclose(state["shares"], [0.5, 0.25, 0.25, 0.25, 0.75])
    z = (nums[:, 0] - 4.0) / np.sqrt(5.0)
    x = _guard.reference_input(codes, nums, state, "codes")
    np.testing.assert_allclose(x[:, 0], (codes[:, 0] - 0.75) / np.sqrt(0.6875))
    np.testing.assert_allclose(x[:, 2], z)
    # one-hot: column 0 has shares 1/2, 1/4, 1/4, indicator variance 1 - 6/16 = 5/8
    x = _guard.reference_input(codes, nums, state, "onehot").toarray()
    assert x.shape == (4, 6)
    np.testing.assert_allclose(x[0], [np.sqrt(8 / 5), 0, 0, 0, np.sqrt(16 / 6), z[0]])
    np.testing.assert_allclose(x.var(axis=0)[:3].sum(), 1.0)  # each column: variance 1
    np.testing.assert_allclose(x.var(axis=0)[3:5].sum(), 1.0)
    # chi-square: an indicator over the root of its value's share
    x = _guard.reference_input(codes, nums, state, "chi2").toarray()
    np.testing.assert_allclose(x[2], [0, 0, 2.0, 2.0, 0, z[2]])
    # a value unseen by the state has no indicator
    assert _guard.reference_input(np.array([[3, 2]]), np.array([[4.0]]), state,
                                  "onehot").nnz == 0


def test_effective_clusters_and_diagnosis() -> None:
    assert _guard.effective_clusters(np.repeat([0, 1, 2, 3], 25)) == pytest.approx(4.0)
    assert _guard.effective_clusters(np.zeros(50, dtype=int)) == pytest.approx(1.0)
    ref = np.repeat([0, 1, 2, 3], 25)
    assert _guard.diagnose(ref[::-1], ref)["reasons"] == []  # same partition, other names
    collapsed = np.r_[np.zeros(97, dtype=int), [1, 2, 3]]
    assert "collapse" in _guard.diagnose(collapsed, ref)["reasons"]
    unrelated = np.tile([0, 1, 2, 3], 25)  # balanced but independent of the reference
    d = _guard.diagnose(unrelated, ref)
    assert d["reasons"] == ["lost-structure"] and d["ari_reference"] < 0


def test_agreement_picks_the_consensus_restart() -> None:
    rng = np.random.RandomState(0)
    a = np.repeat([0, 1, 2], 40)
    near = a.copy()
    near[rng.choice(120, 6, replace=False)] = rng.randint(3, size=6)
    other = a.copy()
    other[:60] = rng.randint(3, size=60)  # half of it scrambled
    parts = [other, near, a]
    objectives = [0.1, 0.5, 0.4]  # the loss prefers the outlier restart
    with_ref = np.repeat([0, 1, 2], 40)
    idx, diag, agree = _guard.choose_restart(parts, objectives, with_ref, "agreement", "T")
    assert idx == 2 and agree[2] > agree[1] > agree[0]
    assert not any(d["reasons"] for d in diag)
    idx, _, _ = _guard.choose_restart(parts, objectives, with_ref, "objective", "T")
    assert idx == 0
    # without a reference the restarts alone vote
    idx, _, agree = _guard.choose_restart(parts, objectives, None, "agreement", "T")
    assert idx in (1, 2) and agree[0] == agree.min()


@pytest.mark.parametrize("cls", [AutoencoderKMeans, IDEC, AttentionClusterer])
def test_a_collapsed_fit_falls_back_to_the_reference_kmeans(cls, monkeypatch) -> None:
    X, _ = planted(90, seed=2)
    original = clustering._DeepClusterer._fit_one

    def collapse(self, *a, **kw):  # every row but two in one cluster
        run = original(self, *a, **kw)
        run["labels"] = np.r_[np.zeros(len(X) - 2, dtype=int), [1, 2]]
        return run

    monkeypatch.setattr(clustering._DeepClusterer, "_fit_one", collapse)
    with pytest.warns(CatEmbedWarning, match="falling back"):
        m = cls(3, n_init=2, random_state=4, **KW).fit(X)
    assert m.fallback_ and m.degenerate_.tolist() == [True, True]
    assert all("collapse" in d["reasons"] for d in m.restart_diagnoses_)
    # the rank reference (issue 42): ThesisClusterer keeps the vote of three spaces
    np.testing.assert_array_equal(m.labels_, _rank_kmeans(X, 3, 4))
    assert m.reference_.space == "rank" and not m.guard_check_["warned"]
    assert m.guard_check_["ratio"] == pytest.approx(1.0)
    np.testing.assert_array_equal(m.predict(X), m.labels_)
    assert m.labels_.dtype == np.int32
    # the centres follow the fallback partition: the soft assignment mostly agrees
    assert np.mean(m.predict_proba(X).argmax(axis=1) == m.labels_) > 0.6


def test_a_degenerate_restart_is_dropped_and_named(monkeypatch) -> None:
    X, _ = planted(90, seed=2)
    original = clustering._DeepClusterer._fit_one
    calls = []

    def first_collapses(self, *a, **kw):
        run = original(self, *a, **kw)
        calls.append(1)
        if len(calls) == 1:
            run["labels"] = np.zeros(len(X), dtype=int)
        return run

    monkeypatch.setattr(clustering._DeepClusterer, "_fit_one", first_collapses)
    with pytest.warns(CatEmbedWarning, match="restart"):
        m = AutoencoderKMeans(3, n_init=2, random_state=0, **KW).fit(X)
    assert m.degenerate_.tolist() == [True, False] and not m.fallback_
    assert m.best_init_ == 1


def test_healthy_planted_fit_keeps_the_network_and_is_reproducible() -> None:
    X, y = planted(120, seed=3)
    a = IDEC(3, n_init=3, random_state=5, **KW).fit(X)
    assert not a.fallback_ and not a.degenerate_.any()
    assert a.best_init_ == int(np.argmax(a.restart_agreement_))
    b = IDEC(3, n_init=3, random_state=5, **KW).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    off = IDEC(3, n_init=3, random_state=5, guard=False, **KW).fit(X)
    assert off.reference_ is None and not off.degenerate_.any()
    np.testing.assert_array_equal(off.init_objectives_, a.init_objectives_)


def test_guard_parameters_are_checked() -> None:
    X, _ = planted(60)
    with pytest.raises(CatEmbedError, match="restart_criterion"):
        IDEC(3, restart_criterion="loss", **KW).fit(X)
    with pytest.raises(CatEmbedError, match="guard"):
        IDEC(3, guard="yes", **KW).fit(X)
    with pytest.raises(CatEmbedError, match="n_init"):
        ThesisClusterer(3, n_init=0, **TKW).fit(X)


def test_thesis_n_init_restarts_and_agreement() -> None:
    X, _ = planted(60, seed=1)
    a = ThesisClusterer(3, n_init=3, random_state=2, restart_criterion="objective",
                        **TKW).fit(X)
    assert len(a.init_objectives_) == 3 and len(set(a.init_objectives_)) == 3
    finite = [v if not a.degenerate_[i] else np.inf for i, v in enumerate(a.init_objectives_)]
    assert a.fallback_ or a.best_init_ == int(np.argmin(finite))
    one = ThesisClusterer(3, n_init=1, random_state=2, **TKW).fit(X)
    assert one.init_objectives_ == a.init_objectives_[:1]  # restart r: the r-th seed only
    b = ThesisClusterer(3, n_init=3, random_state=2, **TKW).fit(X)
    c = ThesisClusterer(3, n_init=3, random_state=2, **TKW).fit(X)
    np.testing.assert_array_equal(b.labels_, c.labels_)
    assert b.fallback_ or b.best_init_ == int(np.argmax(
        np.where(b.degenerate_, -np.inf, b.restart_agreement_)))


def test_thesis_collapse_falls_back(monkeypatch) -> None:
    X, _ = planted(60, seed=1)
    original = thesis.ThesisClusterer._fit_one

    def collapse(self, *a, **kw):
        run = original(self, *a, **kw)
        run["labels"] = np.zeros(len(X), dtype=np.int64)
        return run

    monkeypatch.setattr(thesis.ThesisClusterer, "_fit_one", collapse)
    with pytest.warns(CatEmbedWarning, match="falling back"):
        m = ThesisClusterer(3, n_init=2, random_state=7, **TKW).fit(X)
    assert m.fallback_ and m.degenerate_.all()
    np.testing.assert_array_equal(m.labels_, _reference_kmeans(X, 3, 7))
    np.testing.assert_array_equal(m.predict(X), m.labels_)


@pytest.mark.parametrize("network", ["ae", "attention"])
def test_thesis_value_init_starts_from_cde_vectors(network) -> None:
    from catembed.deep._thesis_nets import TOKEN_DIM, _Values, embedding_width
    from catembed.deep._training import initial_value_vectors

    X, _ = planted(60, seed=1)
    m = ThesisClusterer(3, network=network, value_init="cde", epochs=0, n_blocks=1,
                        random_state=3).fit(X)  # no training step: the start is kept
    enc = m.encoding_
    seed = int(check_random_state(3).randint(np.iinfo(np.int32).max))
    width = max([TOKEN_DIM] + [embedding_width(int(v)) for v in enc.sizes])
    rows = initial_value_vectors(enc, "cde", width, random_state=seed)
    tables = next(mod for mod in m.model_.modules() if isinstance(mod, _Values)).tables
    for j, table in enumerate(tables):
        off, size = int(enc.offsets[j]), int(enc.sizes[j])
        w = table.weight.shape[1]
        np.testing.assert_allclose(table.weight.detach().numpy()[:size],
                                   rows[off:off + size, :w], rtol=1e-5, atol=1e-6)
        assert not table.weight.detach().numpy()[size].any()  # unseen value: zero
    with pytest.raises(CatEmbedError, match="value_init"):
        ThesisClusterer(3, value_init="pca", **TKW).fit(X)


def test_reference_partition_of_a_larger_table_streams(monkeypatch):
    import catembed.deep._guard as guard

    rng = np.random.RandomState(0)
    codes = rng.randint(0, 3, size=(400, 2)).astype(np.uint8)
    nums = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal(6, 1, (200, 2))]).astype(np.float32)
    full = guard.reference_partition(codes, nums, 2, seed=0)
    monkeypatch.setattr(guard, "REFERENCE_SAMPLE", 100)
    sampled = guard.reference_partition(codes, nums, 2, seed=0)
    for key in ("sizes", "shares", "code_mean", "code_scale", "mean", "scale"):
        assert np.allclose(sampled.state[key], full.state[key])
    assert len(sampled.labels) == 400
    assert np.array_equal(sampled.labels, sampled.predict(codes, nums))
    assert guard.ari_codes(full.labels, sampled.labels) == 1.0


def test_reference_state_and_labels_hold_no_full_length_wide_copy():
    """The guard's statistics are read chunk by chunk: NumPy allocates far less than one
    ``float64`` column of a 1M-row table (8 MB; before: every column at once, 40 MB), and
    the reference labels take the narrowest type (the ARI and counts work on them as they
    are)."""
    import tracemalloc

    import catembed.deep._guard as guard

    rng = np.random.RandomState(0)
    n = 1_000_000
    codes = rng.randint(0, 5, size=(n, 3)).astype(np.uint8)
    nums = rng.normal(size=(n, 2)).astype(np.float32)
    tracemalloc.start()
    try:
        state = guard.reference_state(codes, nums)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * 2**20
    one = codes[:, 1].astype(np.float64)
    assert np.isclose(state["code_mean"][1], one.mean(), rtol=1e-12)
    assert np.isclose(state["code_scale"][1], one.std(), rtol=1e-12)
    assert np.allclose(state["shares"][5:10] * n, np.bincount(codes[:, 1]))
    labels = rng.randint(0, 3, size=n).astype(guard.label_dtype(3))
    d = guard.diagnose(labels, labels[::-1].copy())
    assert abs(d["ari_reference"]) < 1e-3 and d["effective"] == pytest.approx(3, abs=1e-3)


def test_thesis_clusterer_labels_are_int32_and_the_reference_narrow():
    X, _ = planted()
    m = ThesisClusterer(3, **TKW).fit(X)
    assert m.labels_.dtype == np.int32
    assert m.reference_.labels.dtype == np.int16
    assert all(v.dtype == np.int16 for v in m.stage_labels_.values())


def test_coded_numbers_equal_the_float_numbers():
    """Numbers with few distinct values are held as codes into their values: the rows they
    give equal ``encode_compact``'s ``float32`` numbers (missing numbers too), and a column
    with too many values leaves the numbers as floats."""
    import pandas as pd

    from catembed.deep import _data

    df = pd.DataFrame({"a": [1.0, np.nan, 2.5, 0.0, 3.0, 1.0, 7.25],
                       "b": [5, 5, 6, 7, 8, 9, 5],
                       "k": list("xyxyxyz")})
    enc = _data.fit_encoding(df, ["k"], ["a", "b"])
    _, nums = _data.encode_compact(enc, df)
    coded = _data.code_numbers(enc, df)
    assert coded.codes.dtype == np.uint8 and coded.shape == (7, 2)
    assert len(coded.values) == 6 + 5  # a: 1, 2.5, 0, 3, 7.25 and missing; b: 5 values
    assert np.array_equal(coded[:], nums)
    assert np.array_equal(coded[np.array([6, 1, 1])], nums[[6, 1, 1]])
    assert np.array_equal(coded[2:5, 1], nums[2:5, 1])
    assert np.array_equal(_data.encode_compact(enc, df, numbers=False)[1].shape, (7, 0))
    wide = pd.DataFrame({"a": np.arange(40_000) / 7.0, "k": ["x", "y"] * 20_000})
    assert _data.code_numbers(_data.fit_encoding(wide, ["k"], ["a"]), wide) is None
    assert _data.code_numbers(_data.fit_encoding(df, ["k"], []), df[["k"]]) is None


def test_thesis_clusterer_same_fit_with_coded_or_float_numbers(monkeypatch):
    import catembed.deep._data as data

    X, _ = planted()
    X = X.assign(num=np.round(np.random.RandomState(0).normal(size=len(X)), 1))
    coded = ThesisClusterer(3, network="ft-transformer", random_state=0, **TKW).fit(X)
    monkeypatch.setattr(data, "NUMBER_CODES_MAX", 0)  # every table keeps float numbers
    floats = ThesisClusterer(3, network="ft-transformer", random_state=0, **TKW).fit(X)
    assert np.array_equal(coded.labels_, floats.labels_)
    assert coded.pretrain_loss_ == floats.pretrain_loss_
    assert np.array_equal(coded.reference_.labels, floats.reference_.labels)


@pytest.mark.parametrize("cls", [IDEC, AttentionClusterer])
def test_deep_clusterers_same_fit_with_coded_or_float_numbers(monkeypatch, cls):
    import catembed.deep._data as data

    X, _ = planted()
    X = X.assign(num=np.round(np.random.RandomState(0).normal(size=len(X)), 1))
    kw = {"pretrain_steps": 30, "cluster_steps": 30, "update_interval": 10, "random_state": 0}
    coded = cls(3, **kw).fit(X)
    monkeypatch.setattr(data, "NUMBER_CODES_MAX", 0)  # every table keeps float numbers
    floats = cls(3, **kw).fit(X)
    assert np.array_equal(coded.labels_, floats.labels_)
    assert coded.objective_ == floats.objective_
    assert np.array_equal(coded.transform(X), floats.transform(X))


def _heavy_tailed(n: int = 240, seed: int = 0):
    """Three groups seen by two categorical columns (80% pure) and one number, beside two
    heavy-tailed numbers of pure noise (an income-like column up to ~1e6 and a log-normal
    of sigma 3): the shape on which the vote reference's z-scored numbers fail (issue 42)."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(3), n // 3)

    def cat(p):
        return [f"{p}{t if rng.rand() < 0.8 else rng.randint(3)}" for t in y]

    return pd.DataFrame({"a": cat("a"), "b": cat("b"), "x": 2.0 * (y - 1) + rng.randn(n),
                         "income": np.exp(10 + 2.0 * rng.randn(n)).round(),
                         "w": np.exp(3 * rng.randn(n))}), y


def test_fallback_on_heavy_tailed_numbers_finds_the_groups(monkeypatch) -> None:
    """Issue 42: the deep clusterers fall back to the rank reference, which finds the
    planted groups where the vote reference (the fallback before) splits off outliers."""
    X, y = _heavy_tailed()
    original = clustering._DeepClusterer._fit_one

    def collapse(self, *a, **kw):
        run = original(self, *a, **kw)
        run["labels"] = np.zeros(len(X), dtype=int)
        return run

    monkeypatch.setattr(clustering._DeepClusterer, "_fit_one", collapse)
    with pytest.warns(CatEmbedWarning, match="falling back"):
        m = IDEC(3, random_state=2, **KW).fit(X)
    assert m.fallback_ and adjusted_rand_score(y, m.labels_) > 0.8
    assert adjusted_rand_score(y, _reference_kmeans(X, 3, 2)) < 0.6  # the vote's: 0.53


def test_explained_share_by_hand() -> None:
    from catembed.deep import _reference

    codes = np.array([[0], [0], [1], [1], [2], [2]])
    nums = np.array([[1.0], [2.0], [30.0], [40.0], [500.0], [600.0]])
    ref = _reference.rank_reference(codes, nums, 3, seed=0)
    x = ref.space_of(codes, nums).toarray()
    # ranks 1..6 -> normal scores, z-scored; the one-hot column of three equal values
    z = norm_scores = np.array([-1.383, -0.674, -0.210, 0.210, 0.674, 1.383])
    np.testing.assert_allclose(x[:, 3], (z - z.mean()) / norm_scores.std(), atol=2e-3)
    np.testing.assert_allclose(x[:, :3].sum(axis=1), 1 / np.sqrt(1 - 3 / 9))
    for labels in ([0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 0, 1], [0, 0, 0, 1, 1, 1]):
        lab = np.asarray(labels)
        within = sum(((x[lab == c] - x[lab == c].mean(axis=0)) ** 2).sum() for c in set(labels))
        total = ((x - x.mean(axis=0)) ** 2).sum()
        assert _reference.explained(lab, codes, nums, ref) == pytest.approx(1 - within / total)
    assert _reference.explained([0, 0, 1, 1, 2, 2], codes, nums, ref) > 0.9


@pytest.mark.parametrize("cls", [IDEC, ThesisClusterer])
def test_a_partition_far_below_the_reference_warns(cls, monkeypatch) -> None:
    """A partition that is not degenerate (balanced, some agreement with the reference) but
    explains a fraction of what the rank reference explains warns; the planted one not."""
    X, y = planted(90, seed=2)
    noisy = np.where(np.arange(90) % 4 == 0, y, np.random.RandomState(0).randint(0, 3, 90))
    owner = thesis.ThesisClusterer if cls is ThesisClusterer else clustering._DeepClusterer
    original = owner._fit_one
    kw = TKW if cls is ThesisClusterer else KW

    def fixed(labels):
        def fit_one(self, *a, **k):
            run = original(self, *a, **k)
            run["labels"] = labels.copy()
            return run
        return fit_one

    monkeypatch.setattr(owner, "_fit_one", fixed(noisy))
    with pytest.warns(CatEmbedWarning, match="the reference k-means explains"):
        m = cls(3, random_state=1, **kw).fit(X)
    assert not m.fallback_ and m.guard_check_["warned"]
    assert m.guard_check_["ratio"] < 0.5 < _reference_threshold()
    assert m.guard_check_["agreement"] < 0.5
    monkeypatch.setattr(owner, "_fit_one", fixed(y))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatEmbedWarning)
        good = cls(3, random_state=1, **kw).fit(X)
    assert not good.guard_check_["warned"] and good.guard_check_["ratio"] > 0.96
    off = cls(3, random_state=1, guard=False, **kw).fit(X)
    assert off.guard_check_ is None


def _reference_threshold() -> float:
    from catembed.deep._reference import CHECK_RATIO

    return CHECK_RATIO
