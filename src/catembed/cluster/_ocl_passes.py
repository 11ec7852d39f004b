"""The assignment passes of :class:`~catembed.cluster.OCL`, fast and with the same numbers.

A pass needs the distance of every row to every cluster and the clusters' value counts.
``_Distances`` keeps the ``k x n`` distances: one sparse product of the rows' value
indicators with the ``E_cj`` table, which adds a row's terms in attribute order from 0;
rows with the same first ``g`` values (``_prefix_plan``) share the sum of those ``g`` terms,
added once a group in the same order, so each distance is the same floating-point number
as the plain product's. ``_first_min`` is ``argmin`` over the clusters (the first on ties)
a cluster row at a time. ``_Tally`` keeps the ``k x L`` counts ``n_c(v)``, whole numbers:
updated from the rows that moved, or counted anew by runs of attributes.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

__all__: list[str] = []


def _prefix_plan(codes: np.ndarray, sizes: np.ndarray) -> tuple[int, np.ndarray]:
    """Prefix groups for the fit's distance product: ``(g, group)``, the rows with the same
    values in the first ``g`` attributes in one group (numbered in the order of those
    values).

    A row's distance sums its attributes from the first, so its partial sum over the first
    ``g`` is that of its group: the fit computes it once a group and the product then reads
    one entry for those ``g``. ``g`` saves the most entries, ``n (g - 1) - P_g g`` for
    ``P_g`` groups, over the prefixes of at most ``n / 2`` groups; 1 (no groups) when that
    is under one entry a row."""
    n, m = codes.shape
    group, count = np.zeros(n, dtype=np.int64), 1
    plan, best = (1, group), float(n)
    for j in range(m):
        size = int(sizes[j])
        key = group * size + codes[:, j]
        if count * size <= 4 * n:  # dense relabelling
            seen = np.zeros(count * size, dtype=bool)
            seen[key] = True
            ids = np.cumsum(seen) - 1
            group, count = ids[key], int(ids[-1]) + 1
        else:
            _, group = np.unique(key, return_inverse=True)
            count = int(group.max()) + 1
        if 2 * count > n:
            break
        if n * j - count * (j + 1) > best:
            best, plan = n * j - count * (j + 1), (j + 1, group)
    return plan


def _rows_matrix(cols: np.ndarray, width: int) -> sp.csr_matrix:
    """``n x width`` 0/1 matrix with row ``i`` at the (increasing) columns ``cols[i]``."""
    n, w = cols.shape
    index = np.int32 if max(width, n * w) < 2**31 - 1 else np.int64
    return sp.csr_matrix((np.ones(n * w), cols.astype(index).ravel(),
                          np.arange(0, n * w + 1, w, dtype=index)), shape=(n, width))


class _Distances:
    """The fit's ``k x n`` distances ``D(x, c)``, recomputed for the clusters asked.

    Each is the sparse product of the rows' value indicators and the ``E_cj`` table, which
    adds a row's ``E_cj(x_j)`` in attribute order; with prefix groups
    (:func:`_prefix_plan`) a group's first ``g`` terms are added once, in the same order,
    and its rows start from that sum: the same numbers. The fit takes the rows in
    ``order``, a group's rows side by side (its sum is then read from the cache).
    """

    def __init__(self, codes: np.ndarray, sizes: np.ndarray, k: int) -> None:
        self.g, group = _prefix_plan(codes, sizes)
        self.order = np.argsort(group, kind="stable") if self.g > 1 else np.arange(len(codes))
        self.group = group[self.order]
        self.rows = np.flatnonzero(np.diff(self.group, prepend=-1))  # a row of each group
        self.m, self.n_values = codes.shape[1], int(np.sum(sizes))
        self.values = np.zeros((k, len(codes)))

    def recode(self, cur: np.ndarray) -> None:
        """Read the rows' ``n x m`` global codes (after a recoding)."""
        if self.g == 1:
            self.main = _rows_matrix(cur, self.n_values)
            return
        n_groups = len(self.rows)
        cols = np.empty((len(cur), self.m - self.g + 1), dtype=np.int64)
        cols[:, 0] = self.group
        np.add(cur[:, self.g:], n_groups, out=cols[:, 1:])
        self.main = _rows_matrix(cols, n_groups + self.n_values)
        self.prefix = _rows_matrix(cur[self.rows, :self.g], self.n_values)

    def update(self, table: np.ndarray, clusters: np.ndarray) -> None:
        """New distances to ``clusters`` from their rows ``table`` of ``E_cj(u)``."""
        t = np.ascontiguousarray(table.T)
        if self.g > 1:
            t = np.concatenate([np.asarray(self.prefix @ t), t])
        prod = np.asarray(self.main @ t).T
        if len(clusters) == len(self.values):
            np.divide(prod, max(1, self.m), out=self.values)
        else:
            self.values[clusters] = prod / max(1, self.m)


def _first_min(dist: np.ndarray) -> np.ndarray:
    """``np.argmin(dist, axis=0)`` for a ``k x n`` ``dist`` (the first smallest on ties),
    a row at a time: NumPy's arg-min over a short axis is several times slower."""
    k, n = dist.shape
    best = dist[0].copy()
    for c in range(1, k):
        np.minimum(best, dist[c], out=best)
    out = np.zeros(n, dtype=np.uint8 if k < 256 else np.intp)
    ahead, other = np.ones(n, dtype=bool), np.empty(n, dtype=bool)
    for c in range(k - 1):  # ahead: no smallest entry in rows 0..c
        np.not_equal(dist[c], best, out=other)
        ahead &= other
        out += ahead
    return out.astype(np.intp)


def _counts(gcodes: np.ndarray, labels: np.ndarray, n_values: int, k: int) -> np.ndarray:
    """``k x L`` counts ``n_c(v)`` of every value in every cluster (``gcodes``: ``n x m``
    global codes)."""
    idx = gcodes + (labels * n_values)[:, None]
    return np.bincount(idx.ravel(), minlength=k * n_values).reshape(k, n_values)


def _move_counts(counts: np.ndarray, gcodes: np.ndarray, before: np.ndarray,
                 after: np.ndarray) -> np.ndarray:
    """Update ``counts`` in place for the rows whose label went from ``before`` to ``after``
    (integers: the same counts as a recount); returns the clusters that changed."""
    rows = np.flatnonzero(before != after)
    if len(rows) == 0:
        return rows
    k, n_values = counts.shape
    sub, size = gcodes[rows], k * n_values
    idx = np.concatenate([sub + (after[rows] * n_values)[:, None],
                          sub + (before[rows] * n_values + size)[:, None]])
    both = np.bincount(idx.ravel(), minlength=2 * size)
    flat = counts.reshape(-1)
    flat += both[:size]
    flat -= both[size:]
    changed = np.bincount(before[rows], minlength=k) + np.bincount(after[rows], minlength=k)
    return np.flatnonzero(changed)


def _blocks(sizes: np.ndarray, n_rows: int) -> list[tuple[int, int]]:
    """Runs ``(start, stop)`` of consecutive attributes counted together: at most
    ``min(4096, n / 8)`` value combinations a run (at least one attribute)."""
    cap, out, start, combos = min(4096, max(16, n_rows // 8)), [], 0, 1
    for j, size in enumerate(sizes.tolist()):
        if j > start and combos * size > cap:
            out.append((start, j))
            start, combos = j, 1
        combos *= size
    return [*out, (start, len(sizes))]


class _Tally:
    """The ``k x L`` counts ``n_c(v)``, updated from the rows that moved; when over an
    eighth of them did, counted anew by runs of attributes (:func:`_blocks`): a row's
    values in a run are one key, the keys are counted per cluster and summed into each
    value's count. Integers: the same counts either way."""

    def __init__(self, sizes: np.ndarray, k: int, n_rows: int) -> None:
        self.sizes, self.k, self.blocks = sizes, k, _blocks(sizes, n_rows)
        self.offsets = np.concatenate([[0], np.cumsum(sizes)])
        combos = [int(np.prod(sizes[a:z])) for a, z in self.blocks]
        self.starts = np.cumsum([0, *combos])
        rows, cols = [], []  # value -> the keys that hold it
        for b, (a, z) in enumerate(self.blocks):
            digits = np.unravel_index(np.arange(combos[b]), sizes[a:z].tolist())
            for j in range(a, z):
                rows.append(digits[j - a] + self.offsets[j])
                cols.append(np.arange(combos[b]) + self.starts[b])
        rows, cols = np.concatenate(rows), np.concatenate(cols)
        self.spread = sp.csr_matrix((np.ones(len(rows)), (rows, cols)),
                                    shape=(int(self.offsets[-1]), int(self.starts[-1])))

    def recode(self, cur: np.ndarray) -> None:
        """Read the rows' ``n x m`` global codes ``cur`` (after a recoding)."""
        self.cur = cur
        self.keys = np.empty((len(cur), len(self.blocks)), dtype=np.int64)
        for b, (a, z) in enumerate(self.blocks):
            key = np.zeros(len(cur), dtype=np.int64)
            for j in range(a, z):  # the first attribute's value is the leading digit
                key *= int(self.sizes[j])
                key += cur[:, j] - self.offsets[j]
            self.keys[:, b] = key + self.starts[b]

    def update(self, before: np.ndarray | None, after: np.ndarray) -> tuple[np.ndarray,
                                                                              np.ndarray]:
        """The counts for the labels ``after`` and the clusters that changed (all for
        ``before=None``: counted anew)."""
        rows = np.flatnonzero(before != after) if before is not None else after
        if before is not None and 8 * len(rows) <= len(after):
            return self.counts, _move_counts(self.counts, self.cur, before, after)
        combos = _counts(self.keys, after, int(self.starts[-1]), self.k).astype(np.float64)
        self.counts = np.asarray(self.spread @ combos.T).T.astype(np.int64, order="C")
        if before is None:
            return self.counts, np.arange(self.k)
        changed = np.bincount(before[rows], minlength=self.k) + np.bincount(
            after[rows], minlength=self.k)
        return self.counts, np.flatnonzero(changed)
