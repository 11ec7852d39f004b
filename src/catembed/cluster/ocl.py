"""OCL: categorical clustering with a learned order of the values (Zhang et al. 2024).

Zhang, Y., Zhao, M., Jia, H., Li, M., Lu, Y., Cheung, Y.-m. (2024). "Categorical data
clustering via value order estimated distance metric learning". arXiv 2411.15189 (SIGMOD
2025); the authors' MATLAB code (``DAJ0612/OCL_Source_Code``, no licence: read, never
copied) is the reference this implementation follows step for step. Its authors report
on chess kr-vs-kp CA .5726 / ARI .0285 / NMI .0213 and on connect-4, bank marketing and
auction verification (``docs/reproducing.md``); their code takes 220-540 s on the two
larger sets, where k-modes takes about one second.

Each attribute ``j`` with ``l_j`` values gets an *order*: a bijection of its values onto
the positions ``0..l_j - 1``, and the distance of two values is their distance in that
order, ``d_j(u, v) = |u - v| / (l_j - 1)``. A cluster ``c`` is described by its value
frequencies ``P_cj(v) = n_c(v) / |c|`` and the distance of a row ``x`` to it is the
expected order distance

``D(x, c) = 1/m sum_j sum_v d_j(x_j, v) P_cj(v)``.

1. **Start.** ``k`` distinct rows drawn at random (``random_state``) are the first modes;
   k-modes with the Hamming distance (the row to its first nearest mode; each mode the most
   frequent value per attribute, the smallest code on ties) runs until no row moves, at most
   51 passes. ``P`` is the final modes as indicator vectors; every order is the identity
   (the code order of :func:`catembed.stats.factorize`).
2. **Inner loop** (a fixed order): every row moves to its nearest cluster under ``D`` (the
   first on ties), then ``P`` is recomputed (an empty cluster keeps its ``P``); repeat until
   no row moves.
3. **Order update** (fixed partition). In cluster ``c`` each value ``v`` of ``j`` scores
   ``P_cj(v) / E_cj(v)``, ``E_cj(v) = sum_u d_j(u, v) P_cj(u)`` (``10^-6`` where it is
   0). The values sorted by decreasing score (stable) are laid out from the middle
   outwards: the first at position ``ceil(l/2)``, then the second left of it, the third
   right of it, and so on (positions 1-based; for an even ``l`` the last value keeps the
   last position). The cluster's rank of ``v`` is its position; the attribute's order sorts
   the values by ``sum_c |c| / n * rank_c(v)`` (stable), and value ``v`` is recoded as the
   ``v``-th value of that sorted list, as the authors' ``Order_reset`` does.
4. Repeat 2-3 while the partition changes, at most 51 times. As in the reference, the
   outer loop stops when the label *sum* ``sum_i (old_i - new_i)`` is 0, and the first
   assignment pass after a recoding reads the frequencies ``P`` of the previous coding.

Each inner pass costs ``O(n m k)`` (per attribute, the ``k x l_j`` expected distances are
gathered at the rows' values); within an order the value counts are updated from the rows
that moved, and the distances to clusters that kept their rows are kept (the same numbers
as a recomputation). The passes' shortcuts (rows sharing their first values share those
terms of the sum, added in the same order; counts by runs of attributes) are in
``_ocl_passes``: every one gives the same numbers, so the same partitions. A fit is
refused up front when :func:`fit_cost` estimates it over ``max_seconds`` (ten minutes by
default). ``cluster_frequencies_`` and ``value_orders_`` are those of the last assignment
pass, so ``predict`` on the training rows gives ``labels_``; an unseen value adds nothing to
any cluster's distance. An attribute with one value (constant) adds 0 (the reference
divides by ``l_j - 1 = 0`` there).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._utils._params import check_int, check_random_state_param
from .._utils._spelling import k_asked
from .._utils._validation import CatEmbedError, categorical_input_tags
from ._coded import check_common, check_cost, fit_codes, predict_codes
from ._ocl_passes import _counts, _Distances, _first_min, _rows_matrix, _Tally

__all__ = ["OCL", "fit_cost", "ocl_labels", "ocl_order"]

_MAX_LOOPS = 51  # the reference's ``<= 50`` tests after the increment: 51 passes


def _scale(size: int) -> float:
    return float(size - 1) if size > 1 else 1.0


def _expected_distances(freq: np.ndarray) -> np.ndarray:
    """``E[..., c, u] = sum_v |v - u| / (l - 1) P[..., c, v]`` for every cluster and
    position (``freq``: ``(..., l)``), summed in value order as the reference does."""
    size = freq.shape[-1]
    out = np.zeros(freq.shape)
    pos = np.arange(size, dtype=np.float64)
    for v in range(size):
        out += (np.abs(pos - v) / _scale(size)) * freq[..., v:v + 1]
    return out


def _size_groups(offsets: np.ndarray) -> list[np.ndarray]:
    """For each number of values, the ``attributes x values`` positions of the attributes
    with that many (``offsets`` into the ``L`` values)."""
    sizes = np.diff(offsets)
    return [offsets[:-1][sizes == size, None] + np.arange(size) for size in np.unique(sizes)]


def _distance_table(freq: np.ndarray, groups: list[np.ndarray]) -> np.ndarray:
    """The ``E_cj(u)`` of every value of every attribute from the frequencies (both
    ``k x L``), the attributes of one size (``groups``, :func:`_size_groups`) together."""
    table = np.empty(freq.shape)
    for cols in groups:
        table[:, cols] = _expected_distances(freq[:, cols])
    return table


def _indicators(gcodes: np.ndarray, n_values: int) -> sp.csr_matrix:
    """``n x L`` 0/1 matrix of the rows' values from the ``m x n`` global codes (code
    ``-1``, unseen, left out), the columns of a row in attribute order."""
    m, n = gcodes.shape
    codes = gcodes.T
    seen = codes >= 0
    index = np.int32 if n_values < 2**31 - 1 else np.int64
    indptr = np.concatenate([[0], np.cumsum(seen.sum(axis=1))])
    return sp.csr_matrix((np.ones(int(indptr[-1])), codes[seen].astype(index),
                          indptr.astype(np.int64 if indptr[-1] >= 2**31 else index)),
                         shape=(n, n_values))


def _distances(onehot: sp.csr_matrix, table: np.ndarray, m: int) -> np.ndarray:
    """``n x k`` matrix of ``D(x, c)``: per row, the attributes' ``E_cj(x_j)`` summed in
    attribute order (the sparse product adds a row's entries in column order), over ``m``."""
    return np.asarray(onehot @ np.ascontiguousarray(table.T)) / max(1, m)


def _frequencies(counts: np.ndarray, labels: np.ndarray, old: np.ndarray) -> np.ndarray:
    """``k x L`` frequencies ``P_cj`` from the counts; an empty cluster keeps its old row."""
    n_c = np.bincount(labels, minlength=len(old)).astype(np.float64)
    full = n_c > 0
    out = old.copy()
    out[full] = counts[full] / n_c[full, None]
    return out


def _start_modes(codes: np.ndarray, k: int, rng: np.random.RandomState) -> np.ndarray:
    """``k`` distinct rows, each drawn uniformly from the rows unlike those drawn before: in
    a random order of the rows, the first ``k`` unlike every row before them."""
    rows = codes[rng.permutation(len(codes))]
    taken, first = np.zeros(len(rows), dtype=bool), []
    while len(first) < k and not taken.all():
        p = int(np.argmin(taken))  # the first row unlike those drawn
        first.append(p)
        taken[p:] |= (rows[p:] == rows[p]).all(axis=1)
    if len(first) < k:  # the reference would draw for ever
        warnings.warn(f"OCL: the table has {len(first)} distinct row(s), fewer than "
                      f"{k_asked(k)}; {len(first)} cluster(s) found.", ConvergenceWarning,
                      stacklevel=3)
        first = np.resize(first, k)  # repeated modes: their clusters stay empty
    return rows[first]


def _hamming_kmodes(cur: np.ndarray, modes: np.ndarray,
                    offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The reference's start: Hamming k-modes from ``modes``, at most 51 passes (``cur``:
    the ``n x m`` global codes). The matches are whole numbers in a sparse product, so the
    first most-matching mode is the first nearest."""
    k, m = modes.shape
    n, n_values = len(cur), int(offsets[-1])
    onehot = _rows_matrix(cur, n_values)
    old = np.full(n, -1)
    labels = old
    mism = np.empty((k, n))
    for _ in range(_MAX_LOOPS):
        indicator = np.zeros((n_values, k))
        indicator[modes + offsets[:-1], np.arange(k)[:, None]] = 1.0
        np.subtract(m, np.asarray(onehot @ indicator).T, out=mism)
        labels = _first_min(mism)
        stop = np.array_equal(labels, old)
        old = labels
        counts = _counts(cur, labels, n_values, k)
        full = np.bincount(labels, minlength=k) > 0
        for j in range(m):
            modes[full, j] = np.argmax(counts[full, offsets[j]:offsets[j + 1]], axis=1)
        if stop:
            break
    return modes, labels


def ocl_order(freq: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The new code of each value of one attribute (step 3): ``freq`` is its ``k x l``
    cluster frequencies ``P_c``, ``weights`` the cluster shares ``|c| / n``."""
    k, size = freq.shape
    cost = _expected_distances(freq)
    cost[cost == 0] = 1e-6
    score = freq / cost
    ranked = np.argsort(-score, axis=1, kind="stable")  # each cluster's values, best first
    mid, i = (size + 1) // 2 - 1, np.arange(1, (size - 1) // 2 + 1)
    pick = np.arange(size)  # position -> place in the ranking (even l: the last stays)
    pick[mid], pick[mid - i], pick[mid + i] = 0, 2 * i - 1, 2 * i
    rank = np.empty((k, size))
    np.put_along_axis(rank, ranked[:, pick], np.arange(1.0, size + 1)[None, :], axis=1)
    total = np.zeros(size)
    for c in range(k):  # summed cluster by cluster, as the reference does
        total = total + weights[c] * rank[c]
    return np.argsort(total, kind="stable")


#: assignment passes assumed by :func:`fit_cost`: the outer loop runs up to 51 times, each
#: with an inner loop until no row moves; measured 416 passes on Mushroom (k=2), 735-965 on
#: planted tables of 20 columns of 10 values (k=8, 20,000 to 1,000,000 rows), 3,000-5,400
#: on some planted tables with 4 clusters or 30 values a column
PASSES = 1000


def fit_cost(n_rows: int, sizes: np.ndarray, n_clusters: int,
             passes: int = PASSES) -> dict[str, float]:
    """Float64 cells and seconds of a fit on ``n_rows`` rows whose columns have ``sizes``
    distinct values, before any counting.

    Cells: the codes twice, the sparse ``n x L`` value indicators, the ``n x k`` distances.
    Seconds: ``passes`` assignment passes of ``n k (8e-10 m + 2e-9)`` seconds each (the
    sparse product ``n m k``; the arg-min, the counts and the label comparisons ``n k``).
    The constants were calibrated on the development machine (2 cores shared with other
    jobs, load 2-3): a whole 1,000,000 x 20 fit (10 values a column, k = 8) took 142 s for
    965 passes, 0.147 s a pass; 1,000 passes of that are the estimate, 144 s, under the
    default limit of ten minutes (a warning: over two minutes). At 200,000 x 20 a pass took
    0.093 s per million rows (864 passes, 16 s; estimate 29 s), at 200,000 x 5 0.030 s
    (2,747 passes). The estimate can be off by a factor of a few: the pass count depends on
    the table (see ``PASSES``), the pass time on the load.
    """
    n = float(n_rows)
    m, k = len(sizes), int(n_clusters)
    return {"cells": 3.5 * n * m + 3.0 * n * k,
            "seconds": passes * n * k * (8e-10 * m + 2e-9)}


class OCL(ClusterMixin, BaseEstimator):
    """OCL (Zhang et al. 2024): k-modes-type clustering with a learned value order per
    attribute (see the module's text for the steps).

    Parameters
    ----------
    n_clusters : int, default=8
    init : {"random"} or array-like of shape (n_clusters, n_features), default="random"
        ``"random"``: distinct rows drawn with ``random_state``; an array gives the start
        modes (values as in ``X``), for comparisons with the reference.
    random_state : int, RandomState or None, default=None
    handle_missing : {"category", "error"}, default="category"
        Missing values are a value of their own, or an error.
    max_seconds : float or None, default=None
        The fit is refused up front when its time estimate (``fit_cost``) exceeds this many
        seconds; ``float("inf")``: no limit. None: ``CATEMBED_MAX_SECONDS`` when set, else
        600 (ten minutes).

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        A cluster can end empty (the reference keeps it): labels need not cover
        ``0..n_clusters - 1``.
    cluster_frequencies_ : list of ndarray of shape (n_clusters, n_values_j)
        ``P_cj`` of the last assignment pass, indexed by order position.
    value_orders_ : list of ndarray
        For each attribute, the position of each of its ``categories_`` in the learned
        order.
    start_modes_ : ndarray of shape (n_clusters, n_features_in_)
        The drawn start rows (codes into ``categories_``).
    n_iter_ : int
        Order updates (outer passes).
    n_features_in_, feature_names_in_, feature_names_, categories_
        As in :class:`~catembed.cluster.MGR`.
    """

    def __init__(self, n_clusters: int = 8, *, init: Any = "random", random_state: Any = None,
                 handle_missing: str = "category",
                 max_seconds: float | None = None) -> None:
        self.n_clusters = n_clusters
        self.init = init
        self.random_state = random_state
        self.handle_missing = handle_missing
        self.max_seconds = max_seconds

    def _start(self, codes: np.ndarray, k: int) -> np.ndarray:
        if isinstance(self.init, str):
            if self.init != "random":
                raise CatEmbedError(f"init={self.init!r} is not valid; use 'random' or an "
                                    "array of start modes.")
            return _start_modes(codes, k, check_random_state(self.random_state))
        init = np.asarray(self.init, dtype=object)
        if init.shape != (k, codes.shape[1]):
            raise CatEmbedError(f"init has shape {init.shape}; expected ({k}, "
                                f"{codes.shape[1]}) (n_clusters, n_features).")
        modes = np.column_stack([_codes_of(self.categories_[j], init[:, j])
                                 for j in range(codes.shape[1])])
        return modes.astype(np.int64)

    def fit(self, X: Any, y: Any = None) -> OCL:
        """Cluster the rows of ``X``."""
        k = check_common(self)
        check_random_state_param(self.random_state)  # NumPy's own error named no parameter
        codes = fit_codes(self, X)
        n, m = codes.shape
        sizes = np.array([len(c) for c in self.categories_], dtype=np.int64)
        check_cost(self, n, sizes, **fit_cost(n, sizes, k))
        self.start_modes_ = self._start(codes, k)
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        n_values = int(offsets[-1])
        index = np.int32 if n_values < 2**31 - 1 else np.int64
        dist = _Distances(codes, sizes, k)  # the rows in dist.order from here on
        cur = (codes[dist.order] + offsets[:-1]).astype(index)  # global codes, current order
        modes, labels = _hamming_kmodes(cur, self.start_modes_.copy(), offsets)
        freq = np.zeros((k, n_values))  # P_cj, all attributes side by side
        freq[np.arange(k)[:, None], modes + offsets[:-1]] = 1.0
        where = np.arange(n_values)  # global code -> current global position
        spans = list(zip(offsets[:-1], offsets[1:], strict=True))
        groups = _size_groups(offsets)
        old = labels
        labels = np.full(n, -1)
        tally = _Tally(sizes, k, n)
        for loop in range(1, _MAX_LOOPS + 1):
            dist.recode(cur)
            tally.recode(cur)  # a new coding: counted anew, every cluster's distances anew
            dirty, first = np.arange(k), True
            while True:  # inner loop, a fixed order
                used = (freq, where)
                if len(dirty):  # the distances to unchanged clusters are the same numbers
                    dist.update(_distance_table(freq[dirty], groups), dirty)
                new = _first_min(dist.values)
                moved = not np.array_equal(new, labels)
                counts, dirty = tally.update(None if first else labels, new)
                first = False
                labels = new
                freq = _frequencies(counts, labels, freq)
                if not moved:
                    break
            self.n_iter_ = loop
            if int(np.sum(old - labels)) == 0:
                break
            old = labels
            share = np.bincount(labels, minlength=k) / n
            recode = np.concatenate([ocl_order(freq[:, a:b], share) + a for a, b in spans])
            cur = recode.astype(index)[cur]
            where = recode[where]
        freq, where = used
        self.cluster_frequencies_ = [freq[:, a:b].copy() for a, b in spans]
        self.value_orders_ = [where[a:b] - a for a, b in spans]
        self.labels_ = np.empty(n, dtype=np.int64)
        self.labels_[dist.order] = labels
        return self

    def predict(self, X: Any) -> np.ndarray:
        """The nearest cluster of each row of ``X`` under the learned orders and
        ``cluster_frequencies_`` (the first on ties)."""
        codes = predict_codes(self, X)
        sizes = np.array([len(c) for c in self.categories_], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(sizes)])
        cur = np.stack([np.where(codes[:, j] >= 0, self.value_orders_[j][np.maximum(
            codes[:, j], 0)] + offsets[j], -1) for j in range(codes.shape[1])])
        cur = cur.reshape(len(sizes), len(codes))
        table = _distance_table(np.concatenate(self.cluster_frequencies_, axis=1),
                                _size_groups(offsets))
        onehot = _indicators(cur, int(offsets[-1]))
        return np.argmin(_distances(onehot, table, len(sizes)), axis=1).astype(np.int64)

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())


def _codes_of(categories: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Codes of ``values`` in ``categories`` (an error for one not there)."""
    lookup = {v: i for i, v in enumerate(categories.tolist())}
    out = []
    for v in values.tolist():
        key = v if v in lookup else str(v)
        if key not in lookup:
            raise CatEmbedError(f"init value {v!r} is not a value of its column in X.")
        out.append(lookup[key])
    return np.asarray(out, dtype=np.int64)


def ocl_labels(X: Any, n_clusters: int, *, random_state: Any = None,
               **params: Any) -> np.ndarray:
    """Labels of one :class:`OCL` fit (the evaluation protocol's ``labels`` hook); every
    column categorical, one random start per seed."""
    check_int("n_clusters", n_clusters)
    return OCL(n_clusters, random_state=random_state, **params).fit(X).labels_
