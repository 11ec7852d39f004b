"""Value distance tables of the similarity baselines (method spec, section 4).

Every measure here is a function of the shared statistics
(:class:`~catembed.stats.ValueStatistics`): the value counts and the co-occurrence counts.
Each returns one ``l_j x l_j`` table per attribute; the distance between two objects combines
their per-attribute table entries (a sum, or for DILCA the Euclidean norm), so nothing here
depends on the number of rows.

Conditional distributions: ``P[u, v] = p(v | u) = cnt(u, v) / cnt(u)``
(:meth:`ValueStatistics.conditional`). For one value ``x`` of attribute ``j`` and another
attribute ``k`` the row block ``P[x, V_k]`` is the distribution of ``k`` among the objects
holding ``x``; it sums to 1 (missing values counted as a value of their own).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.spatial.distance import cdist

from .._utils._params import check_nonnegative, check_option
from .._utils._validation import CatEmbedWarning, warn_at_caller
from ..stats._value_statistics import ValueStatistics, require_statistics

__all__ = [
    "METRICS",
    "ValueTables",
    "ahmad_tables",
    "cos_similarity_tables",
    "cos_tables",
    "dilca_context",
    "dilca_tables",
    "dm_tables",
    "hamming_tables",
    "rough_cluster_tables",
    "rough_tables",
    "value_tables",
]

#: metric name -> how per-attribute entries combine into an object distance
METRICS = {
    "hamming": "sum",
    "ahmad": "sum",
    "algo": "sum",
    "dilca": "euclidean",
    "cos": "sum",
    "dm": "sum",
    "rough": "sum",
    "rough-cluster": "sum",
}


@dataclass(frozen=True)
class ValueTables:
    """The value distance tables of one measure.

    Attributes
    ----------
    metric : str
        The measure's name.
    tables : list of ndarray
        ``tables[j][x, y]``: distance between values ``x`` and ``y`` of attribute ``j``.
    combine : {"sum", "euclidean"}
        Object distance ``sum_j tables[j][x_j, y_j]`` or ``sqrt(sum_j tables[j][x_j, y_j]^2)``.
    """

    metric: str
    tables: list[np.ndarray]
    combine: str

    @property
    def power(self) -> int:
        """Exponent applied to the entries before summing (1 for sum, 2 for euclidean)."""
        return 2 if self.combine == "euclidean" else 1


def _blocks(stats: ValueStatistics) -> list[slice]:
    offs = stats.offsets
    return [slice(int(offs[j]), int(offs[j + 1])) for j in range(stats.n_features)]


def _others(stats: ValueStatistics, j: int) -> np.ndarray:
    """Global ids of the values of every attribute but ``j``."""
    att = stats.attribute_of
    return np.flatnonzero(att != j)


def hamming_tables(stats: ValueStatistics) -> list[np.ndarray]:
    """Overlap (Hamming) distance: 0 for equal values, 1 otherwise."""
    return [1.0 - np.eye(int(s)) for s in stats.sizes]


def rough_tables(stats: ValueStatistics) -> list[np.ndarray]:
    """Cao et al.'s (2012) rough-membership dissimilarity between two objects' values.

    Cao, Liang, Li, Bai, Dang, *A dissimilarity measure for the k-Modes clustering
    algorithm*, Knowledge-Based Systems 26 (2012) 120-127. Their measure compares an object
    ``x`` with a set of objects ``C`` attribute by attribute: a mismatch costs 1, a match
    costs ``1 - |[x]_a cap C| / |[x]_a|``, one minus the rough membership of ``x`` in ``C``
    through the equivalence class ``[x]_a`` of the objects sharing ``x``'s value on ``a``
    (rough membership function of Pawlak; ``|[x]_a| = cnt(x_a)``, so the measure takes the
    distribution of the value on the whole universe into account). Between two objects
    (``C = {y}``) a match costs ``1 - 1/cnt(v)``: the value table returned here is

    ``d_j(u, v) = 1`` for ``u != v`` and ``d_j(v, v) = 1 - 1 / cnt(v)``.

    This is the value-pair form of the measure used by the "Rough" baseline of the CDE and
    UNTIE papers (k-modes with these tables; a public MATLAB implementation of that baseline,
    ``roughDistance.m``, computes the same tables). A rare value matched costs little, a
    frequent one almost as much as a mismatch. The mode of a cluster is then the value with
    the largest share ``h_v / cnt(v)`` of its occurrences inside the cluster (the value that
    minimises the summed distances). The cluster-dependent form (``C`` the whole cluster,
    recomputed every iteration) is ``metric="rough-cluster"`` of
    :class:`catembed.cluster.KModes`; it lets a large cluster absorb the table (a match
    there costs almost 0) and is kept for comparison only.
    """
    out = []
    for blk in _blocks(stats):
        cnt = stats.counts[blk].astype(np.float64)
        t = np.ones((len(cnt), len(cnt)))
        np.fill_diagonal(t, 1.0 - 1.0 / np.maximum(cnt, 1.0))
        out.append(t)
    return out


def rough_cluster_tables(stats: ValueStatistics) -> list[np.ndarray]:
    """The first-assignment tables of the cluster-dependent Cao et al. (2012) measure.

    Before any cluster exists the measure has no membership to use, so the first assignment
    is by Hamming; :class:`catembed.cluster.KModes` (``metric="rough-cluster"``) then costs a
    match ``1 - |[x]_a cap C_l| / |[x]_a|`` from the current clusters.
    """
    return hamming_tables(stats)


def ahmad_tables(stats: ValueStatistics) -> list[np.ndarray]:
    """Ahmad & Dey (2007) value distance (ALGO), method spec section 4.

    ``d_j(x, y) = 1/(m-1) sum_{k != j} (sum_{u in V_k} max(p(u|x), p(u|y)) - 1)``.

    Because ``p(.|x)`` sums to 1 over each ``V_k``, ``sum_u max(a_u, b_u) - 1`` is half the
    L1 distance of the two distributions (their total variation distance); each table is
    therefore ``cdist(P_j, P_j, "cityblock") / (2 (m - 1))`` with ``P_j`` the conditional rows
    of attribute ``j``'s values restricted to the other attributes. A table with one attribute
    has no other attribute to compare on: its distances are 0.
    """
    m = stats.n_features
    if m < 2:
        return [np.zeros((int(s), int(s))) for s in stats.sizes]
    cond = stats.conditional()
    out = []
    for j, blk in enumerate(_blocks(stats)):
        rows = cond[blk][:, _others(stats, j)]
        out.append(cdist(rows, rows, "cityblock") / (2.0 * (m - 1)))
    return out


def cos_similarity_tables(stats: ValueStatistics) -> list[np.ndarray]:
    """Coupled object similarity (COS, Wang, Dong, Cao et al. 2015) value similarities.

    Method spec section 4: intra-coupled similarity
    ``cnt(x) cnt(y) / (cnt(x) + cnt(y) + cnt(x) cnt(y))``, inter-coupled similarity
    ``1/(m-1) sum_{k != j} sum_u min(p(u|x), p(u|y))``, value similarity = intra * inter.
    The inter term equals ``1 - d_ALGO`` (``sum min = 1 - TV``). The diagonal is set to 1:
    the formula's own diagonal ``cnt/(2 + cnt)`` is below 1 and can be smaller than the
    similarity of two different values, which would make a value less like itself than
    like another (not said by the paper, chosen here).
    """
    cnt = stats.counts.astype(np.float64)
    ahmad = ahmad_tables(stats)
    out = []
    for blk, d in zip(_blocks(stats), ahmad, strict=True):
        c = cnt[blk]
        prod = np.outer(c, c)
        intra = prod / (c[:, None] + c[None, :] + prod)
        inter = 1.0 - d if stats.n_features > 1 else np.ones_like(d)
        s = intra * inter
        np.fill_diagonal(s, 1.0)
        out.append(s)
    return out


def cos_tables(stats: ValueStatistics) -> list[np.ndarray]:
    """COS as a distance: ``1 - s_j(x, y)`` (object distance ``m - object similarity``)."""
    return [1.0 - s for s in cos_similarity_tables(stats)]


def dilca_context(stats: ValueStatistics, sigma: float = 1.0) -> list[np.ndarray]:
    """DILCA_M context of each attribute (Ienco, Pensa, Meo 2012), method spec section 4.

    The context of ``j`` is every other attribute ``k`` with
    ``SU(j, k) >= sigma * mean_{k' != j} SU(j, k')`` (``SU`` the symmetric uncertainty,
    :meth:`ValueStatistics.normalized_mutual_information`).
    """
    su = stats.normalized_mutual_information()
    m = stats.n_features
    ctx = []
    for j in range(m):
        others = np.array([k for k in range(m) if k != j], dtype=np.int64)
        if others.size == 0:
            ctx.append(others)
            continue
        vals = su[j, others]
        ctx.append(others[vals >= sigma * vals.mean() - 1e-12])
    return ctx


def dilca_tables(stats: ValueStatistics, sigma: float = 1.0) -> list[np.ndarray]:
    """DILCA value distance with the DILCA_M context (Ienco et al. 2012, Eq. 3).

    ``d_j(x, y) = sqrt( sum_{k in ctx(j)} sum_{u in V_k} (p(x|u) - p(y|u))^2
    / sum_{k in ctx(j)} |V_k| )``, where ``p(x|u) = cnt(x, u)/cnt(u)``. Objects combine by
    the Euclidean norm of the per-attribute distances. An attribute without context (a
    one-attribute table) falls back to the Hamming distance.
    """
    cond = stats.conditional()  # cond[u, x] = p(x | u)
    offs = stats.offsets
    out = []
    for blk, ctx in zip(_blocks(stats), dilca_context(stats, sigma), strict=True):
        if ctx.size == 0:
            out.append(1.0 - np.eye(blk.stop - blk.start))
            continue
        cols = np.concatenate([np.arange(offs[k], offs[k + 1]) for k in ctx])
        rows = cond[cols, blk].T  # (l_j, sum |V_k|): p(x | u); only the block copied
        out.append(cdist(rows, rows, "euclidean") / np.sqrt(len(cols)))
    return out


def dm_tables(stats: ValueStatistics) -> list[np.ndarray]:
    """Jia, Cheung, Liu (2016) value distance of one attribute (their Eq. 4).

    ``D(x, y) = 0`` for ``x = y``, else ``p(x) p'(x) + p(y) p'(y)`` with
    ``p'(v) = (cnt(v) - 1)/(n - 1)``: the probability that two objects drawn without
    replacement both hold ``x``, plus the same for ``y``. The paper's full metric adds the
    values of interdependent attributes (pairs ``(x_r, x_l)`` for attributes ``l`` whose
    interdependence redundancy with ``r`` exceeds a threshold) and weights attributes
    dynamically by whether the two objects match; that depends on both objects' whole rows,
    not on a value pair, so it cannot be a value table. It is
    :func:`catembed.similarity.dm_distances`.
    """
    n = max(stats.n_rows, 2)
    cnt = stats.counts.astype(np.float64)
    pp = (cnt / n) * (np.maximum(cnt - 1.0, 0.0) / (n - 1))
    out = []
    for blk in _blocks(stats):
        q = pp[blk]
        t = q[:, None] + q[None, :]
        np.fill_diagonal(t, 0.0)
        out.append(t)
    return out


def value_tables(stats: ValueStatistics, metric: str = "hamming", *,
                 sigma: float = 1.0) -> ValueTables:
    """The value distance tables of ``metric`` from the shared statistics (one interface).

    Parameters
    ----------
    stats : ValueStatistics
    metric : {"hamming", "ahmad" (alias "algo"), "dilca", "cos", "dm", "rough", \
"rough-cluster"}
    sigma : float, default=1.0
        DILCA context threshold (``SU >= sigma * mean SU``).

    Returns
    -------
    ValueTables
    """
    require_statistics(stats, "value_tables")
    check_option("metric", metric, tuple(METRICS))
    check_nonnegative("sigma", sigma)  # as a model file's check: inf could not be saved
    fn = {
        "hamming": hamming_tables,
        "ahmad": ahmad_tables,
        "algo": ahmad_tables,
        "cos": cos_tables,
        "dm": dm_tables,
        "rough": rough_tables,
        "rough-cluster": rough_cluster_tables,
    }
    if metric == "dilca":
        tabs = dilca_tables(stats, sigma)
    else:
        tabs = fn[metric](stats)
    tabs = [np.asarray(t, dtype=np.float64) for t in tabs]
    _warn_degenerate(stats, metric, tabs)
    return ValueTables(metric, tabs, METRICS[metric])


def _warn_degenerate(stats: ValueStatistics, metric: str, tabs: list[np.ndarray]) -> None:
    """Warn when a table puts every two distinct values at distance 0 (the metric cannot
    tell them apart: with ``ahmad``/``algo`` on a single attribute there is no other attribute
    to compare on; with ``dm`` every value occurs once)."""
    flat = [stats.feature_names[j] for j, t in enumerate(tabs)
            if t.shape[0] > 1 and not np.any(t > 0)]
    if not flat:
        return
    if metric in ("ahmad", "algo") and stats.n_features < 2:
        why = f"metric={metric!r} compares values through the other attributes, and there is none"
    elif metric == "dm":
        why = "metric='dm' weighs values by how often they repeat, and none repeats"
    else:
        why = f"metric={metric!r} finds no difference between the values"
    names = ", ".join(flat[:10]) + (" ..." if len(flat) > 10 else "")
    scope = "every attribute" if len(flat) == len(tabs) else f"attribute(s) {names}"
    warn_at_caller(
        f"{why}: all distances between values of {scope} are 0, so "
        f"{'objects' if len(flat) == len(tabs) else 'those attributes'} cannot be told apart "
        "(clusters and neighbours are arbitrary). Use metric='hamming' or add attributes.",
        CatEmbedWarning,
    )
