"""Hostile inputs to catembed.similarity and the evaluation APIs (sweep s9-sim).

Each test failed on the code before its fix: a bare NumPy / scikit-learn error, or a wrong
result returned silently.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.similarity import (
    CategoricalDistance,
    dm_distances,
    gower_distances,
    kneighbors_from_codes,
    kneighbors_graph_from_codes,
    pairwise_from_codes,
    value_tables,
)
from catembed.stats import ValueStatistics

TABLE = pd.DataFrame({"a": ["x", "x", "y", "z"], "b": ["u", "v", "v", "u"]})
CODES = np.array([[0, 0], [0, 1], [1, 1], [2, 0]])


@pytest.fixture
def stats():
    return ValueStatistics.from_frame(TABLE)


@pytest.mark.parametrize("chunk", [0, -1])
def test_dm_distances_refuse_a_chunk_size_below_one(stats, chunk):
    """chunk_size=-1 returned a wrong matrix silently (0 was read as the default)."""
    with pytest.raises(CatEmbedError, match="chunk_size must be a positive integer"):
        dm_distances(stats, CODES, chunk_size=chunk)
    with pytest.raises(CatEmbedError, match="chunk_size must be a positive integer"):
        CategoricalDistance(metric="dm", chunk_size=chunk).fit(TABLE).pairwise(TABLE)


def test_codes_past_the_tables_are_refused(stats):
    """A code past an attribute's values was a bare IndexError."""
    vt = value_tables(stats, "hamming")
    with pytest.raises(CatEmbedError, match="codes of attribute 0 must be below its 3"):
        pairwise_from_codes(np.array([[5, 0]]), CODES, vt)
    with pytest.raises(CatEmbedError, match="codes of attribute 0 must be below its 3"):
        dm_distances(stats, np.array([[9, 0]]))
    with pytest.raises(CatEmbedError, match=r"codes must have shape \(n, 2\)"):
        dm_distances(stats, CODES[:, :1])


@pytest.mark.parametrize("k", [1.5, True])
def test_kneighbors_from_codes_refuse_a_float_or_bool_k(stats, k):
    """n_neighbors=1.5 or True was a bare TypeError."""
    vt = value_tables(stats, "hamming")
    with pytest.raises(CatEmbedError, match="n_neighbors must be a positive integer"):
        kneighbors_from_codes(CODES, None, vt, k)
    with pytest.raises(CatEmbedError, match="n_neighbors must be a positive integer"):
        kneighbors_graph_from_codes(CODES, vt, k)


def test_kneighbors_graph_from_codes_refuses_an_unknown_mode(stats):
    """mode='bad' was read as 'connectivity'."""
    vt = value_tables(stats, "hamming")
    with pytest.raises(CatEmbedError, match="mode must be one of"):
        kneighbors_graph_from_codes(CODES, vt, 1, mode="bad")


@pytest.mark.parametrize("chunk", [0, -1, 1.5, "a", True])
def test_gower_refuses_a_bad_chunk_size(chunk):
    """chunk_size=-1 returned an empty matrix, 1.5 and 'a' were bare TypeErrors."""
    df = pd.DataFrame({"a": ["x", "x", "y"], "n": [1.0, 2.0, 4.0]})
    with pytest.raises(CatEmbedError, match="chunk_size must be"):
        gower_distances(df, chunk_size=chunk)


def test_gower_refuses_a_string_for_sqrt():
    """sqrt='no' was read as True."""
    df = pd.DataFrame({"a": ["x", "x", "y"], "n": [1.0, 2.0, 4.0]})
    with pytest.raises(CatEmbedError, match="sqrt must be True or False"):
        gower_distances(df, sqrt="no")


@pytest.mark.parametrize("sigma", [float("inf"), float("nan"), "a"])
def test_value_tables_refuse_sigma_as_a_model_file_does(stats, sigma):
    """sigma=inf fitted but could not be saved (a bare ValueError from json); 'a' was a bare
    TypeError; NaN passed silently."""
    with pytest.raises(CatEmbedError, match="sigma must be"):
        value_tables(stats, "dilca", sigma=sigma)
    if sigma == float("inf"):
        with pytest.raises(CatEmbedError, match="sigma must be a non-negative number"):
            CategoricalDistance(metric="dilca", sigma=sigma).fit(TABLE)


# ---------------------------------------------------------------------- metrics
@pytest.mark.parametrize("chunk", [-1, 0, 1.5])
def test_ari_codes_refuses_a_chunk_below_one(chunk):
    """chunk=-1 counted no pair and returned 1.0 (the ARI is -0.25); 0 and 1.5 were bare
    ValueError / TypeError."""
    from catembed.metrics import ari_codes

    a, b = np.array([0, 1, 0, 1, 2]), np.array([0, 0, 1, 1, 2])
    assert ari_codes(a, b) == pytest.approx(-0.25)
    with pytest.raises(CatEmbedError, match="chunk must be a positive integer"):
        ari_codes(a, b, chunk=chunk)


def test_vci_names_a_missing_column():
    """A column not in the table was a bare KeyError (fci named it)."""
    from catembed.metrics import vci

    with pytest.raises(CatEmbedError, match="column 'zz' is not in the input"):
        vci(TABLE, [0, 0, 1, 1], columns=["zz"])
    assert vci(TABLE, [0, 0, 1, 1], columns=["a"]) == vci(TABLE[["a"]], [0, 0, 1, 1])


# ---------------------------------------------------------------------- retrieval, classify
VECTORS = np.random.RandomState(0).rand(8, 2)
CLASSES = np.array([0, 0, 0, 0, 1, 1, 1, 1])


@pytest.mark.parametrize("batch", [-1, 0, 1.5])
def test_retrieval_curve_refuses_a_batch_size_below_one(batch):
    """batch_size=-1 scored no query and returned precision 0.0; 0 and 1.5 were bare
    errors."""
    from catembed.evaluation.retrieval import retrieval_curve

    assert retrieval_curve(VECTORS, CLASSES, k=1).iloc[0] == pytest.approx(0.5)
    with pytest.raises(CatEmbedError, match="batch_size must be a positive integer"):
        retrieval_curve(VECTORS, CLASSES, k=1, batch_size=batch)


@pytest.mark.parametrize("k", [1.5, None])
def test_retrieval_curve_refuses_a_k_that_is_no_integer(k):
    """k=1.5 or None was a bare TypeError ('not iterable'); precision_at_k named it."""
    from catembed.evaluation.retrieval import retrieval_curve

    with pytest.raises(CatEmbedError, match="k must be a positive integer"):
        retrieval_curve(VECTORS, CLASSES, k=k)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_retrieval_and_classification_refuse_non_finite_vectors(bad):
    """NaN or inf in the vectors was scikit-learn's ValueError."""
    from catembed.evaluation.classify import classify_embedding
    from catembed.evaluation.retrieval import retrieval_curve

    X = VECTORS.copy()
    X[2, 1] = bad
    with pytest.raises(CatEmbedError, match="X holds 1 NaN or infinite value"):
        retrieval_curve(X, CLASSES, k=1)
    Z = np.vstack([X, VECTORS])
    with pytest.raises(CatEmbedError, match="Z holds 1 NaN or infinite value"):
        classify_embedding(Z, np.tile(CLASSES, 2), n_repeats=1)
    with pytest.raises(CatEmbedError, match="X must hold numbers"):
        retrieval_curve([["a"]] * 8, CLASSES, k=1)


def test_retrieval_curve_names_an_unknown_metric():
    """metric='nope' was scikit-learn's InvalidParameterError."""
    from catembed.evaluation.retrieval import retrieval_curve

    with pytest.raises(CatEmbedError, match="metric='nope'"):
        retrieval_curve(VECTORS, CLASSES, k=1, metric="nope")


@pytest.mark.parametrize("kwargs, message", [
    ({"random_state": "x"}, "random_state must be None"),
    ({"random_state": -1}, "random_state must be None"),
    ({"test_size": "a"}, "test_size must lie strictly between 0 and 1"),
    ({"classifier_params": {"svm": {"zzz": 1}}}, r"classifier_params\['svm'\]"),
])
def test_classify_embedding_names_a_bad_argument(kwargs, message):
    """These were bare NumPy / Python errors (random_state, test_size, an unknown keyword)."""
    from catembed.evaluation.classify import classify_embedding

    Z = np.vstack([VECTORS, VECTORS + 0.01])
    with pytest.raises(CatEmbedError, match=message):
        classify_embedding(Z, np.tile(CLASSES, 2), n_repeats=1, **kwargs)


# ---------------------------------------------------------------------- significance
SCORES = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.6], "B": [0.5, 0.6, 0.7, 0.8],
                       "C": [0.1, 0.2, 0.3, 0.4]})


def test_friedman_refuses_a_method_named_twice():
    """Two columns 'A' gave one average rank in to_dict: a method vanished silently."""
    from catembed.evaluation.significance import friedman_test

    scores = SCORES.set_axis(["A", "A", "C"], axis=1)
    with pytest.raises(CatEmbedError, match="name a method more than once: A"):
        friedman_test(scores)


def test_friedman_leaves_out_an_infinite_score_as_a_missing_one():
    """inf was ranked as the best score; paired_t_test and the docstring leave it out."""
    from catembed.evaluation.significance import friedman_test

    with_inf = friedman_test(SCORES.assign(A=[np.inf, 0.8, 0.7, 0.6])).to_dict()
    with_nan = friedman_test(SCORES.assign(A=[np.nan, 0.8, 0.7, 0.6])).to_dict()
    assert with_inf == with_nan
    assert with_inf["n_datasets"] == 3


@pytest.mark.parametrize("alpha", [0, 1.5, float("nan"), "a"])
def test_alpha_outside_zero_one_is_refused(alpha):
    """alpha=0 gave an infinite critical difference, 1.5 or NaN a NaN one, 'a' a TypeError."""
    from catembed.evaluation.significance import critical_difference, friedman_test

    with pytest.raises(CatEmbedError, match="alpha must lie strictly between 0 and 1"):
        critical_difference(3, 5, alpha=alpha)
    with pytest.raises(CatEmbedError, match="alpha must lie strictly between 0 and 1"):
        friedman_test(SCORES, alpha=alpha)


@pytest.mark.parametrize("k, n", [(2.7, 5), ("a", 5), (3, float("nan"))])
def test_critical_difference_refuses_counts_that_are_no_integers(k, n):
    """2.7 methods were read as 2; 'a' and NaN were bare ValueErrors."""
    from catembed.evaluation.significance import critical_difference

    with pytest.raises(CatEmbedError, match="must be a positive integer"):
        critical_difference(k, n)


def test_significance_tests_name_text_scores():
    """Text scores were a bare ValueError; 2-D paired samples were flattened silently."""
    from catembed.evaluation.significance import friedman_test, paired_t_test

    with pytest.raises(CatEmbedError, match="must hold one score"):
        paired_t_test(["a", "b"], [1, 2])
    with pytest.raises(CatEmbedError, match="1-D and of one length"):
        paired_t_test([[1, 2], [3, 4]], [[1, 2], [3, 5]])
    with pytest.raises(CatEmbedError, match="table of numbers"):
        friedman_test(pd.DataFrame({"A": ["a", "b"], "B": [1, 2]}))


# ---------------------------------------------------------------------- memory
def test_full_distance_matrices_above_the_memory_limit_are_refused(monkeypatch):
    """pairwise / pairwise_from_codes / dm_distances / Gower allocated any n x n matrix (200,000
    rows: 298 GiB, NumPy's bare MemoryError at best); they are checked against
    CATEMBED_MAX_MEMORY first now. (1,000 rows and a 1 MiB limit: the old code allocated
    8 MB and returned, nothing large is ever allocated here.)"""
    rng = np.random.RandomState(0)
    df = pd.DataFrame({"a": rng.choice(list("xyz"), 1000), "b": rng.choice(list("uv"), 1000)})
    est = CategoricalDistance().fit(df)
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1M")
    with pytest.raises(CatEmbedError, match="1000 x 1000 rows would need about"):
        est.pairwise(df)
    with pytest.raises(CatEmbedError, match="would need about"):
        pairwise_from_codes(est.fit_codes_, None, est.tables_)
    with pytest.raises(CatEmbedError, match="would need about"):
        dm_distances(est.stats_, est.fit_codes_)
    with pytest.raises(CatEmbedError, match="the Gower matrix"):
        gower_distances(df)
    # the chunked forms stay available
    assert est.kneighbors(df.iloc[:3], n_neighbors=2)[1].shape == (3, 2)
    assert est.pairwise(df.iloc[:5], df.iloc[:5]).shape == (5, 5)
