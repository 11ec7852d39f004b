"""What each cluster means: its size and the values that characterise it (issue 38).

:func:`describe_clusters` gives, per cluster, the categorical values most over-represented
in it (their share in the cluster, their share overall and the lift, computed by
:func:`catembed.report._profiles.cluster_profiles`, the report's lift profiles: one rule in one
place) and, for numeric columns, the median (and interquartile range) in the cluster against the
whole table's. :func:`attach_profiles` sets a fitted clusterer's ``profiles_``;
:func:`profile_lines` is the short block that ``catembed cluster`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._utils._progress import step
from .._utils._validation import CatEmbedError, as_frame, select_categorical
from ..stats._numeric import as_float, is_numeric

__all__ = ["PROFILE_COLUMNS", "attach_profiles", "describe_clusters", "profile_lines"]

#: the columns of :func:`describe_clusters`' frame, in order
PROFILE_COLUMNS = ["cluster", "size", "column", "value", "share_in_cluster", "share_overall",
                   "lift", "median_in_cluster", "median_overall", "iqr_in_cluster",
                   "iqr_overall", "shift"]


def describe_clusters(X: Any, labels: Any, *, numeric_features: Sequence[Any] | None = None,
                      top: int = 5, min_support: float = 0.05) -> pd.DataFrame:
    """Per cluster, its size and the values that characterise it (a tidy frame).

    Categorical columns: the ``top`` values of largest lift ``P(v | c) / P(v)`` held by at
    least ``min_support`` of the cluster, with ``share_in_cluster`` (``P(v | c)``),
    ``share_overall`` (``P(v)``) and ``lift``; missing counts as the value ``"(missing)"``
    (:func:`catembed.report._profiles.cluster_profiles`). Numeric columns: a row with ``value``
    ``"median"``, the median and interquartile range of the column in the cluster and in the
    whole table (missing numbers left out), and ``shift``, the difference of the medians in
    units of the overall interquartile range (of the standard deviation where that is 0);
    the ``top`` numeric columns of largest ``|shift|`` are kept per cluster. Linear in the
    rows for the counts (one ``bincount`` per column), ``n log n`` for the medians.

    Parameters
    ----------
    X : DataFrame or array-like of shape (n_samples, n_features)
        The table as clustered, numbers as numbers (not their bins).
    labels : array-like of shape (n_samples,)
        One cluster label per row.
    numeric_features : list of column names, optional
        The numeric columns. ``None``: as :class:`~catembed.cluster.Consensus` reads the
        table by default: the numeric columns beside object, string, category or bool
        columns; in a table with none of those, the real-valued (float) columns.
    top : int, default=5
        Categorical values (and numeric columns) kept per cluster.
    min_support : float, default=0.05
        Values held by less than this share of the cluster are left out.

    Returns
    -------
    DataFrame
        Columns :data:`PROFILE_COLUMNS`; clusters in sorted order, each with its categorical
        rows (largest lift first), then its numeric rows (largest ``|shift|`` first). The
        columns that do not apply to a row are NaN.
    """
    df = as_frame(X)
    y = np.asarray(labels)
    if y.shape != (len(df),):
        raise CatEmbedError(f"labels must have one label per row ({len(df)}); got shape "
                            f"{y.shape}.")
    if isinstance(top, bool) or not isinstance(top, (int, np.integer)) or top < 1:
        raise CatEmbedError(f"top must be a positive integer; got {top!r}.")
    numeric = _numeric_columns(df, numeric_features)
    categorical = [c for c in df.columns if c not in set(numeric)]
    clusters, codes = np.unique(y, return_inverse=True)
    sizes = np.bincount(codes, minlength=len(clusters))
    parts = []
    if categorical and len(df):
        from ..report._profiles import cluster_profiles

        cat = cluster_profiles(df[categorical], y, top=int(top), min_support=min_support,
                               n_bins=None)  # these columns are categories, numbers or not
        parts.append(cat.rename(columns={"attribute": "column", "in_cluster": "share_in_cluster",
                                         "overall": "share_overall"}).assign(_kind=0))
    if numeric and len(df):
        parts.append(_numeric_rows(df, numeric, codes, clusters, sizes, int(top)))
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in PROFILE_COLUMNS})
    out = pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)
    order = {c: i for i, c in enumerate(clusters.tolist())}
    out["_c"] = out["cluster"].map(order)
    out = out.sort_values(["_c", "_kind"], kind="stable").reset_index(drop=True)
    out["column"] = out["column"].astype(str)
    return out.reindex(columns=PROFILE_COLUMNS)


def _numeric_columns(df: pd.DataFrame, given: Sequence[Any] | None) -> list[Any]:
    if given is None:
        cat, other = select_categorical(df, "auto")
        if not other:  # no column of a categorical kind: the real-valued columns are numbers
            return [c for c in df.columns if pd.api.types.is_float_dtype(df[c].dtype)]
        return [c for c in other if is_numeric(df[c])]
    names = {str(c): c for c in df.columns}
    want = [str(c) for c in ([given] if isinstance(given, str) else given)]
    unknown = [c for c in want if c not in names]
    if unknown:
        raise CatEmbedError(f"numeric_features names column(s) not in the table: "
                            f"{', '.join(unknown[:10])}.")
    bad = [c for c in want if not (is_numeric(df[names[c]]) or df[names[c]].isna().all())]
    if bad:
        raise CatEmbedError(f"numeric_features column(s) {', '.join(bad[:10])} do not hold "
                            "numbers; leave them out of numeric_features.")
    keep = set(want)
    return [c for c in df.columns if str(c) in keep]


def _quantiles(xs: np.ndarray, start: np.ndarray, count: np.ndarray,
               q: float) -> np.ndarray:
    """The ``q`` quantile (NumPy's linear rule) of each group of the sorted ``xs`` whose
    ``count`` values start at ``start``; NaN for an empty group."""
    pos = start + q * np.maximum(count - 1, 0)
    lo = np.floor(pos).astype(np.int64)
    hi = np.minimum(lo + 1, start + np.maximum(count - 1, 0))
    ok = count > 0
    out = np.full(len(count), np.nan)
    if xs.size:
        a, b = xs[np.where(ok, lo, 0)], xs[np.where(ok, hi, 0)]
        out = np.where(ok, a + (b - a) * (pos - lo), np.nan)
    return out


def _numeric_rows(df: pd.DataFrame, numeric: list[Any], codes: np.ndarray,
                  clusters: np.ndarray, sizes: np.ndarray, top: int) -> pd.DataFrame:
    k = len(clusters)
    frames = []
    for c in numeric:
        x = as_float(df[c])
        ok = ~np.isnan(x)
        xv, cv = x[ok], codes[ok]
        order = np.lexsort((xv, cv))
        xs = xv[order]
        count = np.bincount(cv, minlength=k)
        start = np.cumsum(count) - count
        q1, med, q3 = (_quantiles(xs, start, count, q) for q in (0.25, 0.5, 0.75))
        if xv.size:
            a1, am, a3 = np.quantile(xv, [0.25, 0.5, 0.75])
            scale = a3 - a1
            if not scale > 0:
                scale = float(np.std(xv))
            scale = scale if scale > 0 else 1.0
        else:
            a1 = am = a3 = np.nan
            scale = 1.0
        frames.append(pd.DataFrame({
            "cluster": clusters, "size": sizes, "column": str(c), "value": "median",
            "median_in_cluster": med, "median_overall": am, "iqr_in_cluster": q3 - q1,
            "iqr_overall": a3 - a1, "shift": (med - am) / scale}))
    out = pd.concat(frames, ignore_index=True)
    out["_abs"] = out["shift"].abs().fillna(-1.0)
    out = out.sort_values(["cluster", "_abs"], ascending=[True, False], kind="stable")
    out = out.groupby("cluster", sort=True).head(top).drop(columns="_abs")
    return out.assign(_kind=1)


def attach_profiles(estimator: Any, X: Any, labels: Any, *, top: int = 5) -> Any:
    """Set ``estimator.profiles_`` to :func:`describe_clusters` of ``X`` and ``labels``.

    The hook a clusterer calls at the end of ``fit`` (``X``: the table as given to ``fit``,
    numbers as numbers); the numeric columns are the estimator's ``numeric_features_``
    when it has them. Returns the estimator.
    """
    step("describing the clusters")
    df = as_frame(X)
    names = getattr(estimator, "numeric_features_", None)
    numeric = None
    if names is not None:
        wanted = {str(c) for c in names}
        numeric = [c for c in df.columns if str(c) in wanted]
    estimator.profiles_ = describe_clusters(df, labels, numeric_features=numeric, top=top)
    return estimator


def _number(v: float) -> str:
    return f"{v:.4g}" if np.isfinite(v) else "nan"


def profile_lines(profiles: pd.DataFrame, n_rows: int, *, per_cluster: int = 3,
                  min_shift: float = 0.5, stability: dict | None = None) -> list[str]:
    """The printed summary of :func:`describe_clusters`' frame: a line per cluster with
    its size and its ``per_cluster`` most characteristic values, e.g.
    ``cluster 0 (n=41, 40.6%): legs=4 (x2.1), hair=1 (x1.8), age median 52 (all 40)``.

    The values are the categorical ones of largest lift above 1; a numeric column whose
    median moved by at least ``min_shift`` of the overall interquartile range takes the last
    place (every place if no categorical value qualifies). ``stability``: cluster -> a
    note printed after the share (``"Jaccard 0.91 stable"``)."""
    lines = []
    for cluster, rows in profiles.groupby("cluster", sort=True):
        size = int(rows["size"].iloc[0])
        cats = rows[rows["lift"] > 1.0]
        nums = rows[rows["lift"].isna() & (rows["shift"].abs() >= min_shift)]
        n_num = min(len(nums), 1 if len(cats) else per_cluster)
        items = [f"{r.column}={r.value} (x{r.lift:.1f})"
                 for r in cats.head(per_cluster - n_num).itertuples()]
        items += [f"{r.column} median {_number(r.median_in_cluster)} (all "
                  f"{_number(r.median_overall)})" for r in nums.head(n_num).itertuples()]
        share = 100.0 * size / n_rows if n_rows else 0.0
        note = f", {stability[cluster]}" if stability and cluster in stability else ""
        lines.append(f"cluster {cluster} (n={size}, {share:.0f}%{note}): "
                     + (", ".join(items) if items else "no value stands out"))
    return lines
