"""The per-partition steps of the distributed k-modes and LCA fits, as plain functions over
one pandas batch or its value codes, for any engine that maps a function over partitions
and sums small arrays (Dask here, :mod:`catembed.cluster._dask_fit`; Spark's
``mapInPandas`` / ``applyInPandas`` the same way, ``docs/distributed.md``).

Every function reads one batch and the small broadcast state (value categories, modes and
value tables, class parameters) and returns arrays whose size does not depend on the number
of rows: value counts per cluster, distinct rows with their counts, sufficient statistics of
the E-step. Their sums over the batches are the in-memory fit's quantities (exactly for the
integer counts; up to the order of floating point additions for the E-step's sums).

Rows are named by their global position ``start + i`` (``start``: the rows before the
batch), so that ties are broken as the in-memory fit breaks them (the first row).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import logsumexp

from ..stats._encoding import _position, encode, factorize
from ._kmodes_core import _cat_distances, _histograms
from ._lca_core import _log_joint_classes, _logsumexp_classes

__all__ = [
    "Distinct",
    "batch_categories",
    "cao_score_batch",
    "distinct_batch",
    "encode_batch",
    "factorize_batch",
    "kmodes_cost_batch",
    "kmodes_farthest_batch",
    "kmodes_labels_batch",
    "kmodes_step_batch",
    "lca_estep_batch",
    "lca_labels_batch",
    "merge_distinct",
    "nearest_free_batch",
    "remap_batch",
    "unique_rows",
    "value_counts_batch",
]

#: rows of a batch handled at a time (bounds the ``rows x k`` distance block)
SLICE = 1 << 18

Rough = tuple[list[np.ndarray], list[np.ndarray]] | None


class Distinct(NamedTuple):
    """Distinct code rows (sorted as ``numpy.unique(axis=0)`` sorts them), the global
    position of each one's first occurrence and its number of occurrences."""

    rows: np.ndarray
    first: np.ndarray
    counts: np.ndarray


# ---------------------------------------------------------------------- encoding
def batch_categories(batch: pd.DataFrame, columns: Sequence[str],
                     handle_missing: str = "category") -> list[np.ndarray]:
    """The sorted values of each column of a batch (``factorize``'s categories); merged
    over the batches with :func:`catembed.stats._encoding.union_categories`."""
    return [factorize(batch[c], handle_missing)[1] for c in columns]


def factorize_batch(batch: pd.DataFrame, columns: Sequence[str],
                    handle_missing: str = "category"
                    ) -> tuple[np.ndarray, list[np.ndarray]]:
    """A batch's codes against its own sorted values, and those values, per column: one
    pass over the values; :func:`remap_batch` turns the codes into the merged categories'
    (``union_categories``) without reading the values again."""
    codes = np.empty((len(batch), len(columns)), dtype=np.int32)
    cats = []
    for j, c in enumerate(columns):
        codes[:, j], cj = factorize(batch[c], handle_missing)
        cats.append(cj)
    return codes, cats


def remap_batch(local: tuple[np.ndarray, list[np.ndarray]], categories: Sequence[np.ndarray],
                dtype: Any = np.int64) -> np.ndarray:
    """:func:`factorize_batch`'s codes as codes in the merged ``categories``."""
    codes, cats = local
    out = np.empty(codes.shape, dtype=dtype)
    for j, (cj, union) in enumerate(zip(cats, categories, strict=True)):
        out[:, j] = _position(union, cj)[codes[:, j]] if len(cj) else codes[:, j]
    return out


def encode_batch(batch: pd.DataFrame, columns: Sequence[str],
                 categories: Sequence[np.ndarray], handle_missing: str = "category",
                 dtype: Any = np.int64) -> np.ndarray:
    """The ``rows x m`` value codes of a batch against the fitted categories (``-1``:
    unseen), as the in-memory fit factorises the whole table."""
    return encode(batch, list(columns), list(categories), handle_missing, dtype)


def value_counts_batch(codes: np.ndarray, widths: Sequence[int]) -> list[np.ndarray]:
    """Occurrences of each value of each column (unseen codes ``-1`` not counted)."""
    return [np.bincount(codes[:, j][codes[:, j] >= 0], minlength=int(w)).astype(np.int64)
            for j, w in enumerate(widths)]


# ---------------------------------------------------------------------- distinct rows
def distinct_batch(codes: np.ndarray, start: int = 0) -> Distinct:
    """The distinct rows of a batch, their first global position and their counts."""
    codes = np.asarray(codes, dtype=np.int64)
    if len(codes) == 0:
        return Distinct(codes.reshape(0, codes.shape[1]), np.zeros(0, np.int64),
                        np.zeros(0, np.int64))
    rows, first, counts = unique_rows(codes)
    return Distinct(rows, first.astype(np.int64) + int(start), counts.astype(np.int64))


def unique_rows(codes: np.ndarray, inverse: bool = False) -> tuple[np.ndarray, ...]:
    """``numpy.unique(codes, axis=0, return_index=True, return_counts=True)`` (and
    ``return_inverse`` last, flat), by one integer key per row when the codes' mixed radix
    fits in 62 bits: the same sorted order, several times faster than sorting rows."""
    n, m = codes.shape
    radix = codes.max(axis=0) + 1 if n else np.ones(m, np.int64)
    if n == 0 or codes.min() < 0 or np.sum(np.log2(np.maximum(radix, 1))) > 62:
        rows, first, inv, counts = np.unique(codes, axis=0, return_index=True,
                                             return_inverse=True, return_counts=True)
        return (rows, first, counts, inv.ravel()) if inverse else (rows, first, counts)
    key = np.zeros(n, dtype=np.int64)
    for j in range(m):  # first column most significant: lexicographic order
        key = key * int(radix[j]) + codes[:, j]
    _, first, inv, counts = np.unique(key, return_index=True, return_inverse=True,
                                      return_counts=True)
    out = (codes[first], first, counts)
    return (*out, inv.ravel()) if inverse else out


def merge_distinct(a: Distinct | None, b: Distinct | None, cap: int | None = None
                   ) -> Distinct | None:
    """The distinct rows of two batches together (first positions: the smaller; counts
    added); ``None`` when either is ``None`` or there are more than ``cap`` rows."""
    if a is None or b is None:
        return None
    rows = np.concatenate([a.rows, b.rows])
    uniq, _, _, inv = unique_rows(rows, inverse=True)
    if cap is not None and len(uniq) > cap:
        return None
    first = np.full(len(uniq), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(first, inv, np.concatenate([a.first, b.first]))
    counts = np.bincount(inv, weights=np.concatenate([a.counts, b.counts]),
                         minlength=len(uniq)).astype(np.int64)
    return Distinct(uniq, first, counts)


# ---------------------------------------------------------------------- k-modes
def _assign(codes: np.ndarray, modes: np.ndarray, ptabs: list[np.ndarray], rough: Rough,
            moves: tuple[np.ndarray, np.ndarray] | None, start: int
            ) -> tuple[np.ndarray, np.ndarray]:
    """Labels (nearest mode, then the moved rows of the empty-cluster fill) and the
    ``rows x k`` distances."""
    dist = _cat_distances(codes, modes, ptabs, rough)
    labels = np.argmin(dist, axis=1)
    if moves is not None and len(moves[0]):
        at = moves[0] - start
        inside = (at >= 0) & (at < len(codes))
        labels[at[inside]] = moves[1][inside]
    return labels, dist


def kmodes_step_batch(codes: np.ndarray, modes: np.ndarray, ptabs: list[np.ndarray],
                      rough: Rough = None, moves: tuple[np.ndarray, np.ndarray] | None = None,
                      start: int = 0) -> tuple[list[np.ndarray], np.ndarray]:
    """One k-modes assignment of a batch: per cluster value counts (``k x l_j`` per
    column, the mode update's input) and cluster sizes."""
    k = len(modes)
    widths = [t.shape[0] for t in ptabs]
    hists = [np.zeros((k, w)) for w in widths]
    sizes = np.zeros(k, dtype=np.int64)
    for a in range(0, len(codes), SLICE):
        block = np.asarray(codes[a:a + SLICE], dtype=np.int64)
        labels, _ = _assign(block, modes, ptabs, rough, moves, start + a)
        for h, hb in zip(hists, _histograms(block, labels, k, widths), strict=True):
            h += hb
        sizes += np.bincount(labels, minlength=k)
    return hists, sizes


def kmodes_farthest_batch(codes: np.ndarray, modes: np.ndarray, ptabs: list[np.ndarray],
                          rough: Rough, moves: tuple[np.ndarray, np.ndarray] | None,
                          start: int, sizes: np.ndarray) -> tuple[float, int]:
    """The row of the batch farthest from its mode among the clusters of more than one
    row (the global ``sizes``): ``(distance, global position)``, the first on ties;
    ``(-inf, -1)`` for none. The empty-cluster fill moves that row."""
    best, where = -np.inf, -1
    for a in range(0, len(codes), SLICE):
        block = np.asarray(codes[a:a + SLICE], dtype=np.int64)
        labels, dist = _assign(block, modes, ptabs, rough, moves, start + a)
        own = dist[np.arange(len(block)), labels]
        own = np.where(sizes[labels] > 1, own, -np.inf)
        if len(own):
            i = int(np.argmax(own))
            if own[i] > best:
                best, where = float(own[i]), start + a + i
    return best, where


def kmodes_cost_batch(codes: np.ndarray, label_modes: np.ndarray, label_rough: Rough,
                      moves: tuple[np.ndarray, np.ndarray] | None, start: int,
                      modes: np.ndarray, ptabs: list[np.ndarray], rough: Rough) -> float:
    """The cost of a batch's rows in the clusters assigned with ``label_modes`` (and the
    fill's moves), measured to the new ``modes``."""
    total = 0.0
    for a in range(0, len(codes), SLICE):
        block = np.asarray(codes[a:a + SLICE], dtype=np.int64)
        labels, _ = _assign(block, label_modes, ptabs, label_rough, moves, start + a)
        d = _cat_distances(block, modes, ptabs, rough)
        total += float(d[np.arange(len(block)), labels].sum())
    return total


def kmodes_labels_batch(codes: np.ndarray, modes: np.ndarray, ptabs: list[np.ndarray],
                        rough: Rough = None) -> tuple[np.ndarray, float]:
    """The nearest mode of each row (``KModes.predict``) and the batch's cost."""
    sizes = np.array([t.shape[0] - 1 for t in ptabs])
    codes = np.where(codes < 0, sizes[None, :], codes)
    labels = np.empty(len(codes), dtype=np.int64)
    cost = 0.0
    for a in range(0, len(codes), SLICE):
        d = _cat_distances(codes[a:a + SLICE], modes, ptabs, rough)
        lab = np.argmin(d, axis=1)
        labels[a:a + SLICE] = lab
        cost += float(d[np.arange(len(lab)), lab].sum())
    return labels, cost


def _best_row(score: np.ndarray, codes: np.ndarray, start: int, *, largest: bool
              ) -> tuple[float, int, np.ndarray | None]:
    """``(score, global position, row)`` of the batch's best row (the first on ties)."""
    if len(score) == 0:
        return (-np.inf if largest else np.inf), -1, None
    i = int(np.argmax(score) if largest else np.argmin(score))
    return float(score[i]), start + i, codes[i].copy()


def _is_any(codes: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Whether each code row equals one of ``rows``."""
    if len(rows) == 0:
        return np.zeros(len(codes), dtype=bool)
    return (codes[:, None, :] == rows[None, :, :]).all(axis=2).any(axis=1)


def cao_score_batch(codes: np.ndarray, chosen: np.ndarray, value_counts: list[np.ndarray],
                    n_rows: int, start: int = 0) -> tuple[float, int, np.ndarray | None]:
    """Cao's next initial mode among a batch's rows: the row maximising ``Dens(x) min_{z
    chosen} d(x, z)`` (``d`` simple matching; with no mode chosen yet, the densest row),
    the chosen rows left out. ``Dens`` reads the whole table's ``value_counts``. The
    largest over the batches (first global position on ties) is the in-memory choice."""
    codes = np.asarray(codes, dtype=np.int64)
    m = codes.shape[1]
    dens = np.zeros(len(codes))
    for j in range(m):
        dens += value_counts[j][codes[:, j]]
    dens = dens / (n_rows * m) if m else np.ones(len(codes))
    if len(chosen) == 0:
        return _best_row(dens, codes, start, largest=True)
    match = [1.0 - np.eye(len(v) + 1) for v in value_counts]
    best = np.full(len(codes), np.inf)
    for z in chosen:
        best = np.minimum(best, _cat_distances(codes, z[None, :], match)[:, 0] * dens)
    best[_is_any(codes, chosen)] = -np.inf
    return _best_row(best, codes, start, largest=True)


def nearest_free_batch(codes: np.ndarray, target: np.ndarray, taken: np.ndarray,
                       ptabs: list[np.ndarray], start: int = 0
                       ) -> tuple[float, int, np.ndarray | None]:
    """The batch's row nearest to ``target`` among those not equal to a ``taken`` row
    (Huang's replacement of a synthetic mode); the smallest over the batches (first global
    position on ties) is the in-memory choice."""
    codes = np.asarray(codes, dtype=np.int64)
    d = _cat_distances(codes, target[None, :], ptabs)[:, 0]
    d[_is_any(codes, taken)] = np.inf
    return _best_row(d, codes, start, largest=False)


# ---------------------------------------------------------------------- LCA
def lca_estep_batch(codes: np.ndarray, offsets: np.ndarray, log_theta: np.ndarray,
                    log_pi: np.ndarray, weights: np.ndarray | None = None
                    ) -> tuple[np.ndarray, float]:
    """The E-step's sufficient statistics of a batch: the expected counts ``sum_i r_ic
    [x_ij = v]`` (``K x J``, ``J`` the values of every column) and the log-likelihood
    ``sum_i log P(x_i)``. The rows are reduced to the batch's distinct rows first, unless
    ``weights`` gives their counts (``codes`` already distinct: :func:`distinct_batch`,
    computed once for all the iterations)."""
    if weights is None:
        uniq, _, counts = unique_rows(np.asarray(codes, dtype=np.int64))
    else:
        uniq, counts = np.asarray(codes, dtype=np.int64), weights
    weights = np.asarray(counts, dtype=np.float64)
    out = np.zeros_like(log_theta)
    ll = 0.0
    J = int(offsets[-1])
    for a in range(0, len(uniq), SLICE):
        g = uniq[a:a + SLICE] + offsets[:-1][None, :]
        lj = _log_joint_classes(np.ascontiguousarray(g.T), log_theta, log_pi)  # K x rows
        lse = _logsumexp_classes(lj)
        ll += float(weights[a:a + SLICE] @ lse)
        R = np.exp(lj - lse) * weights[a:a + SLICE]
        u, m = g.shape
        # row x value indicator, built as CSR directly (each row holds its m values)
        O = sp.csr_array((np.ones(u * m), g.ravel(), np.arange(0, u * m + 1, m)),
                         shape=(u, J))
        out += np.asarray(O.T @ np.ascontiguousarray(R.T)).T
    return out, ll


def lca_labels_batch(codes: np.ndarray, offsets: np.ndarray, log_theta: np.ndarray,
                     log_pi: np.ndarray) -> np.ndarray:
    """The most probable class of each row of a batch of training codes (``LCA.labels_``:
    the same arithmetic, row by row)."""
    uniq, _, _, inv = unique_rows(np.asarray(codes, dtype=np.int64), inverse=True)
    labels = np.empty(len(uniq), dtype=np.int64)
    K = len(log_pi)
    for a in range(0, len(uniq), SLICE):
        g = uniq[a:a + SLICE] + offsets[:-1][None, :]
        lj = np.tile(log_pi, (len(g), 1))
        T = np.ascontiguousarray(log_theta.T)
        for col in np.ascontiguousarray(g.T):
            lj += T.take(col, axis=0)
        post = np.exp(lj - logsumexp(lj, axis=1)[:, None])
        labels[a:a + SLICE] = np.argmax(post.reshape(-1, K), axis=1)
    return labels[inv]
