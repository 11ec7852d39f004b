"""k-modes and k-prototypes (Huang 1998) in vectorised NumPy, any value distance table.

One iteration is two array operations over all rows: distances of every row to every mode
(``sum_j T_j[x_j, z_j]`` gathered from the value tables, plus the squared Euclidean part
for k-prototypes), then the new modes from per-cluster value counts: the value ``v`` that
minimises ``sum_{i in C} T_j[x_ij, v]`` (the most frequent value for Hamming). This is the
batch ("Lloyd") form of Huang's algorithm; Huang's original moves one object at a time and
updates two modes after each move, which is a Python loop per object in the ``kmodes``
package. Both decrease the same cost and stop at a local minimum.

Initialisation
--------------
* ``"huang"`` (Huang 1998, Section 3.2, second method): for each cluster and attribute a
  value drawn with probability proportional to its frequency, then each synthetic mode is
  replaced by the nearest row not yet chosen.
* ``"cao"`` (Cao, Liang, Bai 2009, Eqs. 3-5): the densest row first (density = mean
  relative frequency of its values), then repeatedly the row maximising
  ``min_{z chosen} d(x, z) * Dens(x)``; deterministic. ``d`` is the simple-matching
  dissimilarity, as published, whatever ``metric`` the iterations use, so every measure
  starts from the same modes (a measure whose matches cost almost as much as mismatches,
  such as ``"rough"``, would otherwise make ``d`` nearly constant and pick only the densest
  rows). k-prototypes adds the numeric part to the simple-matching ``d``.
* ``"random"``: ``n_clusters`` distinct rows at random; or an array of initial modes.

All three pick among *distinct* rows, so the initial modes are always distinct; they only
fail when the table has fewer distinct rows than clusters, which is reported as such. A
cluster that empties during the iterations is re-seeded with the row farthest from its mode.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._params import check_option, check_param_types
from .._validation import CatEmbedError, CatEmbedWarning, as_frame, categorical_input_tags
from ..similarity.estimator import CategoricalDistance
from ..similarity.tables import METRICS, ValueTables

__all__ = ["KModes", "KPrototypes", "init_cao", "init_huang", "kmodes_labels", "kmodes_lloyd"]

_INITS = ("cao", "huang", "random")


# ---------------------------------------------------------------------- numeric core
def _padded_tables(vt: ValueTables) -> list[np.ndarray]:
    """Tables with an extra row/column for unseen values (largest distance), powered."""
    out = []
    for t in vt.tables:
        lj = t.shape[0]
        worst = float(t.max()) if t.size and t.max() > 0 else 1.0
        p = np.full((lj + 1, lj + 1), worst)
        p[:lj, :lj] = t
        out.append(p ** vt.power)
    return out


def _cat_distances(codes: np.ndarray, modes: np.ndarray, ptabs: list[np.ndarray],
                   rough: tuple[list[np.ndarray], list[np.ndarray]] | None = None
                   ) -> np.ndarray:
    """``n x k`` categorical distances of rows to modes."""
    n, k = codes.shape[0], modes.shape[0]
    out = np.zeros((n, k))
    for j, t in enumerate(ptabs):
        if rough is None:
            out += t[:, modes[:, j]][codes[:, j]]
        else:
            hist, cnt = rough[0][j], rough[1][j]
            mz = modes[:, j]
            member = hist[np.arange(k), mz] / np.maximum(cnt[mz], 1.0)
            eq = codes[:, j, None] == mz[None, :]
            out += np.where(eq, 1.0 - member[None, :], 1.0)
    return out


def _histograms(codes: np.ndarray, labels: np.ndarray, k: int, widths: list[int]
                ) -> list[np.ndarray]:
    return [
        np.bincount(labels * w + codes[:, j], minlength=k * w).reshape(k, w).astype(float)
        for j, w in enumerate(widths)
    ]


def _modes_from(hists: list[np.ndarray], ptabs: list[np.ndarray], old: np.ndarray
                ) -> np.ndarray:
    modes = old.copy()
    for j, (h, t) in enumerate(zip(hists, ptabs, strict=True)):
        lj = t.shape[0] - 1
        cost = h @ t[:, :lj]  # (k, l_j): cost of each candidate value
        best = np.argmin(cost, axis=1)
        nonempty = h.sum(axis=1) > 0
        modes[nonempty, j] = best[nonempty]
    return modes


def kmodes_lloyd(
    codes: np.ndarray,
    init_modes: np.ndarray,
    ptabs: list[np.ndarray],
    *,
    numeric: np.ndarray | None = None,
    init_centers: np.ndarray | None = None,
    gamma: float = 1.0,
    max_iter: int = 100,
    rough_counts: list[np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float, int]:
    """Batch k-modes / k-prototypes from given initial modes (and numeric centres).

    Cost: ``sum_i min_c [ ||x_i - mu_c||^2 + gamma * sum_j T_j[x_ij, z_cj] ]`` (no numeric
    part for k-modes). With ``rough_counts`` (the value counts ``cnt(v)`` per attribute) the
    categorical part is Cao et al.'s (2012) dissimilarity: a match on attribute ``a``
    costs ``1 - |{x in C_l : x_a = v}| / cnt(v)``, computed from the previous assignment
    (the first assignment uses Hamming).

    Returns ``(labels, modes, centers, cost, n_iter)``.
    """
    codes = np.asarray(codes, dtype=np.int64)
    n = codes.shape[0]
    k = init_modes.shape[0]
    widths = [t.shape[0] for t in ptabs]
    modes = init_modes.astype(np.int64).copy()
    centers = None if numeric is None else np.asarray(init_centers, dtype=float).copy()
    labels = np.full(n, -1, dtype=np.int64)
    rough = None
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        dist = _cat_distances(codes, modes, ptabs, rough)
        if numeric is not None:
            dist = gamma * dist + _sq_dist(numeric, centers)
        new = np.argmin(dist, axis=1)
        new = _fill_empty(new, dist, k)
        changed = not np.array_equal(new, labels)
        labels = new
        hists = _histograms(codes, labels, k, widths)
        modes = _modes_from(hists, ptabs, modes)
        if numeric is not None:
            sums = np.zeros((k, numeric.shape[1]))
            np.add.at(sums, labels, numeric)
            size = np.bincount(labels, minlength=k)[:, None]
            centers = np.where(size > 0, sums / np.maximum(size, 1), centers)
        if rough_counts is not None:
            rough = (hists, rough_counts)
        if not changed:
            break
    dist = _cat_distances(codes, modes, ptabs, rough)
    if numeric is not None:
        dist = gamma * dist + _sq_dist(numeric, centers)
    cost = float(dist[np.arange(n), labels].sum())
    return labels, modes, centers, cost, n_iter


# Largest numeric magnitude KPrototypes accepts: squared Euclidean distances between such
# numbers (and their sums over columns) stay finite in float64 (max ~1.8e308).
_MAX_NUMERIC = 1e150


def _sq_dist(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    d = (x * x).sum(1)[:, None] - 2.0 * x @ c.T + (c * c).sum(1)[None, :]
    return np.maximum(d, 0.0)


def _fill_empty(labels: np.ndarray, dist: np.ndarray, k: int) -> np.ndarray:
    labels = labels.copy()
    for _ in range(k):
        size = np.bincount(labels, minlength=k)
        empty = np.flatnonzero(size == 0)
        if empty.size == 0:
            break
        own = dist[np.arange(len(labels)), labels]
        own = np.where(size[labels] > 1, own, -np.inf)
        i = int(np.argmax(own))
        if not np.isfinite(own[i]):
            break
        labels[i] = empty[0]
    return labels


# ---------------------------------------------------------------------- initialisation
def _distinct(codes: np.ndarray, numeric: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows (of the codes, with the numeric columns when given), first-occurrence
    order: ``(first index of each, its rank per row)`` and the rows themselves."""
    key = codes if numeric is None else np.hstack([codes.astype(np.float64), numeric])
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # keep first-occurrence order for determinism
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first = first[order]
    return codes[first], first, rank[inverse.ravel()]


def _need(n_distinct: int, k: int) -> None:
    if n_distinct < k:
        raise CatEmbedError(
            f"the table has only {n_distinct} distinct row(s), fewer than n_clusters={k}; "
            "use fewer clusters."
        )


def _proto_dist(codes: np.ndarray, numeric: np.ndarray | None, p_codes: np.ndarray,
                p_num: np.ndarray | None, ptabs: list[np.ndarray], gamma: float) -> np.ndarray:
    d = _cat_distances(codes, p_codes, ptabs)
    if numeric is None:
        return d
    return gamma * d + _sq_dist(numeric, p_num)


def _matching_tables(ptabs: list[np.ndarray]) -> list[np.ndarray]:
    """Simple-matching tables (0 on the diagonal, 1 elsewhere) of the same shapes."""
    return [1.0 - np.eye(t.shape[0]) for t in ptabs]


def init_cao(codes: np.ndarray, n_clusters: int, ptabs: list[np.ndarray], *,
             numeric: np.ndarray | None = None, gamma: float = 1.0) -> np.ndarray:
    """Cao, Liang, Bai (2009) density-based initial modes: row indices into ``codes``.

    ``Dens(x) = 1/(n m) sum_a |{y : y_a = x_a}|`` (Eq. 3); the first mode is the densest
    row, the next ones maximise ``min_{z chosen} d(x, z) Dens(x)`` (Eq. 5) with ``d`` the
    simple-matching dissimilarity (Eq. 1 of the paper; ``ptabs`` only give the number of
    values per attribute). With ``numeric`` (k-prototypes) ``d`` adds the squared Euclidean
    distance to ``gamma`` times the mismatches and rows are distinct on all their columns;
    the density stays categorical.
    """
    ptabs = _matching_tables(ptabs)
    n, m = codes.shape
    uniq, first, _ = _distinct(codes, numeric)
    num_u = None if numeric is None else numeric[first]
    _need(len(uniq), n_clusters)
    dens = np.zeros(n)
    for j in range(m):
        dens += np.bincount(codes[:, j])[codes[:, j]]
    dens = dens[first] / (n * m)
    chosen = [int(np.argmax(dens))]
    best = np.full(len(uniq), np.inf)
    for _ in range(1, n_clusters):
        c = chosen[-1:]
        d = _proto_dist(uniq, num_u, uniq[c], None if num_u is None else num_u[c], ptabs,
                        gamma)[:, 0]
        best = np.minimum(best, d * dens)
        best[chosen] = -np.inf
        chosen.append(int(np.argmax(best)))
    return first[np.asarray(chosen)]


def init_huang(codes: np.ndarray, n_clusters: int, ptabs: list[np.ndarray],
               random_state: Any = None, *, numeric: np.ndarray | None = None,
               gamma: float = 1.0) -> np.ndarray:
    """Huang (1998) frequency-based initial modes: row indices into ``codes``.

    Each synthetic mode takes, per attribute, a value drawn with probability proportional
    to its frequency (and, with ``numeric``, the numeric values of a random row); each is
    then replaced by the nearest distinct row not chosen yet.
    """
    rs = check_random_state(random_state)
    n, m = codes.shape
    uniq, first, _ = _distinct(codes, numeric)
    num_u = None if numeric is None else numeric[first]
    _need(len(uniq), n_clusters)
    synth = np.empty((n_clusters, m), dtype=np.int64)
    for j in range(m):
        freq = np.bincount(codes[:, j]).astype(float)
        synth[:, j] = rs.choice(len(freq), size=n_clusters, p=freq / freq.sum())
    s_num = None if numeric is None else numeric[rs.choice(n, size=n_clusters)]
    d = _proto_dist(uniq, num_u, synth, s_num, ptabs, gamma)  # (distinct, k)
    taken = np.zeros(len(uniq), dtype=bool)
    chosen = []
    for c in range(n_clusters):
        col = np.where(taken, np.inf, d[:, c])
        i = int(np.argmin(col))
        taken[i] = True
        chosen.append(i)
    return first[np.asarray(chosen)]


def init_random(codes: np.ndarray, n_clusters: int, random_state: Any = None, *,
                numeric: np.ndarray | None = None) -> np.ndarray:
    """``n_clusters`` distinct rows drawn at random: row indices into ``codes``."""
    rs = check_random_state(random_state)
    uniq, first, _ = _distinct(codes, numeric)
    _need(len(uniq), n_clusters)
    return first[np.sort(rs.choice(len(uniq), size=n_clusters, replace=False))]


# ---------------------------------------------------------------------- estimators
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
            v = getattr(self, name)
            if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
                raise CatEmbedError(f"{name} must be a positive integer; got {v!r}.")

    def _distance(self, categorical_features: Any) -> CategoricalDistance:
        return CategoricalDistance(
            metric=self.metric, sigma=self.sigma, handle_unknown=self.handle_unknown,
            handle_missing=self.handle_missing, categorical_features=categorical_features,
            min_frequency=self.min_frequency, max_categories=self.max_categories,
        )

    def _init_rows(self, codes: np.ndarray, ptabs: list[np.ndarray], seed: int,
                   numeric: np.ndarray | None = None, gamma: float = 1.0) -> np.ndarray:
        if self.init == "cao":
            return init_cao(codes, self.n_clusters, ptabs, numeric=numeric, gamma=gamma)
        if self.init == "huang":
            return init_huang(codes, self.n_clusters, ptabs, seed, numeric=numeric,
                              gamma=gamma)
        return init_random(codes, self.n_clusters, seed, numeric=numeric)

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
        cats = self.distance_.categories_
        out = np.empty(modes.shape, dtype=object)
        for j, c in enumerate(cats):
            out[:, j] = c[modes[:, j]]
        return out

    def _encode_init(self, init: Any, X_frame: pd.DataFrame | None = None) -> np.ndarray:
        arr = as_frame(np.asarray(init, dtype=object)
                       if not isinstance(init, pd.DataFrame) else init)
        names = list(self.distance_.feature_names_)
        if arr.shape[1] != len(names):
            raise CatEmbedError(
                f"init has {arr.shape[1]} columns; the categorical columns are {len(names)}."
            )
        if arr.shape[0] != self.n_clusters:
            raise CatEmbedError(
                f"init has {arr.shape[0]} rows; n_clusters is {self.n_clusters}."
            )
        arr = arr.set_axis(names, axis=1)
        codes = self.distance_._encode_values(arr)
        if (codes < 0).any():
            raise CatEmbedError("init holds values not seen in the data.")
        return codes.astype(np.int64)


class KModes(_Base):
    """k-modes clustering (Huang 1998) with any value distance as the dissimilarity.

    Parameters
    ----------
    n_clusters : int, default=8
    metric : {"hamming", "ahmad", "algo", "dilca", "cos", "dm", "rough", "rough-cluster"}, \
default="hamming"
        Value distance tables (:func:`catembed.similarity.value_tables`). ``"rough"`` is
        Cao et al.'s (2012) rough-membership dissimilarity between two objects (a match on
        value ``v`` costs ``1 - 1/cnt(v)``); ``"rough-cluster"`` its cluster-dependent form
        (a match costs ``1 - |[x]_a cap C_l| / |[x]_a|`` for the current cluster ``C_l``);
        ``"dilca"`` combines the attributes as a squared Euclidean sum.
    init : {"cao", "huang", "random"} or array of shape (n_clusters, n_features), \
default="cao"
        See the module docstring. An array gives the initial modes as values.
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

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
    cluster_centroids_ : ndarray of object, shape (n_clusters, n_features)
        The modes, as values.
    modes_ : ndarray of int, shape (n_clusters, n_features)
        The modes as value codes.
    cost_ : float
        Sum over rows of the distance to their mode.
    n_iter_ : int
    distance_ : CategoricalDistance
        The fitted value tables and statistics.
    """

    def __init__(
        self,
        *,
        n_clusters: int = 8,
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
    ) -> None:
        self.n_clusters = n_clusters
        self.metric = metric
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
        self.distance_ = self._distance(self.categorical_features).fit(X)
        self.n_features_in_ = self.distance_.n_features_in_
        if hasattr(self.distance_, "feature_names_in_"):
            self.feature_names_in_ = self.distance_.feature_names_in_
        codes = self.distance_.encode(X).astype(np.int64)
        if codes.shape[0] < self.n_clusters:
            raise CatEmbedError(
                f"n_samples={codes.shape[0]} should be >= n_clusters={self.n_clusters}."
            )
        ptabs = _padded_tables(self.distance_.tables_)
        rough = self._rough_counts()
        rs = check_random_state(self.random_state)
        seeds = rs.randint(np.iinfo(np.int32).max, size=self.n_init)
        best = None
        for seed in seeds:
            if isinstance(self.init, str):
                init_modes = codes[self._init_rows(codes, ptabs, int(seed))]
            else:
                init_modes = self._encode_init(self.init)
            res = kmodes_lloyd(codes, init_modes, ptabs, max_iter=self.max_iter,
                               rough_counts=rough)
            if best is None or res[3] < best[3]:
                best = res
            if not isinstance(self.init, str) or self.init == "cao":
                break
        labels, modes, _, cost, n_iter = best
        self.modes_ = modes
        self.cluster_centroids_ = self._decode_modes(modes)
        self.n_iter_ = n_iter
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
        codes = self.distance_.encode(X).astype(np.int64)
        return np.argmin(self._cat_dist(codes), axis=1)

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())


KModes.__doc__ = KModes.__doc__.replace("{shared}", _SHARED.strip("\n"))


class KPrototypes(_Base):
    """k-prototypes (Huang 1998) for mixed numeric and categorical data.

    Cost ``sum_i ||x_i^num - mu_c||^2 + gamma * sum_j T_j[x_ij, z_cj]`` (Huang 1998, Eq. 9,
    with any value distance table in place of the mismatch). Numeric columns are used as
    given: standardise them first if their scales differ (the thesis does).

    Parameters
    ----------
    n_clusters : int, default=8
    gamma : float or None, default=None
        Weight of the categorical part; ``None``: half the mean standard deviation of the
        numeric columns (Huang's suggestion, also the ``kmodes`` package's default), with a
        ``CatEmbedWarning`` when a numeric column's standard deviation is outside [0.1, 10]
        (not standardised: its squared distance then swamps the categorical part).
    metric, init, n_init, max_iter, sigma, random_state : as in :class:`KModes`
        Initial prototypes are distinct rows of the table (numeric and categorical values);
        the initialisations use the k-prototypes distance (Cao's density stays categorical).
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
        The categorical columns; every other column must be numeric.

    Attributes
    ----------
    labels_, cost_, n_iter_, distance_ : as in :class:`KModes`
    cluster_centroids_ : ndarray of object, shape (n_clusters, n_numeric + n_categorical)
        Numeric means followed by categorical modes.
    centers_ : ndarray of shape (n_clusters, n_numeric)
    modes_ : ndarray of int, shape (n_clusters, n_categorical)
    numeric_features_, categorical_features_ : list of str
    gamma_ : float
    """

    def __init__(
        self,
        *,
        n_clusters: int = 8,
        gamma: float | None = None,
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
    ) -> None:
        self.n_clusters = n_clusters
        self.gamma = gamma
        self.metric = metric
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

    def _split(self, X: Any) -> tuple[pd.DataFrame, list[str], list[str]]:
        from .._validation import select_categorical

        df = as_frame(X)
        cat, num = select_categorical(df, self.categorical_features)
        if not num:
            raise CatEmbedError(
                "KPrototypes found no numeric column; use KModes for categorical data."
            )
        if set(cat) == set(df.columns):
            raise CatEmbedError("KPrototypes found no categorical column; use k-means.")
        return df, cat, num

    def _numeric(self, df: pd.DataFrame) -> np.ndarray:
        try:
            arr = df[self.numeric_features_].apply(pd.to_numeric).to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise CatEmbedError(
                "KPrototypes numeric columns must hold numbers; list text columns in "
                "categorical_features."
            ) from exc
        if np.isnan(arr).any():
            raise CatEmbedError(
                "KPrototypes numeric columns have missing values; impute or drop those rows."
            )
        big = ~(np.abs(arr) <= _MAX_NUMERIC)
        if big.any():
            col = self.numeric_features_[int(np.flatnonzero(big.any(axis=0))[0])]
            raise CatEmbedError(
                f"KPrototypes numeric column {col!r} has infinite values or values beyond "
                f"+-{_MAX_NUMERIC:.0e}, whose squared distances overflow float64; drop those "
                "rows or rescale the column (e.g. standardise it or take its logarithm)."
            )
        return arr

    def fit(self, X: Any, y: Any = None) -> KPrototypes:
        """Cluster the rows of ``X``."""
        self._check()
        df, cat, num = self._split(X)
        self.n_features_in_ = df.shape[1]
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(df.columns, dtype=object)
        self.numeric_features_ = num
        self.categorical_features_ = cat
        numeric = self._numeric(df)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CatEmbedWarning)
            self.distance_ = self._distance(cat).fit(df[cat])
        codes = self.distance_.encode(df[cat]).astype(np.int64)
        if codes.shape[0] < self.n_clusters:
            raise CatEmbedError(
                f"n_samples={codes.shape[0]} should be >= n_clusters={self.n_clusters}."
            )
        self.gamma_ = (0.5 * float(numeric.std(axis=0).mean()) if self.gamma is None
                       else float(self.gamma))
        _warn_unscaled(numeric, num, self.gamma)
        ptabs = _padded_tables(self.distance_.tables_)
        rough = self._rough_counts()
        rs = check_random_state(self.random_state)
        seeds = rs.randint(np.iinfo(np.int32).max, size=self.n_init)
        best = None
        for seed in seeds:
            if isinstance(self.init, str):
                rows = self._init_rows(codes, ptabs, int(seed), numeric, self.gamma_)
            else:
                raise CatEmbedError("KPrototypes init must be 'cao', 'huang' or 'random'.")
            res = kmodes_lloyd(codes, codes[rows], ptabs, numeric=numeric,
                               init_centers=numeric[rows], gamma=self.gamma_,
                               max_iter=self.max_iter, rough_counts=rough)
            if best is None or res[3] < best[3]:
                best = res
            if self.init == "cao":
                break
        labels, modes, centers, cost, n_iter = best
        self.modes_ = modes
        self.centers_ = centers
        self.cluster_centroids_ = np.hstack(
            [centers.astype(object), self._decode_modes(modes)]
        )
        self.n_iter_ = n_iter
        self._final_hist = _histograms(codes, labels, self.n_clusters,
                                       [t.shape[0] for t in ptabs])
        dist = self._proto_dist(codes, numeric)  # as predict computes it: labels_ == predict(X)
        self.labels_ = np.argmin(dist, axis=1)
        self.cost_ = float(dist[np.arange(len(codes)), self.labels_].sum())
        return self

    def _proto_dist(self, codes: np.ndarray, numeric: np.ndarray) -> np.ndarray:
        ptabs = _padded_tables(self.distance_.tables_)
        sizes = np.array([t.shape[0] - 1 for t in ptabs])
        codes = np.where(codes < 0, sizes[None, :], codes)
        rough = self._rough_counts()
        r = None if rough is None else (self._final_hist, rough)
        return self.gamma_ * _cat_distances(codes, self.modes_, ptabs, r) + _sq_dist(
            numeric, self.centers_)

    def predict(self, X: Any) -> np.ndarray:
        """The nearest prototype of each row of ``X``."""
        check_is_fitted(self, "modes_")
        df = as_frame(X, columns=list(getattr(self, "feature_names_in_", [])) or None)
        numeric = self._numeric(df)
        codes = self.distance_.encode(df[self.categorical_features_]).astype(np.int64)
        return np.argmin(self._proto_dist(codes, numeric), axis=1)


KPrototypes.__doc__ = KPrototypes.__doc__.replace("{shared}", _SHARED.strip("\n"))


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


def _warn_unscaled(numeric: np.ndarray, names: Any, gamma: float | None) -> None:
    """Warn when the automatic ``gamma`` meets numeric columns that are not standardised: the
    squared numeric distance (scale ``std**2``) then swamps the categorical term (scale
    ``gamma``, about ``std / 2``), and the clusters follow the numeric columns alone."""
    if gamma is not None or numeric.size == 0:
        return
    std = numeric.std(axis=0)
    bad = [str(n) for n, s in zip(names, std, strict=False) if s > 0 and not 0.1 <= s <= 10]
    if bad:
        warnings.warn(
            f"KPrototypes: numeric column(s) {', '.join(bad[:5])}{' ...' if len(bad) > 5 else ''}"
            f" are not standardised (standard deviation {std.min():.3g} to {std.max():.3g}); "
            "with the automatic gamma their squared distance outweighs the categorical "
            "columns. Standardise them first (sklearn StandardScaler) or set gamma.",
            CatEmbedWarning, stacklevel=3,
        )
