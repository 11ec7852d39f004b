"""Cluster profiles: each cluster's most over-represented values and their lift.

Shown as a table by :mod:`catembed.report` and as bars by :func:`catembed.plot.profiles`;
NumPy and pandas are imported when the function is called.
"""

from __future__ import annotations

from typing import Any

__all__ = ["cluster_profiles"]


def cluster_profiles(X: Any, clusters: Any, *, top: int = 5,
                     min_support: float = 0.05, n_bins: int | None = 5) -> Any:
    """Each cluster's most over-represented values, with their lift.

    ``lift(v, c) = P(v | c) / P(v)``: how many times more often the value ``v`` occurs in
    cluster ``c`` than in the whole table (1 = as often). Values held by less than
    ``min_support`` of the cluster are left out (a rare value can have a large lift by
    chance). Missing values count as the value ``"(missing)"``.

    Parameters
    ----------
    X : DataFrame
        The table: categorical columns, and numeric ones (binned, see ``n_bins``).
    clusters : array-like of shape (n,)
    top : int, default=5
        Values kept per cluster, largest lift first.
    min_support : float, default=0.05
    n_bins : int or None, default=5
        Numeric (not boolean) columns are cut into this many quantile bins first, labelled
        ``"b0: <= 3.5"``, ``"b1: (3.5, 7]"``, ... by the function that cuts them for
        ``--numeric discretize`` (the report's tables) and the embedders'
        ``numeric="discretize"``, so that a profile names a range, not one raw number.
        None: each number is a value.

    Returns
    -------
    DataFrame
        Columns ``cluster``, ``size`` (rows in the cluster), ``attribute``, ``value``,
        ``in_cluster`` (``P(v | c)``), ``overall`` (``P(v)``), ``lift``; clusters in order.
    """
    import numpy as np
    import pandas as pd

    from .._utils._validation import CatEmbedError, as_frame

    df = as_frame(X)
    if n_bins is not None:
        from .._utils._params import check_int
        from ._numeric import bin_numbers, is_numeric

        check_int("n_bins", n_bins, minimum=2)
        numeric = [c for c in df.columns if is_numeric(df[c])]
        if numeric:
            df = df.copy()
            for c in numeric:
                df[c] = bin_numbers(df[c].to_numpy(dtype=np.float64, na_value=np.nan), n_bins)
    labels = np.asarray(clusters)
    if labels.shape != (len(df),):
        raise CatEmbedError(f"clusters must have one label per row ({len(df)}); got shape "
                            f"{labels.shape}.")
    # the clusters as codes 0..k-1 in sorted order (a missing label: -1, its row left out of
    # the counts, as pandas' crosstab does)
    lab_codes, lab_values = pd.factorize(labels, sort=True)
    lab_values = pd.Index(lab_values)
    k = len(lab_values)
    counted = lab_codes >= 0
    sizes = np.bincount(lab_codes[counted], minlength=k)
    rows = []
    first = None  # the first cell: an empty result keeps the dtypes a full table would give
    for col, codes, uniques in _text_codes(df):
        # value x cluster counts: one bincount, linear in rows + values * clusters
        table = np.bincount(codes[counted] * k + lab_codes[counted],
                            minlength=len(uniques) * k).reshape(len(uniques), k)
        seen = table.sum(axis=1)
        keep = seen > 0  # values held only by rows without a cluster are not in the table
        overall = seen / len(df)
        with np.errstate(divide="ignore", invalid="ignore"):
            share = table / sizes[None, :]
            lift = share / overall[:, None]
        for j, c in enumerate(lab_values):
            if first is None and keep.any():
                v = int(np.argmax(keep))
                first = (c, int(sizes[j]), str(col), uniques[v], float(share[v, j]),
                         float(overall[v]), float(lift[v, j]))
            for v in _top_cells(share[:, j], lift[:, j], keep, top, min_support):
                rows.append((c, int(sizes[j]), str(col), uniques[v], float(share[v, j]),
                             float(overall[v]), float(lift[v, j])))
    names = ["cluster", "size", "attribute", "value", "in_cluster", "overall", "lift"]
    out = (pd.DataFrame(rows, columns=names) if rows or first is None
           else pd.DataFrame([first], columns=names).iloc[:0])
    out = out[out["in_cluster"] >= min_support]
    out = out.sort_values(["cluster", "lift", "in_cluster"], ascending=[True, False, False],
                          kind="stable")
    return out.groupby("cluster", sort=True).head(top).reset_index(drop=True)


def _top_cells(share: Any, lift: Any, keep: Any, top: int, min_support: float) -> Any:
    """The positions (ascending) of one cluster's values of one attribute that can be among
    its ``top`` rows: shares of at least ``min_support``, the ``top`` largest lifts (ties: the
    larger share, then the earlier value), as the table's sort ranks them; every candidate
    when ``top`` is negative (``head`` then drops from the end)."""
    import numpy as np

    cand = np.flatnonzero(keep & (share >= min_support))
    if top >= 0 and len(cand) > top:
        order = np.lexsort((cand, -share[cand], -lift[cand]))
        cand = np.sort(cand[order[:top]])
    return cand


def _text_codes(df: Any) -> Any:
    """For each column: its name, the codes of its cells as text (missing values: the value
    ``"(missing)"``) and the texts, sorted. Columns that hold text already are read as one
    array, without pandas' per-column ``where`` and ``astype`` (0.5 ms a column: 10 s on
    20,000 columns); other columns (numbers, mixed objects, dates) are turned into text as
    before."""
    import pandas as pd

    from .._utils._text import value_texts
    from ._frame_codes import column_chunks

    kinds = [pd.api.types.is_object_dtype(t) or pd.api.types.is_string_dtype(t)
             for t in df.dtypes]
    # read a few columns of a tall table at a time (every cell a Python object while it is
    # read: 1M x 20 at once peaked 0.8 GB above the table), a wide table's all at once
    chunks = iter(column_chunks([i for i, kind in enumerate(kinds) if kind], len(df)))
    cells, where = None, {}
    for i, col in enumerate(df.columns):
        values = None
        if kinds[i]:
            if i not in where:
                chunk = next(chunks)
                cells = df.iloc[:, chunk].to_numpy(dtype=object)
                where = {p: g for g, p in enumerate(chunk)}
            values = cells[:, where[i]]
        if values is not None and pd.api.types.infer_dtype(values, skipna=True) in (
                "string", "empty"):  # text already: only the missing cells change
            missing = pd.isna(values)
            if missing.any():
                values = values.copy()
                values[missing] = "(missing)"
            codes, uniques = pd.factorize(values, sort=True)
            yield col, codes, uniques
            continue
        # bytes by the one rule (_utils._text.value_texts): astype(str) decoded them strictly
        text = value_texts(df[col].astype(object).where(df[col].notna(), "(missing)"))
        codes, uniques = pd.factorize(text, sort=True)
        yield col, codes, uniques
