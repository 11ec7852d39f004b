"""k-means on the rows of a matrix through their Gram matrix, for CDE's granularity sweep.

CDE clusters the ``l`` rows of an ``l x l`` matrix at ``k = 2, 3, ...`` (often more than a
hundred granularities). Running scikit-learn's ``kmeans_plusplus`` and ``KMeans`` once per
``k`` costs ``O(k l^2)`` per Lloyd iteration plus the per-call validation. Every quantity
those two need is an inner product of rows or of row means, so :class:`GramKMeans` computes
the centred Gram matrix once and runs the same algorithm on it:

* k-means++ seeding with one candidate per step, drawing from the random state exactly as
  ``sklearn.cluster.kmeans_plusplus(..., n_local_trials=1)`` does (a distance to one point
  is a row of the Gram matrix: ``O(l)`` per step);
* Lloyd iterations as ``sklearn.cluster.KMeans`` runs them (data centred, tolerance
  ``1e-4`` times the mean column variance, stop on unchanged labels or on a total squared
  centre shift within the tolerance, a last assignment step when the labels did not settle,
  empty clusters moved to the points farthest from their centres). A centre is a mean of
  rows, so its inner products with all rows are a mean of Gram rows, updated only for the
  rows that changed cluster: ``O(l k)`` per iteration after the first.

The partitions are those of scikit-learn with the same seed up to floating-point rounding
(a near tie between two centres can resolve differently; ``tests/test_cde.py`` compares).
Memory: the ``l x l`` Gram and squared-distance matrices and ``k x l`` centre products.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.linalg import blas

__all__ = ["GramKMeans"]


class GramKMeans:
    """k-means++ and Lloyd on the rows of ``M`` through their centred Gram matrix.

    Parameters
    ----------
    M : ndarray of shape (l, d)
    max_iter : int
        Lloyd iterations at most.
    tol : float
        Relative tolerance on the centre shift (scikit-learn's ``KMeans`` default).
    """

    def __init__(self, M: np.ndarray, max_iter: int = 100, tol: float = 1e-4) -> None:
        M = np.asarray(M, dtype=np.float64)
        distinct, inverse = np.unique(M, axis=0, return_inverse=True)
        inverse = np.asarray(inverse).ravel()
        self.n_distinct = distinct.shape[0]
        centred = distinct - M.mean(axis=0)
        gram = blas.dsyrk(1.0, centred)  # upper triangle of centred @ centred.T, half the flops
        gram = np.triu(gram) + np.triu(gram, 1).T
        # Expanded from the distinct rows, so equal rows have bit-equal Gram entries and
        # distance exactly 0 (as in scikit-learn's clipped distances).
        self.G = gram[np.ix_(inverse, inverse)]
        self.sq_norms = np.ascontiguousarray(np.diag(self.G))
        # squared distances between rows, clipped at 0 (rows of it are the seeding's
        # distances to a candidate)
        self.D = self.sq_norms[:, None] + self.sq_norms[None, :] - 2.0 * self.G
        np.maximum(self.D, 0.0, out=self.D)
        self.tol = float(np.mean(np.var(M, axis=0)) * tol)
        self.max_iter = max_iter
        self.n = M.shape[0]

    def seed(self, n_clusters: int, random_state: np.random.RandomState) -> np.ndarray:
        """Row indices of k-means++ seeds, one candidate per step."""
        n = self.n
        weight = np.ones(n)
        first = random_state.choice(n, p=weight / weight.sum())
        indices = np.empty(n_clusters, dtype=np.intp)
        indices[0] = first
        closest = self.D[first].copy()
        pot = closest @ weight
        cum = np.empty(n)
        for c in range(1, n_clusters):
            rand_val = random_state.uniform(size=1) * pot
            np.cumsum(closest, out=cum)  # the weights are 1
            cand = min(int(np.searchsorted(cum, rand_val)[0]), n - 1)
            np.minimum(closest, self.D[cand], out=closest)
            pot = closest @ weight
            indices[c] = cand
        return indices

    def _member_sums(self, labels: np.ndarray, k: int) -> np.ndarray:
        onehot = sparse.csr_matrix(
            (np.ones(self.n), (labels, np.arange(self.n))), shape=(k, self.n)
        )
        return np.asarray(onehot @ self.G)

    def lloyd(self, seeds: np.ndarray) -> tuple[np.ndarray, int]:
        """Labels and the number of iterations of Lloyd's algorithm from the seed rows."""
        G, sq = self.G, self.sq_norms
        n, k = self.n, len(seeds)
        rows = np.arange(n)
        dot = G[seeds]  # (k, n): centre j . row p (centred)
        cc = sq[seeds].copy()  # squared centre norms
        labels_old = np.full(n, -1)
        sums = None
        members_old = None
        strict = False
        n_iter = 0
        for _ in range(self.max_iter):
            n_iter += 1
            labels = np.argmin(cc[:, None] - 2.0 * dot, axis=0)
            counts = np.bincount(labels, minlength=k)
            members = labels
            empty = np.flatnonzero(counts == 0)
            if empty.size:
                own = sq + cc[labels] - 2.0 * dot[labels, rows]
                if own.max() != 0:
                    far = np.argpartition(own, -empty.size)[: -empty.size - 1 : -1]
                    members = labels.copy()
                    for e, f in zip(empty, far, strict=True):
                        counts[members[f]] -= 1
                        members[f] = e
                        counts[e] = 1
            if sums is None or 2 * np.count_nonzero(members != members_old) > n:
                sums = self._member_sums(members, k)
            else:
                moved = np.flatnonzero(members != members_old)
                if moved.size:
                    delta = sparse.csr_matrix(
                        (
                            np.r_[np.ones(moved.size), -np.ones(moved.size)],
                            (np.r_[members[moved], members_old[moved]], np.r_[moved, moved]),
                        ),
                        shape=(k, n),
                    )
                    sums += delta @ G
            members_old = members
            inv = np.divide(1.0, counts, out=np.zeros(k), where=counts > 0)
            new_dot = sums * inv[:, None]
            new_cc = np.bincount(members, weights=new_dot[members, rows], minlength=k) * inv
            cross = np.bincount(members, weights=dot[members, rows], minlength=k) * inv
            shift = np.maximum(new_cc + cc - 2.0 * cross, 0.0)
            dot, cc = new_dot, new_cc
            if np.array_equal(labels, labels_old):
                strict = True
                break
            if shift.sum() <= self.tol:
                break
            labels_old = labels
        if not strict:
            labels = np.argmin(cc[:, None] - 2.0 * dot, axis=0)
        return labels, n_iter

    def fit(self, n_clusters: int, random_state: np.random.RandomState) -> tuple[np.ndarray, int]:
        """``(labels, n_iter)`` of one k-means run: k-means++ seeds, then Lloyd."""
        return self.lloyd(self.seed(n_clusters, random_state))
