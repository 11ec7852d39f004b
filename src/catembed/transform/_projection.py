"""The output projection: exact principal components of the object vectors, from statistics.

Every embedder's ``n_components=k`` uses :func:`object_pca`: the PCA of the rows' object
vectors computed from the value statistics alone, with no pass over the rows (method spec
section 0). UNTIE's own projection uses :func:`object_pca_dense`, the same mathematics in
another arithmetic order (see there).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._utils._validation import CatEmbedWarning, user_stacklevel
from ..stats._value_statistics import ValueStatistics

__all__ = ["fit_output_projection", "object_pca", "object_pca_dense", "psd_factor"]


def fit_output_projection(
    stats: ValueStatistics, tables: Sequence[np.ndarray], n_components: int, combine: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``n_components`` projection of an embedder: ``(components, mean, variance)`` of
    :func:`object_pca`, with a warning when ``n_components`` exceeds the rank (the last
    output columns are then 0)."""
    k = int(n_components)
    components, mean, variance, rank = object_pca(stats, tables, k, combine=combine)
    if rank < k:
        warnings.warn(
            f"n_components={n_components} exceeds the number of components with non-zero "
            f"variance ({rank}); the last {k - rank} output column(s) are 0.",
            CatEmbedWarning,
            stacklevel=user_stacklevel(),
        )
    return components, mean, variance


def object_pca(
    stats: ValueStatistics,
    tables: Sequence[np.ndarray],
    n_components: int,
    *,
    combine: str = "concat",
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Principal components of the object vectors, from the value statistics alone.

    An object vector is ``x = T^T o`` with ``o`` the row's one-hot vector (``l`` entries) and
    ``T`` the ``l x D`` block-diagonal matrix of the value tables (``combine="concat"``; for
    ``"sum"`` the tables are stacked, ``D`` their common width). Over the ``n`` training rows
    its mean is ``T^T p`` and its covariance ``T^T (C / n - p p^T) T`` (``C`` the
    co-occurrence counts, ``p`` the value frequencies; method spec section 0), so the PCA
    needs no pass over the rows. When ``l <= D`` the ``l x l`` centred co-occurrence is
    factored (``R^T R``) and ``R T`` is decomposed by an SVD; otherwise the ``D x D``
    covariance is decomposed by ``eigh``. A table of fewer rows than a quarter of its values
    (a wide table: rank below the rows) takes the ``k`` leading axes by a Lanczos solver
    instead (:func:`_leading_axes`); ``rank`` then counts among those ``k``. Signs follow
    scikit-learn's ``svd_flip`` (largest absolute entry of each axis positive).

    Parameters
    ----------
    stats : ValueStatistics
    tables : list of ndarray of shape (l_j, w_j)
    n_components : int
        ``k``; axes beyond the rank are zero.
    combine : {"concat", "sum"}

    Returns
    -------
    components : ndarray of shape (D, k)
    mean : ndarray of shape (D,)
    explained_variance : ndarray of shape (k,)
        With the ``n - 1`` divisor, as :class:`sklearn.decomposition.PCA`.
    rank : int
        Number of components with non-zero variance.
    """
    import scipy.sparse as sp

    n = max(stats.n_rows, 1)
    p = stats.probabilities()
    if combine == "sum":
        T = sp.csr_array(np.vstack(tables))
    else:
        T = sp.csr_array(sp.block_diag(tables, format="csr"))
    n_values, D = T.shape
    mean = np.asarray(T.T @ p).ravel()
    k = int(n_components)
    if 4 * stats.n_rows < n_values and 0 < k < min(D // 4, stats.n_rows - 1):
        found = _leading_axes(stats.cooc, T, mean, n, k)  # few rows, many values: rank < n
        if found is not None:
            return _finish(found[1], found[0], found[2], k, mean, n)
    if n_values <= D:
        centred = stats.cooc_dense() / n - np.outer(p, p)
        w, V = np.linalg.eigh(centred)
        keep = w > max(w.max(initial=0.0), 0.0) * n_values * np.finfo(float).eps
        R = V[:, keep] * np.sqrt(w[keep])  # centred = R R^T
        Y = np.asarray(T.T @ R).T  # Y^T Y = T^T centred T, the covariance
        if Y.shape[0]:
            _, s, Vt = np.linalg.svd(Y, full_matrices=False)
        else:
            s, Vt = np.zeros(0), np.zeros((0, D))
        var = s**2
    else:
        CT = stats.cooc @ T if sp.issparse(stats.cooc) else stats.cooc @ T.toarray()
        cov = np.asarray(T.T @ CT) / n - np.outer(mean, mean)
        cov = (cov + cov.T) / 2
        var, vecs = np.linalg.eigh(cov)
        order = np.argsort(var)[::-1]
        var, Vt = var[order], vecs[:, order].T
    tol = (var[0] if var.size else 0.0) * max(n_values, D) * np.finfo(float).eps
    return _finish(Vt, var, int(np.sum(var > tol)), k, mean, n)


def _finish(Vt: np.ndarray, var: np.ndarray, rank: int, k: int, mean: np.ndarray,
            n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """The first ``k`` axes (zero beyond the rank), signs as ``svd_flip``, variances with
    the ``n - 1`` divisor."""
    kk = min(k, rank)
    components = np.zeros((len(mean), k))
    components[:, :kk] = Vt[:kk].T
    big = np.argmax(np.abs(components), axis=0)
    signs = np.sign(components[big, np.arange(k)])
    components *= np.where(signs == 0, 1.0, signs)
    variance = np.zeros(k)
    variance[:kk] = np.maximum(var[:kk], 0.0) * n / max(n - 1, 1)
    return components, mean, variance, rank


def _leading_axes(cooc: Any, T: Any, mean: np.ndarray, n: int,
                  k: int) -> tuple[np.ndarray, np.ndarray, int] | None:
    """The ``k`` leading eigenpairs of the covariance ``T^T (C / n) T - mean mean^T`` by a
    Lanczos solver on products with the counts, for a table of fewer rows than a quarter of
    its values (rank below the rows; the dense decompositions cost ``l^3``: minutes for the
    8,000 values of 30 x 2,000; equal up to rounding). Returns ``(variances, axes as rows,
    rank among the k)``, or None when the solver does not converge (the dense path runs)."""
    from scipy.sparse.linalg import ArpackError, LinearOperator, eigsh

    D = T.shape[1]

    def cov(v: np.ndarray) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64).ravel()
        return np.asarray(T.T @ (cooc @ (T @ v))).ravel() / n - mean * (mean @ v)

    op = LinearOperator((D, D), matvec=cov, dtype=np.float64)
    start = np.random.default_rng(0).standard_normal(D)  # deterministic; not in a null space
    try:
        w, V = eigsh(op, k=k, which="LA", v0=start, tol=0.0)
    except ArpackError:
        return None
    order = np.argsort(w)[::-1]
    var, Vt = w[order], V[:, order].T
    tol = (var[0] if var.size else 0.0) * max(cooc.shape[0], D) * np.finfo(float).eps
    return var, Vt, int(np.sum(var > tol))


def psd_factor(A: np.ndarray, rtol: float | None = None) -> np.ndarray:
    """``R`` (``r x l``) with ``R^T R = A`` for a symmetric PSD ``A``; ``r`` = numerical rank."""
    lam, V = np.linalg.eigh(A)
    lam_max = max(float(lam[-1]), 0.0) if lam.size else 0.0
    tol = (rtol if rtol is not None else A.shape[0] * np.finfo(float).eps) * max(lam_max, 1e-300)
    keep = lam > tol
    return np.sqrt(lam[keep])[:, None] * V[:, keep].T


def object_pca_dense(
    stats: ValueStatistics,
    tables: Sequence[np.ndarray],
    n_components: int | None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """:func:`object_pca` (``combine="concat"``) for dense value tables, UNTIE's arithmetic.

    The same mathematics: the centred counts ``C - n p p^T = R^T R`` (:func:`psd_factor`),
    ``Y = R T`` formed attribute by attribute (``R_j T_j``), its thin SVD, signs by
    scikit-learn's ``svd_flip`` on the axes. It differs from :func:`object_pca` in the order
    of the arithmetic (counts not divided by ``n``, dense per-attribute products), in the
    rank (singular values above ``s_max * max(Y.shape) * eps``) and in keeping the axes the
    SVD returns beyond that rank. The two agree to rounding on the variances, but not bit
    for bit, and where two entries of an axis tie in absolute value or eigenvalues repeat
    (``lenses``, ``tic_tac_toe``) their axes differ by a sign or a rotation; UNTIE keeps
    this one so that its saved outputs stay identical.

    Parameters
    ----------
    stats : ValueStatistics
    tables : list of ndarray of shape (l_j, w_j)
    n_components : int or None
        ``k``; ``None``: the rank (at least 1).

    Returns
    -------
    components : ndarray of shape (D, k)
    mean : ndarray of shape (D,)
    explained_variance : ndarray of shape (k,)
        With the ``n - 1`` divisor.
    rank : int
    """
    from sklearn.utils.extmath import svd_flip

    n = stats.n_rows
    counts = stats.counts.astype(float)
    Cc = stats.cooc_dense().astype(float) - np.outer(counts, counts) / n
    Rc = psd_factor(Cc)
    offs = stats.offsets
    Yc = np.hstack([Rc[:, offs[j]:offs[j + 1]] @ T for j, T in enumerate(tables)])
    mean = np.concatenate([(counts[offs[j]:offs[j + 1]] / n) @ T
                           for j, T in enumerate(tables)])
    if Yc.shape[0] == 0:
        s = np.zeros(0)
        Vt = np.zeros((0, Yc.shape[1]))
    else:
        U, s, Vt = np.linalg.svd(Yc, full_matrices=False)
        U, Vt = svd_flip(U, Vt, u_based_decision=False)
    rank = int(np.sum(s > (s[0] if s.size else 0) * max(Yc.shape) * np.finfo(float).eps))
    k = max(rank, 1) if n_components is None else int(n_components)
    comps = np.zeros((Yc.shape[1], k))
    kk = min(k, Vt.shape[0])
    comps[:, :kk] = Vt[:kk].T
    var = np.zeros(k)
    var[:kk] = s[:kk] ** 2 / max(n - 1, 1)
    return comps, mean, var, rank
