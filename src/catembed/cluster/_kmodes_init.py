"""Initial modes of k-modes and k-prototypes: Cao's density, Huang's frequencies, or random.

* ``"huang"`` (Huang 1998, Section 3.2, second method): for each cluster and attribute a
  value drawn with probability proportional to its frequency, then each synthetic mode is
  replaced by the nearest row not yet chosen.
* ``"cao"`` (Cao, Liang, Bai 2009, Eqs. 3-5): the densest row first (density = mean
  relative frequency of its values), then repeatedly the row maximising
  ``min_{z chosen} d(x, z) * Dens(x)``; deterministic. ``d`` is the simple-matching
  dissimilarity, as published, whatever ``metric`` the iterations use, so every measure
  starts from the same modes (a measure whose matches cost almost as much as mismatches,
  such as ``"rough"``, would otherwise make ``d`` nearly constant and pick only the densest
  rows). k-prototypes adds the numeric part to the simple-matching ``d``.
* ``"random"``: ``n_clusters`` distinct rows at random; or an array of initial modes.

All three pick among *distinct* rows, so the initial modes are always distinct; they only
fail when asked for more modes than the table has distinct rows, which the estimators never
do (they ask for one mode per distinct row then, and warn). A cluster that empties during
the iterations is re-seeded with the row farthest from its mode.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from .._utils._spelling import k_asked
from .._utils._validation import CatEmbedError
from ._kmodes_core import _cat_distances, _sq_dist

__all__ = ["cao_from_distinct", "huang_nearest", "huang_synthetic", "init_cao", "init_huang",
           "init_random"]


def _distinct(codes: np.ndarray, numeric: np.ndarray | None = None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows (of the codes, with the numeric columns when given), first-occurrence
    order: ``(first index of each, its rank per row)`` and the rows themselves."""
    key = codes if numeric is None else np.hstack([codes.astype(np.float64), numeric])
    _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # keep first-occurrence order for determinism
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    first = first[order]
    return codes[first], first, rank[inverse.ravel()]


def _need(n_distinct: int, k: int) -> None:
    if n_distinct < k:
        raise CatEmbedError(
            f"the table has only {n_distinct} distinct row(s), fewer than {k_asked(k)}; "
            "use fewer clusters."
        )


def _proto_dist(codes: np.ndarray, numeric: np.ndarray | None, p_codes: np.ndarray,
                p_num: np.ndarray | None, ptabs: list[np.ndarray], gamma: float) -> np.ndarray:
    d = _cat_distances(codes, p_codes, ptabs)
    if numeric is None:
        return d
    return gamma * d + _sq_dist(numeric, p_num)


def _matching_tables(ptabs: list[np.ndarray]) -> list[np.ndarray]:
    """Simple-matching tables (0 on the diagonal, 1 elsewhere) of the same shapes."""
    return [1.0 - np.eye(t.shape[0]) for t in ptabs]


def init_cao(codes: np.ndarray, n_clusters: int, ptabs: list[np.ndarray], *,
             numeric: np.ndarray | None = None, gamma: float = 1.0) -> np.ndarray:
    """Cao, Liang, Bai (2009) density-based initial modes: row indices into ``codes``.

    ``Dens(x) = 1/(n m) sum_a |{y : y_a = x_a}|`` (Eq. 3); the first mode is the densest
    row, the next ones maximise ``min_{z chosen} d(x, z) Dens(x)`` (Eq. 5) with ``d`` the
    simple-matching dissimilarity (Eq. 1 of the paper; ``ptabs`` only give the number of
    values per attribute). With ``numeric`` (k-prototypes) ``d`` adds the squared Euclidean
    distance to ``gamma`` times the mismatches and rows are distinct on all their columns;
    the density stays categorical.
    """
    n, m = codes.shape
    uniq, first, _ = _distinct(codes, numeric)
    num_u = None if numeric is None else numeric[first]
    _need(len(uniq), n_clusters)
    dens = np.zeros(n)
    for j in range(m):
        dens += np.bincount(codes[:, j])[codes[:, j]]
    # no categorical attribute (k-prototypes on numbers alone): every row equally dense, so
    # the rule is the farthest-first traversal from the first row
    dens = dens[first] / (n * m) if m else np.ones(len(first))
    return first[cao_from_distinct(uniq, dens, n_clusters, ptabs, num_u=num_u, gamma=gamma)]


def cao_from_distinct(uniq: np.ndarray, dens: np.ndarray, n_clusters: int,
                      ptabs: list[np.ndarray], *, num_u: np.ndarray | None = None,
                      gamma: float = 1.0) -> np.ndarray:
    """:func:`init_cao` from the distinct rows (first-occurrence order) and their
    densities: positions in ``uniq`` (the distributed fit's entry point, which counts
    the distinct rows partition by partition)."""
    ptabs = _matching_tables(ptabs)
    chosen = [int(np.argmax(dens))]
    best = np.full(len(uniq), np.inf)
    for _ in range(1, n_clusters):
        c = chosen[-1:]
        d = _proto_dist(uniq, num_u, uniq[c], None if num_u is None else num_u[c], ptabs,
                        gamma)[:, 0]
        best = np.minimum(best, d * dens)
        best[chosen] = -np.inf
        chosen.append(int(np.argmax(best)))
    return np.asarray(chosen)


def init_huang(codes: np.ndarray, n_clusters: int, ptabs: list[np.ndarray],
               random_state: Any = None, *, numeric: np.ndarray | None = None,
               gamma: float = 1.0) -> np.ndarray:
    """Huang (1998) frequency-based initial modes: row indices into ``codes``.

    Each synthetic mode takes, per attribute, a value drawn with probability proportional
    to its frequency (and, with ``numeric``, the numeric values of a random row); each is
    then replaced by the nearest distinct row not chosen yet.
    """
    rs = check_random_state(random_state)
    n, m = codes.shape
    uniq, first, _ = _distinct(codes, numeric)
    num_u = None if numeric is None else numeric[first]
    _need(len(uniq), n_clusters)
    freqs = [np.bincount(codes[:, j]).astype(float) for j in range(m)]
    synth = huang_synthetic(freqs, n_clusters, rs)
    s_num = None if numeric is None else numeric[rs.choice(n, size=n_clusters)]
    return first[huang_nearest(uniq, synth, ptabs, num_u=num_u, s_num=s_num, gamma=gamma)]


def huang_synthetic(freqs: list[np.ndarray], n_clusters: int, rs: np.random.RandomState
                    ) -> np.ndarray:
    """Huang's synthetic modes: per attribute a value drawn with probability proportional
    to its count (``freqs``: the counts of each attribute's values)."""
    synth = np.empty((n_clusters, len(freqs)), dtype=np.int64)
    for j, freq in enumerate(freqs):
        synth[:, j] = rs.choice(len(freq), size=n_clusters, p=freq / freq.sum())
    return synth


def huang_nearest(uniq: np.ndarray, synth: np.ndarray, ptabs: list[np.ndarray], *,
                  num_u: np.ndarray | None = None, s_num: np.ndarray | None = None,
                  gamma: float = 1.0) -> np.ndarray:
    """Each synthetic mode replaced by the nearest distinct row not chosen yet: positions
    in ``uniq``."""
    n_clusters = len(synth)
    d = _proto_dist(uniq, num_u, synth, s_num, ptabs, gamma)  # (distinct, k)
    taken = np.zeros(len(uniq), dtype=bool)
    chosen = []
    for c in range(n_clusters):
        col = np.where(taken, np.inf, d[:, c])
        i = int(np.argmin(col))
        taken[i] = True
        chosen.append(i)
    return np.asarray(chosen)


def init_random(codes: np.ndarray, n_clusters: int, random_state: Any = None, *,
                numeric: np.ndarray | None = None) -> np.ndarray:
    """``n_clusters`` distinct rows drawn at random: row indices into ``codes``."""
    rs = check_random_state(random_state)
    uniq, first, _ = _distinct(codes, numeric)
    _need(len(uniq), n_clusters)
    return first[np.sort(rs.choice(len(uniq), size=n_clusters, replace=False))]
