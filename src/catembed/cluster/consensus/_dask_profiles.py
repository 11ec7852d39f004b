"""``profiles_`` of a Dask fit from every row, by reduced counts (issue 56).

:func:`dask_profiles` gives :func:`~catembed.cluster.describe_clusters`' frame of a
Dask DataFrame and its lazy labels without gathering the rows: each partition gives, per
categorical column, its counts per (value, cluster) and, per numeric column, each cluster's
count of numbers, mean and sum of squared deviations; the partitions' results are merged by a
tree reduction (counts add; means and sums of squares by Chan's rule). The value rows (counts,
shares, hypergeometric tests, chi-square) and the numeric rows' means, standard deviations,
v-tests and ``Eta2`` are then those of the whole table (the counts equal, the numbers' figures
to about 1e-12 relative). Medians, interquartile ranges, ``shift`` and the paragons are not
additive: they are read from the sample fit's profiles (its rows and labels). The per-partition
step (:func:`partition_counts`) and the merge (:func:`merge_counts`) are plain functions of a
pandas frame and of their own results, for another engine to reuse.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ...stats._numeric import as_float
from ...stats._profile_tests import numeric_tests_moments
from ._describe import _category_frame, _ordered

__all__ = ["dask_profiles", "merge_counts", "partition_counts", "tree_merge"]

#: the columns read from the sample fit's profiles (not additive over partitions)
SAMPLE_COLUMNS = ["median_in_cluster", "median_overall", "iqr_in_cluster", "iqr_overall",
                  "shift"]


def partition_counts(part: pd.DataFrame, labels: Any, numeric: list[Any]) -> dict | None:
    """One partition's counts: ``clusters`` (its labels, sorted), ``sizes``, ``cat`` (column
    -> ``(values, counts)``, values sorted as text, counts ``(n_values, n_clusters)``) and
    ``num`` (column -> ``(count, mean, m2)`` per cluster, missing numbers left out)."""
    from ...stats._profiles import _text_codes

    y = np.asarray(labels)
    if not len(y):
        return None
    clusters, codes = np.unique(y, return_inverse=True)
    k = len(clusters)
    out: dict[str, Any] = {"clusters": clusters, "sizes": np.bincount(codes, minlength=k),
                           "cat": {}, "num": {}}
    categorical = [c for c in part.columns if c not in set(numeric)]
    dtypes = part.dtypes
    fast = [c for c in categorical if isinstance(dtypes[c], pd.CategoricalDtype)]
    slow = [c for c in categorical if c not in set(fast)]
    coded = [_category_codes(col, part[col]) for col in fast]
    if slow:
        coded += list(_text_codes(part[slow]))
    for col, vcodes, uniques in sorted(coded, key=lambda t: categorical.index(t[0])):
        table = np.bincount(vcodes * k + codes, minlength=len(uniques) * k)
        out["cat"][col] = (np.asarray(uniques, dtype=object), table.reshape(-1, k))
    for col in numeric:
        x = as_float(part[col])
        ok = ~np.isnan(x)
        xv, cv = x[ok], codes[ok]
        count = np.bincount(cv, minlength=k).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(count > 0, np.bincount(cv, weights=xv, minlength=k) / count, 0.0)
        m2 = np.bincount(cv, weights=(xv - mean[cv]) ** 2, minlength=k)
        out["num"][col] = (count, mean, m2)
    return out


def _category_codes(col: Any, column: pd.Series) -> tuple[Any, np.ndarray, np.ndarray]:
    """``_text_codes``' ``(name, codes, sorted texts)`` of a pandas categorical column from
    its categories (a few texts), not its cells: the categories' texts by the same rule
    (``value_texts``), missing cells ``"(missing)"``, only the texts that occur. Equal to
    ``_text_codes``' (which turns every cell into a text: 2 us a cell)."""
    from ..._utils._text import value_texts

    cat = column.cat
    raw = np.asarray(cat.codes.to_numpy(), dtype=np.int64)
    texts = np.append(value_texts(np.asarray(cat.categories, dtype=object)), "(missing)")
    raw = np.where(raw < 0, len(texts) - 1, raw)
    used = np.flatnonzero(np.bincount(raw, minlength=len(texts)))
    of_used, uniques = pd.factorize(texts[used].astype(object), sort=True)
    lookup = np.zeros(len(texts), dtype=np.int64)
    lookup[used] = of_used
    return col, lookup[raw], np.asarray(uniques, dtype=object)


def _place(a: np.ndarray, keys: np.ndarray) -> np.ndarray:
    return np.searchsorted(keys, a)


def merge_counts(a: dict | None, b: dict | None) -> dict | None:
    """Two parts' :func:`partition_counts` as one (clusters and values united)."""
    if a is None or b is None:
        return a if b is None else b
    clusters = np.union1d(a["clusters"], b["clusters"])
    ia, ib = _place(a["clusters"], clusters), _place(b["clusters"], clusters)
    k = len(clusters)
    sizes = np.zeros(k, dtype=np.int64)
    sizes[ia] += a["sizes"]
    sizes[ib] += b["sizes"]
    cat = {}
    for col, (va, ta) in a["cat"].items():
        vb, tb = b["cat"][col]
        values = np.asarray(sorted(set(va.tolist()) | set(vb.tolist())), dtype=object)
        table = np.zeros((len(values), k), dtype=np.int64)
        table[np.ix_(_place(va, values), ia)] += ta
        table[np.ix_(_place(vb, values), ib)] += tb
        cat[col] = (values, table)
    num = {}
    for col, (na, ma, sa) in a["num"].items():
        nb, mb, sb = b["num"][col]
        n1, m1, s1, n2, m2, s2 = (np.zeros(k) for _ in range(6))
        n1[ia], m1[ia], s1[ia] = na, ma, sa
        n2[ib], m2[ib], s2[ib] = nb, mb, sb
        n = n1 + n2
        with np.errstate(divide="ignore", invalid="ignore"):
            delta = m2 - m1
            mean = np.where(n > 0, m1 + delta * np.where(n > 0, n2 / n, 0.0), 0.0)
            ss = s1 + s2 + np.where(n > 0, delta ** 2 * n1 * n2 / n, 0.0)
        num[col] = (n, mean, ss)
    return {"clusters": clusters, "sizes": sizes, "cat": cat, "num": num}


def reduce_counts(ddf: Any, labels: Any, numeric: list[Any]) -> dict | None:
    """:func:`partition_counts` of every partition of ``ddf`` (``labels``: a Dask Series
    with the same partitions) merged by a tree reduction: one pass over the rows."""
    import dask

    level = [dask.delayed(partition_counts)(p, y, numeric)
             for p, y in zip(ddf.to_delayed(), labels.to_delayed(), strict=True)]
    (out,) = dask.compute(tree_merge(level, dask.delayed(merge_counts)))
    return out


def tree_merge(level: list[Any], merge: Any = merge_counts) -> Any:
    """The partitions' counts merged pairwise, level by level (the order fixes the floating
    point sums of the numeric moments): ``merge`` a delayed ``merge_counts`` to build a graph,
    or ``merge_counts`` itself on computed counts (the same order, the same result)."""
    level = list(level)
    if not level:
        return None
    while len(level) > 1:
        level = [merge(level[i], level[i + 1]) if i + 1 < len(level) else level[i]
                 for i in range(0, len(level), 2)]
    return level[0]


def profiles_from_counts(counts: dict | None, numeric: list[Any],
                         sample: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`describe_clusters`' frame (``top=None``, no ``proba``) from reduced counts;
    medians, interquartile ranges, ``shift`` and paragon rows from ``sample`` (a sample's
    ``describe_clusters`` frame; NaN and no paragons without one)."""
    if counts is None:
        return _ordered([], np.zeros(0))
    clusters, sizes = counts["clusters"], counts["sizes"]
    parts = []
    if counts["cat"]:
        tables = []
        for col, (values, table) in counts["cat"].items():
            seen = table.sum(axis=1) > 0
            tables.append((col, table[seen], values[seen]))
        parts.append(_category_frame(tables, clusters, sizes, None, 0.0))
    frames = []
    for col in numeric:
        count, mean, m2 = counts["num"][col]
        t = numeric_tests_moments(count, mean, m2)
        frames.append(pd.DataFrame({
            "cluster": clusters, "size": sizes, "column": str(col), "value": "median",
            "kind": "number", "count": count.astype(np.int64), "p.value": t["p.value"],
            "v.test": t["v.test"], "column_test": "F", "column_p.value": t["F p.value"],
            "Eta2": t["Eta2"], "mean_in_cluster": t["mean_in_cluster"],
            "mean_overall": t["mean_overall"], "sd_in_cluster": t["sd_in_cluster"],
            "sd_overall": t["sd_overall"]}))
    if frames:
        num = pd.concat(frames, ignore_index=True)
        for name in SAMPLE_COLUMNS:
            num[name] = np.nan
        if sample is not None and len(sample):
            rows = sample[sample["kind"] == "number"].set_index(["cluster", "column"])
            key = pd.MultiIndex.from_arrays([num["cluster"], num["column"]])
            for name in SAMPLE_COLUMNS:
                num[name] = rows[name].reindex(key).to_numpy(dtype=np.float64)
        parts.append(num)
    if sample is not None and len(sample):
        para = sample[sample["kind"] == "paragon"]
        if len(para):
            size = dict(zip(clusters.tolist(), sizes.tolist(), strict=True))
            para = para.assign(size=para["cluster"].map(size))
            parts.append(para[para["size"].notna()].reindex(
                columns=["cluster", "size", "column", "value", "kind", "distance"]))
    return _ordered(parts, clusters)


def dask_profiles(est: Any, ddf: Any, labels: Any) -> pd.DataFrame:
    """``est.profiles_`` of a Dask fit: the reduced counts of ``ddf`` and its lazy
    ``labels``, the sample fit's ``profiles_`` (``est.profiles_`` on entry) for the medians,
    interquartile ranges and paragons. The numeric columns are ``est.numeric_features_``."""
    wanted = {str(c) for c in getattr(est, "numeric_features_", None) or []}
    numeric = [c for c in ddf.columns if str(c) in wanted]
    sample = getattr(est, "profiles_", None)
    return profiles_from_counts(reduce_counts(ddf, labels, numeric), numeric, sample)
