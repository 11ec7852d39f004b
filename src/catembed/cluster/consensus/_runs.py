"""The k-means runs of :class:`catembed.cluster.Consensus`'s members: resampled k-means
fits that label every row, the nearest centre by chunks, a member's stability (mean ARI
between its runs), and the gathering of a Dask input."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.cluster import KMeans

from ..._utils._progress import step
from ..._utils._validation import is_dask_collection
from ...metrics import ari_codes

__all__ = ["_gather", "_kmeans_runs", "_nearest", "_stability"]


def _gather(X: Any) -> Any:
    """A Dask frame or array as pandas / NumPy: its partitions computed once, in order.
    Consensus labels every row (its memory is ``O(n)`` whatever the input), so the rows are
    gathered rather than streamed; the fit is then the in-memory one, label for label."""
    if is_dask_collection(X, frames=False):
        return X.compute()
    return X


def _kmeans_runs(Z: np.ndarray, k: int, n_runs: int, sample_size: int,
                 rs: np.random.RandomState) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """``n_runs`` k-means fits, each on its own resample of rows, labelling every row:
    (labels of each run, centres of each run)."""
    n = len(Z)
    out, centres = [], []
    size = min(int(sample_size), max(k, int(round(0.8 * n))))
    for _ in range(n_runs):
        rows = rs.choice(n, size=size, replace=False) if size < n else np.arange(n)
        with warnings.catch_warnings():  # fewer distinct embedded rows than k: k-means warns
            warnings.simplefilter("ignore")
            # Z[rows] is a copy of its own: k-means may centre it in place (the same
            # centres and labels as on a copy of the copy)
            km = KMeans(k, n_init=1, random_state=rs.randint(2**31 - 1), copy_x=False).fit(
                Z[rows])
        c = km.cluster_centers_.astype(Z.dtype, copy=False)
        centres.append(c)
        out.append(_nearest(Z, c))
    return out, centres


def _nearest(Z: np.ndarray, centres: np.ndarray, chunk: int | None = None) -> np.ndarray:
    """Index of the nearest centre of each row, by chunks (no ``n x k`` beyond a chunk;
    by default about 2 MiB of float64 rows, at least 1,024, so that float32 rows beside
    float64 centres are not converted whole: a row's distances do not depend on the chunk)."""
    out = np.empty(len(Z), dtype=np.int32)
    c2 = (centres * centres).sum(axis=1)
    if chunk is None:
        chunk = max(1024, (1 << 21) // (8 * max(1, Z.shape[1] if Z.ndim == 2 else 1)))
    for a in range(0, len(Z), chunk):
        block = Z[a:a + chunk]
        d = c2[None, :] - 2.0 * (block @ centres.T)
        out[a:a + chunk] = np.argmin(d, axis=1)
    return out


def _stability(runs: list[np.ndarray], max_rows: int, rs: np.random.RandomState) -> float:
    """Mean pairwise ARI of a member's runs (on at most ``max_rows`` rows)."""
    if len(runs) < 2:
        return 1.0
    n = len(runs[0])
    rows = rs.choice(n, size=max_rows, replace=False) if n > max_rows else slice(None)
    vals = [ari_codes(runs[a][rows], runs[b][rows])
            for a in range(len(runs)) for b in range(a + 1, len(runs))]
    return float(np.mean(vals))


#: how the members' runs are weighted in the consensus (``Consensus(weights=...)``)
WEIGHT_RULES = ("agreement", "stability", "equal")


def agreement_with_others(runs_all: list[list[np.ndarray]], rs: np.random.RandomState,
                          max_rows: int = 5000, per_member: int = 3) -> np.ndarray:
    """Each member's mean ARI with the other members: over the first ``per_member`` runs
    of every two members, on at most ``max_rows`` rows (label-free: the members are only
    compared with each other). One member: 1."""
    m = len(runs_all)
    if m < 2:
        return np.ones(m)
    n = len(runs_all[0][0])
    rows = np.sort(rs.choice(n, size=max_rows, replace=False)) if n > max_rows else \
        slice(None)
    firsts = [[r[rows] for r in runs[:per_member]] for runs in runs_all]
    agree = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            agree[i, j] = agree[j, i] = np.mean(
                [ari_codes(a, b) for a in firsts[i] for b in firsts[j]])
    return agree.sum(axis=1) / (m - 1)


#: the largest ``Consensus(weight_power=...)``: a member at agreement .8 then weighs 8e-6 of
#: one at .9, so a larger power changes nothing but the rounding (issue 52 item 13)
MAX_WEIGHT_POWER = 100.0


def member_weights(rule: str, stability: np.ndarray, runs_all: list[list[np.ndarray]],
                   rs: np.random.RandomState, power: float) -> np.ndarray:
    """The members' (unnormalised) weights under ``rule``: ``"agreement"``, each member's
    mean ARI with the other members (:func:`agreement_with_others`); ``"stability"``, the
    mean ARI between its own runs; ``"equal"``, one each. Each at least ``1e-3``, raised to
    ``power``; where every power underflows (``1e-3 ** 103`` is 0), the ratios to the
    largest are raised instead, so the largest weighs 1 (never all 0, whose sum gave NaN)."""
    step("combining the members' runs")
    if rule == "equal":
        return np.ones(len(runs_all))
    base = stability if rule == "stability" else agreement_with_others(runs_all, rs)
    base = np.maximum(np.asarray(base, dtype=np.float64), 1e-3)
    w = base ** power
    if w.max() < np.finfo(np.float64).tiny:  # underflow: the same ratios, the largest 1
        w = (base / base.max()) ** power
    return w


#: above this many values, on a table with fewer rows than a quarter of them, the default
#: portfolio is the members whose fits cost O(n l) (one-hot, IDF): CDE, MCA and LCME cost
#: O(l^2) to O(l^3) whatever the rows (30 rows x 2,000 four-valued columns: no answer in
#: 200 s with them, 12-23 s without; issue 37 item 6). Issue 55: 3,000 left 30 x 200 (800
#: values) to the full portfolio, 4.3 CPU s of fit against 0.2 s for the wide one, slower
#: than 30 x 2,000; at 500 the full portfolio's fit is about 1 CPU s (30 x 100: 1.2 s)
WIDE_VALUES = 500
WIDE_MEMBERS = ("onehot", "idf")


def wide_table_members(names: list[str], defaulted: bool, categories: list,
                       n_rows: int) -> tuple[list[str], bool, bool]:
    """``(members to fit, full width, factor)``: ``names``, or :data:`WIDE_MEMBERS` with a
    warning when the default portfolio meets a wide table (members the user named are kept;
    ``categories``: each column's values).
    Full width: the members' embeddings uncompressed (no output PCA, whose cost on such a
    table is a product with the ``l x l`` co-occurrences per step), when ``n x l`` is at
    most 5e7 cells. Factor: the wide portfolio reads the value counts only, so the
    co-occurrences are kept as their factor (``n m`` ids, :class:`~catembed.stats._gram.
    GramCounts`) rather than as up to ``n m^2 / 2`` stored pairs."""
    n_values = sum(len(c) for c in categories)
    if not defaulted or n_values <= WIDE_VALUES or n_rows * 4 >= n_values:
        return names, False, False
    from ..._utils._errors import CatEmbedWarning
    from ..._utils._spelling import spell

    warnings.warn(
        f"the table has {n_values} values in {n_rows} rows: the default members CDE and "
        f"LCME cost O(values^2) or more whatever the rows, so only "
        f"{', '.join(WIDE_MEMBERS)} are fitted (MCA is left out too, as chosen for wide "
        f"tables; name {spell('members=', '--members')} to choose others).",
        CatEmbedWarning, stacklevel=4)
    return list(WIDE_MEMBERS), n_rows * n_values <= 5e7, True
