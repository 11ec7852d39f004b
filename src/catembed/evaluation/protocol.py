"""The evaluation protocol: embed -> cluster -> score, repeated (method spec section 5).

For each method and each of ``runs`` seeds ``seed, seed + 1, ...``: the embedding (refit
with that seed when the method is random, otherwise fitted once), one clustering with ``k``
= the number of classes and that seed, and the scores of :func:`catembed.metrics.
clustering_scores` (F-score, accuracy after matching, NMI, ARI; the F-score under the
definition ``f_score`` picks, every definition also as ``f_hungarian``, ``f_best_match``,
``f_pairwise``). The summary gives the mean
and the standard deviation over the runs (``ddof=1``, as MATLAB's ``std``) and the mean fit,
transform and clustering times.

Runs are independent given their seed, so ``n_jobs > 1`` (joblib) gives the same numbers as
``n_jobs=1``.

Other tasks (classification, retrieval) plug in through :data:`TASKS`: a function
``runner(X, y, methods, **options) -> list[MethodResult]``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._utils._errors import FallbackWarning
from .._utils._params import check_int, check_option
from .._utils._spelling import cli_spelling, current_spelling
from .._utils._validation import CatEmbedError
from ..cluster.embedding_labels import (
    INITS,
    gaussian_spectral_labels,
    kmeans_labels,
    spectral_labels,
)
from ..metrics import F_SCORES, clustering_scores
from .methods import EvalMethod, MethodUnavailable, get_method

__all__ = [
    "CLUSTERERS",
    "METRICS",
    "TASKS",
    "MethodResult",
    "MethodSpec",
    "run_clustering",
]

#: scores every clustering run reports
METRICS = ("f_score", "acc", "nmi", "ari", "f_hungarian", "f_best_match", "f_pairwise")


def _kmeans(Z: np.ndarray, k: int, seed: int, init: str) -> np.ndarray:
    return kmeans_labels(Z, k, seed, init=init)


def _spectral(Z: np.ndarray, k: int, seed: int, init: str) -> np.ndarray:
    return gaussian_spectral_labels(Z, k, seed, init=init)


#: clusterers of an embedding: name -> ``func(Z, k, seed, init) -> labels``
CLUSTERERS: dict[str, Callable[[np.ndarray, int, int, str], np.ndarray]] = {
    "kmeans": _kmeans,
    "spectral": _spectral,
}


@dataclass
class MethodSpec:
    """One column of an evaluation: a registered method, its clusterer and parameters."""

    method: str
    clusterer: str | None = None
    params: dict = field(default_factory=dict)
    label: str | None = None

    @property
    def name(self) -> str:
        return self.label or self.method


@dataclass
class MethodResult:
    """The runs of one method on one data set."""

    method: str
    label: str
    clusterer: str
    runs: list[dict[str, float]] = field(default_factory=list)
    fit_seconds: float = float("nan")
    transform_seconds: float = float("nan")
    cluster_seconds: float = float("nan")
    n_fits: int = 0
    n_dims: int | None = None
    status: str = "ok"
    message: str = ""
    #: runs whose method fell back to another partition (a ``FallbackWarning``; issue 53):
    #: ``{"runs": m, "of": n, "partition": ..., "reason": ...}``; ``status`` is then
    #: ``"fallback"`` and the scores are those of the partition returned
    fallback: dict[str, Any] | None = None
    #: the failure was a refusal of the input or the set-up (a ``CatEmbedError``, a method
    #: that is unavailable or of the wrong kind), not an unexpected exception
    refused: bool = False

    def failed(self, exc: BaseException) -> None:
        """Mark the method's runs as failed by ``exc``: a refusal (:class:`CatEmbedError`)
        keeps its own text, any other error is named by its type (a bug to report)."""
        self.status, self.refused = "error", isinstance(exc, CatEmbedError)
        self.message = str(exc) if self.refused else f"{type(exc).__name__}: {exc}"

    def mean(self, metric: str) -> float:
        vals = [r[metric] for r in self.runs]
        return float(np.mean(vals)) if vals else float("nan")

    def std(self, metric: str) -> float:
        vals = [r[metric] for r in self.runs]
        return float(np.std(vals, ddof=1)) if len(vals) > 1 else (0.0 if vals else float("nan"))

    def summary(self) -> dict[str, Any]:
        """The JSON-able summary: means and stds of every metric, times, status."""
        out: dict[str, Any] = {"method": self.method, "label": self.label,
                               "clusterer": self.clusterer, "status": self.status}
        if self.message:
            out["message"] = self.message
        if self.fallback:
            out["fallback"] = dict(self.fallback)
        for m in METRICS:
            if self.runs and m not in self.runs[0]:
                continue  # a task that does not report this score (classify: no F variants)
            out[f"{m}_mean"] = _num(self.mean(m))
            out[f"{m}_std"] = _num(self.std(m))
        out.update(runs=len(self.runs), n_fits=self.n_fits, n_dims=self.n_dims,
                   fit_seconds=_num(self.fit_seconds),
                   transform_seconds=_num(self.transform_seconds),
                   cluster_seconds=_num(self.cluster_seconds))
        return out


def _num(x: float) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 6)


def _make(entry: EvalMethod, params: dict, seed: int) -> Any:
    target = entry.resolve()
    kwargs = {**entry.params, **params}
    if isinstance(target, type) and hasattr(target, "get_params"):
        est = target(**kwargs)
        own = est.get_params()
        updates = {k: v for k, v in (("random_state", seed), ("categorical_features", "all"))
                   if k in own}
        return est.set_params(**updates)
    return target(random_state=seed, **kwargs)


def _embed(entry: EvalMethod, params: dict, X: pd.DataFrame, seed: int
           ) -> tuple[np.ndarray, float, float]:
    est = _make(entry, params, seed)
    t0 = time.perf_counter()
    est.fit(X)
    t1 = time.perf_counter()
    Z = est.transform(X)
    t2 = time.perf_counter()
    Z = np.asarray(Z.to_numpy() if hasattr(Z, "to_numpy") else Z, dtype=np.float64)
    return Z, t1 - t0, t2 - t1


def _one_run(entry: EvalMethod, spec: MethodSpec, clusterer: str, X: pd.DataFrame,
             y: np.ndarray, k: int, seed: int, init: str, fixed: np.ndarray | None,
             f_definition: str = "hungarian") -> dict[str, Any]:
    """One run: (refit,) cluster, score. Returns scores and times."""
    fit_s = tr_s = float("nan")
    dims = None
    fell: list[dict[str, str]] = []
    t0 = time.perf_counter()
    if entry.kind == "embedding":
        if fixed is None:
            Z, fit_s, tr_s = _embed(entry, spec.params, X, seed)
        else:
            Z = fixed
        dims = Z.shape[1]
        t0 = time.perf_counter()
        labels = CLUSTERERS[clusterer](Z, k, seed, init)
    elif entry.kind == "affinity":
        if fixed is None:
            t = time.perf_counter()
            W = entry.resolve()(X, random_state=seed, **{**entry.params, **spec.params})
            fit_s = time.perf_counter() - t
        else:
            W = fixed
        t0 = time.perf_counter()
        labels = spectral_labels(W, k, seed, init=init)
    else:
        t = time.perf_counter()
        # a labels method that runs k-means itself gets the protocol's seeding (--init)
        seeding = {"init": init} if entry.takes_init else {}
        with _fallbacks() as fell:
            labels = entry.resolve()(X, k, random_state=seed,
                                     **{**seeding, **entry.params, **spec.params})
        fit_s = time.perf_counter() - t
        t0 = time.perf_counter()
    cluster_s = time.perf_counter() - t0
    scores = clustering_scores(y, np.asarray(labels), f_definition)
    return {"seed": seed, **scores, "_fit": fit_s, "_transform": tr_s, "_cluster": cluster_s,
            "_dims": dims, "_fallback": fell[0] if fell else None}


def _one_run_away(spelling: str | None, *args: Any) -> tuple[dict[str, Any], list[tuple]]:
    """:func:`_one_run` in a worker process (``--jobs``): under the command line's spelling
    of the options when the parent runs a command (a context variable does not cross to
    the worker), its warnings recorded and returned, not printed by the worker."""
    with warnings.catch_warnings(record=True) as caught, cli_spelling(spelling):
        warnings.simplefilter("always")
        out = _one_run(*args)
    # as text and class: a warning object whose class needs more arguments than its text
    # would not unpickle in the parent
    return out, [(str(w.message), w.category, w.filename, w.lineno) for w in caught]


@contextmanager
def _fallbacks() -> Iterator[list[dict[str, str]]]:
    """Record the :class:`~catembed._utils._errors.FallbackWarning` of a method's run (the
    partition it returned instead of its own, and why) and pass every warning on."""
    found: list[dict[str, str]] = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield found
    for w in caught:
        if isinstance(w.message, FallbackWarning):
            found.append({"partition": w.message.partition, "reason": w.message.reason})
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def run_clustering(
    X: pd.DataFrame,
    y: Any,
    methods: Sequence[str | MethodSpec],
    *,
    runs: int = 50,
    seed: int = 0,
    clusterer: str | None = None,
    init: str = "matlab",
    n_clusters: int | None = None,
    n_jobs: int | None = None,
    refit: str = "auto",
    f_score: str = "hungarian",
) -> list[MethodResult]:
    """Run the clustering protocol for several methods on one table.

    Parameters
    ----------
    X : DataFrame
        The categorical table (features only; prepared by a preset).
    y : array-like of shape (n,)
        The classes; ``k`` = their number unless ``n_clusters`` is given.
    methods : list of str or MethodSpec
        Registered method names (:func:`catembed.evaluation.methods.method_names`) or specs
        with a clusterer, parameters and a label.
    runs : int, default=50
        Runs with seeds ``seed, seed + 1, ..., seed + runs - 1``.
    seed : int, default=0
    clusterer : str, optional
        Overrides every method's clusterer (``"kmeans"`` or ``"spectral"``); default: the
        spec's, else the method's, else k-means.
    init : {"matlab", "sklearn"}, default="matlab"
        k-means seeding (:func:`catembed.cluster.embedding_labels.kmeans_labels`).
    n_clusters : int, optional
    n_jobs : int, optional
        Runs in parallel with joblib; results do not depend on it.
    refit : {"auto", "once", "always"}, default="auto"
        ``"auto"``: random methods are refit in every run with the run's seed, deterministic
        ones fitted once; ``"once"``: every method fitted once (with ``seed``) and only the
        clustering repeated (one reading of CDE section 5.2, "50 validations of clustering
        with distinct starting points"); ``"always"``: every method refit in every run.
    f_score : {"hungarian", "best-match", "pairwise"}, default="hungarian"
        The definition of the runs' ``f_score`` (:func:`catembed.metrics.f_score`); each
        definition is reported too, as ``f_hungarian``, ``f_best_match``, ``f_pairwise``.

    Returns
    -------
    list of MethodResult
        One per method, in order; a method that cannot be imported yet has status
        ``"unavailable"``, one that failed has status ``"error"`` and the message.
    """
    check_option("init", init, INITS)
    check_option("refit", refit, ("auto", "once", "always"))
    check_int("runs", runs)
    check_option("f_score", f_score, tuple(F_SCORES))
    if clusterer is not None:
        check_option("clusterer", clusterer, tuple(CLUSTERERS))
    y = np.asarray(y, dtype=object)
    if len(y) != len(X):
        raise CatEmbedError(f"the target has {len(y)} entries but the table {len(X)} rows.")
    if pd.isna(pd.Series(y)).any():
        raise CatEmbedError("the target column has missing values; drop those rows first.")
    k = int(n_clusters) if n_clusters is not None else len(np.unique(y.astype(str)))
    if k < 2:
        raise CatEmbedError("the target has fewer than two classes; nothing to cluster.")
    seeds = [int(seed) + r for r in range(int(runs))]
    results = []
    for m in methods:
        spec = m if isinstance(m, MethodSpec) else MethodSpec(str(m))
        entry = get_method(spec.method)
        if entry.kind == "embedding":
            clus = clusterer or spec.clusterer or entry.clusterer or "kmeans"
            check_option("clusterer", clus, tuple(CLUSTERERS))
        else:  # an affinity is always clustered spectrally; a labels method clusters itself
            clus = "spectral" if entry.kind == "affinity" else entry.name
        res = MethodResult(spec.method, spec.name, clus)
        try:
            entry.resolve()
        except MethodUnavailable as exc:
            res.status, res.message, res.refused = "unavailable", str(exc), True
            results.append(res)
            continue
        try:
            refit_each = entry.random if refit == "auto" else refit == "always"
            _run_method(res, entry, spec, clus, X, y, k, seeds, init, n_jobs, refit_each,
                        f_score)
        except Exception as exc:  # noqa: BLE001 - one failing method must not end a table
            res.failed(exc)
        results.append(res)
    return results


def _run_method(res: MethodResult, entry: EvalMethod, spec: MethodSpec, clus: str,
                X: pd.DataFrame, y: np.ndarray, k: int, seeds: list[int], init: str,
                n_jobs: int | None, refit_each: bool, f_definition: str = "hungarian"
                ) -> None:
    fixed = None
    fit_times, tr_times = [], []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if not refit_each:
            if entry.kind == "embedding":
                fixed, f, t = _embed(entry, spec.params, X, seeds[0])
                fit_times.append(f)
                tr_times.append(t)
            elif entry.kind == "affinity":
                t0 = time.perf_counter()
                fixed = entry.resolve()(X, random_state=seeds[0],
                                        **{**entry.params, **spec.params})
                fit_times.append(time.perf_counter() - t0)
        args = (entry, spec, clus, X, y, k)
        if n_jobs is not None and n_jobs != 1 and len(seeds) > 1:
            from joblib import Parallel, delayed

            spelling = current_spelling()
            done = Parallel(n_jobs=n_jobs)(
                delayed(_one_run_away)(spelling, *args, s, init, fixed, f_definition)
                for s in seeds
            )
            out = [r for r, _ in done]
            for _, said in done:  # the workers' warnings, said here as in one process
                for text, category, filename, lineno in said:
                    try:
                        warnings.warn_explicit(text, category, filename, lineno)
                    except TypeError:  # a class that cannot be made from its text alone
                        warnings.warn_explicit(text, UserWarning, filename, lineno)
        else:
            out = [_one_run(*args, s, init, fixed, f_definition) for s in seeds]
    _reemit_once(caught)
    for r in out:
        if np.isfinite(r["_fit"]):
            fit_times.append(r["_fit"])
        if np.isfinite(r["_transform"]):
            tr_times.append(r["_transform"])
    res.runs = [{k_: v for k_, v in r.items() if not k_.startswith("_")} for r in out]
    fell = [r["_fallback"] for r in out if r.get("_fallback")]
    if fell:  # the scores are another partition's: said in the status (issue 53)
        res.status = "fallback"
        res.fallback = {"runs": len(fell), "of": len(out), "partition": fell[0]["partition"],
                        "reason": fell[0]["reason"]}
    res.n_fits = len(fit_times)
    res.fit_seconds = float(np.mean(fit_times)) if fit_times else float("nan")
    res.transform_seconds = float(np.mean(tr_times)) if tr_times else float("nan")
    res.cluster_seconds = float(np.mean([r["_cluster"] for r in out]))
    res.n_dims = out[0]["_dims"] if out else None


def _reemit_once(caught: list[warnings.WarningMessage]) -> None:
    """Re-issue each distinct warning of the runs once, not once per run."""
    seen = set()
    for w in caught:
        key = (w.category, str(w.message))
        if key in seen or issubclass(w.category, (DeprecationWarning, PendingDeprecationWarning)):
            continue
        seen.add(key)
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


#: task runners: name -> ``runner(X, y, methods, **options) -> list[MethodResult]``
TASKS: dict[str, Callable[..., list[MethodResult]]] = {"cluster": run_clustering}
