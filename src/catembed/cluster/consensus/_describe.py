"""What each cluster means: its size and the values that characterise it (issues 38, 54).

:func:`describe_clusters` gives, per cluster and value, the statistics of FactoMineR's
``catdes``: the share of the cluster holding the value, the share of the value that falls in
the cluster and the share overall, the hypergeometric test's p-value and v-test (over- and
under-representation), per categorical column the chi-square test of the column against the
partition, per numeric column its correlation ratio ``Eta2``, its v-test, mean, standard
deviation, median and interquartile range in the cluster and overall, and the paragons (the
rows closest to each centre) when an embedding is given. The tests are
:mod:`catembed.stats._profile_tests`'; the lift (``share_in_cluster / share_overall``) is the
report's (:func:`catembed.stats._profiles.cluster_profiles`). :func:`attach_profiles` sets a
fitted clusterer's ``profiles_``; :func:`profile_lines` is the short block that ``catembed
cluster`` prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ..._utils._errors import named
from ..._utils._params import is_real
from ..._utils._progress import step
from ..._utils._validation import CatEmbedError, as_frame, select_categorical
from ...stats._numeric import as_float, is_numeric
from ...stats._profile_tests import chi2_test, numeric_tests, paragons, value_tests_many

__all__ = ["PROFILE_COLUMNS", "PROBA", "attach_profiles", "describe_clusters",
           "profile_lines", "summary_rows"]

#: the columns of :func:`describe_clusters`' frame, in order: those of issue 38, then issue 54's
PROFILE_COLUMNS = ["cluster", "size", "column", "value", "share_in_cluster", "share_overall",
                   "lift", "median_in_cluster", "median_overall", "iqr_in_cluster",
                   "iqr_overall", "shift",
                   "kind", "count", "Cla/Mod", "Mod/Cla", "Global", "p.value", "v.test",
                   "column_test", "column_statistic", "column_df", "column_p.value", "Eta2",
                   "mean_in_cluster", "mean_overall", "sd_in_cluster", "sd_overall",
                   "distance"]

#: the significance level of the printed summary (FactoMineR's ``catdes`` default ``proba``)
PROBA = 0.05

_KIND_ORDER = {"category": 0, "number": 1, "paragon": 2}


def describe_clusters(X: Any, labels: Any, *, numeric_features: Sequence[Any] | None = None,
                      top: int | None = None, min_support: float = 0.0,
                      proba: float | None = None, embedding: Any = None, centers: Any = None,
                      n_paragons: int = 5) -> pd.DataFrame:
    """Per cluster, its size and the values that characterise it, ranked by v-test.

    One row per cluster and categorical value (``kind`` ``"category"``): ``count`` (rows
    of the cluster holding the value), ``share_in_cluster`` (``P(v | c)``), ``share_overall``
    (``P(v)``), ``lift`` (their ratio), FactoMineR's ``Cla/Mod`` (``100 P(c | v)``),
    ``Mod/Cla`` and ``Global`` (the two shares in percent), the hypergeometric ``p.value``
    (two-sided) and ``v.test`` (its normal quantile: positive for a value over-represented in
    the cluster, negative under-represented), and the column's chi-square test against the
    partition (``column_test`` ``"chi2"``, ``column_statistic``, ``column_df``,
    ``column_p.value``); missing counts as the value ``"(missing)"``. One row per cluster
    and numeric column (``kind`` ``"number"``, ``value`` ``"median"``): ``v.test`` ``(mean_c
    - mean) / sqrt(var / n_c (N - n_c) / (N - 1))`` and its normal ``p.value``, ``Eta2``
    (the correlation ratio) with the analysis of variance's F-test (``column_test`` ``"F"``,
    ``column_p.value``), the mean, standard deviation (divided by the count), median and
    interquartile range in the cluster and overall, and ``shift``, the difference of the
    medians in units of the overall interquartile range (of the standard deviation where that
    is 0); missing numbers are left out. With an ``embedding``, ``n_paragons`` rows per
    cluster (``kind`` ``"paragon"``, ``column`` ``"(paragon)"``, ``value`` the row's index
    label, ``distance`` to the centre): the rows closest to its centre; without one there are
    no paragons. The statistics are :mod:`catembed.stats._profile_tests`' (equal to
    FactoMineR's ``catdes`` to 1e-6, tested where R is installed). Linear in the rows for the
    counts (one ``bincount`` per column), ``n log n`` for the medians and paragons.

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
    top : int or None, default=None
        None: every value of every column. An integer: per cluster the ``top`` values of
        largest positive v-test, the ``top`` of most negative v-test and the ``top`` numeric
        columns of largest ``|v.test|``.
    min_support : float, default=0.0
        Over-represented values held by less than this share of the cluster are left out.
    proba : float or None, default=None
        Keep only the value and number rows whose ``p.value`` is at most ``proba``
        (FactoMineR's ``catdes`` keeps ``proba=0.05``); None keeps them all.
    embedding : array-like of shape (n_samples, n_coordinates), optional
        Coordinates of the rows, for the paragons.
    centers : array-like of shape (n_clusters, n_coordinates), optional
        The clusters' centres in ``embedding``, in the sorted order of the labels; None: the
        mean of each cluster's coordinates.
    n_paragons : int, default=5

    Returns
    -------
    DataFrame
        Columns :data:`PROFILE_COLUMNS`; clusters in sorted order, each with its value rows
        (largest v-test first: what the cluster is, then at the end what it is not), its
        numeric rows (largest v-test first), then its paragons (nearest first). The columns
        that do not apply to a row are NaN.
    """
    return _described(as_frame(X), labels, numeric_features, top, min_support, proba,
                      embedding, centers, n_paragons)


def _described(df: pd.DataFrame, labels: Any, numeric_features: Sequence[Any] | None,
               top: int | None, min_support: float, proba: float | None, embedding: Any,
               centers: Any, n_paragons: int,
               known: dict[Any, tuple[np.ndarray, np.ndarray]] | None = None) -> pd.DataFrame:
    """:func:`describe_clusters` of a table already checked by ``as_frame``; ``known``:
    columns whose value codes and sorted texts are known already (:func:`_fit_codes`), spared
    factorising again."""
    y = np.asarray(labels)
    if y.shape != (len(df),):
        raise CatEmbedError(f"labels must have one label per row ({len(df)}); got shape "
                            f"{y.shape}.")
    for name, value in (("top", top), ("n_paragons", n_paragons)):
        if value is None and name == "top":
            continue
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise CatEmbedError(f"{name} must be a positive integer; got {value!r}.")
    if proba is not None and not (is_real(proba) and 0 <= proba <= 1):
        raise CatEmbedError(f"proba must be a number in [0, 1] or None; got {proba!r}.")
    numeric = _numeric_columns(df, numeric_features)
    categorical = [c for c in df.columns if c not in set(numeric)]
    clusters, codes = np.unique(y, return_inverse=True)
    sizes = np.bincount(codes, minlength=len(clusters))
    parts = []
    if categorical and len(df):
        parts.append(_category_rows(df[categorical], codes, clusters, sizes, top,
                                    float(min_support), known or {}))
    if numeric and len(df):
        parts.append(_numeric_rows(df, numeric, codes, clusters, sizes, top))
    if proba is not None:
        parts = [p[p["p.value"] <= proba] for p in parts]
    if embedding is not None and len(df):
        parts.append(_paragon_rows(df.index, embedding, centers, codes, clusters, sizes,
                                   int(n_paragons)))
    return _ordered(parts, clusters)


def _ordered(parts: list[pd.DataFrame], clusters: np.ndarray) -> pd.DataFrame:
    """The parts' rows in :func:`describe_clusters`' order and columns."""
    if not parts:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in PROFILE_COLUMNS})
    out = pd.concat([p for p in parts if len(p)] or parts[:1], ignore_index=True)
    order = {c: i for i, c in enumerate(clusters.tolist())}
    out["_c"] = out["cluster"].map(order)
    out["_k"] = out["kind"].map(_KIND_ORDER)
    out["_v"] = -out["v.test"].fillna(0.0) if "v.test" in out else 0.0
    out = out.sort_values(["_c", "_k", "_v"], kind="stable").reset_index(drop=True)
    out["column"] = out["column"].astype(str)
    return out.reindex(columns=PROFILE_COLUMNS)


def _category_rows(df: pd.DataFrame, codes: np.ndarray, clusters: np.ndarray,
                   sizes: np.ndarray, top: int | None, min_support: float,
                   known: dict[Any, tuple[np.ndarray, np.ndarray]]) -> pd.DataFrame:
    """A row per cluster and value of every categorical column of ``df``; with ``top``, the
    ``top`` most over- and under-represented values of each cluster. ``known``: the codes
    and sorted texts of some columns, as :func:`~catembed.stats._profiles._text_codes`
    would find them."""
    from ...stats._profiles import _text_codes

    k = len(clusters)
    tables = []
    rest = _text_codes(df[[c for c in df.columns if c not in known]] if known else df)
    for col, vcodes, uniques in (
            (c, *known[c]) if c in known else next(rest) for c in df.columns):
        table = np.bincount(vcodes * k + codes, minlength=len(uniques) * k).reshape(
            len(uniques), k)
        seen = table.sum(axis=1) > 0
        tables.append((col, table[seen], np.asarray(uniques, dtype=object)[seen]))
    return _category_frame(tables, clusters, sizes, top, min_support)


def _category_frame(tables: list[tuple[Any, np.ndarray, np.ndarray]], clusters: np.ndarray,
                    sizes: np.ndarray, top: int | None, min_support: float) -> pd.DataFrame:
    """:func:`_category_rows` from each column's ``(name, counts, values)``: the counts of
    shape ``(n_values, n_clusters)`` (each value seen), the values sorted as text."""
    k = len(clusters)
    cols: dict[str, list[Any]] = {name: [] for name in (
        "cluster", "column", "value", "count", "Cla/Mod", "Mod/Cla", "Global", "p.value",
        "v.test", "column_statistic", "column_df", "column_p.value")}
    all_tests = value_tests_many([t for _, t, _ in tables])
    for (col, table, uniques), tests in zip(tables, all_tests, strict=True):
        stat, dof, p = chi2_test(table)
        cols["cluster"].append(np.tile(np.arange(k), len(uniques)))
        cols["column"].append(np.full(table.size, str(col), dtype=object))
        cols["value"].append(np.repeat(uniques, k))
        cols["count"].append(table.ravel())
        for name in ("Cla/Mod", "Mod/Cla", "Global", "p.value", "v.test"):
            cols[name].append(tests[name].ravel())
        for name, v in (("column_statistic", stat), ("column_df", dof), ("column_p.value", p)):
            cols[name].append(np.full(table.size, v, dtype=np.float64))
    out = pd.DataFrame({name: np.concatenate(v) for name, v in cols.items()})
    c = out["cluster"].to_numpy()
    out["cluster"] = clusters[c]
    out["size"] = sizes[c]
    out["share_in_cluster"] = out["Mod/Cla"] / 100.0
    out["share_overall"] = out["Global"] / 100.0
    out["lift"] = out["count"] / sizes[c] / (out["Global"] / 100.0)
    out["kind"], out["column_test"] = "category", "chi2"
    v = out["v.test"].to_numpy()
    if top is None:
        keep = ~((v > 0) & (out["share_in_cluster"].to_numpy() < min_support))
        return out[keep]
    ranked = out.assign(_c=c, _v=-v).sort_values(["_c", "_v"], kind="stable")
    over = ranked[(ranked["_v"] < 0) & (ranked["share_in_cluster"] >= min_support)]
    under = ranked[ranked["_v"] > 0].iloc[::-1]
    picked = pd.concat([over.groupby("_c").head(top), under.groupby("_c").head(top)])
    return picked.sort_index().drop(columns=["_c", "_v"])


def _paragon_rows(index: pd.Index, embedding: Any, centers: Any, codes: np.ndarray,
                  clusters: np.ndarray, sizes: np.ndarray, n_paragons: int) -> pd.DataFrame:
    Z = _floats(embedding)
    if Z.ndim != 2 or len(Z) != len(codes):
        raise CatEmbedError(f"embedding must have one row per row of the table ({len(codes)});"
                            f" got shape {Z.shape}.")
    k = len(clusters)
    if centers is None:
        counts = np.maximum(sizes, 1)[:, None]
        centers = np.stack([np.bincount(codes, weights=Z[:, j], minlength=k)
                            for j in range(Z.shape[1])], axis=1) / counts
    centers = np.asarray(centers, dtype=np.float64)
    if centers.shape != (k, Z.shape[1]):
        raise CatEmbedError(f"centers must have one row per cluster ({k}) and the embedding's "
                            f"{Z.shape[1]} columns; got shape {centers.shape}.")
    found = paragons(Z, codes, centers, n_paragons)
    c = np.array([f[0] for f in found], dtype=np.int64)
    return pd.DataFrame({
        "cluster": clusters[c], "size": sizes[c], "column": "(paragon)",
        "value": [str(index[f[2]]) for f in found], "kind": "paragon",
        "distance": [f[3] for f in found]})


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
                            f"{named(unknown)}.")
    bad = [c for c in want if not (is_numeric(df[names[c]]) or df[names[c]].isna().all())]
    if bad:
        raise CatEmbedError(f"numeric_features column(s) {named(bad)} do not hold "
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
                  clusters: np.ndarray, sizes: np.ndarray, top: int | None) -> pd.DataFrame:
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
        t = numeric_tests(x, codes, k)
        frames.append(pd.DataFrame({
            "cluster": clusters, "size": sizes, "column": str(c), "value": "median",
            "median_in_cluster": med, "median_overall": am, "iqr_in_cluster": q3 - q1,
            "iqr_overall": a3 - a1, "shift": (med - am) / scale, "kind": "number",
            "count": count, "p.value": t["p.value"], "v.test": t["v.test"],
            "column_test": "F", "column_p.value": t["F p.value"], "Eta2": t["Eta2"],
            "mean_in_cluster": t["mean_in_cluster"], "mean_overall": t["mean_overall"],
            "sd_in_cluster": t["sd_in_cluster"], "sd_overall": t["sd_overall"]}))
    out = pd.concat(frames, ignore_index=True)
    if top is None:
        return out
    out["_abs"] = out["v.test"].abs().fillna(-1.0)
    out = out.sort_values(["cluster", "_abs"], ascending=[True, False], kind="stable")
    return out.groupby("cluster", sort=True).head(top).drop(columns="_abs")


def attach_profiles(estimator: Any, X: Any, labels: Any, *, top: int | None = None,
                    codes: Any = None, checked: bool = False) -> Any:
    """Set ``estimator.profiles_`` to :func:`describe_clusters` of ``X`` and ``labels``.

    The hook a clusterer calls at the end of ``fit`` (``X``: the table as given to ``fit``,
    numbers as numbers); the numeric columns are the estimator's ``numeric_features_``
    when it has them. An estimator with ``cluster_centers_`` and ``transform`` (whose
    coordinates' nearest centre is the label, as :class:`~catembed.cluster.Consensus`'s)
    gets the paragons: the rows nearest each centre in those coordinates (``codes``: the
    rows' value codes as the estimator's fit encoded them, given to its ``_coordinates_of``
    to spare encoding the table again; ``checked``: ``X`` is the frame the fit checked, not
    converted again). Returns the estimator.
    """
    step("describing the clusters")
    df = X if checked else as_frame(X)
    names = getattr(estimator, "numeric_features_", None)
    numeric = None
    if names is not None:
        wanted = {str(c) for c in names}
        numeric = [c for c in df.columns if str(c) in wanted]
    Z, centers = _coordinates(estimator, df, labels, codes)
    estimator.profiles_ = _described(df, labels, numeric, top, 0.0, None, Z, centers, 5,
                                     _fit_codes(estimator, df, codes, numeric or []))
    return estimator


def _fit_codes(estimator: Any, df: pd.DataFrame, codes: Any, numeric: list[Any]
               ) -> dict[Any, tuple[np.ndarray, np.ndarray]]:
    """The text columns of ``df`` whose codes the fit made (``codes``, in the estimator's
    ``feature_names_`` and ``categories_``) are those of the profiles' text codes: no value
    missing, every category a ``str`` and the categories strictly ascending as text (the
    order of ``pd.factorize(..., sort=True)``). Issue 55: factorising 100k x 20 text cells
    again was most of the profiles' 0.4 s."""
    names, cats = getattr(estimator, "feature_names_", None), getattr(estimator, "categories_",
                                                                      None)
    if codes is None or names is None or cats is None or len(codes) != len(df):
        return {}
    position = {f: j for j, f in enumerate(names)}
    if len(position) != len(names) or len({str(c) for c in df.columns}) != df.shape[1]:
        return {}
    known = {}
    for col, dtype in zip(df.columns, df.dtypes, strict=True):
        j = position.get(str(col))
        if j is None or col in numeric or not (pd.api.types.is_object_dtype(dtype)
                                               or pd.api.types.is_string_dtype(dtype)):
            continue
        values = cats[j]
        if not len(values) or not all(type(v) is str for v in values) or not all(
                a < b for a, b in zip(values[:-1], values[1:], strict=True)):
            continue
        column = np.asarray(codes[:, j], dtype=np.intp)
        if len(column) and column.min() >= 0 and column.max() < len(values):
            known[col] = (column, np.asarray(values, dtype=object))
    return known


def _floats(Z: Any) -> np.ndarray:
    """``Z`` as an array of floats: float32 coordinates stay float32 (the paragons convert
    them a block at a time, exactly), anything else becomes float64."""
    Z = np.asarray(Z)
    return Z if Z.dtype.kind == "f" else Z.astype(np.float64)


def _coordinates(estimator: Any, df: pd.DataFrame, labels: Any,
                 codes: Any = None) -> tuple[Any, Any]:
    """The rows' coordinates and the centres of the clusters present, in sorted label order,
    when the estimator has both and its labels index its centres; else ``(None, None)``."""
    # the coordinates the fit clustered, kept by it for this call (Consensus: issue 55)
    fitted = vars(estimator).pop("_fit_coordinates", None) if codes is not None else None
    centers = getattr(estimator, "cluster_centers_", None)
    coordinates = getattr(estimator, "_coordinates_of", None) or getattr(
        estimator, "transform", None)
    y = np.asarray(labels)
    if centers is None or coordinates is None or not len(y) or y.dtype.kind not in "iu":
        return None, None
    present = np.unique(y)
    centers = np.asarray(centers, dtype=np.float64)
    if present.min() < 0 or present.max() >= len(centers):
        return None, None
    if fitted is not None:  # what _coordinates_of(df, codes) would compute again
        Z = _floats(fitted)
    elif codes is not None and hasattr(estimator, "_coordinates_of"):
        Z = _floats(estimator._coordinates_of(df, codes=codes))
    else:
        Z = _floats(coordinates(df))
    if Z.shape != (len(y), centers.shape[1]):
        return None, None
    return Z, centers[present]


def _number(v: float) -> str:
    return f"{v:.4g}" if np.isfinite(v) else "nan"


def _v(v: float) -> str:
    return f"v={v:+.1f}" if np.isfinite(v) else f"v={'+' if v > 0 else '-'}inf"


def _item(r: Any) -> str:
    if r.kind == "number":
        return (f"{r.column} mean {_number(r.mean_in_cluster)} (all {_number(r.mean_overall)},"
                f" {_v(r.v)})")
    return f"{r.column}={r.value} ({r.share_in_cluster:.0%} vs {r.share_overall:.0%}, {_v(r.v)})"


def profile_lines(profiles: pd.DataFrame, n_rows: int, *, per_cluster: int = 3,
                  n_not: int = 2, proba: float = PROBA,
                  stability: dict | None = None) -> list[str]:
    """The printed summary of :func:`describe_clusters`' frame: a line per cluster with its
    size, what it is and what it is not, e.g. ``cluster 0 (n=41, 41%): legs=4 (90% vs 38%,
    v=+6.2), age mean 52 (all 40, v=+3.1); not: hair=0 (5% vs 57%, v=-5.0)``.

    Only values and numeric columns whose test has ``p.value <= proba`` (FactoMineR's
    ``catdes`` default 0.05) are named, each column at most once per cluster: first the
    ``per_cluster`` of largest v-test (over-represented values; numeric columns by
    ``|v.test|``), then after ``not:`` the ``n_not`` most under-represented values (most
    negative v-test) of other columns. "no value stands out" where none is significant.
    ``stability``: cluster -> a note printed after the share (``"Jaccard 0.91 stable"``)."""
    lines = []
    for cluster, size, over, under in summary_rows(profiles, per_cluster=per_cluster,
                                                   n_not=n_not, proba=proba):
        text = ", ".join(_item(r) for r in over.itertuples())
        if len(under):
            text += ("; " if text else "") + "not: " + ", ".join(
                _item(r) for r in under.itertuples())
        share = 100.0 * size / n_rows if n_rows else 0.0
        note = f", {stability[cluster]}" if stability and cluster in stability else ""
        lines.append(f"cluster {cluster} (n={size}, {share:.0f}%{note}): "
                     + (text or "no value stands out"))
    return lines


def summary_rows(profiles: pd.DataFrame, *, per_cluster: int = 3, n_not: int = 2,
                 proba: float = PROBA) -> list[tuple[Any, int, pd.DataFrame, pd.DataFrame]]:
    """The rows :func:`profile_lines` names: per cluster ``(cluster, size, is, is_not)``,
    ``is`` and ``is_not`` rows of ``profiles`` (``v.test`` and ``p.value`` renamed ``v``
    and ``p``) of distinct columns with ``p <= proba``."""
    out = []
    prof = profiles.rename(columns={"v.test": "v", "p.value": "p"})
    prof = prof[prof["kind"].isin(["category", "number"]) & (prof["p"] <= proba)]
    groups = dict(tuple(prof.groupby("cluster", sort=True)))
    for cluster, rows in profiles.groupby("cluster", sort=True):
        sig = groups.get(cluster, prof.iloc[:0])
        strength = np.where(sig["kind"] == "number", sig["v"].abs(), sig["v"])
        over = sig[strength > 0].assign(_s=strength[strength > 0])
        over = over.sort_values("_s", ascending=False, kind="stable")
        over = over.drop_duplicates("column").head(per_cluster)
        under = sig[(sig["kind"] == "category") & (sig["v"] < 0)
                    & ~sig["column"].isin(set(over["column"]))]
        under = under.sort_values("v", kind="stable").drop_duplicates("column").head(n_not)
        out.append((cluster, int(rows["size"].iloc[0]), over, under))
    return out

