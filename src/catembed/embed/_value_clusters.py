"""CDE++'s hybrid value clustering: DBSCAN and hierarchical clustering at several granularities.

The values are clustered on CDE's value influence matrices ``M_o`` and ``M_c`` by
agglomerative clustering with CDE's stop rule and by DBSCAN whose radius is read off the
k-distance graph by a knee detector (CDE++ paper Sec. 3.4, Algorithm 1; method spec
section 2: Ward linkage, the knee detector). The indicator matrices, concatenated, are the
input ``C`` of the autoencoder (:class:`~catembed.embed.cdepp.CDEPlusPlus`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.cluster.hierarchy import cut_tree
from scipy.cluster.hierarchy import linkage as scipy_linkage
from sklearn.cluster import DBSCAN
from sklearn.metrics import pairwise_distances

from .._utils._params import check_option
from .cde import GranularityStep, multi_granularity_clustering

__all__ = [
    "HybridClusters",
    "dbscan_sweep",
    "hierarchical_sweep",
    "hybrid_value_clusters",
    "k_distance_eps",
    "knee_point",
]

LINKAGES = ("ward", "complete", "average", "single", "weighted")
VALUE_CLUSTERINGS = ("hybrid", "dbscan", "hc")


# --------------------------------------------------------------------------- knee detector
def knee_point(curve: Any) -> int:
    """Index of the knee of a k-distance graph: the point farthest from its chord.

    The curve (sorted descending, as in Ester et al. 1996, the DBSCAN paper CDE++ cites for
    its parameter choice) is scaled to the unit square; the knee is the first point whose
    distance to the straight line through the first and last points is largest, i.e. the
    point of maximum curvature, the "first valley" of CDE++ Sec. 3.4 (method spec 2).

    Parameters
    ----------
    curve : array-like of shape (n,)

    Returns
    -------
    int
        The knee's index; 0 for a flat curve or fewer than three points.
    """
    y = np.asarray(curve, dtype=np.float64).ravel()
    n = len(y)
    if n < 3:
        return 0
    span = y.max() - y.min()
    if not span > 0:
        return 0
    x = np.linspace(0.0, 1.0, n)
    yn = (y - y.min()) / span
    chord = yn[0] + (yn[-1] - yn[0]) * x
    return int(np.argmax(np.abs(chord - yn)))


def k_distance_eps(sorted_distances: np.ndarray, k: int) -> float:
    """DBSCAN's ``eps`` for ``MinPts = k``: the k-distance at the knee of the sorted graph.

    ``sorted_distances`` holds each row's distances to all rows in ascending order (column 0
    is the row itself), so column ``k`` is the distance to the k-th nearest neighbour.
    """
    kdist = np.sort(sorted_distances[:, k])[::-1]
    return float(kdist[knee_point(kdist)])


# --------------------------------------------------------------------------- value clustering
def hierarchical_sweep(
    M: np.ndarray, epsilon: float = 8, linkage: str = "ward"
) -> tuple[np.ndarray, list[GranularityStep]]:
    """Agglomerative value clusters of the rows of ``M`` for ``k = 2, 3, ...`` (CDE++ Alg. 1).

    One tree (:func:`scipy.cluster.hierarchy.linkage`, ``linkage`` on Euclidean rows) cut
    into ``k`` clusters for each ``k``; single-value clusters dropped; CDE's stop rule with
    ``epsilon`` in the place of ``alpha`` (:func:`~catembed.embed.cde.
    multi_granularity_clustering`).
    """
    check_option("linkage", linkage, LINKAGES)
    n = M.shape[0]
    if n < 3:
        return np.zeros((n, 0)), []
    Z = scipy_linkage(M, method=linkage, metric="euclidean")
    cache: dict[int, np.ndarray] = {}

    def cut(k: int) -> np.ndarray:
        if k not in cache:
            ks = list(range(k, min(k + 32, n) + 1))
            cuts = cut_tree(Z, n_clusters=ks)
            cache.update({kk: cuts[:, i] for i, kk in enumerate(ks)})
        return cache.pop(k)

    return multi_granularity_clustering(M, cut, epsilon, param_name="epsilon")


def dbscan_sweep(
    M: np.ndarray, k_values: list[int], *, distances: np.ndarray | None = None
) -> tuple[np.ndarray, list[GranularityStep], dict[int, float]]:
    """DBSCAN value clusters of the rows of ``M``, ``MinPts = k`` for each ``k`` given.

    ``eps`` is the knee of the sorted k-distance graph (:func:`k_distance_eps`); noise points
    belong to no cluster; clusters of one value (or holding all values but one) are dropped.
    scikit-learn's ``min_samples`` counts the point itself, as Ester et al.'s ``MinPts`` does.

    Returns
    -------
    indicator : ndarray of shape (l, q)
    steps : list of GranularityStep
    eps : dict
        The radius used at each ``k``.
    """
    n = M.shape[0]
    ks = [int(k) for k in k_values if 1 <= k < n]
    if not ks:
        return np.zeros((n, 0)), [], {}
    D = pairwise_distances(M) if distances is None else distances
    D = np.maximum(D, D.T)
    np.fill_diagonal(D, 0.0)
    Ds = np.sort(D, axis=1)
    tiny = np.finfo(np.float64).eps * max(float(Ds[:, -1].max()), 1.0)
    eps: dict[int, float] = {}

    def run(k: int) -> np.ndarray:
        eps[k] = max(k_distance_eps(Ds, k), tiny)
        return DBSCAN(eps=eps[k], min_samples=k, metric="precomputed").fit(D).labels_

    indicator, steps = multi_granularity_clustering(M, run, 1.0, k_values=ks)
    return indicator, steps, eps


@dataclass
class HybridClusters:
    """The value-cluster indicator matrix ``C`` of CDE++ and how it was built.

    Attributes
    ----------
    indicator : ndarray of shape (l, vc)
        Distinct cluster indicator columns, in the order ``M_o``/DBSCAN, ``M_o``/HC,
        ``M_c``/DBSCAN, ``M_c``/HC (paper Algorithm 1).
    names : list of str
        ``{M}_{method}_k{k}_{i}`` for every column.
    steps : dict
        ``"M_o/dbscan"`` etc. -> list of :class:`~catembed.embed.cde.GranularityStep`.
    eps : dict
        ``"M_o"``/``"M_c"`` -> the DBSCAN radius at each ``k``.
    n_duplicates : int
        Columns removed because an earlier column was identical.
    """

    indicator: np.ndarray
    names: list[str]
    steps: dict[str, list[GranularityStep]] = field(default_factory=dict)
    eps: dict[str, dict[int, float]] = field(default_factory=dict)
    n_duplicates: int = 0


def hybrid_value_clusters(
    matrices: dict[str, np.ndarray],
    *,
    epsilon: float = 8,
    linkage: str = "ward",
    methods: tuple[str, ...] = ("dbscan", "hc"),
) -> HybridClusters:
    """CDE++'s hybrid value clustering (Sec. 3.4, Algorithm 1 steps 3-12; spec 2).

    For each matrix (``{"M_o": M_o, "M_c": M_c}``): agglomerative clustering over
    ``k = 2, 3, ...`` with the ``epsilon`` stop rule (:func:`hierarchical_sweep`), and DBSCAN
    with ``MinPts = k`` over the same ``k`` (:func:`dbscan_sweep`). The indicator matrices are
    concatenated and identical columns kept once. With ``methods=("dbscan",)`` the sweep's
    ``k`` still come from the hierarchical stop rule (the paper ties DBSCAN's ``k`` to HC's).
    """
    for m in methods:
        check_option("methods", m, ("dbscan", "hc"))
    blocks: list[np.ndarray] = []
    names: list[str] = []
    steps: dict[str, list[GranularityStep]] = {}
    eps: dict[str, dict[int, float]] = {}
    for key, M in matrices.items():
        ind_h, steps_h = hierarchical_sweep(M, epsilon, linkage)
        ks = [s.k for s in steps_h]
        if "dbscan" in methods:
            ind_d, steps_d, eps_d = dbscan_sweep(M, ks)
            blocks.append(ind_d)
            names += _names(f"{key}_dbscan", steps_d)
            steps[f"{key}/dbscan"] = steps_d
            eps[key] = eps_d
        if "hc" in methods:
            blocks.append(ind_h)
            names += _names(f"{key}_hc", steps_h)
            steps[f"{key}/hc"] = steps_h
    n = next(iter(matrices.values())).shape[0]
    C = np.hstack(blocks) if blocks else np.zeros((n, 0))
    keep = _first_distinct_columns(C)
    return HybridClusters(
        C[:, keep], [names[i] for i in keep], steps, eps, int(C.shape[1] - len(keep))
    )


def _first_distinct_columns(C: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct 0/1 column of ``C``, in order."""
    packed = np.ascontiguousarray(np.packbits(C.astype(bool), axis=0).T)
    first: dict[bytes, int] = {}
    for i, col in enumerate(packed):
        first.setdefault(col.tobytes(), i)
    return np.fromiter(first.values(), dtype=np.intp, count=len(first))


def _names(prefix: str, steps: list[GranularityStep]) -> list[str]:
    return [f"{prefix}_k{s.k}_{i}" for s in steps for i in range(s.n_kept)]
