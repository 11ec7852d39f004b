"""issue 21 item 13: scikit-learn's common checks for the clusterers (KModes and KPrototypes
are checked in their own tests)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CatEmbedError
from catembed.cluster import (
    LCA,
    GowerAgglomerative,
    NaiveKMeans,
    OneHotKMeans,
    SimilaritySpectral,
)

CLUSTERERS = [GowerAgglomerative(n_clusters=2), NaiveKMeans(n_clusters=2, random_state=0),
              OneHotKMeans(n_clusters=2, random_state=0),
              SimilaritySpectral(n_clusters=2, random_state=0), LCA(2, random_state=0)]

_CATEGORICAL_ONLY = (
    "{} reads every column as categorical values; the check's continuous blobs give every "
    "row its own values, so all rows are equally (dis)similar and no categorical method "
    "can group them"
)


def _expected_failures(estimator):
    if isinstance(estimator, (SimilaritySpectral, LCA)):
        return {"check_clustering": _CATEGORICAL_ONLY.format(type(estimator).__name__)}
    return {}


@parametrize_with_checks(CLUSTERERS, expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    """issue 21 item 13"""
    check(estimator)


@pytest.mark.parametrize("est", CLUSTERERS[:4], ids=lambda e: type(e).__name__)
def test_empty_input_is_a_catembed_error(est):
    """issue 21 item 13: no 'need at least one array to concatenate'."""
    with pytest.raises(CatEmbedError, match=r"0 feature\(s\) \(shape=\(5, 0\)\)"):
        clone(est).fit(np.empty((5, 0)))
    with pytest.raises(CatEmbedError, match="at least 2 samples"):
        clone(est).fit(np.empty((0, 3)))


@pytest.mark.parametrize("est", CLUSTERERS[:4], ids=lambda e: type(e).__name__)
def test_n_features_in_is_set(est, watermelon):
    """issue 21 item 13"""
    fitted = clone(est).fit(watermelon)
    assert fitted.n_features_in_ == watermelon.shape[1]
    assert list(fitted.feature_names_in_) == list(watermelon.columns)
    assert not hasattr(clone(est).fit(watermelon.to_numpy()), "feature_names_in_")


@pytest.mark.parametrize("cls", [NaiveKMeans, OneHotKMeans])
def test_kmeans_baselines_give_the_same_labels_for_an_array_and_its_list(cls):
    """issue 21 item 13: fit(X) and fit(X.tolist()) gave different labels (the list's
    numbers were read as categories)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(5, 1, (20, 2))])
    a = cls(n_clusters=2, random_state=0).fit(X).labels_
    b = cls(n_clusters=2, random_state=0).fit(X.tolist()).labels_
    np.testing.assert_array_equal(a, b)
    assert len(set(a[:20])) == 1 and len(set(a[20:])) == 1 and a[0] != a[20]


def test_naive_kmeans_names_missing_values():
    """issue 21 item 13: the refusal of NaN says NaN (as scikit-learn's checks expect)."""
    df = pd.DataFrame({"a": ["x", None, "y", "x"], "b": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(CatEmbedError, match="missing values .NaN"):
        NaiveKMeans(n_clusters=2, random_state=0).fit(df)
