"""CDE's granularity sweep: value clusters at ``k = 2, 3, ...`` (CDE Algorithm 1, spec 1.3).

:func:`multi_granularity_clustering` is the sweep with the clusterer left open (CDE, CDE++,
the value-cluster variants); :func:`matlab_kmeans` the k-means the authors' code runs.

Large value sets (issue 40): on a table whose values are mostly noise (each column a few
values tied to the hidden groups, the rest drawn at random) the rows of ``M_c`` are nearly
alike, k-means has to cut them into about ``l / 9`` clusters before singletons stop the
sweep, and the sweep costs ``O(l^3)`` (``l`` granularities of ``O(l^2)`` each), the
indicator ``O(l^2)`` columns and its PCA ``O(l^3)``. Above :data:`LARGE_VALUE_SET` values
CDE therefore runs :func:`sketched_granularity_kmeans`: the sweep stops at
:data:`MAX_CLUSTERS` clusters at the latest, and the k-means runs on a Gaussian random
projection of the rows to :data:`SKETCH_DIM` dimensions (distances kept up to a small
relative error), ``O(l^2 d)`` for the projection and ``O(K^2 l d)`` for the sweep
whatever the data.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._utils._validation import CatEmbedError

__all__ = [
    "GranularityStep",
    "LARGE_VALUE_SET",
    "MAX_CLUSTERS",
    "MAX_COMPONENTS",
    "SKETCH_DIM",
    "matlab_kmeans",
    "multi_granularity_clustering",
    "sketched_granularity_kmeans",
]

#: CDE fits more values than this with the bounded path (sketched k-means, capped sweep,
#: truncated PCA); up to it, the exact algorithm of the authors' code
LARGE_VALUE_SET = 1024
#: largest ``k`` of the sketched sweep
MAX_CLUSTERS = 64
#: dimensions of the random projection the sketched k-means runs on
SKETCH_DIM = 64
#: principal components kept by the bounded path's PCA
MAX_COMPONENTS = 128


def matlab_kmeans(
    X: np.ndarray,
    n_clusters: int,
    random_state: Any = None,
    max_iter: int = 100,
    return_n_iter: bool = False,
) -> np.ndarray | tuple[np.ndarray, int]:
    """k-means as MATLAB's ``kmeans`` runs it by default; returns the labels.

    k-means++ seeding with one candidate per step (scikit-learn's default tries
    ``2 + log k`` candidates and keeps the best, which gives different single-run results),
    one start, at most ``max_iter`` Lloyd iterations. With ``return_n_iter=True`` the number
    of Lloyd iterations run is returned as well.
    """
    from sklearn.cluster import KMeans, kmeans_plusplus  # here: loading a model needs neither

    rs = check_random_state(random_state)
    centers, _ = kmeans_plusplus(X, n_clusters, random_state=rs, n_local_trials=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = KMeans(n_clusters, init=centers, n_init=1, max_iter=max_iter, random_state=rs)
        km.fit(X)
    return (km.labels_, int(km.n_iter_)) if return_n_iter else km.labels_


@dataclass
class GranularityStep:
    """What one ``k`` of the multi-granularity clustering kept."""

    k: int
    n_nonempty: int
    n_dropped: int
    n_kept: int
    n_iter: int = 0


def multi_granularity_clustering(
    M: np.ndarray,
    cluster: Callable[[int], np.ndarray | tuple[np.ndarray, int]],
    alpha: float = 10,
    *,
    k_values: Iterable[int] | None = None,
    param_name: str = "alpha",
    sparse_output: bool = False,
    n_distinct: int | None = None,
    max_k: int | None = None,
) -> tuple[np.ndarray, list[GranularityStep]]:
    """Value clusters of the rows of ``M`` at increasing ``k`` with any clusterer.

    The loop of CDE Algorithm 1 (spec 1.3) with the clusterer left open: ``cluster(k)``
    returns the labels of the rows of ``M`` at granularity ``k`` (``-1`` marks noise, which
    belongs to no cluster), or ``(labels, n_iter)``. For ``k = 2, 3, ...``: one indicator
    column per non-empty cluster; a column is dropped when its cluster, or its complement, has
    at most one member; the surviving columns are appended. The sweep stops after the first
    ``k`` at which the number of dropped columns exceeds ``ceil(#non-empty clusters / alpha)``
    (its survivors are kept), or when ``k`` reaches the number of distinct rows of ``M``.
    With ``k_values`` the clusterer runs at exactly those ``k`` and the stop rule is not used.

    ``n_distinct``, when known, is the number of distinct rows of ``M``; ``max_k``, when
    given, ends the sweep after that ``k`` as well.
    With ``sparse_output=True`` the indicator is a scipy CSR matrix (``l`` times the number
    of granularities stored entries, where the dense matrix has ``l q``).

    Returns
    -------
    indicator : ndarray or CSR matrix of shape (l, q), float
    steps : list of GranularityStep
    """
    if alpha <= 0:
        raise CatEmbedError(f"{param_name} must be positive; got {alpha!r}.")
    n = M.shape[0]
    if k_values is None:
        k_max = len(np.unique(M, axis=0)) if n_distinct is None else n_distinct
        if max_k is not None:
            k_max = min(k_max, max_k)
        ks: Iterable[int] = itertools.count(2)
    else:
        k_max = None
        ks = k_values
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    n_cols = 0
    steps: list[GranularityStep] = []
    for k in ks:
        if k_max is not None and k > k_max:
            break
        out = cluster(k)
        labels, n_iter = out if isinstance(out, tuple) else (out, 0)
        labels = np.asarray(labels)
        member = labels >= 0
        present, codes = np.unique(labels[member], return_inverse=True)
        sizes = np.bincount(codes, minlength=len(present))
        dropped = (sizes <= 1) | (n - sizes <= 1)
        column = np.cumsum(~dropped) - 1 + n_cols  # column of each kept cluster
        keep = ~dropped[codes]
        rows.append(np.flatnonzero(member)[keep])
        cols.append(column[codes[keep]])
        n_cols += int((~dropped).sum())
        steps.append(
            GranularityStep(k, len(present), int(dropped.sum()), int((~dropped).sum()), n_iter)
        )
        if k_max is not None and dropped.sum() > math.ceil(len(present) / alpha):
            break
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.intp)
    c = np.concatenate(cols) if cols else np.zeros(0, dtype=np.intp)
    indicator = sparse.csr_matrix((np.ones(len(r)), (r, c)), shape=(n, n_cols))
    return (indicator if sparse_output else indicator.toarray()), steps



def sketched_granularity_kmeans(
    M: np.ndarray,
    alpha: float = 10,
    random_state: Any = None,
    max_iter: int = 100,
    *,
    max_k: int = MAX_CLUSTERS,
    dim: int = SKETCH_DIM,
) -> tuple[sparse.csr_matrix, list[GranularityStep]]:
    """The granularity sweep of CDE for large value sets, its cost bounded by ``l``.

    As :func:`multi_granularity_clustering` with :func:`matlab_kmeans` (the sweep and its
    ``alpha`` stop rule unchanged), except that the sweep ends after
    ``k = max_k`` at the latest and the k-means runs on ``M R``, ``R`` an ``l x dim``
    Gaussian matrix scaled by ``1 / sqrt(dim)`` drawn from ``random_state`` (a squared
    distance between rows keeps its expectation, relative standard error ``sqrt(2 / dim)``).
    The k-means++ seeding is :func:`matlab_kmeans`'s (the same draws, distances to a
    candidate from the rows' norms: no per-step validation). With ``dim`` at least the
    number of columns of ``M`` nothing is drawn for the projection and the result is that
    of :func:`multi_granularity_clustering` with :func:`matlab_kmeans` on ``M`` itself, up
    to the cap and to rounding.

    Returns
    -------
    indicator : CSR matrix of shape (l, q), float
    steps : list of GranularityStep
    """
    rs = check_random_state(random_state)
    M = np.asarray(M, dtype=np.float64)
    if dim < M.shape[1]:
        Z = M @ (rs.standard_normal((M.shape[1], dim)) / math.sqrt(dim))
    else:
        Z = M
    # distinct rows of M have distinct projections (with probability 1)
    n_distinct = len(np.unique(Z, axis=0))

    sq = np.einsum("ij,ij->i", Z, Z)

    def kmeans(k: int) -> tuple[np.ndarray, int]:
        from sklearn.cluster import KMeans

        krs = check_random_state(rs.randint(np.iinfo(np.int32).max))
        centers = Z[_plusplus_seeds(Z, sq, k, krs)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            km = KMeans(k, init=centers, n_init=1, max_iter=max_iter, random_state=krs).fit(Z)
        return km.labels_, int(km.n_iter_)

    return multi_granularity_clustering(
        Z, kmeans, alpha, sparse_output=True, n_distinct=n_distinct, max_k=max_k
    )


def _plusplus_seeds(
    Z: np.ndarray, sq: np.ndarray, n_clusters: int, random_state: np.random.RandomState
) -> np.ndarray:
    """Row indices of k-means++ seeds with one candidate per step, drawn as
    ``sklearn.cluster.kmeans_plusplus(..., n_local_trials=1)`` draws them (as
    ``GramKMeans.seed``); ``sq`` the squared row norms."""
    n = Z.shape[0]
    first = random_state.choice(n, p=np.full(n, 1.0 / n))
    indices = np.empty(n_clusters, dtype=np.intp)
    indices[0] = first
    closest = np.maximum(sq + sq[first] - 2.0 * (Z @ Z[first]), 0.0)
    pot = closest.sum()
    for c in range(1, n_clusters):
        rand_val = random_state.uniform(size=1) * pot
        cand = min(int(np.searchsorted(np.cumsum(closest), rand_val)[0]), n - 1)
        np.minimum(closest, np.maximum(sq + sq[cand] - 2.0 * (Z @ Z[cand]), 0.0), out=closest)
        pot = closest.sum()
        indices[c] = cand
    return indices
