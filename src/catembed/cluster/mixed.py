"""The classical mixed-type clustering baselines of the Fehling thesis (Section 1.3-1.4).

* :class:`NaiveKMeans`: categorical columns label-encoded, every column standardised,
  k-means ("Naive k-means" of Figures 1.2-1.3).
* :class:`OneHotKMeans`: categorical columns one-hot encoded, numeric columns standardised,
  k-means ("k-means one-hot").
* k-prototypes: :class:`catembed.cluster.KPrototypes` on standardised numeric columns.
* :class:`GowerAgglomerative`: Gower distance and agglomerative clustering ("Gower
  distance"). Agglomerative clustering needs the full ``n x n`` distance matrix, so this
  method is for tables of a few ten thousand rows at most (``max_rows``).

:func:`thesis_preprocess` applies the thesis' pre-processing: rows with a missing value
removed, numeric columns standardised (zero mean, unit variance).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import AgglomerativeClustering, KMeans
from sklearn.preprocessing import OneHotEncoder, OrdinalEncoder, StandardScaler

from .._validation import CatEmbedError, as_frame, check_option, select_categorical
from ..similarity.gower import GowerDistance

__all__ = ["GowerAgglomerative", "NaiveKMeans", "OneHotKMeans", "thesis_preprocess"]


def thesis_preprocess(frame: pd.DataFrame, categorical: list[str], numeric: list[str]
                      ) -> pd.DataFrame:
    """Rows with a missing value removed; numeric columns standardised; categorical as str.

    Fehling thesis, Section 1.4 (standard score ``z = (x - mu) / sigma`` with the
    population standard deviation, as scikit-learn's ``StandardScaler``).
    """
    df = frame[list(categorical) + list(numeric)].dropna()
    out = pd.DataFrame(index=df.index)
    for c in categorical:
        out[c] = df[c].astype(str)
    if numeric:
        vals = df[numeric].apply(pd.to_numeric).to_numpy(dtype=np.float64)
        out[list(numeric)] = StandardScaler().fit_transform(vals)
    return out[list(frame[list(categorical) + list(numeric)].columns)]


def _split(X: Any, categorical_features: Any) -> tuple[pd.DataFrame, list[str], list[str]]:
    df = as_frame(X)
    cat, num = select_categorical(df, categorical_features)
    if categorical_features == "auto" and set(cat) == set(df.columns):
        # select_categorical takes every column of an all-numeric table as categorical
        kinds = [df[c].dtype.kind in "biuf" for c in df.columns]
        if all(kinds):
            cat, num = [], list(df.columns)
    return df, cat, num


class _KMeansBaseline(ClusterMixin, BaseEstimator):
    def __init__(self, *, n_clusters: int = 8, n_init: Any = "auto",
                 random_state: Any = None, categorical_features: Any = "auto") -> None:
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.random_state = random_state
        self.categorical_features = categorical_features

    def _features(self, df: pd.DataFrame, cat: list[str], num: list[str]) -> np.ndarray:
        raise NotImplementedError

    def fit(self, X: Any, y: Any = None) -> _KMeansBaseline:
        """Encode the table and run k-means."""
        df, cat, num = _split(X, self.categorical_features)
        if df.isna().any().any():
            raise CatEmbedError(
                f"{type(self).__name__} needs a table without missing values; drop or impute "
                "them first (thesis_preprocess drops them)."
            )
        self.categorical_features_, self.numeric_features_ = cat, num
        feats = self._features(df, cat, num)
        self.kmeans_ = KMeans(self.n_clusters, n_init=self.n_init,
                              random_state=self.random_state).fit(feats)
        self.labels_ = self.kmeans_.labels_
        return self


class NaiveKMeans(_KMeansBaseline):
    """Label-encoded and standardised k-means, the thesis' "Naive k-means".

    Categorical values become integers (scikit-learn ``OrdinalEncoder``, values sorted),
    then every column is standardised and clustered with scikit-learn's ``KMeans``.

    Parameters
    ----------
    n_clusters : int, default=8
    n_init : "auto" or int, default="auto"
        Passed to ``KMeans``.
    random_state : int, RandomState or None
    categorical_features : "auto", "all", list or mask, default="auto"

    Attributes
    ----------
    labels_ : ndarray
    kmeans_ : KMeans
    """

    def _features(self, df: pd.DataFrame, cat: list[str], num: list[str]) -> np.ndarray:
        parts = []
        if cat:
            parts.append(OrdinalEncoder().fit_transform(df[cat].astype(str)))
        if num:
            parts.append(df[num].apply(pd.to_numeric).to_numpy(dtype=np.float64))
        return StandardScaler().fit_transform(np.hstack(parts))


class OneHotKMeans(_KMeansBaseline):
    """One-hot k-means, the thesis' "k-means one-hot".

    Categorical columns one-hot encoded (0/1, not rescaled), numeric columns standardised,
    scikit-learn ``KMeans``.

    Parameters
    ----------
    n_clusters : int, default=8
    n_init : "auto" or int, default="auto"
    random_state : int, RandomState or None
    categorical_features : "auto", "all", list or mask, default="auto"

    Attributes
    ----------
    labels_ : ndarray
    kmeans_ : KMeans
    """

    def _features(self, df: pd.DataFrame, cat: list[str], num: list[str]) -> np.ndarray:
        parts = []
        if cat:
            parts.append(OneHotEncoder(sparse_output=False).fit_transform(df[cat].astype(str)))
        if num:
            parts.append(StandardScaler().fit_transform(
                df[num].apply(pd.to_numeric).to_numpy(dtype=np.float64)))
        return np.hstack(parts)


class GowerAgglomerative(ClusterMixin, BaseEstimator):
    """Agglomerative clustering on Gower distance, the thesis' "Gower distance" method.

    Builds the full ``n x n`` Gower distance matrix (``1 - S``, missing values skipped,
    :class:`catembed.similarity.GowerDistance`) in chunks and runs scikit-learn's
    ``AgglomerativeClustering(metric="precomputed")``. The thesis does not name the
    linkage; ``"average"`` is the default here (Ward needs Euclidean input).

    Parameters
    ----------
    n_clusters : int, default=2
    linkage : {"average", "complete", "single"}, default="average"
    max_rows : int, default=20000
        Refuse larger tables (the matrix takes ``8 n^2`` bytes: 3.2 GB at 20,000 rows).
    categorical_features : "auto", "all", list or mask, default="auto"

    Attributes
    ----------
    labels_ : ndarray
    gower_ : GowerDistance
    """

    def __init__(self, *, n_clusters: int = 2, linkage: str = "average",
                 max_rows: int = 20000, categorical_features: Any = "auto") -> None:
        self.n_clusters = n_clusters
        self.linkage = linkage
        self.max_rows = max_rows
        self.categorical_features = categorical_features

    def fit(self, X: Any, y: Any = None) -> GowerAgglomerative:
        """Compute the Gower matrix of ``X`` and cluster it."""
        check_option("linkage", self.linkage, ("average", "complete", "single"))
        df = as_frame(X)
        if len(df) > self.max_rows:
            raise CatEmbedError(
                f"GowerAgglomerative needs the full {len(df)} x {len(df)} distance matrix "
                f"({8 * len(df) ** 2 / 2**30:.1f} GiB); max_rows is {self.max_rows}. "
                "Subsample the rows or raise max_rows."
            )
        self.gower_ = GowerDistance(categorical_features=self.categorical_features).fit(df)
        dist = self.gower_.pairwise(df)
        self.labels_ = AgglomerativeClustering(
            n_clusters=self.n_clusters, metric="precomputed", linkage=self.linkage
        ).fit_predict(dist)
        return self
