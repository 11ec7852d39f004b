"""k-modes and k-prototypes (Huang 1998) in vectorised NumPy, any value distance table.

One iteration is two array operations over all rows: distances of every row to every mode
(``sum_j T_j[x_j, z_j]`` gathered from the value tables, plus the squared Euclidean part
for k-prototypes), then the new modes from per-cluster value counts: the value ``v`` that
minimises ``sum_{i in C} T_j[x_ij, v]`` (the most frequent value for Hamming). This is the
batch ("Lloyd") form of Huang's algorithm; Huang's original moves one object at a time and
updates two modes after each move, which is a Python loop per object in the ``kmodes``
package. Both decrease the same cost and stop at a local minimum.

The rows arrive as value codes (one column per attribute) and the value distances as
"padded" tables (:func:`_padded_tables`: one extra row and column for an unseen value). The
initial modes come from :mod:`catembed.cluster._kmodes_init`; the estimators are
:mod:`catembed.cluster.kmodes` and :mod:`catembed.cluster.kprototypes`.
"""

from __future__ import annotations

import numpy as np

from ..similarity.tables import ValueTables

__all__ = ["MODE_UPDATES", "kmodes_lloyd"]

#: the mode updates: ``"objective"``, the value that minimises the cluster's cost under the
#: metric; ``"frequency"``, Huang's (1998) most frequent value whatever the metric
MODE_UPDATES = ("objective", "frequency")


def _padded_tables(vt: ValueTables) -> list[np.ndarray]:
    """Tables with an extra row/column for unseen values (largest distance), powered."""
    out = []
    for t in vt.tables:
        lj = t.shape[0]
        worst = float(t.max()) if t.size and t.max() > 0 else 1.0
        p = np.full((lj + 1, lj + 1), worst)
        p[:lj, :lj] = t
        out.append(p ** vt.power)
    return out


def _cat_distances(codes: np.ndarray, modes: np.ndarray, ptabs: list[np.ndarray],
                   rough: tuple[list[np.ndarray], list[np.ndarray]] | None = None
                   ) -> np.ndarray:
    """``n x k`` categorical distances of rows to modes."""
    n, k = codes.shape[0], modes.shape[0]
    out = np.zeros((n, k))
    for j, t in enumerate(ptabs):
        if rough is None:
            out += t[:, modes[:, j]][codes[:, j]]
        else:
            hist, cnt = rough[0][j], rough[1][j]
            mz = modes[:, j]
            member = hist[np.arange(k), mz] / np.maximum(cnt[mz], 1.0)
            eq = codes[:, j, None] == mz[None, :]
            out += np.where(eq, 1.0 - member[None, :], 1.0)
    return out


def _histograms(codes: np.ndarray, labels: np.ndarray, k: int, widths: list[int]
                ) -> list[np.ndarray]:
    return [
        np.bincount(labels * w + codes[:, j], minlength=k * w).reshape(k, w).astype(float)
        for j, w in enumerate(widths)
    ]


def _modes_from(hists: list[np.ndarray], ptabs: list[np.ndarray], old: np.ndarray,
                rough_counts: list[np.ndarray] | None = None,
                mode_update: str = "objective") -> np.ndarray:
    """The new modes of a fixed partition, given per cluster value counts ``h[l, v]``.

    ``"objective"``: for value tables the value ``v`` minimising ``sum_u h[l, u] T[u, v]``;
    for Cao et al.'s (2012) cluster form (``rough_counts`` = the counts ``N(v)`` on the whole
    data) a match on ``v`` costs ``1 - n_l(v) / N(v)`` for each of the ``n_l(v)`` members
    holding ``v`` and a mismatch 1 for the others, so the cluster's cost on the attribute is
    ``|C_l| - n_l(v)^2 / N(v)``: the mode is ``argmax_v n_l(v)^2 / N(v)``. ``"frequency"``:
    ``argmax_v n_l(v)`` (Huang's mode). Empty clusters keep their mode.
    """
    modes = old.copy()
    for j, (h, t) in enumerate(zip(hists, ptabs, strict=True)):
        lj = t.shape[0] - 1
        if mode_update == "frequency":
            cost = -h[:, :lj]
        elif rough_counts is not None:
            cnt = np.maximum(rough_counts[j][:lj], 1.0)
            cost = -(h[:, :lj] ** 2) / cnt[None, :]
        else:
            cost = h @ t[:, :lj]  # (k, l_j): cost of each candidate value
        best = np.argmin(cost, axis=1)
        nonempty = h.sum(axis=1) > 0
        modes[nonempty, j] = best[nonempty]
    return modes


def kmodes_lloyd(
    codes: np.ndarray,
    init_modes: np.ndarray,
    ptabs: list[np.ndarray],
    *,
    numeric: np.ndarray | None = None,
    init_centers: np.ndarray | None = None,
    gamma: float = 1.0,
    max_iter: int = 100,
    rough_counts: list[np.ndarray] | None = None,
    mode_update: str = "objective",
    history: list[float] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, float, int]:
    """Batch k-modes / k-prototypes from given initial modes (and numeric centres).

    Cost: ``sum_i min_c [ ||x_i - mu_c||^2 + gamma * sum_j T_j[x_ij, z_cj] ]`` (no numeric
    part for k-modes). With ``rough_counts`` (the value counts ``cnt(v)`` per attribute) the
    categorical part is Cao et al.'s (2012) dissimilarity: a match on attribute ``a``
    costs ``1 - |{x in C_l : x_a = v}| / cnt(v)``, computed from the previous assignment
    (the first assignment uses Hamming).

    ``mode_update`` (:data:`MODE_UPDATES`) picks the modes of a partition
    (:func:`_modes_from`). ``history``, when given, receives after every mode update the
    cost of the current partition with its new modes (for the cluster form, with the
    partition's own counts), the quantity each mode update minimises.

    Returns ``(labels, modes, centers, cost, n_iter)``.
    """
    codes = np.asarray(codes, dtype=np.int64)
    n = codes.shape[0]
    k = init_modes.shape[0]
    widths = [t.shape[0] for t in ptabs]
    modes = init_modes.astype(np.int64).copy()
    centers = None if numeric is None else np.asarray(init_centers, dtype=float).copy()
    labels = np.full(n, -1, dtype=np.int64)
    rough = None
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        dist = _cat_distances(codes, modes, ptabs, rough)
        if numeric is not None:
            dist = gamma * dist + _sq_dist(numeric, centers)
        new = np.argmin(dist, axis=1)
        new = _fill_empty(new, dist, k)
        changed = not np.array_equal(new, labels)
        labels = new
        hists = _histograms(codes, labels, k, widths)
        modes = _modes_from(hists, ptabs, modes, rough_counts, mode_update)
        if numeric is not None:
            sums = np.zeros((k, numeric.shape[1]))
            np.add.at(sums, labels, numeric)
            size = np.bincount(labels, minlength=k)[:, None]
            centers = np.where(size > 0, sums / np.maximum(size, 1), centers)
        if rough_counts is not None:
            rough = (hists, rough_counts)
        if history is not None:
            d = _cat_distances(codes, modes, ptabs, rough)
            if numeric is not None:
                d = gamma * d + _sq_dist(numeric, centers)
            history.append(float(d[np.arange(n), labels].sum()))
        if not changed:
            break
    dist = _cat_distances(codes, modes, ptabs, rough)
    if numeric is not None:
        dist = gamma * dist + _sq_dist(numeric, centers)
    cost = float(dist[np.arange(n), labels].sum())
    return labels, modes, centers, cost, n_iter


def _sq_dist(x: np.ndarray, c: np.ndarray) -> np.ndarray:
    d = (x * x).sum(1)[:, None] - 2.0 * x @ c.T + (c * c).sum(1)[None, :]
    return np.maximum(d, 0.0)


def _fill_empty(labels: np.ndarray, dist: np.ndarray, k: int) -> np.ndarray:
    labels = labels.copy()
    for _ in range(k):
        size = np.bincount(labels, minlength=k)
        empty = np.flatnonzero(size == 0)
        if empty.size == 0:
            break
        own = dist[np.arange(len(labels)), labels]
        own = np.where(size[labels] > 1, own, -np.inf)
        i = int(np.argmax(own))
        if not np.isfinite(own[i]):
            break
        labels[i] = empty[0]
    return labels
