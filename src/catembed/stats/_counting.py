"""Counting: value counts and co-occurrence counts of a code matrix, and their merge maps.

:func:`count_codes` counts an ``n x m`` matrix of value codes with one ``bincount`` per pair of
columns (blocks of rows, so memory stays bounded), into a dense ``l x l`` matrix while
``l <= DENSE_LIMIT`` or a sparse CSR array of the pairs that occur; a wide table (many
columns, few rows) is counted without a step per pair of columns, and sparse counts that
cannot fit :func:`memory_limit` are refused before counting (:func:`pair_bytes`; the
statistics keep such counts as their factor instead, :mod:`catembed.stats._gram`).
:func:`as_dense` and :func:`remap_sparse` move counts onto the union of two tables' values
when statistics merge.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils._limits import memory_limit, size
from .._utils._validation import CatEmbedError

__all__ = ["DENSE_LIMIT", "FACTOR_VALUES", "as_dense", "count_codes", "count_values",
           "keeps_factor", "memory_limit", "pair_bytes", "remap_sparse"]

#: largest number of values ``l`` for which the co-occurrence matrix is stored dense
DENSE_LIMIT = 4096
#: above this many values, a table of few rows is counted as its factor, also where a dense
#: matrix would fit, for the methods that ask (``factor=True``): MCA's and one-hot PCA's
#: axes are then one thin SVD, not an ``l x l`` decomposition (:func:`keeps_factor`)
FACTOR_VALUES = 1024
_ROW_BLOCK = 1 << 20
#: rows per step of the pair counting (the keys stay in the CPU's cache)
_PAIR_BLOCK = 1 << 16


def count_codes(
    codes: np.ndarray, sizes: np.ndarray, dense: bool
) -> tuple[np.ndarray, np.ndarray | sp.csr_array]:
    """Value counts and co-occurrence counts of a code matrix; a code outside
    ``0 .. sizes[j] - 1`` raises :class:`~catembed._utils._validation.CatEmbedError`.

    The matrix is read column by column: a column-major (Fortran-order) matrix, as
    :func:`~catembed.stats._value_statistics.count_table` fills it, is counted without a copy.
    Every path counts exactly the same integers; which one runs depends on the shape:

    * few columns, many rows: one ``bincount`` per pair of columns (blocks of rows);
    * many columns, few rows (a wide table: the step per pair of columns, not the rows,
      would dominate): dense, the product ``O^T O`` of the one-hot rows (exact: integer
      sums far below ``2**53``); sparse, one step per column against all the columns after
      it (:func:`_count_wide_sparse`), after a check that the stored pairs fit the memory
      limit (:func:`memory_limit`).
    """
    n, m = codes.shape
    sizes = np.asarray(sizes, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_values = int(offsets[-1])
    # one contiguous row per attribute (a view of a column-major matrix)
    cols = codes.T if codes.flags.f_contiguous else np.ascontiguousarray(codes.T)
    counts = _value_counts(cols, sizes, offsets)
    pairs = m * (m - 1) / 2
    loop_seconds = pairs * (4e-6 + n * 3e-9)  # measured on a 2-core machine, within 2x
    if dense:
        if 2.0 * n * n_values * n_values * 1e-10 < loop_seconds:
            return counts, _count_product_dense(cols, offsets, counts)
        cooc = np.zeros((n_values, n_values), dtype=np.int64)
    else:
        _check_pair_memory(n, sizes)
        if m > 2 and m * 1e-5 + n * pairs * 1e-8 < loop_seconds:
            return counts, _count_wide_sparse(cols, offsets, counts)
        rows_l: list[np.ndarray] = []
        cols_l: list[np.ndarray] = []
        vals_l: list[np.ndarray] = []
    # one buffer of pair keys for every pair and block: no allocation per step (a
    # process whose allocator returns freed memory at once, as Dask's workers are set up,
    # pays page faults for each large temporary)
    buffer = np.empty(min(n, _PAIR_BLOCK), dtype=np.intp)
    for a in range(m - 1):
        la = int(sizes[a])
        for b in range(a + 1, m):
            lb = int(sizes[b])
            size = la * lb
            for start in range(0, n, _PAIR_BLOCK):
                ca = cols[a, start : start + _PAIR_BLOCK]
                key = buffer[: len(ca)]
                np.multiply(ca, lb, out=key, dtype=np.intp)
                np.add(key, cols[b, start : start + _PAIR_BLOCK], out=key)
                if dense:
                    block = np.bincount(key, minlength=size).reshape(la, lb)
                    cooc[offsets[a] : offsets[a + 1], offsets[b] : offsets[b + 1]] += block
                else:
                    if size <= (1 << 22):
                        block = np.bincount(key, minlength=size)
                        uk = np.flatnonzero(block)
                        uc = block[uk]
                    else:
                        uk, uc = np.unique(key, return_counts=True)
                    rows_l.append(offsets[a] + uk // lb)
                    cols_l.append(offsets[b] + uk % lb)
                    vals_l.append(uc.astype(np.int64))
    if dense:
        cooc += cooc.T
        cooc[np.diag_indices(n_values)] = counts
        return counts, cooc
    return counts, _assemble_sparse(rows_l, cols_l, vals_l, counts)


def _value_counts(cols: np.ndarray, sizes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``cnt(v)`` of every value: one ``bincount`` per block of columns of at most about
    ``_ROW_BLOCK`` cells (one column at a time on a long table, all at once on a wide one);
    a code out of its column's range raises."""
    m, n = cols.shape
    counts = np.zeros(int(offsets[-1]), dtype=np.int64)
    step = max(1, _ROW_BLOCK // max(n, 1))
    buffer = np.empty(min(n, _PAIR_BLOCK), dtype=np.intp) if step == 1 else None
    for a in range(0, m, step):
        b = min(m, a + step)
        block = cols[a:b]
        if buffer is not None:  # one column: its codes are its value ids within it
            if n and (block.min() < 0 or block.max() >= sizes[a]):
                raise CatEmbedError("codes out of range of the categories.")
            for start in range(0, n, _PAIR_BLOCK):  # the codes as indices, by blocks
                part = block[0, start : start + _PAIR_BLOCK]
                ids = buffer[: len(part)]
                ids[...] = part
                counts[offsets[a] : offsets[b]] += np.bincount(ids, minlength=int(sizes[a]))
            continue
        if ((block < 0) | (block >= sizes[a:b, None])).any():
            raise CatEmbedError("codes out of range of the categories.")
        ids = block + offsets[a:b, None]
        counts[offsets[a] : offsets[b]] = np.bincount(
            ids.ravel(), minlength=int(offsets[b]))[offsets[a]:]
    return counts


def _count_product_dense(cols: np.ndarray, offsets: np.ndarray,
                         counts: np.ndarray) -> np.ndarray:
    """The dense co-occurrence counts as ``O^T O``, the one-hot rows ``O`` built by blocks
    of rows (at most about 32 MiB each); float64 products of 0/1 are exact integers."""
    m, n = cols.shape
    n_values = int(offsets[-1])
    cooc = np.zeros((n_values, n_values))
    step = max(1, (1 << 22) // max(n_values, 1))
    for start in range(0, n, step):
        ids = cols[:, start : start + step].T + offsets[:-1]
        onehot = np.zeros((len(ids), n_values))
        np.put_along_axis(onehot, ids.astype(np.intp), 1.0, axis=1)
        cooc += onehot.T @ onehot
    out = cooc.astype(np.int64)
    out[np.diag_indices(n_values)] = counts
    return out


def _count_wide_sparse(cols: np.ndarray, offsets: np.ndarray,
                       counts: np.ndarray) -> sp.csr_array:
    """Sparse co-occurrence counts of a wide table: for each column ``a``, its pairs with
    all the columns after it in one step (keys ``value_a * width + value_b``): ``m`` steps,
    not ``m^2 / 2``. The pairs come out sorted by (row, column), so the upper triangle is a
    CSR array at once and the symmetric array is laid out from it (:func:`_symmetric_csr`)."""
    m, n = cols.shape
    n_values = int(offsets[-1])
    ids = cols + offsets[:-1, None]  # global value ids, one row per column
    per_row = np.zeros(n_values, dtype=np.int64)
    cols_l, vals_l = [], []
    for a in range(m - 1):
        lo, width = int(offsets[a + 1]), int(offsets[-1] - offsets[a + 1])
        la = int(offsets[a + 1] - offsets[a])
        key = cols[a].astype(np.int64) * width + (ids[a + 1:] - lo)
        if la * width <= max(1 << 16, 4 * key.size):
            block = np.bincount(key.ravel(), minlength=la * width)
            uk = np.flatnonzero(block)
            uc = block[uk]
        else:
            uk, uc = np.unique(key, return_counts=True)
        per_row[offsets[a] : offsets[a + 1]] = np.bincount(uk // width, minlength=la)
        cols_l.append((lo + uk % width).astype(np.int32))
        vals_l.append(uc.astype(np.int32))
    empty = [np.zeros(0, dtype=np.int32)]
    upper = sp.csr_array(
        (np.concatenate(vals_l + empty), np.concatenate(cols_l + empty),
         np.concatenate([[0], np.cumsum(per_row)]).astype(np.int32)),
        shape=(n_values, n_values))
    del cols_l, vals_l
    return _symmetric_csr(upper, counts)


def _symmetric_csr(upper: sp.csr_array, counts: np.ndarray) -> sp.csr_array:
    """The canonical symmetric CSR array with ``int64`` counts and coordinates (sorted
    indices, no stored zeros: what :func:`_assemble_sparse` gives) from the strictly-upper
    triangle (canonical CSR) and the diagonal ``counts``. Each row is its lower part (the
    upper triangle's transpose), its diagonal entry, then its upper part."""
    n_values = len(counts)
    lower = upper.tocsc()  # by column: the lower triangle's rows, each sorted
    nl, nu = np.diff(lower.indptr), np.diff(upper.indptr)
    nd = (counts != 0).astype(np.int64)
    ptr = np.concatenate([[0], np.cumsum(nl + nd + nu)]).astype(np.int64)
    part = np.repeat(np.tile(np.array([0, 1, 2], dtype=np.int8), n_values),
                     np.column_stack([nl, nd, nu]).ravel())
    indices = np.empty(int(ptr[-1]), dtype=np.int64)
    data = np.empty(int(ptr[-1]), dtype=np.int64)
    diag = np.flatnonzero(nd)
    for k, (idx, val) in enumerate(((lower.indices, lower.data), (diag, counts[diag]),
                                    (upper.indices, upper.data))):
        where = part == k
        indices[where] = idx
        data[where] = val
    out = sp.csr_array((data, indices, ptr), shape=(n_values, n_values))
    out.has_sorted_indices = True
    return out


def _assemble_sparse(rows_l: list[np.ndarray], cols_l: list[np.ndarray],
                     vals_l: list[np.ndarray], counts: np.ndarray) -> sp.csr_array:
    """The symmetric CSR array from the upper triangle's entries and the value counts."""
    n_values = len(counts)
    diag = np.arange(n_values, dtype=np.int64)
    r = np.concatenate(rows_l + [diag]) if rows_l else diag
    c = np.concatenate(cols_l + [diag]) if cols_l else diag
    v = np.concatenate(vals_l + [counts]) if vals_l else counts
    upper = sp.coo_array((v, (r, c)), shape=(n_values, n_values)).tocsr()
    upper.sum_duplicates()
    full = upper + sp.triu(upper, k=1, format="csr").T
    return sp.csr_array(full)


def pair_bytes(n_rows: int, sizes: np.ndarray) -> float:
    """Bytes the sparse co-occurrence counts of ``n_rows`` rows of columns of ``sizes``
    values may need while counted and assembled: at most ``min(n, l_a l_b)`` pairs of values
    occur for two columns, bounded by ``min(n m (m-1) / 2, (l^2 - sum_j l_j^2) / 2)`` stored
    pairs of about 48 bytes each (as :func:`catembed.stats._pooling.check_fit_cost`)."""
    sizes = np.asarray(sizes)
    m = len(sizes)
    n_values = float(np.sum(sizes))
    pairs = min(float(n_rows) * m * (m - 1) / 2,
                (n_values * n_values - float(np.sum(sizes.astype(np.float64) ** 2))) / 2)
    return 48.0 * pairs


def keeps_factor(n_rows: int, sizes: np.ndarray, factor: bool, dense_limit: int) -> bool:
    """Whether counts of ``n_rows`` rows of columns of ``sizes`` values are kept as their
    factor (:class:`~catembed.stats._gram.GramCounts`): with ``factor`` (a method that reads
    the counts' products or the value counts only), fewer rows than a quarter of the values
    and either more values than ``dense_limit`` or more than :data:`FACTOR_VALUES`; and
    whatever the method, stored pairs that would not fit in memory (:func:`pair_bytes`)."""
    n_values = int(np.sum(sizes))
    dense = n_values <= dense_limit
    if factor and 4 * n_rows < n_values and (not dense or n_values > FACTOR_VALUES):
        return True
    return not dense and pair_bytes(n_rows, sizes) > memory_limit()


def count_values(codes: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``cnt(v)`` of every value of an ``n x m`` code matrix (a code out of range raises)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    cols = codes.T if codes.flags.f_contiguous else np.ascontiguousarray(codes.T)
    return _value_counts(cols, sizes, offsets)


def _check_pair_memory(n_rows: int, sizes: np.ndarray) -> None:
    """Refuse sparse co-occurrence counts that cannot fit the memory limit, before counting
    (:func:`pair_bytes`)."""
    m = len(sizes)
    n_values = float(np.sum(sizes))
    need = pair_bytes(n_rows, sizes)
    limit = memory_limit()
    if need > limit:
        raise CatEmbedError(
            f"counting the co-occurrences of {int(n_values)} distinct values in {m} columns "
            f"would need about {size(need)} (limit {size(limit)}, "
            "CATEMBED_MAX_MEMORY); pool rare values, drop identifier-like columns, or count "
            "fewer columns."
        )


def as_dense(cooc: Any) -> np.ndarray:
    """The co-occurrence counts as a dense array (sparse, factored or dense counts)."""
    return np.asarray(cooc.toarray()) if hasattr(cooc, "toarray") else np.asarray(cooc)


def remap_sparse(cooc: Any, gmap: np.ndarray, n_values: int) -> sp.csr_array:
    """The counts ``cooc`` moved to the global ids ``gmap`` of ``n_values`` values."""
    coo = sp.coo_array(cooc) if sp.issparse(cooc) else sp.coo_array(np.asarray(cooc))
    return sp.csr_array(
        sp.coo_array((coo.data, (gmap[coo.row], gmap[coo.col])), shape=(n_values, n_values))
    )
