"""Latent class analysis by chunked EM, with stepmix as the oracle."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CatEmbedError
from catembed.cluster import LCA
from catembed.cluster.lca import lca_labels


@pytest.fixture(scope="module")
def sample():
    rng = np.random.default_rng(0)
    n, k = 600, 3
    z = rng.choice(k, size=n, p=[0.5, 0.3, 0.2])
    theta = [rng.dirichlet(np.full(4, 0.5), size=k) for _ in range(6)]
    X = np.column_stack([[rng.choice(4, p=t[c]) for c in z] for t in theta])
    return X, pd.DataFrame(X.astype(str), columns=list("abcdef")), z


def test_lca_matches_stepmix_likelihood(sample):
    stepmix = pytest.importorskip("stepmix")
    from sklearn.metrics import adjusted_rand_score

    X, df, _ = sample
    ours = LCA(3, n_init=5, random_state=0).fit(df)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = stepmix.StepMix(n_components=3, measurement="categorical", n_init=5,
                              random_state=0, verbose=0, progress_bar=0, max_iter=1000,
                              abs_tol=1e-10).fit(X)
        ref_ll = ref.score(X) * len(X)
        ref_labels = ref.predict(X)
    assert ours.log_likelihood_ == pytest.approx(ref_ll, rel=1e-6)
    assert adjusted_rand_score(ours.labels_, ref_labels) > 0.99


def test_lca_chunking_does_not_change_the_fit(sample):
    _, df, _ = sample
    a = LCA(3, random_state=1, chunk_size=65536).fit(df)
    b = LCA(3, random_state=1, chunk_size=37).fit(df)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, rel=1e-10)


def test_lca_parameters_are_distributions_and_predict_agrees(sample):
    _, df, _ = sample
    m = LCA(3, random_state=0).fit(df)
    assert m.weights_.sum() == pytest.approx(1.0)
    for p in m.probabilities_:
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(m.predict(df), m.labels_)
    np.testing.assert_allclose(m.predict_proba(df).sum(axis=1), 1.0)


def test_lca_two_perfect_classes_by_hand():
    # two classes that never share a value: EM finds them, pi = (1/2, 1/2)
    df = pd.DataFrame({"a": list("xxxyyy"), "b": list("uuuvvv")})
    m = LCA(2, random_state=0).fit(df)
    assert len(set(m.labels_[:3])) == 1 and len(set(m.labels_[3:])) == 1
    assert m.labels_[0] != m.labels_[3]
    np.testing.assert_allclose(np.sort(m.weights_), [0.5, 0.5], atol=1e-6)
    assert m.log_likelihood_ == pytest.approx(6 * np.log(0.5), abs=1e-6)


def test_lca_seeds_and_errors(sample):
    _, df, _ = sample
    np.testing.assert_array_equal(lca_labels(df, 3, random_state=4),
                                  lca_labels(df, 3, random_state=4))
    with pytest.raises(CatEmbedError, match="distinct"):
        LCA(3).fit(pd.DataFrame({"a": list("xxyy")}))
    with pytest.raises(CatEmbedError, match="n_clusters"):
        LCA(0).fit(df)


def test_lca_labels_bins_numeric_columns():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"c": rng.choice(list("ab"), 100), "x": rng.normal(size=100)})
    labels = lca_labels(df, 2, random_state=0)
    assert labels.shape == (100,)


def _lca_expected_failures(estimator):
    return {"check_clustering": "LCA models categorical values: the check's continuous blobs "
            "give every row its own values, which no latent class model can group"}


@parametrize_with_checks([LCA(2, random_state=0)], expected_failed_checks=_lca_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_e_step_helpers_equal_the_plain_forms():
    """The E-step's gathers (row-major for the posteriors, class-major in EM) give the
    plain form's bits (the same additions in the same order); the class-major logsumexp
    and its sums over the classes give the plain forms' values, through every branch of
    the pairwise order (under 8 classes, 8-128, above)."""
    from scipy.special import logsumexp

    from catembed.cluster.lca import (
        _add_columns,
        _log_joint_classes,
        _logsumexp_classes,
        _sum_over_rows,
    )

    rng = np.random.default_rng(0)
    log_theta = np.log(rng.random((4, 9)))
    log_pi = np.log(np.full(4, 0.25))
    g = rng.integers(0, 9, size=(50, 3))
    plain = np.tile(log_pi, (50, 1))
    for j in range(3):
        plain += log_theta[:, g[:, j]].T
    fast = _add_columns(np.tile(log_pi, (50, 1)), log_theta, g)
    np.testing.assert_array_equal(fast, plain)
    np.testing.assert_array_equal(
        _log_joint_classes(np.ascontiguousarray(g.T), log_theta, log_pi), plain.T)
    a = rng.normal(size=(60, 5)) * 40
    a[::3, 1] = a[::3, 0]  # ties at the maximum
    a[::7] = a[::7, :1]  # a row of equal entries
    np.testing.assert_allclose(_logsumexp_classes(np.ascontiguousarray(a.T)),
                               logsumexp(a, axis=1), rtol=1e-14)
    for k in (1, 3, 8, 9, 17, 130, 300):
        b = rng.random((k, 40))
        np.testing.assert_allclose(_sum_over_rows(b), b.sum(axis=0), rtol=1e-13)
