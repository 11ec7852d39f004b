"""MCA and one-hot PCA on tables of many values (issue 40: wide tables): the leading axes
from the counts' factor (one thin SVD) or from products with the stored counts (Lanczos)
equal the dense decomposition's, and a wide table is fitted instead of refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import MCA, OneHotPCA
from catembed.embed._wide_axes import leading_axes
from catembed.embed.mca import _top_eigen
from catembed.stats import ValueStatistics
from catembed.stats._gram import GramCounts


def _planted(n: int, m: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    pref = rng.integers(0, 4, (3, m))
    codes = np.where(rng.random((n, m)) < 0.6, pref[g], rng.integers(0, 4, (n, m)))
    return pd.DataFrame(np.array(list("abcd"), dtype=object)[codes],
                        columns=[f"c{j}" for j in range(m)])


def _stats(df: pd.DataFrame, factor: bool) -> ValueStatistics:
    cats = [np.array(sorted(df[c].unique()), dtype=object) for c in df.columns]
    codes = np.column_stack([np.searchsorted(c, df[col].to_numpy())
                             for c, col in zip(cats, df.columns, strict=True)])
    return ValueStatistics.from_codes(codes, cats, list(df.columns), dense_limit=0,
                                      factor=factor)


@pytest.mark.parametrize("method", ["mca", "pca"])
@pytest.mark.parametrize("factor", [True, False])
def test_leading_axes_equal_the_dense_decomposition(method, factor):
    df = _planted(12, 40)  # 12 rows, about 160 values: rank 11
    stats = _stats(df, factor)
    assert isinstance(stats.cooc, GramCounts) == factor
    n, q = stats.n_rows, stats.n_features
    p = stats.probabilities()
    if method == "mca":
        a, scale = n * q * q, 1.0 / np.sqrt(p / q)
    else:
        a, scale = float(n), np.ones(stats.n_values)
    M = stats.cooc_dense() / a - (n / a) * np.outer(p, p)
    M = scale[:, None] * M * scale[None, :]
    want_vals, want_vecs = _top_eigen(M, 3)
    got = leading_axes(stats, 3, a, scale)
    assert got is not None
    np.testing.assert_allclose(got[0], want_vals, rtol=1e-9)
    np.testing.assert_allclose(got[1], want_vecs, atol=1e-8)
    if factor:  # every non-zero axis (rank n - 1): one-hot PCA without n_components
        every = leading_axes(stats, n - 1, a, scale)
        np.testing.assert_allclose(every[0], _top_eigen(M, n - 1)[0], rtol=1e-9,
                                   atol=1e-12 * want_vals[0])


def test_no_route_where_it_does_not_apply():
    stats = _stats(_planted(12, 40), factor=False)  # stored counts, k near l / 16
    assert leading_axes(stats, stats.n_values // 16, 12.0, np.ones(stats.n_values)) is None
    factored = _stats(_planted(12, 40), factor=True)  # the rank of a thin SVD: n - 1
    assert leading_axes(factored, 11, 12.0, np.ones(factored.n_values)) is not None
    assert leading_axes(factored, 12, 12.0, np.ones(factored.n_values)) is None


@pytest.mark.parametrize("cls, kw", [(MCA, {"n_components": 3}),
                                     (OneHotPCA, {"n_components": 3})])
def test_factor_and_stored_counts_give_one_embedding(cls, kw, monkeypatch):
    # 30 rows x 1,100 columns of four values (4,400 values: above the dense limit)
    df = _planted(30, 1_100, seed=1)
    factored = cls(**kw).fit(df)
    assert isinstance(factored.stats_.cooc, GramCounts)
    monkeypatch.setattr(cls, "_prefers_factor", False)
    stored = cls(**kw).fit(df)
    assert not isinstance(stored.stats_.cooc, GramCounts)
    Zf, Zs = np.asarray(factored.transform(df)), np.asarray(stored.transform(df))
    assert Zf.shape == Zs.shape
    np.testing.assert_allclose(Zf, Zs, atol=1e-6 * np.abs(Zs).max())


def test_a_wide_table_is_fitted_not_refused(monkeypatch):
    # 30 x 5,000 (20,000 values): the cost check asked for four 20,000^2 matrices (12 GiB)
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "2G")
    df = _planted(30, 5_000, seed=2)
    Z = MCA(n_components=2).fit_transform(df)
    assert Z.shape == (30, 2) and np.isfinite(np.asarray(Z)).all()
    Z = OneHotPCA(n_components=4).fit_transform(df)
    assert Z.shape == (30, 4) and np.isfinite(np.asarray(Z)).all()


def _famd_reference(df: pd.DataFrame, num: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """FAMD's ``Z = [x_std, (O - p) / sqrt(p)]`` written out, and its covariance."""
    x = df[num].to_numpy(dtype=float)
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    O = pd.get_dummies(df.drop(columns=num).astype(str)).to_numpy(dtype=float)
    p = O.mean(axis=0)
    Z = np.hstack([z, (O - p) / np.sqrt(p)])
    return Z, Z.T @ Z / len(df)


@pytest.mark.parametrize(("rows", "cells"), [(12, None), (60, None), (60, 0)])
def test_famd_axes_equal_the_dense_decomposition(rows, cells, monkeypatch):
    """12 rows: the thin SVD; 60: Lanczos on products with Z's factor, or (no cells
    allowed for it) with the counts and blocks."""
    import catembed.embed._wide_axes as wide
    from catembed.embed._wide_axes import famd_axes

    if cells is not None:
        monkeypatch.setattr(wide, "_SVD_CELLS", cells)

    df = _planted(rows, 40, seed=1)
    rng = np.random.default_rng(2)
    num = ["u", "v"]
    df["u"], df["v"] = rng.normal(size=rows), rng.exponential(size=rows)
    cat = df.drop(columns=num)
    stats = _stats(cat, factor=False)
    codes = np.column_stack([np.searchsorted(stats.categories[j], cat.iloc[:, j].to_numpy())
                             for j in range(cat.shape[1])])
    Z, cov = _famd_reference(df, num)
    n = rows
    z = Z[:, :2]
    O = Z[:, 2:] * np.sqrt(stats.counts / n) + stats.counts / n
    nc = z.T @ O / n / np.sqrt(stats.counts / n)
    got = famd_axes(z, codes, stats, nc, 3)
    assert got is not None
    want_vals, want_vecs = _top_eigen(cov, 3)
    np.testing.assert_allclose(got[0], want_vals, rtol=1e-9)
    np.testing.assert_allclose(got[1], want_vecs, atol=1e-8)


def test_famd_on_a_wide_table_matches_its_definition():
    """30 rows x 1,100 four-valued columns and two numbers (4,402 > 4,096 values): fitted
    without the dense covariance, the same axes and coordinates as ``Z``'s own SVD."""
    from catembed.embed import FAMD

    df = _planted(30, 1100, seed=3)
    rng = np.random.default_rng(4)
    df["u"], df["v"] = rng.normal(size=30), rng.normal(size=30)
    model = FAMD(n_components=4)
    coords = model.fit_transform(df)
    Z, _ = _famd_reference(df, ["u", "v"])
    _, sv, Vt = np.linalg.svd(Z / np.sqrt(30), full_matrices=False)
    np.testing.assert_allclose(model.eigenvalues_, sv[:4] ** 2, rtol=1e-9)
    want = Z @ Vt[:4].T
    signs = np.sign(np.sum(coords * want, axis=0))
    np.testing.assert_allclose(coords, want * signs, atol=1e-8)
    np.testing.assert_allclose(model.total_inertia_, np.sum(sv**2), rtol=1e-9)


@pytest.mark.parametrize("cls", [MCA, OneHotPCA])
def test_few_rows_under_the_dense_limit_take_the_thin_svd(cls, monkeypatch):
    """60 rows x 300 four-valued columns (1,200 values: above FACTOR_VALUES, under the dense
    limit): counted as the factor, the axes from one thin SVD; the coordinates are those of
    the dense decomposition (FACTOR_VALUES raised) to rounding."""
    import catembed.stats._counting as counting

    df = _planted(60, 300, seed=5)
    model = cls(n_components=4).fit(df)
    assert isinstance(model.stats_.cooc, GramCounts)
    monkeypatch.setattr(counting, "FACTOR_VALUES", 10**9)
    dense = cls(n_components=4).fit(df)
    assert not isinstance(dense.stats_.cooc, GramCounts)
    np.testing.assert_allclose(model.transform(df), dense.transform(df), atol=1e-9)
