r"""UNTIE's choices without labels: the number of clusters, the temperature, degenerate weights.

Choosing the temperature without labels, and refusing degenerate weights
-----------------------------------------------------------------------
``F`` cannot choose ``tau`` itself: as ``tau`` falls the objective falls whether or not the
rows have clusters. ``temperature="auto"`` (the default) solves at ``temperature`` 0.01,
0.03, 0.1, 0.3, 1 and 3 (``r_d`` lies in 0..1, so this spans nearly one-hot weights to
nearly uniform ones; the grid was fixed before any F-score was computed) and keeps the
weights, ``omega = 1`` included, with the largest gap statistic (Witten and Tibshirani,
*A framework for feature selection in clustering*, JASA 2010, Sec. 3.2, the rule they use to
set the strength of feature weights for k-means): ``log Tr(H^T S H) - log Tr(H_0^T S_0 H_0)``,
the energy the best cluster subspace captures, against the same for the table with every
column shuffled on its own. The expectation over shuffles is taken in closed form on the
counts (within an attribute the co-occurrence block stays ``diag(counts)``, between
attributes it becomes ``n p_j p_k^T``; see
:func:`~catembed.embed._untie_objective.independence_cooc`), so it costs one more
value-level eigenproblem and no rows, and the fit stays deterministic. Concentrating weight
on few coordinates raises the captured share of the shuffled table as much as the real one, so only
cluster structure shared across columns counts. No labels and no benchmark F-score enter.
On most Table IV sets the gap is largest at ``omega = 1`` (learning the weights finds no
structure the shuffled table lacks); see ``docs/reproducing.md``.

Whatever the solver or temperature, the learned weights are then compared with
``omega = 1`` on that gap: if they score lower (``solver="sgd"`` or a fixed temperature can),
``fit`` warns (:class:`~catembed.CatEmbedWarning`) and uses ``omega = 1``
(``fallback_ = True``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._utils._validation import CatEmbedError, CatEmbedWarning
from ._untie_objective import ValueLevelProblem
from ._untie_solvers import SolverResult, untie_exact, untie_sgd

__all__ = [
    "AUTO_TEMPERATURES",
    "WeightChoice",
    "captured_energy",
    "choose_weights",
    "eigengap_n_clusters",
    "gap_statistic",
    "untie_auto",
]


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
    :func:`~catembed.embed._untie_objective.independence_cooc`. Concentrating weight on a few
    coordinates raises the captured share of the real and the null kernel alike, so the gap
    rewards only cluster structure that the columns share. ``-inf`` when nothing is captured.
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



@dataclass
class WeightChoice:
    """The weights UNTIE keeps, and how they were chosen (the estimator's fitted state)."""

    w: np.ndarray
    n_clusters: int
    temperature: float  # inf: omega = 1
    tau: float
    n_iter: int
    path: list[float]
    sgd_objective: float | None
    gap: float
    uniform_gap: float
    fallback: bool
    temperature_scores: list[tuple[float, float]] = field(default_factory=list)


def choose_weights(
    problem: ValueLevelProblem,
    null: ValueLevelProblem,
    *,
    n_clusters: int | None,
    centered: bool,
    solver: str,
    temperature: Any,
    max_iter: int | None,
    tol: float,
    n_spaces: int,
    sgd_rows: Any = None,
    learning_rate: float = 1e-3,
    batch_size: int = 20,
    random_state: Any = None,
) -> WeightChoice:
    """Choose ``c`` and learn the weights, then refuse them if degenerate.

    ``c``: ``n_clusters`` (the estimator's parameter or the number of classes), else the
    largest eigengap of the spectrum at ``omega = 1``. ``solver="exact"`` with
    ``temperature="auto"`` runs :func:`untie_auto`, with a number :func:`untie_exact`;
    ``solver="sgd"`` runs :func:`~catembed.embed._untie_solvers.untie_sgd` on the rows that
    ``sgd_rows()`` gives as ``(row_vectors, n_rows)`` (``None``: no rows, an error). Then
    :func:`keep_or_uniform`.
    """
    from sklearn.utils import check_random_state

    lam0, _ = problem.spectrum(np.ones(problem.n_coords))
    c = n_clusters
    if c is None:
        c = eigengap_n_clusters(lam0, centered=bool(centered))
    if problem.n_free(c) >= problem.rank:
        warnings.warn(
            f"n_clusters={c} is not below the rank of the value-level kernel "
            f"({problem.rank}); the objective is 0 for any weights and omega stays 1.",
            CatEmbedWarning, stacklevel=4,
        )
    auto = isinstance(temperature, str)
    temp = 1.0 if auto else float(temperature)
    scores: list[tuple[float, float]] = []
    tau = temp
    sgd_objective = None
    if problem.n_free(c) >= problem.rank:
        if auto:  # nothing to choose: omega = 1, reported as temperature inf
            temp = tau = float("inf")
        res = SolverResult(np.ones(problem.n_coords), 0.0, 1, [0.0], tau)
        w = res.w
    elif solver == "exact":
        if auto:
            res, temp, scores = untie_auto(problem, c, null=null, max_iter=max_iter or 100,
                                           tol=tol)
        else:
            res = untie_exact(problem, c, tau=tau, max_iter=max_iter or 100, tol=tol)
        w = res.w
        tau = res.tau
    else:
        if sgd_rows is None:
            raise CatEmbedError(
                "solver='sgd' samples rows, so it needs fit(X); fit_statistics gives "
                "only counts. Use solver='exact' (the default) with statistics."
            )
        row_vectors, n_rows = sgd_rows()
        rng = np.random.default_rng(check_random_state(random_state).randint(2**31))
        res = untie_sgd(
            row_vectors, n_rows, problem.n_coords, n_spaces, c, rng=rng,
            learning_rate=learning_rate, batch_size=batch_size, max_iter=max_iter or 1000,
        )
        w = res.w
        if not np.any(w > 0):
            warnings.warn(
                "the sgd solver pruned every weight; keeping omega = 1.",
                CatEmbedWarning, stacklevel=4,
            )
            w = np.ones_like(w)
        sgd_objective = res.objective
    w, gap, uniform_gap, fallback = keep_or_uniform(problem, null, w, c)
    return WeightChoice(w, int(c), temp, tau, int(res.n_iter), res.path, sgd_objective, gap,
                        uniform_gap, fallback, scores)


def keep_or_uniform(problem: ValueLevelProblem, null: ValueLevelProblem, w: np.ndarray,
                    c: int) -> tuple[np.ndarray, float, float, bool]:
    """Keep the learned ``w`` only if its :func:`gap_statistic` (the objective made
    scale-free and measured against shuffled columns) is at least that of ``omega = 1``;
    else warn and return ``omega = 1``.

    Returns
    -------
    (weights, gap, uniform gap, fallback)
    """
    ones = np.ones(problem.n_coords)
    uniform_gap = gap_statistic(problem, null, ones, c)
    if not float(problem.energy @ ones) > 0:
        warnings.warn(
            "every row gets the same UNTIE vector: the kernel spaces do not vary over "
            "the rows (constant columns, or tied values with tied_values='keep').",
            CatEmbedWarning, stacklevel=5,
        )
        return w, uniform_gap, uniform_gap, False
    ok = np.all(np.isfinite(w)) and float(problem.energy @ w) > 0
    gap = gap_statistic(problem, null, w, c) if ok else float("-inf")
    tol = 1e-9 * max(abs(uniform_gap), 1.0) if np.isfinite(uniform_gap) else 0
    if gap < uniform_gap - tol:
        warnings.warn(
            f"the learned kernel weights are degenerate: they keep less cluster "
            f"structure than uniform weights (gap statistic {gap:.4g} < "
            f"{uniform_gap:.4g}, see UNTIE's temperature); using omega = 1.",
            CatEmbedWarning, stacklevel=5,
        )
        return ones, uniform_gap, uniform_gap, True
    return w, gap, uniform_gap, False
