r"""UNTIE's kernel k-means objective (Eq. 20) in value-level form, exact at any number of rows.

Everything here works on value-level matrices (``l x l`` co-occurrence counts, ``l_j x l_j``
kernel matrices, an ``r x l`` factor with ``r <= l``); the rows enter only through the
co-occurrence counts of the statistics. The kernel spaces come from
:mod:`catembed.embed._untie_spaces`; the weights are learned by
:mod:`catembed.embed._untie_solvers`.

Exact solution at any number of rows (``solver="exact"``)
---------------------------------------------------------
Let ``O`` be the ``n x l`` one-hot matrix and ``B`` the ``l x D`` value-level matrix
(``D = sum_p l_{j(p)}``) whose column ``d``, a coordinate of space ``p`` of attribute ``j``,
holds ``K_p[:, d]`` on the rows of attribute ``j`` and 0 elsewhere; ``W = diag(w)`` collects
all diagonal weights. Then ``X = O B W^{1/2}`` and ``S = O B W B^T O^T``.

1. *Factor the counts.* ``C = O^T O`` is the co-occurrence matrix of the statistics. Take its
   eigendecomposition ``C = V Lambda V^T`` restricted to the ``r = rank C <= l`` positive
   eigenvalues, and ``R = Lambda^{1/2} V^T`` (``r x l``), so ``R^T R = C``. The thin SVD of
   ``O`` is ``O = U Lambda^{1/2} V^T`` with ``U = O V Lambda^{-1/2}`` (``n x r``,
   ``U^T U = Lambda^{-1/2} V^T C V Lambda^{-1/2} = I``), i.e. ``O = U R``.
2. *Spectrum.* ``S = U (R B W B^T R^T) U^T = U M U^T`` with ``M = Y W Y^T`` and
   ``Y = R B`` (``r x D``). Since ``U`` has orthonormal columns, the non-zero eigenvalues of
   ``S`` are those of the ``r x r`` matrix ``M`` (equivalently of ``C^{1/2} B W B^T C^{1/2}``),
   and if ``M = W_M Lambda_M W_M^T`` the eigenvectors of ``S`` are
   ``H = U W_c = O A`` with ``A = V Lambda^{-1/2} W_c`` (``W_c``: the top-``c`` columns):
   the ``H``-step is an ``r x r`` eigenproblem, and ``H`` is the one-hot matrix times value
   vectors.
3. *Objective.* ``Tr(S) = Tr(W B^T C B) = sum_d w_d ||y_d||^2`` and
   ``Tr(H^T S H) = Tr(W_c^T M W_c) = sum_d w_d ||W_c^T y_d||^2``, so
   ``Tr(S (I - H H^T)) = sum_d w_d a_d`` with ``a_d = ||(I - W_c W_c^T) y_d||^2 >= 0``
   (``y_d`` the ``d``-th column of ``Y``; ``H^T O = A^T C = W_c^T R``). At the optimal ``H``
   it equals the sum of all but the top ``c`` eigenvalues of ``M``.

``Y`` is not even formed: its block for attribute ``j`` is ``R_j [K_p ...]`` (``R_j`` the
attribute's columns of ``R``), so ``M = sum_j R_j G_j R_j^T`` with
``G_j = sum_p K_p diag(w_p) K_p^T`` and ``W_c^T y_d = (W_c^T R_j) K_p[:, d]``. One
alternation costs ``O(|F| sum_j l_j^3 + r^2 l + r^3)`` time and ``O(r l + |F| sum_j l_j^2)``
memory; the rows enter only through ``C``, counted once. Nothing ``n x n``, ``n x D`` or
``r x D`` is formed.

Spec and paper: the objective is centred by default (``centered=True``: ``H`` contains the
constant vector, as every k-means indicator ``Z L^{1/2}`` does), which the paper's Eq. 17
relaxation leaves out; k-means does not depend on the mean, the uncentred objective
rewards coordinates for their mean. Eq. 8 of the paper weights rows (``T_p K_p``) while
Eqs. 11-13 and 21 weight columns; we follow Eqs. 13 and 21, as the spec does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._threads import small_problem_threads as _small_threads
from ..stats._value_statistics import ValueStatistics
from ..transform._projection import psd_factor
from ._untie_spaces import KernelSpace

__all__ = [
    "ValueLevelProblem",
    "fit_cost",
    "independence_cooc",
    "small_problem_threads",
]

_SMALL_EIGH = 512


def small_problem_threads(rank: int) -> Any:
    """One BLAS thread for a whole solve whose matrices are small (``rank <= 512``).

    Each alternation multiplies ``l_j x P l_j`` matrices and solves an ``r x r``
    eigenproblem, tens of milliseconds at most: BLAS threads gain nothing there, and on a
    busy machine their spin-waiting made the solve several times slower
    (:mod:`catembed._utils._threads`).
    """
    return _small_threads(rank, _SMALL_EIGH, "blas")


def fit_cost(sizes: np.ndarray) -> tuple[float, float]:
    """UNTIE's cost model for :func:`catembed.stats._pooling.check_fit_cost`: float64 cells,
    seconds.

    From ``benchmarks/bench_cde_values.py``-style fits of planted tables of 20,000 rows (one
    fit per child process, 2 cores, load average 2.4-5.0; 2026-11-24), ``l`` values in
    ``m`` columns of ``l_j``: CPU seconds 0.11 / 0.23 / 1.29 / 7.6 and fit memory
    8 / 13 / 33 / 108 MB at l = 100 / 200 / 400 / 800 (5 x 20, 8 x 25, 8 x 50, 8 x 100);
    6.4 s and 83 MB at 16 x 50, 0.9 s and 53 MB at 4 x 100; with one BLAS thread
    (``OPENBLAS_NUM_THREADS=1``) 21 s and 198 MB at 1200 (12 x 100), 47 s and 312 MB at
    1600 (16 x 100). The number of rows does not count (7.9 s at 5,000 rows, 8 x 100).
    Memory: the kernel blocks (``2 m`` spaces of 14 ``l_j x l_j`` kernels) and a few
    ``r x r`` (``r ~ l``) matrices, ``14 l^2 + 100 sum l_j^2`` cells (within 1.4x). Time:
    forming ``M`` (``r^2 l``) and one dense eigenproblem per step, ``l^3 / 6e7`` seconds
    (within 1.5x from l = 400 to 1600). With the default BLAS threads above rank 512
    (:func:`small_problem_threads`) on a busy machine the same fits took 117 s (1200) and
    173 s (1600): spin-waiting threads, 2.5-5.6x the estimate. A column of many values
    costs more: every step forms its kernels' products, ``l_j^3`` a kernel, whatever the
    other columns (issue 52: an identifier column of 205 / 505 values beside two small ones
    took 8 s / 121 s on 2 shared cores under load, estimated 0.14 s / 2.1 s until then), so
    the time is ``max(l^3 / 6e7, sum_j l_j^3 / 1e6)`` (8.6 s / 129 s there; 4 s for the
    0.9 s of 4 x 100, the others as before).
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    l = float(np.sum(sizes))
    seconds = max(l ** 3 / 6e7, float(np.sum(sizes ** 3)) / 1e6)
    return 14.0 * l * l + 100.0 * float(np.sum(sizes * sizes)), seconds


def independence_cooc(stats: ValueStatistics) -> np.ndarray:
    """The co-occurrence counts expected when every column is shuffled on its own.

    Within an attribute the block stays ``diag(counts)``; between attributes ``j != k`` it
    becomes ``n p_j p_k^T``. This is the null model of the gap statistic in
    :func:`~catembed.embed._untie_selection.untie_auto`: same values, same frequencies, no
    co-occurrence structure.
    """
    n = max(stats.n_rows, 1)
    cnt = stats.counts.astype(np.float64)
    C = np.outer(cnt, cnt) / n
    offs = stats.offsets
    for j in range(stats.n_features):
        sl = slice(offs[j], offs[j + 1])
        C[sl, sl] = np.diag(cnt[sl])
    return C


class ValueLevelProblem:
    """The kernel k-means objective of UNTIE (Eq. 20) in value-level form.

    With ``O`` the ``n x l`` one-hot matrix and ``B`` the ``l x D`` value-level matrix whose
    column ``d`` (in space ``p`` of attribute ``j``) is ``K_p[:, d]`` on the rows of attribute
    ``j`` and 0 elsewhere, the object matrix is ``X = O B diag(sqrt(w))``. Factor
    ``C = O^T O = R^T R`` (``R``: ``r x l``, ``r = rank C``) and set ``Y = R B`` (``r x D``).
    Then ``S = X X^T`` and ``M = Y diag(w) Y^T`` (``r x r``) have the same non-zero spectrum,
    the top eigenvectors of ``S`` are ``H = O A`` with ``A = V Lambda^{-1/2} W_c``, and for
    a fixed ``H`` the objective is ``sum_d w_d a_d`` with
    ``a_d = ||(I - W_c W_c^T) y_d||^2``. Both are computed attribute by attribute from the
    ``l_j x l_j`` kernel matrices, without forming ``Y``. See the module docstring for the
    derivation.
    """

    def __init__(
        self,
        stats: ValueStatistics,
        spaces: list[KernelSpace],
        *,
        centered: bool = False,
        null: bool = False,
    ) -> None:
        C = independence_cooc(stats) if null else stats.cooc_dense().astype(np.float64)
        self.null = bool(null)
        self.centered = bool(centered)
        if centered:
            # C_c = O^T (I - 1 1^T / n) O: the counts of the centred one-hot matrix
            n = max(stats.n_rows, 1)
            cnt = stats.counts.astype(np.float64)
            C = C - np.outer(cnt, cnt) / n
        self.R = psd_factor(C)
        offs = stats.offsets
        counts = stats.counts.astype(np.float64)
        # Y = R B is never formed (it is r x D, D = 2 |F| l): column block of space p is
        # R_j K_p with R_j the attribute's columns of R, so everything below works per
        # attribute on the stacked l_j x l_j kernel matrices.
        self._blocks = []  # (R_j, [K_1 ... K_P] (l_j x P l_j), coordinate slice)
        self.space_of = []
        self.energy = []
        start = 0
        for j in range(stats.n_features):
            mats = [(p, sp.K) for p, sp in enumerate(spaces) if sp.attribute == j]
            if not mats:
                continue
            K = np.stack([m for _, m in mats])
            width = K.shape[0] * K.shape[2]
            # [K_1 K_2 ... K_P] (l_j x P l_j): column p * l_j + d is K_p[:, d], the order of
            # the coordinates, so G_j and the projections are single matrix products
            Kh = np.ascontiguousarray(K.transpose(1, 0, 2).reshape(K.shape[1], width))
            self._blocks.append((self.R[:, offs[j]:offs[j + 1]], Kh, slice(start, start + width)))
            self.space_of.extend(np.full(K.shape[2], p) for p, _ in mats)
            # diag(B^T C B): the within-attribute block of C is diag(cnt), so
            # ||y_d||^2 = sum_v cnt(v) K_p[v, d]^2
            cnt = counts[offs[j]:offs[j + 1]]
            e = np.einsum("v,pvd->pd", cnt, K * K)
            if centered:  # minus n * (column mean)^2
                e = e - np.einsum("v,pvd->pd", cnt, K) ** 2 / max(stats.n_rows, 1)
            self.energy.append(np.maximum(e, 0.0).reshape(-1))
            start += width
        self._n_coords = start
        self.space_of = np.concatenate(self.space_of) if self.space_of else np.zeros(0, int)
        self.energy = np.concatenate(self.energy) if self.energy else np.zeros(0)

    @property
    def rank(self) -> int:
        return self.R.shape[0]

    @property
    def n_coords(self) -> int:
        return self._n_coords

    @property
    def Y(self) -> np.ndarray:
        """``R B`` (``r x D``), formed on request only (tests, small problems)."""
        return np.hstack([Rj @ Kh for Rj, Kh, _ in self._blocks]) if self._blocks else \
            np.zeros((self.rank, 0))

    def spectrum(self, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Eigenvalues (descending) and eigenvectors of ``M = Y diag(w) Y^T``.

        ``M = sum_j R_j G_j R_j^T`` with ``G_j = sum_p K_p diag(w_p) K_p^T`` (``l_j x l_j``).
        """
        r = self.rank
        M = np.zeros((r, r))
        for Rj, Kh, sl in self._blocks:
            G = (Kh * w[sl]) @ Kh.T
            RG = Rj @ G
            M += RG @ Rj.T
        M = (M + M.T) / 2
        # a small eigenproblem gains nothing from BLAS threads, and on a busy machine their
        # spin-waiting made it 10-100x slower than one thread
        with small_problem_threads(M.shape[0]):
            lam, W = np.linalg.eigh(M)
        return lam[::-1], W[:, ::-1]

    def coefficients(self, Wc: np.ndarray) -> np.ndarray:
        """``a_d = ||(I - H H^T) O b_d||^2`` for the ``H`` given by ``Wc`` (``r x c``):
        ``||y_d||^2 - ||W_c^T R_j K_p[:, d]||^2``."""
        proj = np.zeros(self._n_coords)
        for Rj, Kh, sl in self._blocks:
            P = (Wc.T @ Rj) @ Kh  # c x P l_j
            proj[sl] = np.einsum("cd,cd->d", P, P)
        return np.maximum(self.energy - proj, 0.0)

    def objective(self, w: np.ndarray, c: int) -> float:
        """``min_H Tr(S (I - H H^T))`` for weights ``w``: the sum of all but the top-c
        eigenvalues of ``S``."""
        lam, _ = self.spectrum(w)
        return float(max(np.sum(lam[self.n_free(c):]), 0.0))

    def n_free(self, c: int) -> int:
        """Eigenvectors chosen freely: ``c``, or ``c - 1`` next to the fixed constant vector
        when centred."""
        return max(c - 1, 0) if self.centered else c

    def h_step(self, w: np.ndarray, c: int) -> tuple[np.ndarray, float]:
        """``(W_c, min_H Tr(S (I - H H^T)))`` from one eigendecomposition."""
        lam, W = self.spectrum(w)
        k = self.n_free(c)
        return W[:, :k], float(max(np.sum(lam[k:]), 0.0))

    def h_factor(self, w: np.ndarray, c: int) -> tuple[np.ndarray, np.ndarray]:
        """``(W_c, A)``: ``H = U W_c = O A`` are the top-``c`` eigenvectors of ``S``."""
        lam, W = self.spectrum(w)
        Wc = W[:, :self.n_free(c)]
        return Wc, self.A_from(Wc)

    def A_from(self, Wc: np.ndarray) -> np.ndarray:
        """``A`` (``l x c``) with ``H = O A``: ``A = R^+ W_c = V Lambda^{-1/2} W_c``."""
        # R = Lambda^{1/2} V^T has orthogonal rows, so R^+ = R^T (R R^T)^{-1}
        RRt = np.einsum("rl,rl->r", self.R, self.R)
        return self.R.T @ (Wc / RRt[:, None])

