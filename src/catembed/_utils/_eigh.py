"""The ``k`` largest eigenpairs of a dense symmetric matrix, with a check on LAPACK's count.

``scipy.linalg.eigh(M, subset_by_index=...)`` (LAPACK ``?syevr``) may return fewer
eigenpairs than asked, even none, when the spectrum holds a large cluster of equal
eigenvalues: the co-occurrence matrix of a table with an identifier-like column (500 values
seen once each) gave MCA no axis at all, and an ``IndexError`` inside
:class:`~catembed.cluster.Consensus` (issue 52 item 1). :func:`top_eigh` takes the subset
when LAPACK returns it whole, the result as before; otherwise the full decomposition
(divide and conquer, ``?syevd``), which always returns every eigenpair, and its last ``k``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import eigh

__all__ = ["top_eigh"]


def top_eigh(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest eigenvalues of the symmetric ``M`` (ascending, as ``eigh``) and their
    eigenvectors as columns; ``1 <= k <= len(M)``."""
    size = M.shape[0]
    evals, evecs = eigh(M, subset_by_index=(size - k, size - 1))
    if len(evals) == k:
        return evals, evecs
    evals, evecs = eigh(M, driver="evd")
    return evals[size - k:], evecs[:, size - k:]
