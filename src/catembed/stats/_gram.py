"""Co-occurrence counts kept as their factor: ``C = O^T O`` stored as the one-hot rows ``O``.

A table of few rows and many values (30 rows x 20,000 columns of three values: 60,000
values) has a co-occurrence matrix of rank at most ``n`` whose stored pairs do not fit in
memory (about 1.8e9 pairs of values, tens of GiB), while ``O`` holds ``n m`` ones (600,000).
:class:`GramCounts` keeps ``O`` (as the ``n x m`` matrix of global value ids) and gives what
the methods ask of ``C`` from it: products ``C @ B`` (``O^T (O B)``: the leading axes of
one-hot + PCA and MCA), rows ``C[rows]``, and the whole matrix (dense or sparse) only when it
fits the memory limit (:func:`~catembed.stats._counting.memory_limit`); otherwise a
:class:`~catembed.CatEmbedError` says how much it would need.

The factor is exact and adds up like the counts themselves: the statistics of two chunks
stack their rows (:meth:`GramCounts.stack`), so merging, pooling rare values
(:meth:`GramCounts.relabel`) and keeping some columns (:meth:`GramCounts.columns`) work on
it directly. :func:`~catembed.stats._counting.count_codes` stores counts this way only when
the pairs would not fit the memory limit (they were refused before; issue 40, item 5).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils._limits import size
from .._utils._validation import CatEmbedError
from ._counting import memory_limit, pair_bytes

__all__ = ["GramCounts"]


class GramCounts:
    """The ``l x l`` co-occurrence counts ``C = O^T O`` of ``n`` rows, held as ``O``.

    Parameters
    ----------
    ids : ndarray of shape (n, m), int
        The global value id (``0 .. l - 1``) of each row's value in each column.
    sizes : ndarray of shape (m,), int
        Number of values of each column (``l = sizes.sum()``).
    """

    dtype = np.dtype(np.int64)
    ndim = 2

    def __init__(self, ids: np.ndarray, sizes: np.ndarray) -> None:
        self.ids = np.ascontiguousarray(ids, dtype=np.int32)
        self.sizes = np.asarray(sizes, dtype=np.int64)
        n_values = int(self.sizes.sum())
        self.shape = (n_values, n_values)

    # ------------------------------------------------------------------ the factor
    @property
    def onehot(self) -> sp.csr_array:
        """``O``, the ``n x l`` one-hot rows (CSR, one 1 per row and column)."""
        n, m = self.ids.shape
        return sp.csr_array(
            (np.ones(n * m, dtype=np.int64), self.ids.ravel(),
             np.arange(0, n * m + 1, max(m, 1)) if m else np.zeros(n + 1, dtype=np.int64)),
            shape=(n, self.shape[0]))

    def stack(self, other: GramCounts) -> GramCounts:
        """The counts of both tables' rows (their sum): the factors stacked."""
        return GramCounts(np.vstack([self.ids, other.ids]), self.sizes)

    def relabel(self, target: np.ndarray, sizes: np.ndarray) -> GramCounts:
        """The counts with value ``v`` renamed ``target[v]`` (a merge of statistics onto a
        union of values, or values of one column pooled into one: ``M^T C M``)."""
        return GramCounts(np.asarray(target)[self.ids], sizes)

    def columns(self, keep: list[int], offsets: np.ndarray) -> GramCounts:
        """The counts of some columns (by position), their values renumbered in order."""
        sizes = self.sizes[keep]
        new_offsets = np.concatenate([[0], np.cumsum(sizes)])[:-1]
        ids = self.ids[:, keep] - offsets[keep] + new_offsets
        return GramCounts(ids, sizes)

    # ------------------------------------------------------------------ what methods ask
    def __matmul__(self, other: Any) -> Any:
        """``C @ B`` as ``O^T (O B)``: ``O(n m k)`` for ``k`` columns of ``B``."""
        O = self.onehot
        return O.T @ (O @ other)

    def __rmatmul__(self, other: Any) -> Any:
        O = self.onehot
        return (other @ O.T) @ O

    def __getitem__(self, key: Any) -> Any:
        """Rows ``C[rows]`` (a CSR array) from the factor; any other index reads the whole
        matrix (:meth:`tocsr`), which must fit the memory limit."""
        if isinstance(key, tuple):
            return self.tocsr()[key]
        O = self.onehot
        return sp.csr_array(O[:, key].T @ O)

    def _check(self, need: float, what: str) -> None:
        """Refuse a step whose result (``need`` bytes) and the factor's sparse copies
        (``O`` by rows and by columns, ``O^T``: about 36 bytes per one) exceed the limit."""
        need += 36.0 * self.ids.size
        limit = memory_limit()
        if need > limit:
            raise CatEmbedError(
                f"this step needs the co-occurrence counts of {self.shape[0]} values in "
                f"{len(self.sizes)} columns as {what}: about {size(need)} (limit "
                f"{size(limit)}, CATEMBED_MAX_MEMORY): too many values for a "
                "method that works on the value-by-value counts; pool rare values, drop "
                "identifier-like columns or keep fewer columns (catembed cluster and "
                "Consensus fit what needs only the value counts)."
            )

    def tocsr(self) -> sp.csr_array:
        """``C`` as a canonical CSR array of the pairs that occur (``int64``)."""
        self._check(pair_bytes(self.ids.shape[0], self.sizes), "stored pairs")
        O = self.onehot
        out = sp.csr_array(O.T @ O)
        out.sum_duplicates()
        out.sort_indices()
        return out

    def toarray(self) -> np.ndarray:
        """``C`` as a dense ``int64`` array, by blocks of columns (``O^T O[:, block]``: no
        temporary larger than about 2**24 entries besides the result)."""
        l_ = self.shape[0]
        self._check(8.0 * l_ * l_, "a dense matrix")
        out = np.zeros((l_, l_), dtype=np.int64)
        O = self.onehot.tocsc()
        Ot = sp.csr_array(O.T)
        step = max(1, (1 << 24) // max(l_, 1))
        for start in range(0, l_, step):
            out[:, start : start + step] = (Ot @ O[:, start : start + step]).toarray()
        return out

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        out = self.toarray()
        return out if dtype is None else out.astype(dtype)

    def __repr__(self) -> str:
        n, m = self.ids.shape
        return (f"GramCounts({self.shape[0]} values, kept as the one-hot rows of {n} rows x "
                f"{m} columns)")
