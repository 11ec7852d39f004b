"""CDE on large value sets (issue 40 item 2): the bounded fit against the exact one."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from catembed import CDE, CatEmbedWarning
from catembed.embed._granularity import (
    LARGE_VALUE_SET,
    MAX_CLUSTERS,
    MAX_COMPONENTS,
    sketched_granularity_kmeans,
)
from catembed.embed._indicator_pca import beta_pca, randomized_pca_scores
from catembed.embed.cde import cde_influence_matrices, multi_granularity_kmeans
from catembed.stats import ValueStatistics


def noisy_planted(n_rows: int, n_cols: int, n_values: int, seed: int = 0):
    """Issue 40's table: per column one preferred value per group (5 groups), taken with
    probability 0.7, else any of the column's values at random."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, 5, n_rows)
    data = {}
    for j in range(n_cols):
        pref = rng.choice(n_values, size=5, replace=n_values < 5)
        noise = rng.integers(0, n_values, n_rows)
        codes = np.where(rng.random(n_rows) < 0.7, pref[groups], noise)
        data[f"a{j}"] = [f"a{j}_v{v}" for v in codes]
    return pd.DataFrame(data), groups


@pytest.fixture(scope="module")
def small_stats():
    X, _ = noisy_planted(400, 6, 12)
    return ValueStatistics.from_frame(X)


def test_sketched_sweep_without_projection_is_the_exact_sweep(small_stats):
    m_c, _ = cde_influence_matrices(small_stats)
    ind_a, steps_a = sketched_granularity_kmeans(m_c, 10, 3, 100, max_k=10**6, dim=10**6)
    ind_b, steps_b = multi_granularity_kmeans(m_c, 10, 3, 100, engine="sklearn",
                                              sparse_output=True)
    assert steps_a == steps_b
    assert (ind_a != ind_b).nnz == 0


def test_sketched_sweep_stops_at_max_k(small_stats):
    m_c, m_o = cde_influence_matrices(small_stats)
    for M in (m_c, m_o):
        ind, steps = sketched_granularity_kmeans(M, 10, 0, 100, max_k=5, dim=8)
        assert [s.k for s in steps] == list(range(2, 2 + len(steps)))
        assert steps[-1].k <= 5
        assert ind.shape == (M.shape[0], sum(s.n_kept for s in steps))
        np.testing.assert_array_equal(ind.sum(axis=1).A1 <= len(steps), True)


def test_randomized_pca_matches_the_exact_scores_at_full_rank():
    rng = np.random.default_rng(0)
    # indicator of 6 random partitions of 50 values (rank < 50, distinct singular values)
    cols = [np.eye(k)[rng.integers(0, k, 50)] for k in (2, 3, 4, 5, 6, 7)]
    X = sparse.csr_matrix(np.hstack(cols))
    exact = beta_pca(X, solver="svd")
    fast = beta_pca(X, solver="randomized", n_components=50, random_state=0)
    assert fast.shape == exact.shape
    np.testing.assert_allclose(fast, exact, atol=1e-9)
    # fewer components: the leading ones, same variances
    lead = randomized_pca_scores(X, 5, 0, n_iter=8)
    np.testing.assert_allclose(np.var(lead, axis=0), np.var(exact[:, :5], axis=0), rtol=1e-6)


def test_influence_matrices_match_the_direct_formulas(small_stats):
    stats = small_stats
    cnt = stats.counts.astype(np.float64)
    cooc = stats.cooc_dense()
    att = stats.attribute_of
    psi_v = stats.normalized_mutual_information()[np.ix_(att, att)]
    ratio = cnt[:, None] / cnt[None, :]
    for coupling, want in (("code", np.where(cooc > 0, psi_v * ratio, ratio)),
                           ("paper", psi_v * ratio.T)):
        np.fill_diagonal(want, 1.0)
        m_c, m_o = cde_influence_matrices(stats, coupling)
        np.testing.assert_array_equal(m_o, want)  # bit for bit
        np.testing.assert_array_equal(m_c, cooc / cnt[:, None])


def _pairwise_mutual_information(stats: ValueStatistics) -> np.ndarray:
    """The per-pair loop ``mutual_information`` ran before issue 40."""
    n, p, offs, cooc = stats.n_rows, stats.probabilities(), stats.offsets, stats.cooc_dense()
    mi = np.zeros((stats.n_features, stats.n_features))
    for a in range(stats.n_features):
        for b in range(a + 1, stats.n_features):
            ra, rb = slice(offs[a], offs[a + 1]), slice(offs[b], offs[b + 1])
            pab = cooc[ra, rb] / n
            outer = np.outer(p[ra], p[rb])
            nz = pab > 0
            mi[a, b] = mi[b, a] = float(np.sum(pab[nz] * np.log(pab[nz] / outer[nz])))
    mi[np.diag_indices(stats.n_features)] = stats.entropy()
    return np.maximum(mi, 0.0)


@pytest.mark.parametrize("shape", [(6, 12), (40, 3), (3, 40)])
def test_mutual_information_is_bit_identical_to_the_pairwise_sums(shape):
    X, _ = noisy_planted(300, *shape, seed=2)
    dense = ValueStatistics.from_frame(X)
    want = _pairwise_mutual_information(dense)
    sparse_stats = ValueStatistics(dense.feature_names, dense.categories, dense.n_rows,
                                   dense.counts.copy(), sparse.csr_array(dense.cooc_dense()))
    np.testing.assert_array_equal(dense.mutual_information(), want)
    np.testing.assert_array_equal(sparse_stats.mutual_information(), want)


def test_large_value_set_fit_is_bounded():
    # issue 40: noise values made the exact sweep run to k ~ l / 9 and keep ~l components
    X, _ = noisy_planted(2000, 11, 100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        est = CDE(random_state=0).fit(X)
    assert est.stats_.n_values > LARGE_VALUE_SET
    assert max(s.k for v in est.granularity_steps_.values() for s in v) <= MAX_CLUSTERS
    assert 5 <= est.n_components_ <= MAX_COMPONENTS
    assert est.value_clusters_.shape[1] <= MAX_CLUSTERS**2


def test_bounded_fit_finds_the_groups_as_the_exact_fit_does():
    X, groups = noisy_planted(600, 6, 20, seed=1)
    scores = {}
    embeddings = {}
    for bounded in (False, True):
        est = CDE(random_state=0)
        est._large_value_set = 0 if bounded else None
        Z = est.fit(X).transform(X)
        embeddings[bounded] = Z
        labels = KMeans(5, n_init=4, random_state=0).fit_predict(Z)
        scores[bounded] = adjusted_rand_score(groups, labels)
        if bounded:
            assert est.n_components_ <= MAX_COMPONENTS
            assert np.isfinite(Z).all()
            again = CDE(random_state=0)
            again._large_value_set = 0
            np.testing.assert_array_equal(again.fit(X).transform(X), Z)  # same seed
    assert scores[False] > 0.9
    assert scores[True] > scores[False] - 0.05
