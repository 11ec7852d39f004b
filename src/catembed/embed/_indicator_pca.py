"""PCA on the value-cluster indicator matrix, small components removed (CDE, method spec 1.4).

The last step of CDE and CDE++ before the value vectors: the scores of the centred
``l x q`` indicator matrix (``q`` all the value clusters of every granularity), from its SVD
or, when ``q > l``, from the ``l x l`` Gram matrix of its rows (issue 22: the same scores in
``O(l^2)`` memory). For large value sets (issue 40) the leading components only, by a
randomised subspace iteration on the sparse matrix (``O(nnz r + (l + q) r^2)`` per step).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import linalg, sparse
from sklearn.utils import check_random_state

from .._utils._params import check_option

__all__ = ["beta_pca", "randomized_pca_scores"]


def beta_pca(
    indicator: Any,
    beta: float = 1e-10,
    *,
    solver: str = "auto",
    n_components: int | None = None,
    random_state: Any = None,
) -> np.ndarray:
    """PCA scores of the value-cluster indicator matrix, small components removed (spec 1.4).

    Centres the columns, takes the SVD (scikit-learn's ``PCA``, full solver, deterministic
    signs) and drops every component whose range over the ``l`` values is below ``beta``.

    ``indicator`` may be a scipy sparse matrix. ``solver="gram"`` gets the same scores from
    the ``l x l`` Gram matrix of the centred rows (``eigh``; ``O(l^2)`` memory, ``O(l^3)``
    time, however many columns), with scikit-learn's sign rule (the largest entry of each
    right singular vector positive) and its component order; eigenvalues below
    ``l * eps * largest`` (numerically zero singular values) are dropped, as the ``beta``
    rule drops them in the SVD. ``"svd"`` is the full SVD of the ``l x q`` matrix; ``"auto"``
    takes the Gram route when ``q > l``. ``"randomized"`` keeps the ``n_components``
    leading components only (all of them when that is at least the rank), from
    :func:`randomized_pca_scores` seeded by ``random_state``.
    """
    check_option("solver", solver, ("auto", "gram", "svd", "randomized"))
    n, q = indicator.shape
    if q == 0:
        return np.zeros((n, 0))
    if solver == "randomized":
        scores = randomized_pca_scores(indicator, n_components or min(n, q), random_state)
    elif solver == "svd" or (solver == "auto" and q <= n):
        dense = indicator.toarray() if sparse.issparse(indicator) else np.asarray(indicator)
        from sklearn.decomposition import PCA  # here: loading a model does not need it

        scores = PCA(n_components=min(n, q), svd_solver="full").fit_transform(dense)
    else:
        scores = _gram_pca_scores(indicator)
    keep = (scores.max(axis=0) - scores.min(axis=0)) >= beta
    return scores[:, keep]


def _gram_pca_scores(indicator: Any, chunk: int = 1024) -> np.ndarray:
    """PCA scores ``U S`` of the column-centred matrix through its row Gram matrix."""
    X = sparse.csc_matrix(indicator, dtype=np.float64)
    n, q = X.shape
    mu = np.asarray(X.mean(axis=0)).ravel()
    a = X @ mu
    gram = np.asarray((X @ X.T).todense())
    gram -= a[:, None]
    gram -= a[None, :]
    gram += mu @ mu
    gram = (gram + gram.T) / 2
    w, U = linalg.eigh(gram, driver="evd", overwrite_a=True, check_finite=False)
    w, U = w[::-1], U[:, ::-1]
    nonzero = w > max(w[0], 0.0) * n * np.finfo(np.float64).eps
    w, U = w[nonzero], np.ascontiguousarray(U[:, nonzero])
    # scikit-learn's svd_flip(u_based_decision=False): the entry of largest magnitude of
    # each row of V^T = U^T X_c / s is made positive (first such entry on ties).
    col_u = U.sum(axis=0)
    best = np.full(U.shape[1], -1.0)
    sign = np.ones(U.shape[1])
    cols = np.arange(U.shape[1])
    for lo in range(0, q, chunk):
        block = X[:, lo : lo + chunk]
        v = np.asarray(block.T @ U) - mu[lo : lo + chunk, None] * col_u[None, :]
        v = np.ascontiguousarray(v.T)  # components x columns: argmax along contiguous rows
        idx = np.argmax(np.abs(v), axis=1)
        val = v[cols, idx]
        better = np.abs(val) > best
        best[better] = np.abs(val[better])
        sign[better] = np.where(val[better] < 0, -1.0, 1.0)
    return U * (np.sqrt(w) * sign)


def randomized_pca_scores(
    indicator: Any, n_components: int, random_state: Any = None, *, n_iter: int = 4,
    oversample: int = 16,
) -> np.ndarray:
    """Scores ``U S`` of the ``n_components`` leading principal components of the columns.

    Randomised subspace iteration (Halko, Martinsson, Tropp 2011, algorithm 4.4) on the
    column-centred matrix, which is never formed: ``X_c B = X B - 1 (mu B)``. ``n_iter``
    power steps, ``oversample`` extra directions; singular values below ``max(l, q) * eps``
    times the largest are dropped; signs as scikit-learn's ``PCA`` sets them (the entry of
    largest magnitude of each right singular vector positive). With ``n_components`` at
    least the rank the subspace, hence the scores, are exact up to rounding (and to a
    rotation within a repeated singular value).
    """
    rs = check_random_state(random_state)
    X = sparse.csr_matrix(indicator, dtype=np.float64)
    n, q = X.shape
    XT = X.T.tocsr()
    mu = np.asarray(X.mean(axis=0)).ravel()

    def right(B: np.ndarray) -> np.ndarray:  # X_c @ B
        return np.asarray(X @ B) - (mu @ B)[None, :]

    def left(A: np.ndarray) -> np.ndarray:  # X_c.T @ A
        return np.asarray(XT @ A) - mu[:, None] * A.sum(axis=0)[None, :]

    p = min(n_components + oversample, n, q)
    Q, _ = linalg.qr(right(rs.standard_normal((q, p))), mode="economic")
    for _ in range(n_iter):
        Q, _ = linalg.qr(left(Q), mode="economic")
        Q, _ = linalg.qr(right(Q), mode="economic")
    Ub, s, Vt = linalg.svd(left(Q).T, full_matrices=False)
    r = min(n_components, int(np.sum(s > s[0] * max(n, q) * np.finfo(np.float64).eps)))
    U, s, Vt = Q @ Ub[:, :r], s[:r], Vt[:r]
    idx = np.argmax(np.abs(Vt), axis=1)
    sign = np.where(Vt[np.arange(r), idx] < 0, -1.0, 1.0)
    return U * (s * sign)
