"""Counting: value counts and co-occurrence counts of a code matrix, and their merge maps.

:func:`count_codes` counts an ``n x m`` matrix of value codes with one ``bincount`` per pair of
columns (blocks of rows, so memory stays bounded), into a dense ``l x l`` matrix while
``l <= DENSE_LIMIT`` or a sparse CSR array of the pairs that occur. :func:`as_dense` and
:func:`remap_sparse` move counts onto the union of two tables' values when statistics merge.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ._validation import CatEmbedError

__all__ = ["DENSE_LIMIT", "as_dense", "count_codes", "remap_sparse"]

#: largest number of values ``l`` for which the co-occurrence matrix is stored dense
DENSE_LIMIT = 4096
_ROW_BLOCK = 1 << 20


def count_codes(
    codes: np.ndarray, sizes: np.ndarray, dense: bool
) -> tuple[np.ndarray, np.ndarray | sp.csr_array]:
    """Value counts and co-occurrence counts of a code matrix; a code outside
    ``0 .. sizes[j] - 1`` raises :class:`~catembed._validation.CatEmbedError`.

    The matrix is read column by column: a column-major (Fortran-order) matrix, as
    :func:`~catembed._value_statistics.count_table` fills it, is counted without a copy.
    """
    n, m = codes.shape
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_values = int(offsets[-1])
    counts = np.zeros(n_values, dtype=np.int64)
    # one contiguous row per attribute (a view of a column-major matrix)
    cols = codes.T if codes.flags.f_contiguous else np.ascontiguousarray(codes.T)
    for j in range(m):
        try:  # the per-column count checks the codes' range on the way
            bc = np.bincount(cols[j], minlength=int(sizes[j]))
        except ValueError:  # a negative code
            bc = np.zeros(0)
        if len(bc) != int(sizes[j]):
            raise CatEmbedError("codes out of range of the categories.")
        counts[offsets[j] : offsets[j + 1]] = bc
    if dense:
        cooc = np.zeros((n_values, n_values), dtype=np.int64)
    else:
        rows_l: list[np.ndarray] = []
        cols_l: list[np.ndarray] = []
        vals_l: list[np.ndarray] = []
    for a in range(m - 1):
        la = int(sizes[a])
        for b in range(a + 1, m):
            lb = int(sizes[b])
            size = la * lb
            for start in range(0, n, _ROW_BLOCK):
                ca = cols[a, start : start + _ROW_BLOCK]
                cb = cols[b, start : start + _ROW_BLOCK]
                if size < 2**31:
                    key = ca * np.int32(lb) + cb
                else:
                    key = ca.astype(np.int64) * lb + cb
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
    diag = np.arange(n_values, dtype=np.int64)
    r = np.concatenate(rows_l + [diag]) if rows_l else diag
    c = np.concatenate(cols_l + [diag]) if cols_l else diag
    v = np.concatenate(vals_l + [counts]) if vals_l else counts
    upper = sp.coo_array((v, (r, c)), shape=(n_values, n_values)).tocsr()
    upper.sum_duplicates()
    full = upper + sp.triu(upper, k=1, format="csr").T
    return counts, sp.csr_array(full)


def as_dense(cooc: Any) -> np.ndarray:
    """The co-occurrence counts as a dense array."""
    return np.asarray(cooc.toarray()) if sp.issparse(cooc) else np.asarray(cooc)


def remap_sparse(cooc: Any, gmap: np.ndarray, n_values: int) -> sp.csr_array:
    """The counts ``cooc`` moved to the global ids ``gmap`` of ``n_values`` values."""
    coo = sp.coo_array(cooc) if sp.issparse(cooc) else sp.coo_array(np.asarray(cooc))
    return sp.csr_array(
        sp.coo_array((coo.data, (gmap[coo.row], gmap[coo.col])), shape=(n_values, n_values))
    )
