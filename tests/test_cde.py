"""CDE (Jian et al., IJCAI 2017): influence matrices by hand, the cluster sweep, soybean."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import KMeans

from catembed import CDE, CatEmbedWarning
from catembed.datasets import load_dataset
from catembed.embed._indicator_pca import beta_pca
from catembed.embed.cde import (
    cde_influence_matrices,
    matlab_kmeans,
    multi_granularity_kmeans,
)
from catembed.metrics import f_score
from catembed.stats import ValueStatistics

BLURRY, CLEAR, BLACK, GREEN, WHITE, YELLOW, CURLED, SLIGHTLY, STRAIGHT = range(9)
PSI_TEXTURE_ROOT = 2 * (2 / 3 * math.log(2)) / (math.log(2) + math.log(3))


def test_influence_matrices_by_hand(watermelon):
    stats = ValueStatistics.from_frame(watermelon)
    m_c, m_o = cde_influence_matrices(stats)
    # M_c[i, j] = p(v_j | v_i)
    assert m_c[BLURRY, YELLOW] == pytest.approx(2 / 3)
    assert m_c[YELLOW, BLURRY] == pytest.approx(1.0)
    assert m_c[BLURRY, SLIGHTLY] == 0.0
    assert m_c[BLURRY, CLEAR] == 0.0
    np.testing.assert_allclose(np.diag(m_c), 1.0)
    # M_o (authors' code): psi * cnt(v_i)/cnt(v_j) where the two co-occur, else the ratio
    assert m_o[BLURRY, CURLED] == pytest.approx(PSI_TEXTURE_ROOT * 3 / 2)
    assert m_o[CURLED, BLURRY] == pytest.approx(PSI_TEXTURE_ROOT * 2 / 3)
    assert m_o[BLURRY, SLIGHTLY] == pytest.approx(3 / 2)
    assert m_o[BLACK, GREEN] == pytest.approx(1 / 2)  # same attribute: never co-occur
    assert m_o[BLURRY, CLEAR] == pytest.approx(1.0)
    np.testing.assert_allclose(np.diag(m_o), 1.0)


def test_paper_coupling_variant(watermelon):
    stats = ValueStatistics.from_frame(watermelon)
    _, m_o = cde_influence_matrices(stats, coupling="paper")
    # Definition 1 as printed: psi(f_i, f_j) * cnt(v_j) / cnt(v_i)
    assert m_o[BLURRY, CURLED] == pytest.approx(PSI_TEXTURE_ROOT * 2 / 3)
    assert m_o[BLACK, YELLOW] == pytest.approx(2.0)  # psi(color, color) = 1
    assert m_o[BLURRY, SLIGHTLY] == pytest.approx(PSI_TEXTURE_ROOT * 2 / 3)


def test_matlab_kmeans_is_seeded():
    X = np.random.default_rng(0).normal(size=(60, 3))
    a = matlab_kmeans(X, 4, random_state=3)
    b = matlab_kmeans(X, 4, random_state=3)
    np.testing.assert_array_equal(a, b)
    labels, n_iter = matlab_kmeans(X, 4, random_state=3, return_n_iter=True)
    np.testing.assert_array_equal(labels, a)
    assert 1 <= n_iter <= 100


def test_sweep_stops_at_the_number_of_distinct_rows():
    M = np.repeat(np.eye(3), 4, axis=0)  # 3 distinct rows, 4 copies each
    ind, steps = multi_granularity_kmeans(M, alpha=10, random_state=0)
    assert [s.k for s in steps] == [2, 3]
    assert ind.shape == (12, 5)  # 2 clusters at k=2, 3 at k=3, none dropped
    assert [s.n_dropped for s in steps] == [0, 0]
    np.testing.assert_array_equal(ind.sum(axis=1), [2] * 12)  # one cluster per granularity


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sweep_stops_when_too_many_clusters_are_dropped(seed):
    M = np.array([[0.0], [0.1], [10.0], [10.1], [20.0], [100.0]])
    ind, steps = multi_granularity_kmeans(M, alpha=10, random_state=seed)
    # k=2 separates the outlier: its cluster has one member and the other cluster's
    # complement has one member, so both columns go; 2 > ceil(2 / 10) = 1 stops the sweep.
    assert len(steps) == 1
    assert (steps[0].k, steps[0].n_nonempty, steps[0].n_dropped, steps[0].n_kept) == (2, 2, 2, 0)
    assert ind.shape == (6, 0)


def test_beta_pca_keeps_components_with_range_at_least_beta():
    ind = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 0], [0, 1, 0]], dtype=float)
    z = beta_pca(ind, beta=1e-10)
    assert z.shape == (4, 1)  # rank one after centring
    np.testing.assert_allclose(z[0], z[1])
    assert abs(z[0, 0] - z[2, 0]) == pytest.approx(math.sqrt(3))


def test_cde_fitted_attributes(watermelon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        cde = CDE(random_state=0).fit(watermelon)
    r = cde.n_components_
    Z = cde.transform(watermelon)
    assert Z.shape == (6, 3 * r)
    names = cde.get_feature_names_out()
    assert names[0] == "texture__cde0" and names[-1] == f"root__cde{r - 1}"
    emb = cde.value_embedding_
    assert emb.shape == (9, r)
    assert emb.index[BLURRY] == ("texture", "blurry")
    np.testing.assert_allclose(Z[1, :r], emb.loc[("texture", "blurry")].to_numpy())
    assert cde.M_c_.shape == cde.M_o_.shape == (9, 9)
    assert cde.value_clusters_.shape[0] == 9
    assert set(cde.granularity_steps_) == {"M_c", "M_o"}
    assert cde.n_iter_ >= 1


def test_cde_random_state_decides_the_result():
    ds = load_dataset("soybean_small")
    X = ds.frame[ds.categorical_columns]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        a = CDE(random_state=5).fit_transform(X)
        b = CDE(random_state=5).fit_transform(X)
    np.testing.assert_array_equal(a, b)


def test_cde_on_soybean_small_matches_the_paper():
    """CDE Table 1 reports F = 0.915 on Soybean-small (50 single-start k-means runs).

    Ten runs (CDE refitted with seed s, MATLAB-style k-means with seed s) give a mean of
    0.936 here; a ten-start k-means finds the four classes exactly on every embedding.
    """
    ds = load_dataset("soybean_small")
    X, y = ds.frame[ds.categorical_columns], ds.frame[ds.target].to_numpy()
    single, multi = [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        for seed in range(10):
            cde = CDE(random_state=seed).fit(X)
            assert cde.stats_.n_values == 58  # |V| of the paper, constant columns dropped
            Z = cde.transform(X)
            single.append(f_score(y, matlab_kmeans(Z, 4, random_state=seed)))
            multi.append(f_score(y, KMeans(4, n_init=10, random_state=seed).fit_predict(Z)))
    assert np.mean(single) == pytest.approx(0.936, abs=0.005)
    assert min(multi) == 1.0


def test_cde_falls_back_to_identity_without_clusters():
    X = pd.DataFrame({"a": ["x", "y", "z", "y"]})  # 3 values: every cluster is dropped
    with pytest.warns(CatEmbedWarning, match="no value cluster"):
        Z = CDE(random_state=0).fit_transform(X)
    assert Z.shape[0] == 4 and np.isfinite(Z).all()


# Issue 22 item 3: the k-means sweep on the Gram matrix and the PCA from the l x l Gram matrix


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gram_kmeans_matches_matlab_kmeans(seed):
    from sklearn.utils import check_random_state

    from catembed.embed._gram_kmeans import GramKMeans

    rng = np.random.default_rng(seed)
    for X in (rng.normal(size=(60, 5)), np.repeat(rng.normal(size=(10, 3)), 3, axis=0)):
        gram = GramKMeans(X)
        for k in range(2, min(gram.n_distinct, 15) + 1):
            a, n_a = matlab_kmeans(X, k, random_state=seed, return_n_iter=True)
            b, n_b = gram.fit(k, check_random_state(seed))
            np.testing.assert_array_equal(a, b)
            assert n_a == n_b


@pytest.mark.parametrize("name", ["zoo", "lenses"])
def test_gram_sweep_matches_the_sklearn_sweep(name):
    ds = load_dataset(name)
    stats = ValueStatistics.from_frame(ds.frame[ds.categorical_columns])
    for M in cde_influence_matrices(stats):
        for seed in range(3):
            a, steps_a = multi_granularity_kmeans(M, random_state=seed, engine="sklearn")
            b, steps_b = multi_granularity_kmeans(M, random_state=seed, sparse_output=True)
            np.testing.assert_array_equal(a, b.toarray())
            assert steps_a == steps_b


def _equal_up_to_sign(a, b, atol):
    assert a.shape == b.shape
    err = np.minimum(np.abs(a - b).max(axis=0), np.abs(a + b).max(axis=0))
    assert err.max(initial=0.0) <= atol


@pytest.mark.parametrize("seed", range(6))
def test_gram_pca_equals_the_svd_up_to_sign(seed):
    from scipy import sparse

    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 50))
    base = (rng.random((n, int(rng.integers(1, n)))) < 0.3).astype(float)
    ind = base[:, rng.integers(0, base.shape[1], int(rng.integers(n + 1, 4 * n)))]  # rank < n
    if seed % 2:
        half = n // 2
        ind[:, :half] = 1 - ind[:, half : 2 * half]  # complement columns, as at k = 2
    for beta in (1e-10, 0.5, 3.0):
        old = beta_pca(ind, beta, solver="svd")
        new = beta_pca(sparse.csr_matrix(ind), beta, solver="gram")
        _equal_up_to_sign(old, new, 1e-8)
        np.testing.assert_allclose(beta_pca(ind, beta), new)  # "auto" takes the Gram route


def test_cde_new_fit_equals_the_legacy_fit_on_zoo_and_lenses():
    for name in ("zoo", "lenses"):
        ds = load_dataset(name)
        X = ds.frame[ds.categorical_columns]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CatEmbedWarning)
            new = CDE(random_state=3).fit(X)
            old = CDE(random_state=3)
            old._legacy_fit = True
            old.fit(X)
        np.testing.assert_array_equal(new._indicator, old._indicator)
        assert new.value_clusters_.equals(old.value_clusters_)
        _equal_up_to_sign(new.transform(X), old.transform(X), 1e-8)
