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

from .._utils._limits import size
from .._utils._params import check_int, check_option, check_random_state_param
from .._utils._spelling import rows_below_k
from .._utils._validation import (
    CatEmbedError,
    as_frame,
    categorical_input_tags,
    has_string_names,
    is_frame,
    select_categorical,
)
from ..similarity.gower import GowerDistance
from ..stats._numeric import check_finite_numbers, read_numbers

__all__ = [
    "GowerAgglomerative",
    "NaiveKMeans",
    "OneHotKMeans",
    "gower_agglomerative_labels",
    "kprototypes_labels",
    "mixed_embedder",
    "naive_kmeans_labels",
    "onehot_kmeans_labels",
    "thesis_preprocess",
]


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


def _frame(est: Any, X: Any) -> pd.DataFrame:
    """``X`` as a DataFrame, checked as scikit-learn checks a table (empty, too few rows),
    with ``n_features_in_`` (and ``feature_names_in_``) set. A list or an object array is
    read as pandas infers its columns, so numbers stay numbers: ``fit(X)`` and
    ``fit(X.tolist())`` see the same table."""
    from .._utils._validation import check_table

    df = as_frame(X)
    if not is_frame(X):
        df = df.infer_objects()
    check_table(est, df, reset=True)
    est.n_features_in_ = df.shape[1]
    if has_string_names(X):
        est.feature_names_in_ = np.asarray(df.columns, dtype=object)
    elif hasattr(est, "feature_names_in_"):
        del est.feature_names_in_
    return df


def _split(X: Any, categorical_features: Any) -> tuple[pd.DataFrame, list[str], list[str]]:
    df = as_frame(X)
    cat, num = select_categorical(df, categorical_features)
    if categorical_features == "auto" and set(cat) == set(df.columns):
        # select_categorical takes every column of an all-numeric table as categorical
        kinds = [df[c].dtype.kind in "biuf" for c in df.columns]
        if all(kinds):
            cat, num = [], list(df.columns)
    return df, cat, num


def _check_numbers(name: str, df: pd.DataFrame, num: list[str]) -> None:
    """Refuse numeric columns ``num`` that hold text, infinite numbers or numbers whose
    square overflows (:func:`catembed.stats._numeric.check_finite_numbers`), which scikit-learn
    would report as "Input X contains NaN" after standardising."""
    if not num:
        return
    check_finite_numbers(read_numbers(df, num, name), num, "fit",
                         remedy="drop those rows, clip them, or rescale the column (e.g. its "
                         "logarithm).")


def _check_clusters(n_clusters: Any, n_samples: int) -> None:
    """``n_clusters`` a positive integer and at most the rows (KModes' wording), refused
    before scikit-learn's own error names its estimator instead of ours."""
    check_int("n_clusters", n_clusters)
    if n_samples < n_clusters:
        raise CatEmbedError(
            f"{rows_below_k(n_samples, n_clusters)}; use fewer clusters."
        )


class _KMeansBaseline(ClusterMixin, BaseEstimator):
    def __init__(self, n_clusters: int = 8, *, n_init: Any = "auto",
                 random_state: Any = None, categorical_features: Any = "auto") -> None:
        self.n_clusters = n_clusters
        self.n_init = n_init
        self.random_state = random_state
        self.categorical_features = categorical_features

    def _features(self, df: pd.DataFrame, cat: list[str], num: list[str]) -> np.ndarray:
        raise NotImplementedError

    def fit(self, X: Any, y: Any = None) -> _KMeansBaseline:
        """Encode the table and run k-means."""
        if not (isinstance(self.n_init, str) and self.n_init == "auto"):
            check_int("n_init", self.n_init, extra=" or 'auto'")
        check_random_state_param(self.random_state)
        df, cat, num = _split(_frame(self, X), self.categorical_features)
        _check_clusters(self.n_clusters, len(df))
        if df.isna().any().any():
            raise CatEmbedError(
                f"{type(self).__name__} needs a table without missing values (NaN, None); "
                "drop or impute them first (thesis_preprocess drops them)."
            )
        self.categorical_features_, self.numeric_features_ = cat, num
        _check_numbers(type(self).__name__, df, num)
        feats = self._features(df, cat, num)
        self.kmeans_ = KMeans(self.n_clusters, n_init=self.n_init,
                              random_state=self.random_state).fit(feats)
        self.labels_ = self.kmeans_.labels_
        return self

    def __sklearn_tags__(self):  # noqa: D105
        tags = categorical_input_tags(super().__sklearn_tags__())
        tags.input_tags.allow_nan = False  # missing values are refused (see fit)
        return tags


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

    def __init__(self, n_clusters: int = 2, *, linkage: str = "average",
                 max_rows: int = 20000, categorical_features: Any = "auto") -> None:
        self.n_clusters = n_clusters
        self.linkage = linkage
        self.max_rows = max_rows
        self.categorical_features = categorical_features

    def fit(self, X: Any, y: Any = None) -> GowerAgglomerative:
        """Compute the Gower matrix of ``X`` and cluster it."""
        check_option("linkage", self.linkage, ("average", "complete", "single"))
        check_int("max_rows", self.max_rows)
        df = _frame(self, X)
        _check_clusters(self.n_clusters, len(df))
        if len(df) > self.max_rows:
            raise CatEmbedError(
                f"GowerAgglomerative needs the full {len(df)} x {len(df)} distance matrix "
                f"({size(8 * len(df) ** 2)}); max_rows is {self.max_rows}. "
                "Subsample the rows or raise max_rows."
            )
        self.gower_ = GowerDistance(categorical_features=self.categorical_features).fit(df)
        dist = self.gower_.pairwise(df)
        self.labels_ = AgglomerativeClustering(
            n_clusters=self.n_clusters, metric="precomputed", linkage=self.linkage
        ).fit_predict(dist)
        return self

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())  # Gower skips missing


# ---------------------------------------------------------------------- protocol hooks
def _standardised(X: Any) -> tuple[pd.DataFrame, list[str], list[str]]:
    df, cat, num = _split(X, "auto")
    _check_numbers("the mixed clusterers'", df, num)
    out = df.copy()
    if num:
        out[num] = StandardScaler().fit_transform(
            df[num].apply(pd.to_numeric).to_numpy(dtype=np.float64))
    return out, cat, num


def naive_kmeans_labels(X: Any, n_clusters: int, *, random_state: Any = None) -> np.ndarray:
    """Labels of :class:`NaiveKMeans` (evaluation protocol ``labels`` hook)."""
    return NaiveKMeans(n_clusters=n_clusters, random_state=random_state).fit(X).labels_


def onehot_kmeans_labels(X: Any, n_clusters: int, *, random_state: Any = None) -> np.ndarray:
    """Labels of :class:`OneHotKMeans` (evaluation protocol ``labels`` hook)."""
    return OneHotKMeans(n_clusters=n_clusters, random_state=random_state).fit(X).labels_


def kprototypes_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                       init: str = "huang", **params: Any) -> np.ndarray:
    """k-prototypes on standardised numeric columns (k-modes when there is none).

    Evaluation protocol ``labels`` hook for the thesis' "k-prototypes" column. Huang's
    (1998) random initialisation by default, so that each run's seed gives its own start,
    as the ``kmodes`` package the thesis used does (``init="cao"`` is deterministic: every
    seed would give the same labels).
    """
    from .kmodes import KModes
    from .kprototypes import KPrototypes

    df, cat, num = _standardised(X)
    if not num:
        return KModes(n_clusters=n_clusters, init=init, random_state=random_state,
                      categorical_features="all", **params).fit(df).labels_
    return KPrototypes(n_clusters=n_clusters, init=init, random_state=random_state,
                       categorical_features=cat, **params).fit(df).labels_


def gower_agglomerative_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                               **params: Any) -> np.ndarray:
    """Labels of :class:`GowerAgglomerative` (deterministic; ``random_state`` unused)."""
    return GowerAgglomerative(n_clusters=n_clusters, **params).fit(X).labels_


def mixed_embedder(method: str = "cde", *, random_state: Any = None,
                   numeric: str = "discretize", **params: Any) -> Any:
    """An embedder of ``catembed.METHODS`` set up for a mixed table (protocol factory).

    Categorical columns are found by dtype (``categorical_features="auto"``) and numeric
    columns follow the embedder's ``numeric`` policy (quantile bins by default).
    """
    from .._utils._method_names import resolve_name
    from ..embed.registry import METHODS

    method = resolve_name(method, METHODS, what="embedder")
    est = METHODS[method](**params)
    own = est.get_params()
    if "numeric" not in own:
        raise CatEmbedError(
            f"{type(est).__name__} has no numeric= policy yet; it cannot embed mixed data."
        )
    updates = {"numeric": numeric, "categorical_features": "auto"}
    if "random_state" in own:
        updates["random_state"] = random_state
    return est.set_params(**updates)
