"""The leading axes of MCA's and one-hot PCA's value-level matrix on a table of many values,
without forming that ``l x l`` matrix.

Both methods decompose ``M = S (C / a - (n / a) p p^T) S`` (``C`` the co-occurrence counts,
``p`` the value frequencies, ``S`` a diagonal scaling; MCA: ``a = n Q^2``, ``S = D_c^-1/2``;
one-hot PCA: ``a = n``, ``S = I``). A dense ``eigh`` of ``M`` costs ``l^3``: 20 s for the
8,000 values of 30 rows x 2,000 columns, where prince's MCA takes 1.7 s, and it cannot hold
the 80,000 values of 30 x 20,000. Here:

* counts kept as their factor ``O`` (:class:`~catembed.stats._gram.GramCounts`): ``M = Y^T Y``
  with ``Y = (O - 1 p^T) S / sqrt(a)``, an ``n x l`` matrix, so the axes are ``Y``'s right
  singular vectors and the eigenvalues its squared singular values (one thin SVD,
  ``O(n^2 l)``; exact);
* stored counts: a Lanczos solver (``eigsh``) on products with ``C`` (``O(nnz)`` each).

FAMD's covariance ``Z^T Z / n`` (:class:`catembed.embed.mca.FAMD`) adds the standardised
numeric columns to the same value block; :func:`famd_axes` finds its leading axes the same
two ways (one thin SVD of ``Z / sqrt(n)``, or Lanczos on products with its three blocks).

Eigenvalues equal the dense decomposition's up to rounding; each axis' sign is fixed as
:func:`catembed.embed.mca._top_eigen` fixes it (largest-magnitude entry positive).
"""

from __future__ import annotations

import numpy as np

from ..stats._counting import DENSE_LIMIT
from ..stats._gram import GramCounts
from ..stats._value_statistics import ValueStatistics

__all__ = ["WideAxesMixin", "famd_axes", "leading_axes"]

#: largest ``n x l`` matrix ``Y`` decomposed by one SVD (float64 cells: 512 MiB)
_SVD_CELLS = 1 << 26


def leading_axes(stats: ValueStatistics, k: int, a: float,
                 scale: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The ``k`` largest eigenpairs of ``M`` (module docstring), largest first, as
    ``(eigenvalues, axes as columns)``; None where this route does not apply (``k`` near
    the number of values or above the rank a thin SVD gives: the dense route then runs).

    Parameters
    ----------
    stats : ValueStatistics
    k : int
        Number of axes.
    a : float
        The divisor of the counts (``n Q^2`` for MCA, ``n`` for one-hot PCA).
    scale : ndarray of shape (l,)
        The diagonal of ``S``.
    """
    n, l_ = stats.n_rows, stats.n_values
    p = stats.probabilities()
    if isinstance(stats.cooc, GramCounts) and k < min(n, l_) and n * l_ <= _SVD_CELLS:
        Y = np.asarray(stats.cooc.onehot.toarray(), dtype=np.float64)
        Y -= p[None, :]
        Y *= scale[None, :] / np.sqrt(a)
        _, sv, Vt = np.linalg.svd(Y, full_matrices=False)
        return _signed(sv[:k] ** 2, Vt[:k].T)
    if k >= l_ // 16:
        return None
    cooc, sp_ = _float_counts(stats.cooc), scale * p

    def matvec(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64).ravel()
        sv_ = scale * v
        return scale * np.asarray(cooc @ sv_).ravel() / a - (n / a) * sp_ * (sp_ @ v)

    return _lanczos(matvec, l_, k)


def famd_axes(z: np.ndarray, codes: np.ndarray, stats: ValueStatistics, nc: np.ndarray,
              k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The ``k`` largest eigenpairs of FAMD's covariance ``Z^T Z / n``,
    ``Z = [z, (O - 1 p^T) / sqrt(p)]``, without forming it; None where the dense route
    should run (``k`` near the size or the rank).

    Parameters
    ----------
    z : ndarray of shape (n, q)
        The standardised numeric columns (missing: 0).
    codes : ndarray of shape (n, m)
        The categorical codes of ``stats``' values (after pooling).
    stats : ValueStatistics
        Of the categorical columns (``p`` = counts / n; ``C`` its co-occurrence counts).
    nc : ndarray of shape (q, l)
        The numeric-by-value block ``z^T O / (n sqrt(p))``.
    k : int
        Number of axes.
    """
    n, q = z.shape
    l_ = stats.n_values
    size = q + l_
    p = stats.counts.astype(np.float64) / n
    root = np.sqrt(p)
    if k < min(n, size) and n * size <= _SVD_CELLS and 4 * n < size:
        Y = np.zeros((n, size))
        Y[:, :q] = z
        cols = codes.astype(np.int64) + stats.offsets[:-1][None, :]
        Y[np.arange(n)[:, None], q + cols] = 1.0
        Y[:, q:] -= p[None, :]
        Y[:, q:] /= root[None, :]
        Y /= np.sqrt(n)
        _, sv, Vt = np.linalg.svd(Y, full_matrices=False)
        return _signed(sv[:k] ** 2, Vt[:k].T)
    if k >= size // 16:
        return None
    from scipy.sparse import csr_matrix

    if codes.size <= _SVD_CELLS:  # products with Z itself: n m entries, fewer than C's
        m = codes.shape[1]
        ids = (codes.astype(np.int64) + stats.offsets[:-1][None, :]).ravel()
        O = csr_matrix((np.ones(len(ids)), ids, np.arange(0, len(ids) + 1, m)), shape=(n, l_))

        def matvec(v: np.ndarray) -> np.ndarray:
            v = np.asarray(v, dtype=np.float64).ravel()
            a, b = v[:q], v[q:]
            u = z @ a + O @ (b / root) - root @ b  # Z v
            return np.concatenate([z.T @ u, (O.T @ u) / root - root * u.sum()]) / n
    else:  # products with the counts and the blocks
        cooc, zz = _float_counts(stats.cooc), z.T @ z / n

        def matvec(v: np.ndarray) -> np.ndarray:
            v = np.asarray(v, dtype=np.float64).ravel()
            a, b = v[:q], v[q:]
            low = (nc.T @ a + np.asarray(cooc @ (b / root)).ravel() / (n * root)
                   - root * (root @ b))
            return np.concatenate([zz @ a + nc @ b, low])

    return _lanczos(matvec, size, k)


def _lanczos(matvec, size: int, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The ``k`` largest eigenpairs of the symmetric operator ``matvec`` of order ``size``,
    largest first, signs fixed (ARPACK from a fixed start: deterministic); None where ARPACK
    fails (the dense route then runs)."""
    from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh

    op = LinearOperator((size, size), matvec=matvec, dtype=np.float64)
    start = np.random.default_rng(0).standard_normal(size)
    try:
        w, V = eigsh(op, k=k, which="LA", v0=start, tol=0.0)
    except ArpackError:
        return None
    order = np.argsort(w)[::-1]
    return _signed(w[order], V[:, order])


def _float_counts(cooc: object) -> object:
    """Stored counts as float64 once (a product of integer counts with a float vector
    converts every stored count on each call: twice the time of a Lanczos step)."""
    if hasattr(cooc, "astype") and not isinstance(cooc, GramCounts):
        return cooc.astype(np.float64)
    return cooc


def _signed(evals: np.ndarray, V: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    big = np.argmax(np.abs(V), axis=0)
    return evals, V * np.where(V[big, np.arange(V.shape[1])] < 0, -1.0, 1.0)


class WideAxesMixin:
    """For the embedders whose fit is the leading axes of ``M`` (MCA, one-hot PCA): their
    counts of few rows and many values are kept as the factor (``_prefers_factor``, read by
    the fit's counting and the cost check), and their cost model, four ``l x l`` matrices
    and ``l^3`` operations, holds up to the dense limit only; above it the axes come from
    :func:`leading_axes` (a Lanczos basis, or one ``n x l`` SVD of at most 2**26 cells)."""

    _prefers_factor = True
    _cost_rate = 2e8

    def _cost_cells(self, sizes: np.ndarray) -> float:
        l_ = float(np.sum(sizes))
        return 4.0 * l_ * l_ if l_ <= DENSE_LIMIT else 64.0 * l_ + 2.0**26

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        l_ = float(np.sum(sizes))
        return l_**3 / self._cost_rate if l_ <= DENSE_LIMIT else 2e-9 * l_ * l_
