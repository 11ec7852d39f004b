"""LSH-k-representatives (Mau & Huynh 2021): k-representatives started from hash buckets.

Mau, T. N., Huynh, V.-N. (2021). "An LSH-based k-representatives clustering method for
large categorical data". *Neurocomputing* 463, 29-44; the authors' package
``lshkrepresentatives`` (PyPI) is the reference this implementation is checked against. The
2024 survey (Dinh et al., arXiv 2408.17244) ran it on Soybean-small (ARI 1.000) and
Mushroom (ACC .8876, the best there).

**Start: locality-sensitive hashing on the values.** Each attribute ``j`` gets a value
dissimilarity ``d_j(x, y)`` from the shared statistics, DILCA (Ienco, Pensa, Meo 2012) in
the form of the authors' package (``hash_distance="reference"``):

``d_j(x, y) = sqrt( sum_{k in ctx(j)} sum_{u in V_k'} p(u) (p(x | u) - p(y | u))^2
/ sum_{k in ctx(j)} |V_k| )``,

``ctx(j)`` the attributes whose symmetric uncertainty with ``j`` is at least its mean, and
``V_k'`` the values of ``k`` but its last one (in sorted order: the package's loop stops one
value short); ``hash_distance="dilca"`` is Ienco's DILCA itself, without the weights ``p(u)``
and over all of ``V_k`` (:func:`catembed.similarity.tables.dilca_tables`). The values of
``j`` form a complete graph weighted by the similarity ``s_j(x, y) = 1 / d_j(x, y)``
(``10^4`` where ``d_j = 0``); its minimum cut (Stoer & Wagner 1997) splits ``V_j`` in two,
``S_j`` and the rest, at the cost ``cut_j``. The ``b`` attributes of the smallest normalised
cut ``cut_j / |V_j|`` give the hash bits, ``h(x) = ([x_j in S_j])_j``, and
``b = floor(log2(2 n))``, at most ``m - 1`` (the package's rule). Rows of one hash value form
a bucket.

The ``k`` largest buckets (the smaller hash value on equal sizes) are the seeds; every bucket joins
the seed of the nearest hash value in Hamming distance (the first seed on ties). With fewer
than ``k`` buckets the missing seeds take the hash value 0, as the package does.

**Iterations: k-representatives** (San, Huynh, Nakamori 2004). The representative of
cluster ``c`` is its value frequencies ``f_c(v) = n_c(v) / |c|`` and the dissimilarity of a
row ``x`` to it

``D(x, c) = sum_j (1 - f_c(x_j)) = m - sum_j f_c(x_j)``.

Every row moves to its nearest representative (the first on ties), then the
representatives are recomputed (batch form); an emptied cluster takes the row farthest from
its representative in the largest cluster that holds two distinct rows or more (the row of
the smallest codes among equally far ones), with every copy of that row. Stop when no row
moves and the cost ``sum_x min_c D(x, c)`` repeats, or after ``max_iter`` passes; the
labels are then the nearest representative of every row, as ``predict`` gives them. Each
pass is ``O(n m k)``: per attribute one gather of the ``k`` frequencies of every row's
value.

So identical rows always share a cluster, and no tie is broken by the rows' order:
permuting the rows permutes the labels and nothing else (issue 52). A table of fewer
distinct rows than ``n_clusters`` gives that many clusters, with a ``ConvergenceWarning``.

The method is deterministic (no random start): it has no ``random_state``. Differences from
the package, which only show on ties or degenerate input: equal-sized buckets are ordered
by hash value, not in the order met; an emptied cluster takes the farthest row of the
largest cluster under the current representatives, with its copies (the package takes one
row, can take a row of another cluster, then counts it in two clusters).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning

from .._utils._params import check_int, check_option
from .._utils._spelling import k_asked
from .._utils._validation import categorical_input_tags
from ..similarity.tables import dilca_context, dilca_tables
from ..stats._value_statistics import ValueStatistics
from ._coded import check_common, check_cost, fit_codes, predict_codes
from ._kmodes_core import _histograms

__all__ = ["LSHKRepresentatives", "fit_cost", "lsh_kreps_labels", "min_cut",
           "reference_dilca_tables", "value_hash"]

_SAME = 1e4  # the similarity of two values at DILCA distance 0 (the package's)
_CHUNK = 1 << 16  # rows per distance block


def min_cut(w: np.ndarray) -> tuple[float, np.ndarray]:
    """Global minimum cut of a complete weighted graph (Stoer & Wagner 1997).

    ``w`` is a symmetric ``l x l`` weight matrix (the diagonal ignored). Returns the cut
    weight and a boolean mask of one side. ``O(l^3)``, vectorised per phase.
    """
    n = len(w)
    if n < 2:
        return math.inf, np.zeros(n, dtype=bool)
    w = np.array(w, dtype=np.float64)
    np.fill_diagonal(w, 0.0)
    members = np.eye(n, dtype=bool)  # members[i]: original vertices merged into vertex i
    alive = np.ones(n, dtype=bool)
    best, best_side = math.inf, members[0].copy()
    for _ in range(n - 1):
        idx = np.flatnonzero(alive)
        added = np.zeros(n, dtype=bool)
        conn = np.zeros(n)
        last = int(idx[0])
        added[last] = True
        conn += w[last]
        for _ in range(len(idx) - 1):
            cand = np.where(alive & ~added, conn, -np.inf)
            prev, last = last, int(np.argmax(cand))  # the most tightly connected vertex
            added[last] = True
            conn += w[last]
        cut = float(w[last, alive].sum())  # the cut of the phase: `last` against the rest
        if cut < best:
            best, best_side = cut, members[last].copy()
        # merge `last` into `prev`
        w[prev] += w[last]
        w[:, prev] += w[:, last]
        w[prev, prev] = 0.0
        w[last] = 0.0
        w[:, last] = 0.0
        members[prev] |= members[last]
        alive[last] = False
    return best, best_side


def reference_dilca_tables(stats: ValueStatistics) -> list[np.ndarray]:
    """The value distances of the authors' package: DILCA with each squared difference
    weighted by ``p(u)`` and the last value of each context attribute left out (see the
    module's text)."""
    from scipy.spatial.distance import cdist

    cond = stats.conditional()  # cond[u, x] = p(x | u)
    p = stats.probabilities()
    offs = stats.offsets
    out = []
    for j, ctx in enumerate(dilca_context(stats)):
        blk = slice(offs[j], offs[j + 1])
        if ctx.size == 0:
            out.append(1.0 - np.eye(blk.stop - blk.start))
            continue
        cols = np.concatenate([np.arange(offs[k], offs[k + 1] - 1) for k in ctx])
        rows = cond[cols, blk].T * np.sqrt(p[cols])[None, :]  # only the block copied
        den = float(sum(offs[k + 1] - offs[k] for k in ctx))
        out.append(cdist(rows, rows, "euclidean") / np.sqrt(den))
    return out


_HASH_DISTANCES = {"reference": reference_dilca_tables, "dilca": dilca_tables}


def value_hash(stats: ValueStatistics, n_bits: int | None = None,
               hash_distance: str = "reference") -> tuple[np.ndarray, list[np.ndarray]]:
    """The hash bits of the values: ``(features, sides)``, the attributes that give the bits
    (in bit order) and, for each, the boolean mask of the values on one side of its minimum
    cut. ``n_bits=None``: ``floor(log2(2 n))``, at most ``m - 1``."""
    m = stats.n_features
    if n_bits is None:
        n_bits = int(math.log(stats.n_rows * 2) / math.log(2))
        if n_bits >= m:
            n_bits = m - 1
    n_bits = max(0, min(int(n_bits), m))
    norm_cut = np.empty(m)
    sides = []
    for j, d in enumerate(_HASH_DISTANCES[hash_distance](stats)):
        size = len(d)
        if size < 2:  # a constant attribute: never a useful bit
            sides.append(np.ones(size, dtype=bool))
            norm_cut[j] = 1e7
            continue
        with np.errstate(divide="ignore"):
            s = np.where(d == 0, _SAME, 1.0 / np.where(d == 0, 1.0, d))
        cut, side = min_cut(s)
        sides.append(side)
        norm_cut[j] = cut / size
    if n_bits == 0:
        return np.empty(0, dtype=np.int64), []
    feats = (np.argpartition(norm_cut, n_bits)[:n_bits] if n_bits < m
             else np.arange(m))
    return feats.astype(np.int64), [sides[j] for j in feats]


def _hash_rows(codes: np.ndarray, feats: np.ndarray, sides: list[np.ndarray]) -> np.ndarray:
    key = np.zeros(len(codes), dtype=np.int64)
    for j, side in zip(feats, sides, strict=True):
        key = (key << 1) | side[codes[:, j]].astype(np.int64)
    return key


def _popcount(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.uint64)
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(x).astype(np.int64)
    return np.unpackbits(x.view(np.uint8).reshape(len(x), 8), axis=1).sum(axis=1)


def bucket_start(keys: np.ndarray, k: int) -> np.ndarray:
    """The starting cluster of every row from its hash value (see the module's text)."""
    uniq, inverse, sizes = np.unique(keys, return_inverse=True, return_counts=True)
    by_size = np.argsort(-sizes, kind="stable")  # equal sizes: the smaller hash value first
    master_keys = list(uniq[by_size[:k]]) + [0] * max(0, k - len(uniq))
    cluster_of_key = {}
    for c, key in enumerate(master_keys):
        cluster_of_key[int(key)] = c  # a repeated key: the later seed (the package's dict)
    masters = np.array(master_keys, dtype=np.int64)
    ham = _popcount(uniq[:, None] ^ masters[None, :]).reshape(len(uniq), len(masters))
    nearest = masters[np.argmin(ham, axis=1)]
    bucket_cluster = np.array([cluster_of_key[int(key)] for key in nearest], dtype=np.int64)
    return bucket_cluster[inverse.ravel()]


#: k-representatives passes assumed by :func:`fit_cost` (at most ``max_iter``): measured 3-25
#: on the survey's sets and planted tables with ``k`` up to 8, 76 with ``k = 16``
PASSES = 30


def fit_cost(n_rows: int, sizes: np.ndarray, n_clusters: int,
             max_iter: int = 100) -> dict[str, float]:
    """Float64 cells and seconds of a fit on ``n_rows`` rows whose columns have ``sizes``
    distinct values, before any counting.

    Cells: the dense ``l x l`` value tables (a few), the codes, the ``n x k`` distances.
    Seconds: one counting pass (``1e-8`` s per row and column pair), the value tables and
    minimum cuts (``2e-5`` s per column pair and per squared column size), and
    ``min(max_iter, 30)`` passes of ``n m (5e-9 k + 3e-8)`` s (the gathers of ``k``
    frequencies per row and column, the histograms). Calibrated on the development machine
    (2 shared cores, load 5-8): 26 s measured for 1,000,000 x 20, 10 values a column,
    ``k = 8`` (estimate 44 s); 3.2-4.4 s for 100,000-200,000 rows (10-25 passes) and 12 s
    for 100,000 x 20 with ``k = 16`` (76 passes; estimate 7 s).
    """
    n = float(n_rows)
    n_values = float(np.sum(sizes))
    m, k = len(sizes), int(n_clusters)
    pairs = m * (m - 1) / 2
    cells = 4.0 * n_values**2 + 3.0 * n * m + 3.0 * n * k + 2.0 * k * n_values
    seconds = (pairs * 2e-5 + n * pairs * 1e-8 + float(np.sum(sizes.astype(float)**2)) * 2e-5
               + min(int(max_iter), PASSES) * n * m * (5e-9 * k + 3e-8))
    return {"cells": cells, "seconds": seconds}


class LSHKRepresentatives(ClusterMixin, BaseEstimator):
    """LSH-k-representatives (Mau & Huynh 2021) clustering of a categorical table.

    k-representatives iterations (clusters as value frequencies) started from the buckets
    of a hash of the values built from DILCA distances and minimum cuts; see the module's
    text for the equations. Deterministic.

    Parameters
    ----------
    n_clusters : int, default=8
        At most ``n_samples``.
    n_bits : int or None, default=None
        Hash bits (attributes hashed). None: ``floor(log2(2 n))``, at most ``m - 1`` (the
        authors' package).
    max_iter : int, default=100
        Passes of the k-representatives iterations.
    hash_distance : {"reference", "dilca"}, default="reference"
        The value distance behind the hash: the authors' package's form of DILCA (the
        survey's figures), or DILCA as Ienco et al. define it (see the module's text).
    handle_missing : {"category", "error"}, default="category"
        Missing values are a value of their own, or an error.
    max_seconds : float or None, default=None
        The fit is refused up front when its time estimate (``fit_cost``) exceeds this many
        seconds; ``float("inf")``: no limit. None: ``CATEMBED_MAX_SECONDS`` when set, else
        600 (ten minutes).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        The nearest representative of every row (``predict(X)`` on the training table);
        identical rows share a label. Fewer than ``n_clusters`` clusters (with a
        ``ConvergenceWarning``) when the table has fewer distinct rows, or rarely when the
        passes stop at ``max_iter``.
    frequencies_ : list of ndarray of shape (n_clusters, l_j)
        The representatives: ``f_c(v)`` for each attribute's values.
    cost_ : float
        ``sum_x min_c D(x, c)`` under the final representatives.
    n_iter_ : int
    hash_features_ : ndarray of str
        The attributes that give the hash bits.
    n_buckets_ : int
        Distinct hash values of the training rows.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has string column names.
    feature_names_ : list of str
    categories_ : list of ndarray
    """

    def __init__(self, n_clusters: int = 8, *, n_bits: int | None = None, max_iter: int = 100,
                 hash_distance: str = "reference", handle_missing: str = "category",
                 max_seconds: float | None = None) -> None:
        self.n_clusters = n_clusters
        self.n_bits = n_bits
        self.max_iter = max_iter
        self.hash_distance = hash_distance
        self.handle_missing = handle_missing
        self.max_seconds = max_seconds

    def fit(self, X: Any, y: Any = None) -> LSHKRepresentatives:
        """Cluster the rows of ``X``."""
        k = check_common(self)
        check_int("max_iter", self.max_iter)
        check_int("n_bits", self.n_bits, minimum=0, allow_none=True)
        check_option("hash_distance", self.hash_distance, tuple(_HASH_DISTANCES))
        codes = fit_codes(self, X)
        sizes = np.array([len(c) for c in self.categories_], dtype=np.int64)
        check_cost(self, len(codes), sizes,
                   **fit_cost(len(codes), sizes, k, int(self.max_iter)))
        self._offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        stats = ValueStatistics.from_codes(codes, [np.arange(s) for s in sizes],
                                           self.feature_names_)
        feats, sides = value_hash(stats, self.n_bits, self.hash_distance)
        keys = _hash_rows(codes, feats, sides)
        self.hash_features_ = np.array([self.feature_names_[j] for j in feats], dtype=object)
        self.n_buckets_ = len(np.unique(keys))
        g = codes + self._offsets[:-1][None, :]
        labels = bucket_start(keys, k)
        freq = self._frequencies(codes, labels, k)
        labels = self._fill_empty(g, labels, freq, k)
        freq = self._frequencies(codes, labels, k)
        last_cost = math.inf
        n_iter, converged = 0, False
        for it in range(int(self.max_iter)):
            n_iter = it + 1
            dist = self._distances(g, freq)
            new = np.argmin(dist, axis=1)
            mind = dist[np.arange(len(g)), new]
            cost = float(mind.sum())
            new = self._fill_empty(g, new, freq, k, dist=dist)
            moved = int((new != labels).sum())
            labels = new
            freq = self._frequencies(codes, labels, k)
            if moved == 0 and cost == last_cost:
                # a fixed point: the labels are the nearest representatives (an emptied
                # cluster filled with a row's copies holds them at distance 0)
                converged = True
                break
            last_cost = cost
        if not converged:  # stopped at max_iter: every row to its nearest representative
            dist = self._distances(g, freq)
            labels = np.argmin(dist, axis=1)
            cost = float(dist[np.arange(len(g)), labels].sum())
        found = int((np.bincount(labels, minlength=k) > 0).sum())
        if found < k:
            warnings.warn(
                f"LSHKRepresentatives: {found} cluster(s) found, fewer than {k_asked(k)} "
                f"(the table has {len(np.unique(codes, axis=0))} distinct row(s); identical "
                "rows are never split).", ConvergenceWarning, stacklevel=2)
        self._freq = freq
        self.frequencies_ = [freq[:, self._offsets[j]:self._offsets[j + 1]].copy()
                             for j in range(len(sizes))]
        self.labels_ = labels
        self.cost_ = cost
        self.n_iter_ = n_iter
        return self

    def _frequencies(self, codes: np.ndarray, labels: np.ndarray, k: int) -> np.ndarray:
        """``f_c(v) = n_c(v) / |c|`` as a ``k x l`` matrix (0 for an empty cluster); the
        counts are k-modes' per-cluster value histograms."""
        counts = np.hstack(_histograms(codes, labels, k, list(np.diff(self._offsets))))
        size = np.bincount(labels, minlength=k).astype(np.float64)
        return counts / np.maximum(size, 1.0)[:, None]

    @staticmethod
    def _distances(g: np.ndarray, freq: np.ndarray) -> np.ndarray:
        """``D(x, c) = m - sum_j f_c(x_j)`` (summed attribute by attribute, in order)."""
        ft = np.ascontiguousarray(freq.T)  # (l, k): one row per value
        out = np.empty((len(g), freq.shape[0]))
        for a in range(0, len(g), _CHUNK):
            acc = np.zeros((min(_CHUNK, len(g) - a), freq.shape[0]))
            for j in range(g.shape[1]):
                acc += ft[g[a:a + _CHUNK, j]]
            out[a:a + _CHUNK] = g.shape[1] - acc
        return out

    def _fill_empty(self, g: np.ndarray, labels: np.ndarray, freq: np.ndarray, k: int,
                    dist: np.ndarray | None = None) -> np.ndarray:
        """Give each empty cluster the row farthest from its representative in the largest
        cluster of two distinct rows or more (of equally far rows, the one of the smallest
        codes), with all its copies; no tie depends on the rows' order. A cluster stays
        empty when every cluster holds copies of one row only."""
        size = np.bincount(labels, minlength=k)
        if size.min() > 0:
            return labels
        labels = labels.copy()
        if dist is None:
            dist = self._distances(g, freq)
        own = dist[np.arange(len(labels)), labels]
        for c in np.flatnonzero(size == 0):
            for big in np.argsort(-size, kind="stable"):  # the largest first
                rows = np.flatnonzero(labels == big)
                if len(rows) < 2 or (g[rows] == g[rows[0]]).all():
                    continue  # empty, or copies of one row: nothing to split off
                far = rows[own[rows] == own[rows].max()]
                r = far[np.lexsort(g[far].T[::-1])[0]]  # the smallest codes
                same = rows[(g[rows] == g[r]).all(axis=1)]
                labels[same] = c
                size[big] -= len(same)
                size[c] += len(same)
                break
        return labels

    def predict(self, X: Any) -> np.ndarray:
        """The nearest representative of each row of ``X`` (an unseen value matches no
        representative: it adds 1 to every distance)."""
        codes = predict_codes(self, X)
        freq = np.hstack([self._freq, np.zeros((self._freq.shape[0], 1))])
        n_values = int(self._offsets[-1])
        g = np.where(codes < 0, n_values, codes + self._offsets[:-1][None, :])
        return np.argmin(self._distances(g, freq), axis=1)

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())


def lsh_kreps_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                     **params: Any) -> np.ndarray:
    """Labels of one :class:`LSHKRepresentatives` fit (the evaluation protocol's ``labels``
    hook); every column categorical. The method is deterministic: ``random_state`` does not
    change the result."""
    return LSHKRepresentatives(n_clusters, **params).fit(X).labels_
