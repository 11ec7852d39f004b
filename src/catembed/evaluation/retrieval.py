"""Object retrieval: precision@k with every object as a query (UNTIE Fig. 11, spec section 5).

:func:`run_retrieval` is the ``retrieve`` task of the evaluation protocol
(``catembed evaluate --task retrieve``): every embedding method is fitted on the table and
scored by precision@k on its vectors.

Each object queries the others; its ``k`` nearest neighbours (Euclidean by default) on the
embedding vectors are retrieved, and precision@k is the fraction of them that share the
query's class, averaged over all queries. Neighbours come from scikit-learn's
:class:`~sklearn.neighbors.NearestNeighbors`, queried in blocks of rows, so memory is
``O(batch_size x n)`` at most, never ``n x n``.
"""

from __future__ import annotations

import numbers
import time
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

from .._utils._params import check_int, check_option
from .._utils._validation import CatEmbedError
from ..stats._numeric import finite_matrix

__all__ = [
    "DEFAULT_KS",
    "RetrievalResult",
    "precision_at_k",
    "retrieval_curve",
    "run_retrieval",
    "text_table",
]

#: the cut-offs ``catembed evaluate --task retrieve`` reports (those below the table size)
DEFAULT_KS = (1, 5, 10, 20, 50, 100)


def _ks(k: Any, n: int) -> list[int]:
    if isinstance(k, (numbers.Integral, str)) or not isinstance(k, Iterable):
        k = [check_int("k", k)]  # 1.5 or None was a bare TypeError ("not iterable")
    ks = list(k)
    if not ks:
        raise CatEmbedError("give at least one k for precision@k.")
    for v in ks:
        check_int("k", v)
        if v > n - 1:
            raise CatEmbedError(
                f"precision@{v} needs at least {v + 1} objects (a query and {v} others); "
                f"got {n}."
            )
    return [int(v) for v in ks]


def retrieval_curve(
    X: Any,
    labels: Any,
    k: int | Iterable[int] = (1, 5, 10, 20, 50, 100),
    *,
    metric: str = "euclidean",
    batch_size: int = 2048,
    n_jobs: int | None = None,
    ties: str = "expected",
) -> pd.Series:
    """Precision@k for several ``k``, every object a query (UNTIE Fig. 11).

    Parameters
    ----------
    X : array-like of shape (n, d)
        The object vectors (an embedding's ``transform`` output).
    labels : array-like of shape (n,)
        Classes; a retrieved object is relevant when its class equals the query's.
    k : int or iterable of int
        Cut-offs; each must be below ``n``. Values above ``n - 1`` raise an error.
    metric : str, default="euclidean"
        Any metric :class:`~sklearn.neighbors.NearestNeighbors` accepts.
    batch_size : int, default=2048
        Queries per block.
    n_jobs : int, optional
        Passed to ``NearestNeighbors``.
    ties : {"expected", "arbitrary"}, default="expected"
        How objects at the same distance are ranked (see Notes).

    Returns
    -------
    pandas.Series
        Mean precision indexed by ``k``.

    Notes
    -----
    The query itself is never retrieved; exact duplicates of it are (they are other
    objects). Ties are handled exactly: when several objects lie at the k-th distance, the
    figure is the expected precision under a uniformly random order among them
    (``ties="expected"``), so it does not depend on the neighbour-search order or on which
    other ``k`` are asked for. Distances within ``1e-8`` times the query's largest
    retrieved distance (and, for Euclidean distances, within ``1e-6`` times the query's
    norm, the rounding of exact duplicates) count as equal. ``ties="arbitrary"`` keeps
    scikit-learn's order.
    """
    check_option("ties", ties, ("expected", "arbitrary"))
    check_int("batch_size", batch_size)  # -1 scored no query (0.0), 0 was a bare ValueError
    X = finite_matrix(X, "X")
    y = np.asarray(labels).ravel()
    if X.ndim != 2:
        raise CatEmbedError(f"X must be 2-D (objects x features); got shape {X.shape}.")
    if len(y) != X.shape[0]:
        raise CatEmbedError(f"X has {X.shape[0]} rows but labels has {len(y)} entries.")
    n = X.shape[0]
    ks = _ks(k, n)
    kmax = max(ks)
    codes = pd.factorize(pd.Series(y), use_na_sentinel=False)[0]
    extra = 1 if ties == "arbitrary" else 2
    try:
        nn = NearestNeighbors(n_neighbors=min(kmax + extra, n), metric=metric,
                              n_jobs=n_jobs).fit(X)
    except (TypeError, ValueError) as exc:  # scikit-learn's InvalidParameterError
        raise CatEmbedError(f"metric={metric!r} or n_jobs={n_jobs!r} refused: {exc}") from None
    # Euclidean distances computed as |q|^2 + |x|^2 - 2 q.x carry a rounding error that
    # grows with the norms (exact duplicates come out at ~1e-7 |q|, not 0)
    norms = np.linalg.norm(X, axis=1) if metric in _NORM_METRICS else None
    total = np.zeros(len(ks))
    for start in range(0, n, batch_size):
        rows = np.arange(start, min(start + batch_size, n))
        dist, idx = nn.kneighbors(X[rows])
        dist, idx = _drop_self(dist, idx, rows)
        rel = codes[idx] == codes[rows][:, None]
        if ties == "arbitrary":
            cum = np.cumsum(rel[:, :kmax], axis=1)
            total += np.array([cum[:, v - 1].sum() / v for v in ks])
            continue
        # queries whose tie group at the kmax-th distance may run past the returned list:
        # fetch every object within that distance
        tol = _tie_tolerance(dist, norms[rows] if norms is not None else None)
        open_end = np.zeros(len(rows), dtype=bool)
        if dist.shape[1] > kmax:
            open_end = dist[:, kmax] - dist[:, kmax - 1] <= tol
        for i in np.flatnonzero(open_end):
            r = rows[i]
            radius = dist[i, kmax - 1] + 2 * tol[i]
            d_i, j_i = nn.radius_neighbors(X[r:r + 1], radius=radius, sort_results=True)
            if len(j_i[0]) <= kmax:
                # the radius search recomputed the distances with other rounding and
                # found fewer objects than the k-nearest search: keep the latter's list
                open_end[i] = False
                continue
            d_i, j_i = _drop_self(d_i[0][None, :], j_i[0][None, :], rows[i:i + 1])
            rel_i = codes[j_i] == codes[r]
            total += _expected_precision(d_i, rel_i, tol[i:i + 1], ks)
        closed = ~open_end
        if closed.any():
            total += _expected_precision(dist[closed], rel[closed], tol[closed], ks)
    return pd.Series({v: float(t / n) for v, t in zip(ks, total, strict=True)},
                     name="precision")


_NORM_METRICS = ("euclidean", "l2", "minkowski")


def _tie_tolerance(dist: np.ndarray, norms: np.ndarray | None) -> np.ndarray:
    """Distances closer than this count as equal: ``1e-8`` times the query's largest
    retrieved distance, and at least ``1e-6`` times the query's norm for Euclidean
    distances (their rounding error), so exact duplicates tie whatever the rounding."""
    finite = np.where(np.isfinite(dist), dist, np.nan)
    tol = 1e-8 * np.nanmax(finite, axis=1, initial=0.0)
    if norms is not None:
        tol = np.maximum(tol, 1e-6 * norms)
    return tol


def _drop_self(dist: np.ndarray, idx: np.ndarray, rows: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """Remove each query from its own neighbour list (or the last neighbour when the query
    was not returned, which happens only among exact duplicates)."""
    if idx.shape[1] == 0:
        return dist, idx
    is_self = idx == rows[:, None]
    drop = np.where(is_self.any(axis=1), is_self.argmax(axis=1), idx.shape[1] - 1)
    keep = np.ones_like(idx, dtype=bool)
    keep[np.arange(len(rows)), drop] = False
    shape = (len(rows), idx.shape[1] - 1)
    return dist[keep].reshape(shape), idx[keep].reshape(shape)


def _expected_precision(dist: np.ndarray, rel: np.ndarray, tol: np.ndarray, ks: list[int]
                        ) -> np.ndarray:
    """Sum over queries of the expected precision@k with random order among ties.

    ``dist`` (sorted) and ``rel`` cover every object up to and including the whole tie group
    at the largest ``k``. With ``a`` objects strictly closer than the k-th distance (``r_a``
    relevant) and ``b`` at that distance (``r_b`` relevant), the expected number of relevant
    objects in the top ``k`` is ``r_a + r_b (k - a) / b``.
    """
    out = np.zeros(len(ks))
    t = tol[:, None]
    for i, v in enumerate(ks):
        dk = dist[:, v - 1][:, None]
        less = dist < dk - t
        eq = ~less & (dist <= dk + t)
        a = less.sum(axis=1)
        b = eq.sum(axis=1)
        ra = (rel & less).sum(axis=1)
        rb = (rel & eq).sum(axis=1)
        out[i] = np.sum((ra + rb * (v - a) / b) / v)
    return out


def precision_at_k(
    X: Any,
    labels: Any,
    k: int = 10,
    *,
    metric: str = "euclidean",
    batch_size: int = 2048,
    n_jobs: int | None = None,
    ties: str = "expected",
) -> float:
    """Mean precision@k with every object as a query (see :func:`retrieval_curve`).

    Parameters
    ----------
    X : array-like of shape (n, d)
    labels : array-like of shape (n,)
    k : int, default=10

    Returns
    -------
    float
    """
    check_int("k", k)
    return float(
        retrieval_curve(X, labels, k, metric=metric, batch_size=batch_size, n_jobs=n_jobs,
                        ties=ties)
        .iloc[0]
    )


# ---------------------------------------------------------------------- the retrieve task
def _result_base():
    from .protocol import MethodResult

    return MethodResult


@dataclass
class RetrievalResult(_result_base()):  # type: ignore[misc]
    """The runs of one method in the retrieve task: ``p@k`` per run instead of clustering
    scores."""

    ks: tuple[int, ...] = ()

    def mean(self, metric: str) -> float:
        vals = [r[metric] for r in self.runs if metric in r]
        return float(np.mean(vals)) if vals else float("nan")

    def std(self, metric: str) -> float:
        vals = [r[metric] for r in self.runs if metric in r]
        return float(np.std(vals, ddof=1)) if len(vals) > 1 else (0.0 if vals else float("nan"))

    def summary(self) -> dict[str, Any]:
        """JSON-able: ``p@k_mean`` / ``p@k_std`` for every ``k``, times, status."""
        out: dict[str, Any] = {"method": self.method, "label": self.label,
                               "task": "retrieve", "status": self.status}
        if self.message:
            out["message"] = self.message
        for k in self.ks:
            m, s = self.mean(f"p@{k}"), self.std(f"p@{k}")
            out[f"p@{k}_mean"] = round(m, 6) if np.isfinite(m) else None
            out[f"p@{k}_std"] = round(s, 6) if np.isfinite(s) else None
        out.update(runs=len(self.runs), n_fits=self.n_fits, n_dims=self.n_dims,
                   fit_seconds=_finite(self.fit_seconds),
                   transform_seconds=_finite(self.transform_seconds))
        return out


def _finite(x: float) -> float | None:
    return round(float(x), 6) if x is not None and np.isfinite(x) else None


def run_retrieval(
    X: pd.DataFrame,
    y: Any,
    methods: Sequence[Any],
    *,
    runs: int = 1,
    seed: int = 0,
    k: Iterable[int] = DEFAULT_KS,
    metric: str = "euclidean",
    refit: str = "auto",
    n_jobs: int | None = None,
    **ignored: Any,
) -> list[RetrievalResult]:
    """The ``retrieve`` task: precision@k of each embedding method (UNTIE Fig. 11).

    Each method is fitted on ``X`` (``fit(X, y)``: the labels are passed so that UNTIE sets
    ``c`` to the number of classes as the paper does; the other embedders ignore them),
    ``X`` is transformed, and :func:`retrieval_curve` scores the vectors. Random methods are
    refit for each of the ``runs`` seeds (``refit="auto"``), deterministic ones once.
    Methods that give no vectors (similarity or label methods) get status ``"error"``.
    Clustering options (``clusterer``, ``init``) are accepted and ignored.

    Parameters
    ----------
    X : DataFrame
    y : array-like of shape (n,)
    methods : list of str or MethodSpec
    runs, seed : int
    k : iterable of int
        Cut-offs; those above ``n - 1`` are left out.
    metric : str, default="euclidean"
    refit : {"auto", "once", "always"}
    n_jobs : int, optional
        Passed to the nearest-neighbour search.

    Returns
    -------
    list of RetrievalResult
    """
    from .methods import MethodUnavailable, get_method
    from .protocol import MethodSpec, _make

    y = np.asarray(y, dtype=object)
    if len(y) != len(X):
        raise CatEmbedError(f"the target has {len(y)} entries but the table {len(X)} rows.")
    ks = tuple(v for v in _ks(list(k), 10**18) if v <= len(X) - 1)
    if not ks:
        raise CatEmbedError(f"the table has {len(X)} rows, too few for precision@k.")
    seeds = [int(seed) + r for r in range(int(runs))]
    results = []
    for m in methods:
        spec = m if isinstance(m, MethodSpec) else MethodSpec(str(m))
        entry = get_method(spec.method)
        res = RetrievalResult(spec.method, spec.name, "", ks=ks)
        try:
            entry.resolve()
        except MethodUnavailable as exc:
            res.status, res.message, res.refused = "unavailable", str(exc), True
            results.append(res)
            continue
        if entry.kind != "embedding":
            res.status, res.refused = "error", True
            res.message = f"retrieval needs vectors; {spec.method!r} is a {entry.kind} method."
            results.append(res)
            continue
        each = entry.random if refit == "auto" else refit == "always"
        fit_s, tr_s = [], []
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for s in (seeds if each else seeds[:1]):
                    est = _make(entry, spec.params, s)
                    t0 = time.perf_counter()
                    est.fit(X, y)
                    t1 = time.perf_counter()
                    Z = est.transform(X)
                    tr_s.append(time.perf_counter() - t1)
                    fit_s.append(t1 - t0)
                    Z = np.asarray(Z.to_numpy() if hasattr(Z, "to_numpy") else Z, float)
                    curve = retrieval_curve(Z, y, ks, metric=metric, n_jobs=n_jobs)
                    res.runs.append({"seed": s, **{f"p@{v}": float(curve[v]) for v in ks}})
                    res.n_dims = Z.shape[1]
        except (CatEmbedError, ValueError, MemoryError, np.linalg.LinAlgError) as exc:
            res.failed(exc)
        res.n_fits = len(fit_s)
        res.fit_seconds = float(np.mean(fit_s)) if fit_s else float("nan")
        res.transform_seconds = float(np.mean(tr_s)) if tr_s else float("nan")
        results.append(res)
    return results


def text_table(results: Sequence[RetrievalResult]) -> str:
    """Plain-text table of :func:`run_retrieval` results: mean precision@k per method."""
    ks = next((r.ks for r in results if r.ks), DEFAULT_KS)
    head = f"{'method':<14}" + "".join(f"{'p@' + str(v):>9}" for v in ks) + f"{'fit s':>9}"
    lines = [head, "-" * len(head)]
    for r in results:
        if r.status != "ok":
            lines.append(f"{r.label:<14}{r.status}")
            continue
        lines.append(f"{r.label:<14}" + "".join(f"{r.mean(f'p@{v}'):>9.4f}" for v in ks)
                     + f"{r.fit_seconds:>9.3f}")
    return "\n".join(lines)


def _register_task() -> None:
    from .protocol import TASKS

    TASKS.setdefault("retrieve", run_retrieval)


_register_task()
