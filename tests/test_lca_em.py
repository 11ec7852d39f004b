"""LCA's EM of all starts at once (issue 55, item 1): the chunked path's result up to
rounding, and the screened starts of the choice of k."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import catembed.cluster.lca as lca_mod
from catembed.cluster import LCA
from catembed.cluster.consensus._auto_k import _screened_loglik, lca_bic_table


def _planted(n: int = 400, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    return pd.DataFrame({f"c{j}": np.where(rng.random(n) < 0.75, g, rng.integers(0, 4, n))
                         for j in range(8)}).astype(str)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_all_starts_at_once_give_the_chunked_fit(k, monkeypatch):
    df = _planted()
    dense = LCA(k, n_init=4, random_state=0).fit(df)
    monkeypatch.setattr(lca_mod, "DENSE_CELLS", 0)
    chunked = LCA(k, n_init=4, random_state=0).fit(df)
    assert dense.n_iter_ == chunked.n_iter_
    assert dense.log_likelihood_ == pytest.approx(chunked.log_likelihood_, rel=1e-10)
    np.testing.assert_array_equal(dense.labels_, chunked.labels_)
    np.testing.assert_allclose(dense.weights_, chunked.weights_, rtol=1e-8, atol=1e-12)


def test_screened_starts_reach_the_full_fits_optimum_up_to_the_planted_k():
    df = _planted(seed=1)
    codes = np.column_stack([pd.factorize(df[c], sort=True)[0] for c in df.columns])
    uniq, counts = np.unique(codes.astype(np.int64), axis=0, return_counts=True)
    offsets = np.concatenate([[0], np.cumsum([len(np.unique(c)) for c in codes.T])])
    for k in (2, 3, 4):
        full = LCA(k, n_init=5, max_iter=300, tol=1e-6, random_state=7).fit(df)
        screened = _screened_loglik(uniq, counts.astype(float), offsets, k, 7, 5, 300, 1e-6)
        if k <= 3:  # up to the planted groups: the same optimum
            assert screened == pytest.approx(full.log_likelihood_, rel=1e-6)
        else:  # beyond: another start may win the screening, a near optimum
            assert screened == pytest.approx(full.log_likelihood_, rel=1e-3)


def test_bic_table_chooses_the_planted_k():
    df = _planted(600, seed=2)
    codes = np.column_stack([pd.factorize(df[c], sort=True)[0] for c in df.columns])
    table = lca_bic_table(codes, list(range(1, 7)), np.random.RandomState(0))
    assert int(table["bic"].idxmin()) == 3
    # k = 4 and 5 raise the BIC twice in a row: k = 6 is not fitted
    assert list(table.index) == [1, 2, 3, 4, 5] and table.attrs["not_fitted"] == [6]


def test_a_ks_bic_does_not_depend_on_where_the_range_starts():
    # each k >= 2 draws its seed in the order of k from 2, those below the range included
    df = _planted(600, seed=2)
    codes = np.column_stack([pd.factorize(df[c], sort=True)[0] for c in df.columns])
    full = lca_bic_table(codes, list(range(1, 6)), np.random.RandomState(0))
    for ks in ([3, 4, 5], [4], [2, 3]):
        part = lca_bic_table(codes, ks, np.random.RandomState(0))
        assert list(part.index) == ks
        np.testing.assert_array_equal(part["bic"].to_numpy(), full["bic"].loc[ks].to_numpy())


def test_indicators_are_the_dense_indicators_less_each_columns_first_value():
    from catembed.cluster._lca_em import indicators

    rng = np.random.default_rng(4)
    sizes = [2, 3, 1, 5]
    codes = np.column_stack([rng.integers(0, s, 50) for s in sizes]).astype(np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    full = np.zeros((50, offsets[-1]))
    full[np.arange(50)[:, None], codes + offsets[:-1][None, :]] = 1.0
    keep = np.ones(offsets[-1], dtype=bool)
    keep[offsets[:-1]] = False
    np.testing.assert_array_equal(indicators(codes, offsets), full[:, keep])


def test_screened_starts_with_shared_indicators_are_the_same_runs():
    from catembed.cluster._lca_em import em_starts, indicators

    df = _planted(seed=5)
    codes = np.column_stack([pd.factorize(df[c], sort=True)[0] for c in df.columns])
    uniq, counts = np.unique(codes.astype(np.int64), axis=0, return_counts=True)
    offsets = np.concatenate([[0], np.cumsum([len(np.unique(c)) for c in codes.T])])
    est = LCA(3)
    est._offsets = offsets
    rs = np.random.RandomState(0)
    starts = [est._init(uniq, counts.astype(float), rs) for _ in range(4)]
    alone = em_starts(uniq, counts.astype(float), offsets, starts, 20, 1e-6)
    shared = em_starts(uniq, counts.astype(float), offsets, starts, 20, 1e-6,
                       indicators(uniq, offsets))
    for a, b in zip(alone, shared, strict=True):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[2:] == b[2:]
        assert np.isfinite(a[2]) and a[3] >= 1


def test_dense_total_information_equals_the_value_statistics(monkeypatch):
    import catembed.cluster.consensus._auto_k as ak

    rng = np.random.default_rng(3)
    codes = np.column_stack([rng.integers(0, k, 300) for k in (2, 3, 5, 2, 4, 1)])
    codes[:, 1] = np.where(rng.random(300) < 0.6, codes[:, 0], codes[:, 1])
    codes, cats = ak._compact(codes)
    dense = ak._total_mi(codes, cats)
    monkeypatch.setattr(ak, "DENSE_MI_VALUES", 0)
    assert dense == pytest.approx(ak._total_mi(codes, cats), rel=1e-12, abs=1e-15)
    assert dense > 0.05
