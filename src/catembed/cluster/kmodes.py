"""The k-modes estimator (Huang 1998) on any value distance table, and the pieces that
k-prototypes shares with it (parameter checks, initial rows, mode decoding).

The iterations are :func:`catembed.cluster._kmodes_core.kmodes_lloyd` (batch form of Huang's
algorithm); the initialisations (``"cao"``, ``"huang"``, ``"random"``) are in
:mod:`catembed.cluster._kmodes_init`; :class:`~catembed.cluster.KPrototypes` is in
:mod:`catembed.cluster.kprototypes`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._utils._params import check_int, check_option, check_param_types, check_random_state_param
from .._utils._spelling import k_asked, rows_below_k
from .._utils._validation import (
    CatEmbedError,
    as_frame,
    categorical_input_tags,
    has_string_names,
    is_dask_collection,
    warnings_at_caller,
)
from ..similarity.estimator import CategoricalDistance
from ..similarity.tables import METRICS
from ._kmodes_core import (
    MODE_UPDATES,
    _cat_distances,
    _histograms,
    _padded_tables,
    kmodes_lloyd,
)
from ._kmodes_init import _distinct, init_cao, init_huang, init_random

__all__ = ["KModes", "kmodes_labels"]

_INITS = ("cao", "huang", "random")


_SHARED = """
    handle_unknown : {"error", "ignore", "warn"}, default="error"
        An unseen value in :meth:`predict`: raise, or let it match no mode (the table's
        largest distance).
    handle_missing : {"category", "error"}, default="category"
        Missing values are a value of their own, or an error.
"""


class _Base(ClusterMixin, BaseEstimator):
    def _check(self) -> None:
        check_param_types(self)
        check_option("metric", self.metric, tuple(METRICS))
        if isinstance(self.init, str):
            check_option("init", self.init, _INITS)
        for name in ("n_clusters", "n_init", "max_iter"):
            check_int(name, getattr(self, name))
        check_random_state_param(self.random_state)

    def _distance(self, categorical_features: Any) -> CategoricalDistance:
        return CategoricalDistance(
            metric=self.metric, sigma=self.sigma, handle_unknown=self.handle_unknown,
            handle_missing=self.handle_missing, categorical_features=categorical_features,
            min_frequency=self.min_frequency, max_categories=self.max_categories,
        )

    def _init_rows(self, codes: np.ndarray, ptabs: list[np.ndarray], seed: int,
                   numeric: np.ndarray | None = None, gamma: float = 1.0,
                   k: int | None = None) -> np.ndarray:
        k = self.n_clusters if k is None else k
        if self.init == "cao":
            return init_cao(codes, k, ptabs, numeric=numeric, gamma=gamma)
        if self.init == "huang":
            return init_huang(codes, k, ptabs, seed, numeric=numeric, gamma=gamma)
        return init_random(codes, k, seed, numeric=numeric)

    def _check_table(self, df: pd.DataFrame, *, fit: bool) -> None:
        """Empty tables, too few rows for the clusters, and (``fit=False``) the fitted
        number of columns (issue 21 item 13)."""
        if df.shape[0] == 0:
            raise CatEmbedError(
                f"Found array with 0 sample(s) (shape={df.shape}) while a minimum of "
                f"{self.n_clusters if fit else 1} is required by {type(self).__name__}."
            )
        if df.shape[1] == 0:
            raise CatEmbedError(
                f"Found array with 0 feature(s) (shape={df.shape}) while a minimum of 1 is "
                f"required by {type(self).__name__}."
            )
        if fit and df.shape[0] < self.n_clusters:
            raise CatEmbedError(
                f"{rows_below_k(df.shape[0], self.n_clusters)}; "
                "use fewer clusters."
            )
        if not fit and df.shape[1] != self.n_features_in_:
            raise CatEmbedError(
                f"X has {df.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input (the columns given to fit)."
            )

    def _set_input_names(self, X: Any, df: pd.DataFrame) -> None:
        self.n_features_in_ = df.shape[1]
        if has_string_names(X):
            self.feature_names_in_ = np.asarray(df.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_  # a refit on an array: no stale names

    def _n_starts(self, codes: np.ndarray, numeric: np.ndarray | None = None) -> int:
        """The number of initial modes: ``n_clusters``, or the number of distinct rows when
        the table has fewer (then a ``ConvergenceWarning``, as scikit-learn's ``KMeans``
        gives: the other clusters stay empty, their modes repeat the last one)."""
        if not isinstance(self.init, str):
            return self.n_clusters
        n_distinct = len(_distinct(codes, numeric)[1])
        if n_distinct < self.n_clusters:
            warnings.warn(
                f"{type(self).__name__}: the table has only {n_distinct} distinct row(s), "
                f"fewer than {k_asked(self.n_clusters)}; {self.n_clusters - n_distinct} "
                "cluster(s) stay empty. Use fewer clusters.",
                ConvergenceWarning, stacklevel=2,
            )
        return min(n_distinct, self.n_clusters)

    def _pad(self, a: np.ndarray | None) -> np.ndarray | None:
        """Modes (or centres) of ``k < n_clusters`` clusters padded to ``n_clusters`` rows
        by repeating the last one; ``predict`` picks the first of equal modes, so the
        padded clusters stay empty."""
        if a is None or len(a) >= self.n_clusters:
            return a
        return np.vstack([a, np.repeat(a[-1:], self.n_clusters - len(a), axis=0)])

    def _keep_modes(self, modes: np.ndarray, n_iter: int) -> np.ndarray:
        """Keep the best run's ``modes`` (padded to ``n_clusters`` rows, returned) with their
        centroids and ``n_iter``. Shared by :meth:`fit` and the Dask fit."""
        modes = self._pad(modes)
        self.modes_ = modes
        self.cluster_centroids_ = self._centroids(modes)
        self.n_iter_ = n_iter
        return modes

    def _set_centroid_columns(self, df: pd.DataFrame, columns: list[str]) -> None:
        """Remember the categorical columns (in input order) and the value of each one the
        distance dropped as constant, so that centroids have a column for each."""
        kept = set(self._kept_columns())
        self._input_columns = [str(c) for c in df.columns]
        self._centroid_columns = list(columns)
        self._constant_values = {
            c: df[c].value_counts(dropna=False).index[0] for c in columns if c not in kept
        }

    def _centroids(self, modes: np.ndarray) -> np.ndarray:
        """Modes as values, one column per categorical column: a constant column (dropped
        from the distances, since it is every cluster's mode) holds its single value."""
        decoded = self._decode_modes(modes)
        kept = {str(c): j for j, c in enumerate(self._kept_columns())}
        out = np.empty((len(modes), len(self._centroid_columns)), dtype=object)
        for i, c in enumerate(self._centroid_columns):
            if c in kept:
                out[:, i] = decoded[:, kept[c]]
            else:  # element by element: a tuple value must not be spread over the rows
                value = self._constant_values.get(c)
                for r in range(len(out)):
                    out[r, i] = value
        return out

    def _kept_columns(self) -> list[str]:
        d = self.distance_
        return [] if d is None else [str(c) for c in d.feature_names_]

    def _rough_counts(self) -> list[np.ndarray] | None:
        if self.metric != "rough-cluster":
            return None
        st = self.distance_.stats_
        offs = st.offsets
        return [
            np.append(st.counts[offs[j] : offs[j + 1]], 0).astype(float)
            for j in range(st.n_features)
        ]

    def _decode_modes(self, modes: np.ndarray) -> np.ndarray:
        out = np.empty(modes.shape, dtype=object)
        if self.distance_ is None:
            return out
        cats = self.distance_.categories_
        for j, c in enumerate(cats):
            out[:, j] = c[modes[:, j]]
        return out

    def _encode_init(self, init: Any, input_columns: list[str]) -> np.ndarray:
        """Codes of an ``init`` array: one column per input column (``n_features_in_``),
        per categorical column (``cluster_centroids_``' shape) or per clustered column;
        the entries of columns that are not clustered (constant or not categorical) are
        ignored."""
        kept = self._kept_columns()
        if isinstance(init, pd.DataFrame) and set(kept) <= {str(c) for c in init.columns}:
            arr = init.set_axis([str(c) for c in init.columns], axis=1)[kept]
        else:
            values = init.to_numpy(dtype=object) if isinstance(init, pd.DataFrame) else (
                np.asarray(init, dtype=object))
            if values.ndim != 2:
                raise CatEmbedError(
                    f"init must be a 2D array of shape (n_clusters, n_features_in_) = "
                    f"({self.n_clusters}, {self.n_features_in_}); got {values.ndim} dimension(s)."
                )
            layouts = {len(input_columns): input_columns,
                       len(self._centroid_columns): self._centroid_columns, len(kept): kept}
            if values.shape[1] not in layouts:
                raise CatEmbedError(
                    f"init has {values.shape[1]} columns; it needs one per column of X "
                    f"(n_features_in_={len(input_columns)})"
                    + (f" or one per categorical column ({len(self._centroid_columns)})"
                       if len(self._centroid_columns) != len(input_columns) else "") + "."
                )
            arr = pd.DataFrame(values, columns=layouts[values.shape[1]])[kept]
        if arr.shape[0] != self.n_clusters:
            raise CatEmbedError(
                f"init has {arr.shape[0]} rows; n_clusters is {self.n_clusters}."
            )
        codes = self.distance_._encode_values(arr)
        if (codes < 0).any():
            i, j = np.argwhere(codes < 0)[0]
            raise CatEmbedError(
                f"init holds values not seen in the data (row {i}, column {kept[j]!r}: "
                f"{arr.iat[i, j]!r})."
            )
        return codes.astype(np.int64)


class KModes(_Base):
    """k-modes clustering (Huang 1998) with any value distance as the dissimilarity.

    Parameters
    ----------
    n_clusters : int, default=8
        At most ``n_samples`` (a ``CatEmbedError`` otherwise, as scikit-learn's ``KMeans``
        raises). A table with fewer distinct rows than ``n_clusters`` gets one cluster per
        distinct row and a ``ConvergenceWarning`` (as ``KMeans``): the other clusters stay
        empty, their modes repeating the last mode.
    metric : {"hamming", "ahmad", "algo", "dilca", "cos", "dm", "rough", "rough-cluster"}, \
default="hamming"
        Value distance tables (:func:`catembed.similarity.value_tables`). ``"rough"`` is
        Cao et al.'s (2012) rough-membership dissimilarity between two objects (a match on
        value ``v`` costs ``1 - 1/cnt(v)``); ``"rough-cluster"`` its cluster-dependent form
        (a match costs ``1 - |[x]_a cap C_l| / |[x]_a|`` for the current cluster ``C_l``);
        ``"dilca"`` combines the attributes as a squared Euclidean sum.
    init : {"cao", "huang", "random"} or array of shape (n_clusters, n_features_in_), \
default="cao"
        See :mod:`catembed.cluster._kmodes_init`. An array gives the initial modes as values,
        one column per column of ``X`` (or per categorical column, the shape of
        ``cluster_centroids_``; a DataFrame's columns are matched by name); the entries of
        columns that are not clustered (constant columns, non-categorical columns) are
        ignored.
    n_init : int, default=1
        Runs with different seeds (``"huang"``, ``"random"``); the lowest cost wins.
    max_iter : int, default=100
    sigma : float, default=1.0
        DILCA context threshold.
    random_state : int, RandomState or None
        Alone decides the result.
    min_frequency : int, float or None, default=None
        Values seen fewer than ``min_frequency`` times (a float: a fraction of the rows)
        are pooled into one ``infrequent`` value per column (scikit-learn's
        ``OneHotEncoder`` meaning), in the statistics, with a warning; at transform the
        pooled values get the infrequent value's vector.
    max_categories : int or None, default=100
        At most this many values per column (the infrequent value included); the least
        frequent are pooled.
        Default 100 (cost quadratic in the number of values: ``l x l`` matrices or per
        column tables); every data set of the papers has at most 41 values per column, so
        their results are unchanged.
    {shared}
    categorical_features : "auto", "all", list or mask, default="auto"
        Columns to cluster (others dropped with a warning).
    mode_update : {"objective", "frequency"}, default="objective"
        How a cluster's mode is chosen with the partition fixed. ``"objective"``: the value
        that minimises the cluster's summed distance under the metric, ``argmin_v sum_u
        n_l(u) T(u, v)`` (the most frequent value for Hamming; ``argmax_v n_l(v) / N(v)``
        for ``"rough"``, whose match costs ``1 - 1/N(v)``; ``argmax_v n_l(v)^2 / N(v)`` for
        ``"rough-cluster"``, whose match costs ``1 - n_l(v)/N(v)``; ``n_l(v)`` the value's
        count in cluster ``l``, ``N(v)`` in the data). ``"frequency"``: the most frequent
        value (Huang 1998) whatever the metric.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        A lazy Dask Series (int64, the input's partitions and index) when ``X`` is a Dask
        DataFrame: the fit then runs partition by partition without gathering the rows
        (``docs/distributed.md``), and ``predict`` of a Dask DataFrame maps the partitions.
    cluster_centroids_ : ndarray of object, shape (n_clusters, n_categorical)
        The modes, as values: one column per categorical column of ``X``, in input order
        (``n_features_in_`` columns when every column is categorical, as with
        ``categorical_features="all"``). A constant column, which the distances drop (it is
        every cluster's mode), holds its single value.
    modes_ : ndarray of int, shape (n_clusters, len(distance_.feature_names_))
        The modes as value codes of the clustered (non-constant) columns.
    cost_ : float
        Sum over rows of the distance to their mode.
    n_iter_ : int
    distance_ : CategoricalDistance
        The fitted value tables and statistics.
    """

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        metric: str = "hamming",
        init: Any = "cao",
        n_init: int = 1,
        max_iter: int = 100,
        sigma: float = 1.0,
        random_state: Any = None,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        mode_update: str = "objective",
    ) -> None:
        self.n_clusters = n_clusters
        self.metric = metric
        self.mode_update = mode_update
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.sigma = sigma
        self.random_state = random_state
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features

    def fit(self, X: Any, y: Any = None) -> KModes:
        """Cluster the rows of ``X``."""
        self._check()
        with warnings_at_caller(type(self).__name__):  # warnings name the user's line
            if is_dask_collection(X):  # partition by partition (docs/distributed.md)
                from ._dask_fit import fit_kmodes_dask

                return fit_kmodes_dask(self, X)
            return self._fit(X)

    def _fit(self, X: Any) -> KModes:
        check_option("mode_update", self.mode_update, MODE_UPDATES)
        df = as_frame(X)
        self._check_table(df, fit=True)  # before the distance, so that errors name KModes
        if len(df) < 2:  # the value tables (frequencies, co-occurrences) need two rows
            raise CatEmbedError(f"KModes needs at least 2 samples to fit; got n_samples = "
                                f"{len(df)}.")
        self.distance_ = self._distance(self.categorical_features).fit(X)
        self._set_input_names(X, df)
        input_columns = [str(c) for c in df.columns]
        clustered = set(self._kept_columns()) | {
            str(c) for c in self.distance_.dropped_features_}
        self._set_centroid_columns(df, [c for c in input_columns if c in clustered])
        codes = self.distance_.fit_codes_.astype(np.int64)
        ptabs = _padded_tables(self.distance_.tables_)
        rough = self._rough_counts()
        rs = check_random_state(self.random_state)
        seeds = rs.randint(np.iinfo(np.int32).max, size=self.n_init)
        k = self._n_starts(codes)
        best = None
        for seed in seeds:
            if isinstance(self.init, str):
                init_modes = codes[self._init_rows(codes, ptabs, int(seed), k=k)]
            else:
                init_modes = self._encode_init(self.init, input_columns)
            res = kmodes_lloyd(codes, init_modes, ptabs, max_iter=self.max_iter,
                               rough_counts=rough, mode_update=self.mode_update)
            if best is None or res[3] < best[3]:
                best = res
            if not isinstance(self.init, str) or self.init == "cao":
                break
        labels, modes, _, cost, n_iter = best
        modes = self._keep_modes(modes, n_iter)
        self._final_hist = _histograms(codes, labels, self.n_clusters,
                                       [t.shape[0] for t in ptabs])
        # a last assignment step with the final modes, exactly as predict computes it, so
        # that labels_ == predict(X) always holds
        dist = self._cat_dist(codes)
        self.labels_ = np.argmin(dist, axis=1)
        self.cost_ = float(dist[np.arange(len(codes)), self.labels_].sum())
        return self

    def _cat_dist(self, codes: np.ndarray) -> np.ndarray:
        ptabs = _padded_tables(self.distance_.tables_)
        sizes = np.array([t.shape[0] - 1 for t in ptabs])
        codes = np.where(codes < 0, sizes[None, :], codes)
        rough = self._rough_counts()
        r = None if rough is None else (self._final_hist, rough)
        return _cat_distances(codes, self.modes_, ptabs, r)

    def predict(self, X: Any) -> np.ndarray:
        """The nearest mode of each row of ``X`` (unseen values follow ``handle_unknown``)."""
        check_is_fitted(self, "modes_")
        if is_dask_collection(X):  # a lazy Dask Series, partition by partition
            from ._dask_fit import predict_dask

            self._check_table(pd.DataFrame(index=[0], columns=X._meta.columns), fit=False)
            return predict_dask(self, X)
        self._check_table(as_frame(X), fit=False)
        with warnings_at_caller(type(self).__name__):
            codes = self.distance_.encode(X).astype(np.int64)
        return np.argmin(self._cat_dist(codes), axis=1)

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())


KModes.__doc__ = KModes.__doc__.replace("{shared}", _SHARED.strip("\n").lstrip())


def kmodes_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                  metric: str = "hamming", init: str = "cao", **params: Any) -> np.ndarray:
    """Labels of one :class:`KModes` run (the evaluation protocol's ``labels`` hook).

    Every column is taken as categorical. The protocol of every k-modes column of the
    benches (UNTIE Table IV: COS, Ahmad, DILCA, Rough, Hamming) is Cao, Liang and Bai's
    (2009) density initialisation, one start, Huang's stopping rule (no object changes
    cluster; at most ``max_iter=100`` iterations): the Rough measure's authors (Cao, Liang,
    Li, Bai, Dang 2012) are that initialisation's authors, and UNTIE ran its baselines with
    "their recommended settings" (Sec. 6.1.4). It is deterministic, so ``random_state`` does
    not change the result; ``init="huang"`` gives seeded random starts instead.
    """
    return KModes(n_clusters=n_clusters, metric=metric, init=init, random_state=random_state,
                  categorical_features="all", **params).fit(X).labels_
