""":class:`~catembed.cluster.KModes` and :class:`~catembed.cluster.LCA` fitted on a Dask
DataFrame without gathering its rows (``docs/distributed.md``).

Every pass maps a step of :mod:`catembed.cluster._distributed` over the partitions and sums
the small arrays it returns on the client: the value statistics (already distributed,
:mod:`catembed.transform._dask`), the distinct rows with their counts (kept only while there
are at most :data:`CLIENT_ROWS` of them), the k-modes assignments (per cluster value counts)
and the LCA E-steps (expected counts). The client holds the value tables, the modes or class
parameters, and at most :data:`CLIENT_ROWS` distinct rows or :data:`SAMPLE_ROWS` sampled rows.

The value codes of each partition are computed once and persisted on the workers
(``codes_dtype`` bytes per cell, one byte up to 127 values per column) for the iterations.

Same results as the in-memory fit: when the distinct rows fit on the client (at most
``CLIENT_ROWS``) the initial modes and the LCA's EM are the in-memory ones, row for row, and
the labels equal the in-memory labels. Above, k-modes' Cao and Huang starts take one pass per
mode and stay the in-memory ones; ``init="random"`` and LCA's starts read a sample of
``SAMPLE_ROWS`` rows and LCA's E-step sums partition by partition, so their partition may
differ (``docs/distributed.md`` gives the agreement measured).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state

from .._utils._params import check_option
from .._utils._spelling import rows_below_k
from .._utils._validation import CatEmbedError, check_table
from ..stats._encoding import code_dtype, union_categories
from ..stats._profile_tests import relative_entropy
from ..transform._dask import fit_dask
from . import _distributed as D
from ._kmodes_core import MODE_UPDATES, _modes_from, _padded_tables
from ._kmodes_init import cao_from_distinct, huang_nearest, huang_synthetic
from ._lca_core import _FLOOR
from ._lca_em import squarem

__all__ = ["CLIENT_ROWS", "SAMPLE_ROWS", "fit_kmodes_dask", "fit_lca_dask"]

#: the most distinct rows gathered on the client for an exact initialisation (and LCA's EM)
CLIENT_ROWS = 500_000
#: rows sampled to the client to initialise when the distinct rows are more
SAMPLE_ROWS = 100_000


# ---------------------------------------------------------------------- plumbing
class _Parts:
    """A Dask DataFrame's partitions: their delayed objects, lengths and first rows."""

    def __init__(self, ddf: Any) -> None:
        import dask

        self.ddf = ddf
        self.frames = ddf.to_delayed()
        lengths = dask.compute(*[dask.delayed(len)(p) for p in self.frames])
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.starts = np.concatenate([[0], np.cumsum(self.lengths)[:-1]]).astype(np.int64)
        self.n = int(self.lengths.sum())
        self.codes: list[Any] = []

    def encode(self, fn: Callable[[pd.DataFrame], np.ndarray]) -> None:
        """Compute and persist each partition's codes."""
        import dask

        self.codes = list(dask.persist(*[dask.delayed(fn)(p) for p in self.frames]))

    def map(self, fn: Callable[..., Any], *args: Any, start: bool = False,
            on: list[Any] | None = None) -> list[Any]:
        """``fn(codes, *args)`` on every partition (``start=True``: the partition's first
        row as the last argument; ``on``: persisted per partition objects other than the
        codes), computed."""
        import dask

        src = self.codes if on is None else on
        tasks = [dask.delayed(fn)(c, *args, *((int(s),) if start else ()))
                 for c, s in zip(src, self.starts, strict=True)]
        return list(dask.compute(*tasks))

    def reduce(self, leaf: Callable[..., Any], merge: Callable[[Any, Any], Any],
               *args: Any, on_codes: bool = True) -> Any:
        """A tree reduction of ``leaf`` over the partitions (their codes, or frames)."""
        import dask

        src = self.codes if on_codes else self.frames
        level = [dask.delayed(leaf)(c, *args, int(s)) if on_codes else
                 dask.delayed(leaf)(c, *args) for c, s in zip(src, self.starts, strict=True)]
        while len(level) > 1:
            level = [dask.delayed(merge)(level[i], level[i + 1]) if i + 1 < len(level)
                     else level[i] for i in range(0, len(level), 2)]
        (out,) = dask.compute(level[0])
        return out

    def sample(self, rows: int, seed: int) -> pd.DataFrame:
        """About ``rows`` rows drawn uniformly, gathered to the client."""
        frac = min(1.0, rows / max(self.n, 1))
        return self.ddf.sample(frac=frac, random_state=seed).compute()


def _sum(parts: list[Any]) -> Any:
    """The elementwise sum of the partitions' results (arrays, lists or tuples of them)."""
    first = parts[0]
    if isinstance(first, (list, tuple)):
        return type(first)(_sum([p[i] for p in parts]) for i in range(len(first)))
    out = first
    for p in parts[1:]:
        out = out + p
    return out


def _distinct(parts: _Parts) -> D.Distinct | None:
    """The distinct rows of the whole table (``None`` above :data:`CLIENT_ROWS`)."""
    cap = int(CLIENT_ROWS)

    def leaf(codes: np.ndarray, start: int) -> D.Distinct | None:
        d = D.distinct_batch(codes, start)
        return d if len(d.rows) <= cap else None

    return parts.reduce(leaf, lambda a, b: D.merge_distinct(a, b, cap))


def _probe(ddf: Any) -> pd.DataFrame:
    """The first two rows (the input checks run on them): the first partition's, or the
    first of every partition's when it has fewer."""
    head = ddf.head(2, npartitions=1, compute=True)
    return head if len(head) >= 2 else ddf.head(2, npartitions=-1, compute=True)


def _row_count_checks(est: Any, n: int, n_cols: int) -> None:
    if n == 0:
        raise CatEmbedError(f"Found array with 0 sample(s) (shape=({n}, {n_cols})) while a "
                            f"minimum of {est.n_clusters} is required by "
                            f"{type(est).__name__}.")
    if n < int(est.n_clusters):
        raise CatEmbedError(f"{rows_below_k(n, est.n_clusters)}; "
                            "use fewer clusters.")


def _snapshot(est: Any) -> Any:
    """A shallow copy without the lazy labels (what the partitions' tasks carry)."""
    snap = copy.copy(est)
    snap.labels_ = np.zeros(0, dtype=np.int64)  # fitted, without the rows' labels
    return snap


def _labels_partition(part: pd.DataFrame, est: Any) -> pd.Series:
    return pd.Series(np.asarray(est.predict(part), dtype=np.int64), index=part.index)


def predict_dask(est: Any, ddf: Any) -> Any:
    """``est.predict`` mapped over the partitions: a lazy Dask Series of int64 labels."""
    meta = pd.Series(np.array([], dtype=np.int64), index=ddf._meta.index[:0])
    return ddf.map_partitions(_labels_partition, _snapshot(est), meta=meta)


# ---------------------------------------------------------------------- k-modes
def fit_kmodes_dask(est: Any, ddf: Any) -> Any:
    """:meth:`KModes.fit` of a Dask DataFrame (``est`` checked by ``fit``)."""
    check_option("mode_update", est.mode_update, MODE_UPDATES)
    meta = ddf._meta
    if meta.shape[1] == 0:  # the in-memory message (a one-row frame: not "0 samples")
        est._check_table(pd.DataFrame(index=[0]), fit=True)
    parts = _Parts(ddf)
    _row_count_checks(est, parts.n, meta.shape[1])
    if parts.n < 2:
        raise CatEmbedError(f"KModes needs at least 2 samples to fit; got n_samples = "
                            f"{parts.n}.")
    dist = est._distance(est.categorical_features)
    dist._check_params()
    est.distance_ = fit_dask(dist, ddf)
    est._set_input_names(meta, meta)
    input_columns = [str(c) for c in meta.columns]
    clustered = set(est._kept_columns()) | {str(c) for c in dist.dropped_features_}
    head = _probe(ddf)
    est._set_centroid_columns(head, [c for c in input_columns if c in clustered])
    ptabs = _padded_tables(dist.tables_)
    dtype = code_dtype(dist.categories_)
    parts.encode(lambda part: dist.encode(part).astype(dtype))
    rough = est._rough_counts()
    distinct = _distinct(parts)
    rs = check_random_state(est.random_state)
    seeds = rs.randint(np.iinfo(np.int32).max, size=est.n_init)
    several = isinstance(est.init, str) and est.init != "cao" and len(seeds) > 1
    k = est._n_starts(distinct.rows) if distinct is not None else est.n_clusters
    best = None
    for seed in seeds:
        if isinstance(est.init, str):
            init_modes = _init_modes(est, parts, distinct, ptabs, int(seed), k)
        else:
            init_modes = est._encode_init(est.init, input_columns)
        res = _lloyd(parts, init_modes, ptabs, max_iter=int(est.max_iter),
                     rough_counts=rough, mode_update=est.mode_update, want_cost=several)
        if best is None or res[3] < best[3]:
            best = res
        if not several:
            break
    modes, hists, _, _, n_iter = best
    modes = est._keep_modes(modes, n_iter)
    est._final_hist = hists if len(hists[0]) == est.n_clusters else [
        np.vstack([h, np.zeros((est.n_clusters - len(h), h.shape[1]))]) for h in hists]
    r = None if rough is None else (est._final_hist, rough)
    est.cost_ = float(sum(parts.map(_label_cost, modes, ptabs, r)))
    est.labels_ = predict_dask(est, ddf)
    return est


def _label_cost(codes: np.ndarray, modes: np.ndarray, ptabs: list[np.ndarray],
                rough: Any) -> float:
    """A partition's cost: each row's distance to its nearest (final) mode."""
    return D.kmodes_labels_batch(codes.astype(np.int64), modes, ptabs, rough)[1]


def _init_modes(est: Any, parts: _Parts, distinct: D.Distinct | None,
                ptabs: list[np.ndarray], seed: int, k: int) -> np.ndarray:
    """The initial modes: the in-memory rule on the distinct rows when they are on the
    client; else Cao's and Huang's by passes (:func:`_init_passes`) and ``"random"`` on a
    sample of :data:`SAMPLE_ROWS` rows."""
    if distinct is None and est.init in ("cao", "huang"):
        return _init_passes(est, parts, ptabs, seed, k)
    if distinct is None:
        sample = parts.sample(int(SAMPLE_ROWS), seed)
        codes = est.distance_.encode(sample).astype(np.int64)
        return codes[est._init_rows(codes, ptabs, seed, k=k)]
    order = np.argsort(distinct.first)
    uniq, counts = distinct.rows[order], distinct.counts[order]
    m = uniq.shape[1]
    value_counts = [np.bincount(uniq[:, j], weights=counts).astype(np.int64)
                    for j in range(m)]
    if est.init == "cao":
        dens = np.zeros(len(uniq))
        for j in range(m):
            dens += value_counts[j][uniq[:, j]]
        dens = dens / (parts.n * m) if m else np.ones(len(uniq))
        return uniq[cao_from_distinct(uniq, dens, k, ptabs)]
    rs = check_random_state(seed)
    if est.init == "huang":
        synth = huang_synthetic([v.astype(float) for v in value_counts], k, rs)
        return uniq[huang_nearest(uniq, synth, ptabs)]
    return uniq[np.sort(rs.choice(len(uniq), size=k, replace=False))]


def _init_passes(est: Any, parts: _Parts, ptabs: list[np.ndarray], seed: int, k: int
                 ) -> np.ndarray:
    """Cao's or Huang's initial modes over every row, one pass per mode (the in-memory
    choice: ties go to the first row)."""
    widths = [len(c) for c in est.distance_.categories_]
    counts = _sum(parts.map(_value_counts, widths))
    pick = (lambda found: max(found, key=lambda t: (t[0], -t[1]))) if est.init == "cao" \
        else (lambda found: min(found, key=lambda t: (t[0], t[1])))
    chosen = np.zeros((0, len(widths)), dtype=np.int64)
    synth = None
    if est.init == "huang":
        freqs = [np.trim_zeros(c.astype(float), "b") for c in counts]
        synth = huang_synthetic(freqs, k, check_random_state(seed))
    for c in range(k):
        if synth is None:
            found = parts.map(D.cao_score_batch, chosen, counts, parts.n, start=True)
        else:
            found = parts.map(D.nearest_free_batch, synth[c], chosen, ptabs, start=True)
        row = pick([f for f in found if f[1] >= 0])[2]
        chosen = np.vstack([chosen, row[None, :]])
    return chosen


def _value_counts(codes: np.ndarray, widths: list[int]) -> list[np.ndarray]:
    return D.value_counts_batch(codes.astype(np.int64), widths)


def _lloyd(parts: _Parts, init_modes: np.ndarray, ptabs: list[np.ndarray], *,
           max_iter: int, rough_counts: list[np.ndarray] | None, mode_update: str,
           want_cost: bool) -> tuple[np.ndarray, list[np.ndarray], Any, float, int]:
    """:func:`~catembed.cluster._kmodes_core.kmodes_lloyd` as map-reduce passes: each
    iteration assigns every partition and sums the per cluster value counts; it stops when
    the counts and the modes repeat (the in-memory rule, no row changes cluster, stops
    there too, or one iteration later with the same partition)."""
    modes = init_modes.astype(np.int64).copy()
    k = len(modes)
    rough = None
    prev = None
    hists: list[np.ndarray] = []
    label_state: tuple[Any, ...] = (modes, None, None)
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        hists, sizes = _sum(parts.map(D.kmodes_step_batch, modes, ptabs, rough, None,
                                      start=True))
        moves = None
        if (sizes == 0).any():
            moves = _fill_empty(parts, modes, ptabs, rough, sizes, k)
            if moves is not None:
                hists, sizes = _sum(parts.map(D.kmodes_step_batch, modes, ptabs, rough, moves,
                                              start=True))
        new = _modes_from(hists, ptabs, modes, rough_counts, mode_update)
        label_state = (modes, rough, moves)
        stop = prev is not None and np.array_equal(new, modes) and all(
            np.array_equal(a, b) for a, b in zip(hists, prev, strict=True))
        prev, modes = hists, new
        if rough_counts is not None:
            rough = (hists, rough_counts)
        if stop:
            break
    cost = np.nan
    if want_cost:
        cost = float(sum(parts.map(_cost_of, label_state, modes, ptabs, rough, start=True)))
    return modes, hists, rough, cost, n_iter


def _cost_of(codes: np.ndarray, label_state: tuple[Any, ...], modes: np.ndarray,
             ptabs: list[np.ndarray], rough: Any, start: int) -> float:
    label_modes, label_rough, moves = label_state
    return D.kmodes_cost_batch(codes.astype(np.int64), label_modes, label_rough, moves, start,
                               modes, ptabs, rough)


def _fill_empty(parts: _Parts, modes: np.ndarray, ptabs: list[np.ndarray], rough: Any,
                sizes: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The in-memory fill of empty clusters (the row farthest from its mode, in a cluster
    of more than one row, moves to the first empty cluster; up to ``k`` times), one pass
    over the partitions per move."""
    sizes = sizes.copy()
    moved: dict[int, int] = {}
    for _ in range(k):
        empty = np.flatnonzero(sizes == 0)
        if empty.size == 0:
            break
        mv = _moves(moved)
        found = parts.map(_farthest, modes, ptabs, rough, mv, sizes, start=True)
        value, where, label = max(found, key=lambda t: (t[0], -t[1]))
        if not np.isfinite(value):
            break
        sizes[label] -= 1
        sizes[empty[0]] += 1
        moved[where] = int(empty[0])
    return _moves(moved) if moved else None


def _moves(moved: dict[int, int]) -> tuple[np.ndarray, np.ndarray]:
    return (np.fromiter(moved.keys(), dtype=np.int64, count=len(moved)),
            np.fromiter(moved.values(), dtype=np.int64, count=len(moved)))


def _farthest(codes: np.ndarray, modes: np.ndarray, ptabs: list[np.ndarray], rough: Any,
              moves: Any, sizes: np.ndarray, start: int) -> tuple[float, int, int]:
    codes = codes.astype(np.int64)
    value, where = D.kmodes_farthest_batch(codes, modes, ptabs, rough, moves, start, sizes)
    if where < 0:
        return value, where, -1
    labels, _ = D._assign(codes[where - start:where - start + 1], modes, ptabs, rough, moves,
                          where)
    return value, where, int(labels[0])


# ---------------------------------------------------------------------- LCA
def fit_lca_dask(est: Any, ddf: Any) -> Any:
    """:meth:`LCA.fit` of a Dask DataFrame (``est`` checked by ``fit``)."""
    meta = ddf._meta
    check_table(est, _probe(ddf), reset=True)
    cat = est._categorical_columns(meta)
    est.n_features_in_ = meta.shape[1]
    est.feature_names_in_ = np.asarray(meta.columns, dtype=object)
    est.feature_names_ = [str(c) for c in cat]
    parts = _Parts(ddf)
    hm = est.handle_missing

    cats = _categories_and_codes(parts, list(cat), hm)
    est.categories_ = cats
    est._offsets = np.concatenate([[0], np.cumsum([len(c) for c in cats])]).astype(np.int64)
    distinct = _distinct(parts)
    rs = check_random_state(est.random_state)
    if distinct is not None:  # the in-memory EM, on the same distinct rows
        uniq, weights = distinct.rows, distinct.counts.astype(np.float64)
        starts = [est._init(uniq, weights, rs) for _ in range(int(est.n_init))]
        step = est._stepper(uniq, weights)
    else:
        sample = parts.sample(int(SAMPLE_ROWS), int(rs.randint(np.iinfo(np.int32).max)))
        s_codes = D.encode_batch(sample, list(cat), cats, hm)
        uniq, counts = np.unique(s_codes, axis=0, return_counts=True)
        weights = counts.astype(np.float64)
        starts = [est._init(uniq, weights, rs) for _ in range(int(est.n_init))]
        rows = _partition_distinct(parts)
        step = _dask_step(est, parts, rows)
    n_total = float(parts.n)
    # EM with squared extrapolation, as in memory, one start at a time
    est._keep_best(squarem(step, est._offsets, lt, lp, int(est.max_iter), float(est.tol),
                           n_total) for lt, lp in starts)
    if distinct is not None:  # the in-memory arithmetic on the same rows
        est.entropy_ = relative_entropy(est._posterior(uniq), weights)
    else:  # sum_i w_i H(posterior_i), partition by partition
        terms = sum(parts.map(_entropy_terms, est, on=rows))
        K = int(est.n_clusters)
        est.entropy_ = 1.0 if K < 2 else float(1.0 - terms / (parts.n * np.log(K)))
    est.labels_ = predict_dask(est, ddf)
    return est


def _categories_and_codes(parts: _Parts, columns: list[str], hm: str) -> list[np.ndarray]:
    """One pass over the values: each partition factorised on its own (persisted), the
    categories merged, then each partition's codes remapped to them (persisted as the
    partition's codes, ``code_dtype`` bytes per cell)."""
    import dask

    local = list(dask.persist(*[dask.delayed(D.factorize_batch)(p, columns, hm)
                                for p in parts.frames]))

    def leaf(part: Any) -> list[np.ndarray]:
        return part[1]

    def merge(a: list[np.ndarray], b: list[np.ndarray]) -> list[np.ndarray]:
        return [union_categories(x, y) for x, y in zip(a, b, strict=True)]

    level = [dask.delayed(leaf)(p) for p in local]
    while len(level) > 1:
        level = [dask.delayed(merge)(level[i], level[i + 1]) if i + 1 < len(level)
                 else level[i] for i in range(0, len(level), 2)]
    (cats,) = dask.compute(level[0])
    dtype = code_dtype(cats)
    parts.codes = list(dask.persist(*[dask.delayed(D.remap_batch)(p, cats, dtype)
                                      for p in local]))
    return cats


def _partition_distinct(parts: _Parts) -> list[Any]:
    """Each partition's distinct rows and counts, persisted (LCA's E-steps read them)."""
    import dask

    return list(dask.persist(*[dask.delayed(D.distinct_batch)(c, int(s))
                               for c, s in zip(parts.codes, parts.starts, strict=True)]))


def _entropy_terms(distinct: D.Distinct, est: Any) -> float:
    """``sum_i w_i sum_c -p_ic log p_ic`` over a partition's distinct rows."""
    p = est._posterior(distinct.rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = np.where(p > 0, -p * np.log(p), 0.0).sum(axis=1)
    return float(distinct.counts.astype(np.float64) @ h)


def _dask_step(est: Any, parts: _Parts, rows: list[Any]
               ) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, float]]:
    """``LCA._stepper``'s EM step as a map-reduce pass over the partitions' distinct
    ``rows``: the E-step's expected counts and log-likelihood summed over the partitions,
    then the in-memory M-step."""
    n = float(parts.n)
    m = len(est._offsets) - 1

    def step(theta: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
        log_theta = np.log(np.maximum(theta, _FLOOR))
        log_pi = np.log(np.maximum(pi, _FLOOR))
        counts, ll = _sum(parts.map(_estep, est._offsets, log_theta, log_pi, on=rows))
        nk = counts.sum(axis=1) / m  # every column's counts sum to nk
        return counts / np.maximum(nk, _FLOOR)[:, None], nk / n, float(ll)

    return step


def _estep(distinct: D.Distinct, offsets: np.ndarray, log_theta: np.ndarray,
           log_pi: np.ndarray) -> tuple[np.ndarray, float]:
    return D.lca_estep_batch(distinct.rows, offsets, log_theta, log_pi, distinct.counts)
