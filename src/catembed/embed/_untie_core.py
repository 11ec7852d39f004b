"""UNTIE building blocks on the value statistics: coupling spaces, kernel bank, solvers.

Everything here works on value-level matrices (``l x l`` co-occurrence counts, ``l_j x l_j``
kernel matrices, an ``r x D`` factor with ``r <= l``); nothing grows with the number of rows
except :func:`untie_sgd`, which samples rows as the paper's stochastic recipe does.
See :mod:`catembed.embed.untie` for the derivation.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.spatial.distance import cdist

from .._threads import small_problem_threads as _small_threads
from .._validation import CatEmbedError
from ..stats import ValueStatistics

__all__ = [
    "DEFAULT_KERNELS",
    "KernelSpace",
    "ValueLevelProblem",
    "coupling_spaces",
    "captured_energy",
    "eigengap_n_clusters",
    "gap_statistic",
    "independence_cooc",
    "energy_ratio",
    "energy_rescaled",
    "energy_shares",
    "kernel_matrix",
    "kernel_spaces",
    "omega_step",
    "parse_kernels",
    "small_problem_threads",
    "tied_attributes",
    "untie_auto",
    "untie_exact",
    "untie_sgd",
]

#: UNTIE's default bank (paper Sec. 6.1): 11 Gaussian kernels, g = 2^-5 .. 2^5, and
#: polynomial kernels of order 1-3.
DEFAULT_KERNELS: tuple[str, ...] = tuple(
    [f"gaussian:{2.0 ** e:g}" for e in range(-5, 6)] + ["poly:1", "poly:2", "poly:3"]
)

_TINY = 1e-100
_SMALL_EIGH = 512


def small_problem_threads(rank: int) -> Any:
    """One BLAS thread for a whole solve whose matrices are small (``rank <= 512``).

    Each alternation multiplies ``l_j x P l_j`` matrices and solves an ``r x r``
    eigenproblem, tens of milliseconds at most: BLAS threads gain nothing there, and on a
    busy machine their spin-waiting made the solve several times slower
    (:mod:`catembed._threads`).
    """
    return _small_threads(rank, _SMALL_EIGH, "blas")


_KINDS = {"gaussian": "gaussian", "rbf": "gaussian", "gauss": "gaussian",
          "poly": "poly", "polynomial": "poly"}


def parse_kernels(kernels: Any) -> list[tuple[str, float]]:
    """Read a kernel bank: ``None`` (the default bank) or a list of specs.

    A spec is ``"gaussian:<g>"`` (``exp(-g ||a - b||^2)``), ``"poly:<d>"`` (``(a . b)^d``),
    or a tuple ``("gaussian", g)`` / ``("poly", d)``.

    Returns
    -------
    list of (kind, parameter)
    """
    if kernels is None:
        kernels = DEFAULT_KERNELS
    if isinstance(kernels, str) or not isinstance(kernels, Sequence) or len(kernels) == 0:
        raise CatEmbedError(
            f"kernels must be None or a non-empty list such as ['gaussian:0.5', 'poly:2']; "
            f"got {kernels!r}."
        )
    out = []
    for spec in kernels:
        if isinstance(spec, str):
            kind, _, param = spec.partition(":")
        elif isinstance(spec, Sequence) and len(spec) == 2:
            kind, param = spec
        else:
            raise CatEmbedError(f"cannot read kernel {spec!r}; use e.g. 'gaussian:0.5'.")
        kind = _KINDS.get(str(kind).strip().lower())
        try:
            value = float(param)
        except (TypeError, ValueError):
            value = float("nan")
        if kind is None or not math.isfinite(value) or value <= 0:
            raise CatEmbedError(
                f"cannot read kernel {spec!r}: use 'gaussian:<g>' with g > 0 or "
                "'poly:<d>' with an integer d >= 1."
            )
        if kind == "poly" and value != int(value):
            raise CatEmbedError(f"polynomial kernel order must be an integer; got {spec!r}.")
        out.append((kind, value))
    return out


def kernel_name(kind: str, param: float) -> str:
    """Readable name of a kernel, e.g. ``gaussian(g=0.25)`` or ``poly(d=2)``."""
    return f"gaussian(g={param:g})" if kind == "gaussian" else f"poly(d={int(param)})"


def kernel_matrix(F: np.ndarray, kind: str, param: float) -> np.ndarray:
    """Cosine-normalised kernel matrix of the rows of ``F`` (UNTIE Eq. 7, spec section 3).

    ``K_ab / sqrt(K_aa K_bb)``; a row whose self-similarity is 0 (the zero vector under a
    polynomial kernel) gets 1 on the diagonal and 0 elsewhere.
    """
    F = np.asarray(F, dtype=np.float64)
    if kind == "gaussian":
        K = np.exp(-param * cdist(F, F, "sqeuclidean"))  # K_aa = 1 already
        # entries below 1e-100 are flushed to 0: they change nothing, and their products
        # would be subnormal numbers, which slow BLAS down a hundredfold
        K[K < _TINY] = 0.0
        return K
    K = (F @ F.T) ** int(param)
    d = np.sqrt(np.clip(np.diag(K), 0.0, None))
    ok = d > 0
    inv = np.where(ok, 1.0 / np.where(ok, d, 1.0), 0.0)
    K = K * inv[:, None] * inv[None, :]
    K[np.diag_indices_from(K)] = 1.0
    K[np.abs(K) < _TINY] = 0.0
    return np.clip(K, -1.0, 1.0)


def coupling_spaces(stats: ValueStatistics) -> list[tuple[np.ndarray, np.ndarray]]:
    """Intra- and inter-attribute coupling vectors of every attribute (UNTIE Eqs. 1-5).

    For attribute ``j``: intra ``[p(v)]`` (``l_j x 1``); inter ``[p(v | u)]`` for every value
    ``u`` of every other attribute (``l_j x (l - l_j)``), from the co-occurrence counts.
    """
    p = stats.probabilities()
    P = stats.conditional()  # P[u, v] = p(v | u)
    offs = stats.offsets
    out = []
    for j in range(stats.n_features):
        block = np.arange(offs[j], offs[j + 1])
        others = np.setdiff1d(np.arange(stats.n_values), block)
        out.append((p[block][:, None], P[np.ix_(others, block)].T))
    return out


@dataclass(frozen=True)
class KernelSpace:
    """One kernel space ``p``: attribute, coupling ("intra"/"inter"), kernel, matrix."""

    attribute: int
    coupling: str
    kernel: str
    K: np.ndarray


def tied_attributes(stats: ValueStatistics) -> list[int]:
    """Attributes with two or more values that the coupling spaces cannot tell apart.

    Two values of attribute ``j`` with the same frequency and the same conditional
    probabilities ``p(v | u)`` for every other value ``u`` (UNTIE Eqs. 1-5) have equal coupling
    vectors, so every kernel row and every Eq. 21 vector of the two is equal. A full factorial
    design with uniform counts (Nursery, ThreeOf9) ties all the values of every attribute, and
    every row then gets the same vector.
    """
    out = []
    for j, (intra, inter) in enumerate(coupling_spaces(stats)):
        F = np.hstack([intra, inter])
        if F.shape[0] > 1 and np.unique(np.round(F, 12), axis=0).shape[0] < F.shape[0]:
            out.append(j)
    return out


def kernel_spaces(
    stats: ValueStatistics,
    kernels: list[tuple[str, float]],
    *,
    identity_for: Sequence[int] = (),
) -> list[KernelSpace]:
    """The ``2 m |F|`` kernel spaces, attribute-major: intra kernels, then inter kernels.

    Attributes listed in ``identity_for`` get one more space, the identity kernel
    ``K = I`` (coupling ``"identity"``, kernel ``"delta"``: the ``g -> inf`` limit of the
    Gaussian bank), which separates values whose coupling vectors are equal (see
    :func:`tied_attributes`).
    """
    spaces = []
    ident = set(int(j) for j in identity_for)
    for j, (intra, inter) in enumerate(coupling_spaces(stats)):
        for coupling, F in (("intra", intra), ("inter", inter)):
            for kind, param in kernels:
                spaces.append(
                    KernelSpace(j, coupling, kernel_name(kind, param),
                                kernel_matrix(F, kind, param))
                )
        if j in ident:
            spaces.append(KernelSpace(j, "identity", "delta", np.eye(intra.shape[0])))
    return spaces


def _psd_factor(A: np.ndarray, rtol: float | None = None) -> np.ndarray:
    """``R`` (``r x l``) with ``R^T R = A`` for a symmetric PSD ``A``; ``r`` = numerical rank."""
    lam, V = np.linalg.eigh(A)
    lam_max = max(float(lam[-1]), 0.0) if lam.size else 0.0
    tol = (rtol if rtol is not None else A.shape[0] * np.finfo(float).eps) * max(lam_max, 1e-300)
    keep = lam > tol
    return np.sqrt(lam[keep])[:, None] * V[:, keep].T


def independence_cooc(stats: ValueStatistics) -> np.ndarray:
    """The co-occurrence counts expected when every column is shuffled on its own.

    Within an attribute the block stays ``diag(counts)``; between attributes ``j != k`` it
    becomes ``n p_j p_k^T``. This is the null model of the gap statistic in
    :func:`untie_auto`: same values, same frequencies, no co-occurrence structure.
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
    ``l_j x l_j`` kernel matrices, without forming ``Y``. See :mod:`catembed.embed.untie` for
    the derivation.
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
        self.R = _psd_factor(C)
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


def eigengap_n_clusters(lam: np.ndarray, max_clusters: int = 20, *, centered: bool = False
                        ) -> int:
    """Number of clusters from the largest eigengap of the value-level spectrum at
    ``omega = 1`` (descending ``lam``).

    Uncentred: ``c = argmax_k lam_k - lam_{k+1}`` over ``2 <= k <= max_clusters`` (``k = 1``
    is left out: the first eigenvalue carries the mean of the positive kernels and always
    dominates). Centred: the constant vector is already one of the ``c`` directions, so
    ``c = 1 + argmax_k (lam_k - lam_{k+1})`` over ``1 <= k < max_clusters``.
    """
    lam = np.asarray(lam, dtype=float)
    if centered:
        kmax = min(max_clusters - 1, lam.size - 1)
        if kmax < 1:
            return 1
        gaps = lam[:kmax] - lam[1:kmax + 1]
        return int(np.argmax(gaps)) + 2
    kmax = min(max_clusters, lam.size - 1)
    if kmax < 2:
        return 1
    gaps = lam[1:kmax] - lam[2:kmax + 1]  # gaps[k-2] = lam_k - lam_{k+1}, 1-based k
    return int(np.argmax(gaps)) + 2


@dataclass
class SolverResult:
    """What a solver returns."""

    w: np.ndarray
    objective: float  # the regularised objective F (exact) or the final batch loss (sgd)
    n_iter: int
    path: list[float]
    tau: float


def energy_shares(problem: ValueLevelProblem, w: np.ndarray) -> np.ndarray:
    """``u_d = w_d e_d / sum_k w_k e_k``: each coordinate's share of ``Tr(S)`` (0 if none)."""
    we = np.asarray(w, dtype=float) * problem.energy
    total = we.sum()
    return we / total if total > 0 else np.zeros_like(we)


def energy_ratio(problem: ValueLevelProblem, w: np.ndarray, c: int) -> float:
    """``min_H Tr(S (I - H H^T)) / Tr(S)`` at weights ``w``: the share of the kernel energy
    outside the best ``c``-cluster subspace (a relaxed k-means within-cluster share, 0..1).
    It does not change when ``w`` is multiplied by a constant; 0 when ``Tr(S) = 0``."""
    total = float(problem.energy @ np.asarray(w, dtype=float))
    return problem.objective(w, c) / total if total > 0 else 0.0


def energy_rescaled(problem: ValueLevelProblem, w: np.ndarray) -> np.ndarray:
    """``w`` scaled onto the feasible set of the omega step, ``sum_d e_d w_d = sum_d e_d``
    (``Tr(S)`` equal to that of ``omega = 1``); the objective is positively homogeneous in
    ``w``, so any weights can be compared there. Unchanged when ``Tr(S) = 0``."""
    w = np.asarray(w, dtype=float)
    total = float(problem.energy @ w)
    return w * (float(problem.energy.sum()) / total) if total > 0 else w


def regularised_objective(problem: ValueLevelProblem, w: np.ndarray, c: int, tau: float) -> float:
    """``F(w) = min_H Tr(S_w (I - H H^T)) + tau sum_d e_d w_d log w_d`` after rescaling
    ``w`` to the feasible set ``sum_d e_d w_d = sum_d e_d`` (:func:`energy_rescaled`)."""
    w = np.asarray(w, dtype=float)
    if not float(problem.energy @ w) > 0:
        return float("inf")
    w = energy_rescaled(problem, w)
    return problem.objective(w, c) + tau * _weighted_entropy(problem, w)


def _weighted_entropy(problem: ValueLevelProblem, w: np.ndarray) -> float:
    """``sum_d e_d w_d log w_d`` (0 at ``omega = 1``; ``0 log 0 = 0``)."""
    return float(np.sum(np.where(w > 0, problem.energy * w * np.log(np.where(w > 0, w, 1.0)),
                                 0.0)))


def omega_step(problem: ValueLevelProblem, a: np.ndarray, tau: float) -> np.ndarray:
    """The exact minimiser over ``w`` of ``sum_d w_d a_d + tau sum_d e_d w_d log w_d`` with
    ``sum_d e_d w_d = sum_d e_d``: ``w_d = exp(-r_d / tau) / Z``, ``r_d = a_d / e_d`` the
    share of coordinate ``d``'s energy outside the cluster subspace (0..1).

    Lagrange: ``a_d + tau e_d (log w_d + 1) + mu e_d = 0``, so ``log w_d = -r_d / tau``
    plus a constant fixed by the constraint. Coordinates without energy (``e_d = 0``: constant
    over the rows) do not enter ``S`` and keep ``w_d = 1``.
    """
    e = problem.energy
    ok = e > 0
    w = np.ones_like(e)
    if not np.any(ok):
        return w
    r = np.clip(a[ok] / e[ok], 0.0, 1.0)
    z = -(r - r.min()) / tau
    v = np.exp(z)
    v *= e[ok].sum() / float(e[ok] @ v)
    v[v < 1e-30] = 0.0  # no subnormal products w * y^2 (see kernel_matrix)
    w[ok] = v
    return w


def untie_exact(
    problem: ValueLevelProblem,
    c: int,
    *,
    tau: float,
    max_iter: int = 100,
    tol: float = 1e-8,
) -> SolverResult:
    """Block-coordinate descent on ``F(w, H) = sum_d w_d a_d(H) + tau sum_d e_d w_d log w_d``
    with ``sum_d e_d w_d = sum_d e_d``, ``w >= 0``.

    ``H``-step: top-``c`` eigenvectors (exact minimiser given ``w``). ``omega``-step: the
    exact minimiser given ``H`` (:func:`omega_step`), ``w_d`` proportional to
    ``exp(-r_d / tau)`` with ``r_d = a_d / e_d``. ``F`` never increases; stop when its
    relative change is at most ``tol``.
    """
    w = np.ones(problem.n_coords)
    Wc, obj = problem.h_step(w, c)
    path = [obj]
    n_iter = 0
    for n_iter in range(1, max_iter + 1):  # noqa: B007
        # omega_step's weights are on the feasible set already, so F is the H-step's
        # objective plus the entropy term: one eigendecomposition per alternation
        w = omega_step(problem, problem.coefficients(Wc), tau)
        Wc, obj = problem.h_step(w, c)
        path.append(obj + tau * _weighted_entropy(problem, w))
        if abs(path[-2] - path[-1]) <= tol * max(abs(path[-1]), 1e-300):
            break
    return SolverResult(w, path[-1], n_iter, path, tau)


#: Temperatures tried by ``temperature="auto"`` (see :func:`untie_auto`).
AUTO_TEMPERATURES: tuple[float, ...] = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)


def captured_energy(problem: ValueLevelProblem, w: np.ndarray, c: int) -> float:
    """``Tr(H^T S H)`` at the optimal ``H``: the kernel energy inside the cluster subspace
    (``Tr(S)`` minus the objective)."""
    return float(problem.energy @ np.asarray(w, dtype=float)) - problem.objective(w, c)


def gap_statistic(problem: ValueLevelProblem, null: ValueLevelProblem, w: np.ndarray,
                  c: int) -> float:
    """``log(captured energy) - log(captured energy under independence)`` at weights ``w``.

    The permutation gap of sparse k-means (Witten and Tibshirani, JASA 2010, Sec. 3.2) with
    its expectation taken in closed form: shuffling each column on its own keeps the value
    counts (so ``Tr(S)`` and each coordinate's energy) and replaces the co-occurrences by
    :func:`independence_cooc`. Concentrating weight on a few coordinates raises the
    captured share of the real and the null kernel alike, so the gap rewards only cluster
    structure that the columns share. ``-inf`` when nothing is captured.
    """
    real = captured_energy(problem, w, c)
    base = captured_energy(null, w, c)
    if not (real > 0 and base > 0):
        return float("-inf")
    return float(np.log(real) - np.log(base))


def untie_auto(
    problem: ValueLevelProblem,
    c: int,
    *,
    null: ValueLevelProblem,
    temperatures: Sequence[float] = AUTO_TEMPERATURES,
    max_iter: int = 100,
    tol: float = 1e-8,
) -> tuple[SolverResult, float, list[tuple[float, float]]]:
    """Solve at every temperature and keep the weights with the largest
    :func:`gap_statistic`, ``omega = 1`` included (as temperature ``inf``, tried first,
    so a tie keeps it).

    The choice uses no labels: it is the gap statistic Witten and Tibshirani use to set the
    sparsity of feature weights for k-means. The objective alone cannot choose: at a low
    temperature weight moves onto few coordinates and the objective, even divided by
    ``Tr(S)``, falls whether or not the data have clusters.

    Returns
    -------
    (result, temperature, [(temperature, gap), ...])
    """
    ones = np.ones(problem.n_coords)
    best = (gap_statistic(problem, null, ones, c), float("inf"),
            SolverResult(ones, 0.0, 0, [0.0], float("inf")))
    tried = [(float("inf"), best[0])]
    for t in temperatures:
        res = untie_exact(problem, c, tau=float(t), max_iter=max_iter, tol=tol)
        gap = gap_statistic(problem, null, res.w, c)
        tried.append((float(t), gap))
        if gap > best[0] + 1e-9 * max(abs(best[0]), 1.0):
            best = (gap, float(t), res)
    return best[2], best[1], tried


def untie_sgd(
    row_vectors: Any,
    n_rows: int,
    n_coords: int,
    n_spaces: int,
    c: int,
    *,
    rng: np.random.Generator,
    learning_rate: float = 1e-3,
    batch_size: int = 20,
    max_iter: int = 1000,
    prune: float = 1e-3,
) -> SolverResult:
    """The paper's stochastic recipe (Sec. 4.5, 6.1) in NumPy.

    ``omega = |theta|``, ``theta`` initialised to 1; each step draws ``batch_size`` rows,
    takes the batch kernel ``S_B = X_B diag(omega) X_B^T``, its top-``c`` eigenvectors
    ``H_B``, and the loss ``Tr(S_B (I - H_B H_B^T)) + lambda ||omega||_1`` with
    ``lambda = 1 / log(n_spaces)``; its gradient in ``omega`` (``H_B`` optimal, so the
    envelope theorem applies) is ``||(I - H_B H_B^T) x_{B,d}||^2 + lambda``. Adam
    (``beta = 0.9, 0.999``, ``eps = 1e-8``) updates ``theta``; finally weights below ``prune``
    are set to 0.

    ``row_vectors(idx)`` returns the unweighted ``len(idx) x D`` object vectors.
    """
    lam = 1.0 / math.log(n_spaces) if n_spaces > 1 else 1.0
    theta = np.ones(n_coords)
    m = np.zeros(n_coords)
    v = np.zeros(n_coords)
    b1, b2, eps = 0.9, 0.999, 1e-8
    bs = min(batch_size, n_rows)
    cb = max(1, min(c, bs - 1))
    path = []
    for t in range(1, max_iter + 1):
        idx = rng.choice(n_rows, size=bs, replace=False)
        Z = row_vectors(idx)
        w = np.abs(theta)
        Xw = Z * np.sqrt(w)
        lam_b, U = np.linalg.eigh(Xw @ Xw.T)
        Hb = U[:, ::-1][:, :cb]
        resid = Z - Hb @ (Hb.T @ Z)
        a = np.einsum("bd,bd->d", resid, resid)
        path.append(float(w @ a + lam * w.sum()))
        g = np.sign(theta) * (a + lam)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        theta -= learning_rate * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps)
    w = np.abs(theta)
    w[w < prune] = 0.0
    return SolverResult(w, path[-1] if path else float("nan"), max_iter, path, lam)
