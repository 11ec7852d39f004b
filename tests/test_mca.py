"""MCA and FAMD from the shared statistics, with prince as the oracle."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CatEmbedError, CatEmbedWarning, compute_statistics
from catembed.embed.mca import FAMD, MCA


@pytest.fixture(scope="module")
def table():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.choice(list("abcd"), size=(200, 5)), columns=list("vwxyz"))
    df["v"] = np.where(df.w == "a", "a", df.v)  # a coupling between v and w
    return df


def _same_up_to_sign(a, b, atol=1e-6):
    s = np.sign((a * b).sum(axis=0))
    np.testing.assert_allclose(a * s, b, atol=atol)


def test_mca_equals_prince(table):
    prince = pytest.importorskip("prince")
    ours = MCA(n_components=4).fit(table)
    ref = prince.MCA(n_components=4, engine="scipy").fit(table)
    _same_up_to_sign(ours.transform(table), ref.row_coordinates(table).to_numpy())
    _same_up_to_sign(ours.value_coordinates_.to_numpy(),
                     ref.column_coordinates(table).to_numpy())
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, atol=1e-10)
    np.testing.assert_allclose(ours.explained_inertia_ * 100, ref.percentage_of_variance_,
                               atol=1e-8)


def test_mca_by_hand_two_binary_attributes():
    # two binary attributes that always agree: one non-trivial axis with inertia 1,
    # objects at +-1 (principal coordinates), total inertia (J - Q)/Q = 1
    df = pd.DataFrame({"a": list("xxyy"), "b": list("uuvv")})
    m = MCA(n_components=1).fit(df)
    np.testing.assert_allclose(m.eigenvalues_, [1.0])
    assert m.total_inertia_ == 1.0
    np.testing.assert_allclose(np.abs(m.transform(df)).ravel(), [1, 1, 1, 1])
    assert m.transform(df)[0, 0] == pytest.approx(-m.transform(df)[2, 0])


def test_mca_from_merged_chunks_equals_whole(table):
    whole = MCA(n_components=3).fit(table)
    stats = compute_statistics(iter([table.iloc[:70], table.iloc[70:]]))
    parts = MCA(n_components=3).fit_statistics(stats)
    np.testing.assert_allclose(parts.transform(table), whole.transform(table), atol=1e-12)


def _pool_two_rarest_by_hand(df, columns):
    """``df`` with the two rarest values of each of ``columns`` relabelled as one value
    (ties: the earlier value in sorted order first, as ``max_categories`` pools them)."""
    out = df.copy()
    for col in columns:
        rare = df[col].value_counts().sort_index().sort_values(kind="mergesort").index[:2]
        out[col] = df[col].where(~df[col].isin(rare), "zz_rare")
    return out


def test_mca_pools_rare_values_like_a_relabelled_table(table):
    # max_categories=3 pools the two rarest values of each column into one value: the
    # same MCA as on the table with those values relabelled by hand
    with pytest.warns(CatEmbedWarning, match="pooled rare values"):
        pooled = MCA(n_components=3, max_categories=3).fit(table)
    relabelled = _pool_two_rarest_by_hand(table, table.columns)
    ref = MCA(n_components=3).fit(relabelled)
    _same_up_to_sign(pooled.transform(table), ref.transform(relabelled), atol=1e-10)
    assert all(len(c) == 3 for c in pooled.categories_)


def test_mca_caps_components_and_validates(table):
    df = pd.DataFrame({"a": list("xxyy"), "b": list("uvuv")})
    with pytest.warns(CatEmbedWarning, match="non-trivial"):
        m = MCA(n_components=5).fit(df)
    assert m.n_components_ == 2
    with pytest.raises(CatEmbedError, match="n_components"):
        MCA(n_components=0).fit(df)


def test_mca_save_load_roundtrip(table, tmp_path):
    m = MCA(n_components=3).fit(table)
    m.save(tmp_path / "m.npz")
    back = MCA.load(tmp_path / "m.npz")
    np.testing.assert_allclose(back.transform(table), m.transform(table))
    np.testing.assert_allclose(back.explained_inertia_, m.explained_inertia_)


def test_famd_equals_prince(table):
    prince = pytest.importorskip("prince")
    rng = np.random.default_rng(1)
    df = table.copy()
    df["n1"] = rng.normal(size=len(df))
    df["n2"] = rng.normal(size=len(df)) + (df.v == "a")
    ours = FAMD(n_components=4).fit(df)
    ref = prince.FAMD(n_components=4, engine="scipy").fit(df)
    _same_up_to_sign(ours.transform(df), ref.row_coordinates(df).to_numpy())
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, atol=1e-10)
    assert list(ours.get_feature_names_out()) == ["famd0", "famd1", "famd2", "famd3"]


def test_famd_on_categorical_table_is_scaled_mca(table):
    f = FAMD(n_components=3).fit(table)
    m = MCA(n_components=3).fit(table)
    q = table.shape[1]
    np.testing.assert_allclose(f.eigenvalues_, q * m.eigenvalues_, atol=1e-10)
    ratio = f.transform(table) / m.transform(table)
    np.testing.assert_allclose(np.abs(ratio), np.sqrt(q), rtol=1e-8)


def test_famd_unknown_values(table):
    f = FAMD(n_components=2).fit(table)
    new = table.iloc[:2].copy()
    new.iloc[0, 0] = "zzz"
    with pytest.raises(CatEmbedError, match="not seen"):
        f.transform(new)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = FAMD(n_components=2, handle_unknown="ignore").fit(table).transform(new)
    assert np.isfinite(out).all()


def test_famd_pools_rare_values_like_a_relabelled_table(table):
    # as MCA: max_categories=3 pools the two rarest values of each categorical column,
    # the same FAMD as on the table relabelled by hand; numeric columns are untouched
    rng = np.random.default_rng(2)
    df = table.copy()
    df["n1"] = rng.normal(size=len(df)) + (df.w == "b")
    with pytest.warns(CatEmbedWarning, match="FAMD pooled rare values"):
        pooled = FAMD(n_components=3, max_categories=3).fit(df)
    relabelled = _pool_two_rarest_by_hand(df, table.columns)
    ref = FAMD(n_components=3).fit(relabelled)
    _same_up_to_sign(pooled.transform(df), ref.transform(relabelled), atol=1e-10)
    np.testing.assert_allclose(pooled.eigenvalues_, ref.eigenvalues_, atol=1e-12)
    assert [len(c) for c in pooled.infrequent_categories_] == [2] * table.shape[1]
    # a pooled value seen again at transform maps to the infrequent value, not "unknown"
    assert np.isfinite(pooled.transform(df.iloc[:5])).all()


def test_famd_refuses_a_huge_value_space_before_counting(monkeypatch):
    # one identifier-like column of 20,000 values without pooling: a 3.2 GB covariance;
    # with a 64 MB limit it is refused by name, before the co-occurrences are counted
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", str(64 * 2**20))
    df = pd.DataFrame({"id": [f"r{i}" for i in range(20000)], "c": ["a", "b"] * 10000,
                       "x": np.arange(20000.0)})
    with pytest.raises(CatEmbedError, match="FAMD on .* would need about"):
        FAMD(n_components=2, max_categories=None).fit(df)
    with pytest.warns(CatEmbedWarning, match="pooled"):
        f = FAMD(n_components=2).fit(df)
    assert len(f.stats_.categories[0]) == 100


@parametrize_with_checks([MCA(n_components=2), FAMD(n_components=2)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        check(estimator)


def test_mca_with_a_constant_column_equals_prince():
    """issue 21 item 14: a constant column counts in Q (prince's indicator matrix keeps it),
    so eigenvalues and row coordinates equal prince's (they were 5/4 of them)."""
    prince = pytest.importorskip("prince")
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.choice(list("abc"), size=(30, 4)), columns=list("wxyz"))
    df["k"] = "c"
    with pytest.warns(CatEmbedWarning, match="single value"):
        ours = MCA(n_components=2).fit(df)
    ref = prince.MCA(n_components=2, engine="scipy").fit(df)
    np.testing.assert_allclose(ours.eigenvalues_, ref.eigenvalues_, atol=1e-8)
    np.testing.assert_allclose(ours.eigenvalues_, [0.3463688, 0.28752594], atol=1e-7)
    _same_up_to_sign(ours.transform(df), ref.row_coordinates(df).to_numpy(), atol=1e-8)
    np.testing.assert_allclose(ours.explained_inertia_ * 100, ref.percentage_of_variance_,
                               atol=1e-8)
    assert list(ours.dropped_features_) == ["k"]


def test_mca_caps_components_at_the_rank():
    """issue 21 item 14: axes beyond the rank (inertia 0) are not returned; they gave a
    nonzero constant coordinate (0.786 on every row)."""
    df = pd.DataFrame({"a": list("xxyyxy"), "b": list("xxyyxy")})  # rank 1, J - Q = 2
    with pytest.warns(CatEmbedWarning, match="1 non-trivial MCA axes"):
        m = MCA(n_components=2).fit(df)
    assert m.n_components_ == 1
    np.testing.assert_allclose(m.eigenvalues_, [1.0])
    np.testing.assert_allclose(np.abs(m.transform(df)), np.ones((6, 1)))
    assert list(m.get_feature_names_out()) == ["mca0"]
