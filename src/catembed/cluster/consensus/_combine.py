"""How :class:`catembed.cluster.Consensus` combines its members (``combine=``).

``"concat"`` (the default since issue 38's combination study): every member's embedding is
scaled to unit mean squared row norm and by the square root of the member's weight, the
blocks are placed side by side, and k-means (10 starts, on at most ``sample_size`` rows;
on a table of at most :data:`DISTINCT_LIMIT` distinct rows, on those rows weighted by their
counts, with more starts) clusters them; every row takes its nearest centre. The scale
factors (one per member) and the centres are kept, so ``predict`` embeds new rows through
each member, scales them with the stored factors and takes the nearest stored centre. With
the square-root weights, a block's share of the squared distances is its member's weight.

``"select"`` (the default since issue 38's selection study,
``studies/frozen/consensus_select_design.py``): the ``"concat"`` partition or the partition of
the member with the largest agreement weight, whichever agrees more with the other
candidates (:func:`select_partition`); a chosen member's partition is
``KMeans(n_init=10)`` on its own embedding, and new rows take its nearest centre there.

``"coassoc"``: evidence accumulation on the members' k-means runs (the co-association
graph's spectral coordinates; the rule of issue 26, kept as an option): see
:func:`fit_coassoc`.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.cluster import KMeans

from ...stats._value_statistics import ValueStatistics
from ._runs import _nearest

__all__ = ["COMBINE_RULES", "block_scales", "candidate_partitions", "coassoc_coordinates",
           "distinct_rows", "fit_coassoc", "select_partition", "side_by_side"]

#: the ways the members are combined (``Consensus(combine=...)``)
COMBINE_RULES = ("select", "concat", "coassoc")


def mean_square_norm(Z: np.ndarray, chunk: int = 262144) -> float:
    """Mean squared row norm of ``Z`` (float64 sums, by chunks; no thread-dependent order)."""
    if not len(Z):
        return 0.0
    total = 0.0
    for a in range(0, len(Z), chunk):
        block = np.asarray(Z[a:a + chunk], dtype=np.float64)
        total += float(np.einsum("ij,ij->", block, block))
    return total / len(Z)


def block_scales(norms: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Each member's factor ``sqrt(weight / mean squared row norm)`` (0 for an embedding
    that is all zeros)."""
    norms = np.asarray(norms, dtype=np.float64)
    w = np.asarray(weights, dtype=np.float64)
    return np.where(norms > 0, np.sqrt(w / np.where(norms > 0, norms, 1.0)), 0.0)


def side_by_side(spaces: list[np.ndarray], scales: np.ndarray) -> np.ndarray:
    """The members' embeddings, each times its factor, side by side (float32): each product
    written straight into its columns (no temporary of a member's size)."""
    n = len(spaces[0])
    out = np.empty((n, sum(Z.shape[1] for Z in spaces)), dtype=np.float32)
    start = 0
    for Z, s in zip(spaces, scales, strict=True):
        np.multiply(Z, np.float32(s), out=out[:, start:start + Z.shape[1]])
        start += Z.shape[1]
    return out


#: tables of at most this many distinct rows (and at most 100,000 rows) fit every final
#: k-means on the distinct rows, each weighted by its count: the same objective as on all
#: rows, with as many more starts as the rows are fewer (the same work: 10 starts times the
#: rows k-means would read, over the distinct rows, at most DISTINCT_STARTS), so its
#: optimum is found more often (issue 38's ``studies/frozen/consensus_distinct_design.py``; 0
#: turns it off)
DISTINCT_LIMIT = 2000
DISTINCT_STARTS = 100


def distinct_rows(codes: np.ndarray) -> tuple[int, tuple[np.ndarray, ...] | None]:
    """``(number of distinct rows, (a row of each, its count, each row's group) or None)``:
    the triple when the table has at most 100,000 rows and :data:`DISTINCT_LIMIT` distinct
    ones; above 100,000 rows the count is not computed (``n`` is returned)."""
    if len(codes) > 100000:
        return len(codes), None
    rows = row_keys(codes) if codes.size else codes  # one sort of ints, not of rows
    _, first, inverse, counts = np.unique(rows, axis=0 if rows is codes else None,
                                          return_index=True, return_inverse=True,
                                          return_counts=True)
    if len(first) > DISTINCT_LIMIT:
        return len(first), None
    return len(first), (first, counts.astype(np.float64), inverse.ravel())


def row_keys(codes: np.ndarray) -> np.ndarray:
    """One int64 per row of the integer matrix ``codes`` (``n x m``, ``m >= 1``), equal
    for equal rows and ordered as the rows are lexicographically (the order of
    ``np.unique(codes, axis=0)``): the codes in mixed radix, the first column the most
    significant; where the radix would pass 2^62, the key so far is replaced by its rank
    among the distinct keys (below ``n``). 100k x 20 rows: 0.3 s for ``np.unique(codes,
    axis=0)``, which sorts the rows as records, against a few ms for one sort of the keys."""
    key = np.zeros(len(codes), dtype=np.int64)
    top = 1  # every key is below top
    for j in range(codes.shape[1]):
        col = codes[:, j].astype(np.int64)
        lo = int(col.min())
        span = int(col.max()) - lo + 1
        if top * span > 2**62:
            key = np.unique(key, return_inverse=True)[1].astype(np.int64).ravel()
            top = int(key.max()) + 1
        key = key * span + (col - lo)
        top *= span
    return key


def fit_centres(U: np.ndarray, k: int, sample_size: int, rs: np.random.RandomState,
                distinct: tuple[np.ndarray, ...] | None = None) -> np.ndarray:
    """Centres of ``KMeans(k, n_init=10)`` fitted on at most ``sample_size`` rows of ``U``
    (the random draws in the order the co-association step makes them); with ``distinct``
    (:func:`distinct_rows`, at least ``k`` of them), k-means on those rows of ``U`` weighted
    by their counts, with ``10 * min(n, sample_size) / n_distinct`` starts (10 to
    :data:`DISTINCT_STARTS`). A member's embedding is a function of a row's codes, so equal
    codes give equal coordinates; that is checked (else: the rows, as without)."""
    seed = rs.randint(2**31 - 1)
    if (distinct is not None and len(distinct[0]) >= k
            and np.array_equal(U[distinct[0]][distinct[2]], U)):
        starts = 10 * min(len(U), sample_size) // len(distinct[0])
        km = KMeans(k, n_init=int(min(DISTINCT_STARTS, max(10, starts))), random_state=seed,
                    copy_x=False)  # U[distinct[0]] is a copy: centred in place
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            km.fit(U[distinct[0]], sample_weight=distinct[1])
        return km.cluster_centers_
    sub = U if len(U) <= sample_size else U[rs.choice(len(U), size=sample_size,
                                                      replace=False)]
    km = KMeans(k, n_init=10, random_state=seed, copy_x=sub is U)  # a sample: its own copy
    with warnings.catch_warnings():  # fewer distinct rows than k: k-means warns
        warnings.simplefilter("ignore")
        km.fit(sub)
    return km.cluster_centers_


def candidate_partitions(concat: np.ndarray, spaces: list[np.ndarray], k: int,
                         sample_size: int, rs: np.random.RandomState,
                         distinct: tuple[np.ndarray, ...] | None = None
                         ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``(centres per member, candidates)``: the candidates are the ``concat`` labels, then
    every member's own ``KMeans(n_init=10)`` partition of its embedding (:func:`fit_centres`,
    then the nearest centre), in the members' order."""
    fits = [fit_centres(Z, k, sample_size, rs, distinct) for Z in spaces]
    return fits, [concat] + [nearest_labels(Z, c) for Z, c in zip(spaces, fits, strict=True)]


def candidate_support(cands: list[np.ndarray], i: int) -> float:
    """Candidate ``i``'s support: its mean ARI with the other candidates."""
    from ...metrics import ari_codes

    return float(np.mean([ari_codes(cands[i], c) for j, c in enumerate(cands) if j != i]))


def preferred_candidate(cands: list[np.ndarray], weights: np.ndarray) -> int:
    """The ``"select"`` rule's pick among :func:`candidate_partitions`: ``1 + top`` (the
    member with the largest agreement weight) when its support is strictly larger than
    ``concat``'s, else 0 (``concat``)."""
    top = int(np.argmax(weights))
    return 1 + top if candidate_support(cands, 1 + top) > candidate_support(cands, 0) else 0


def select_partition(concat: np.ndarray, spaces: list[np.ndarray], weights: np.ndarray,
                     k: int, sample_size: int, rs: np.random.RandomState,
                     distinct: tuple[np.ndarray, ...] | None = None
                     ) -> tuple[int, np.ndarray | None, np.ndarray]:
    """The ``"select"`` rule: ``(member index or -1, its centres or None, labels)``.

    The candidates are the ``concat`` labels and every member's own ``KMeans(n_init=10)``
    partition of its embedding (:func:`candidate_partitions`); a candidate's support is its
    mean ARI with the other candidates. The member with the largest agreement weight
    replaces ``concat`` only when its support is strictly larger (label-free; chosen on a
    declared design half, ``docs/consensus-design.md``). ``Consensus`` itself goes through
    :func:`catembed.cluster.consensus._degenerate.guarded_select`, which starts from this
    pick and sets aside a partition with an outlier group (issue 53).
    """
    fits, cands = candidate_partitions(concat, spaces, k, sample_size, rs, distinct)
    i = preferred_candidate(cands, weights)
    return (i - 1, fits[i - 1], cands[i]) if i else (-1, None, concat)


# ---------------------------------------------------------------- co-association
def fit_coassoc(runs_all: list[list[np.ndarray]], run_k: list[list[int]],
                weights: np.ndarray, k: int) -> np.ndarray:
    """The ``L x k`` cluster table of the co-association coordinates.

    The right singular vectors of the normalised bipartite matrix ``B`` come from its
    ``L x L`` Gram ``B^T B = S C S``: ``C`` the co-occurrence counts of the clusters of all
    runs, counted by the statistics' one counting pass over the ``n x P`` label matrix
    (``P`` runs), ``S`` the column scales. No ``n x L`` matrix is formed. A row's
    coordinates are the sum of its clusters' rows of the returned table (``u = B v / s``).
    """
    flat = [r for runs in runs_all for r in runs]
    ks = [kk for kks in run_k for kk in kks]
    stats = ValueStatistics.from_codes(
        np.column_stack(flat), [np.arange(kk) for kk in ks],
        [f"run{i}" for i in range(len(flat))], dense_limit=1 << 30)
    C = np.asarray(stats.cooc, dtype=np.float64)
    sizes = np.asarray(stats.counts, dtype=np.float64)
    colw = np.concatenate([np.full(sum(kks), w) for kks, w in
                           zip(run_k, weights, strict=True)])
    scale = np.sqrt(colw / np.maximum(sizes, 1e-12))  # w / sqrt(w size): sqrt(w / size)
    scale[sizes == 0] = 0.0
    G = scale[:, None] * C * scale[None, :]
    vals, vecs = np.linalg.eigh(G)
    order = np.argsort(vals)[::-1][:k]
    s = np.sqrt(np.maximum(vals[order], 1e-12))
    return scale[:, None] * vecs[:, order] / s[None, :]


def coassoc_coordinates(table: np.ndarray, runs_all: list[list[np.ndarray]],
                        run_k: list[list[int]]) -> np.ndarray:
    """Unit-length co-association coordinates: per run, look up each row's cluster row."""
    U = np.zeros((len(runs_all[0][0]), table.shape[1]))
    start = 0
    for runs, ks in zip(runs_all, run_k, strict=True):
        for r, kk in zip(runs, ks, strict=True):
            U += table[start + r]
            start += kk
    norm = np.linalg.norm(U, axis=1, keepdims=True)
    return U / np.where(norm > 0, norm, 1.0)


def nearest_labels(U: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """``labels`` as int64: the nearest centre of every row."""
    return _nearest(U, centres).astype(np.int64)


def check_combine(value: Any) -> None:
    """``combine`` is one of :data:`COMBINE_RULES` (through the shared option check)."""
    from ..._utils._params import check_option

    check_option("combine", value, COMBINE_RULES)
