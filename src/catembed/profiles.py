"""Cluster profiles: each cluster's most over-represented values and their lift.

Shown as a table by :mod:`catembed.report` and as bars by :func:`catembed.plot.profiles`;
NumPy and pandas are imported when the function is called.
"""

from __future__ import annotations

from typing import Any

__all__ = ["cluster_profiles"]


def cluster_profiles(X: Any, clusters: Any, *, top: int = 5,
                     min_support: float = 0.05) -> Any:
    """Each cluster's most over-represented values, with their lift.

    ``lift(v, c) = P(v | c) / P(v)``: how many times more often the value ``v`` occurs in
    cluster ``c`` than in the whole table (1 = as often). Values held by less than
    ``min_support`` of the cluster are left out (a rare value can have a large lift by
    chance). Missing values count as the value ``"(missing)"``.

    Parameters
    ----------
    X : DataFrame
        The categorical table.
    clusters : array-like of shape (n,)
    top : int, default=5
        Values kept per cluster, largest lift first.
    min_support : float, default=0.05

    Returns
    -------
    DataFrame
        Columns ``cluster``, ``size`` (rows in the cluster), ``attribute``, ``value``,
        ``in_cluster`` (``P(v | c)``), ``overall`` (``P(v)``), ``lift``; clusters in order.
    """
    import numpy as np
    import pandas as pd

    from ._validation import CatEmbedError, as_frame

    df = as_frame(X)
    labels = np.asarray(clusters)
    if labels.shape != (len(df),):
        raise CatEmbedError(f"clusters must have one label per row ({len(df)}); got shape "
                            f"{labels.shape}.")
    rows = []
    sizes = pd.Series(labels).value_counts()
    for col in df.columns:
        values = df[col].astype(object).where(df[col].notna(), "(missing)").astype(str)
        table = pd.crosstab(values.to_numpy(), labels)  # value x cluster counts
        overall = table.sum(axis=1) / len(df)
        share = table / sizes.reindex(table.columns).to_numpy()[None, :]
        lift = share.div(overall, axis=0)
        for c in table.columns:
            for v in table.index:
                rows.append((c, int(sizes[c]), str(col), v, float(share.at[v, c]),
                             float(overall[v]), float(lift.at[v, c])))
    out = pd.DataFrame(rows, columns=["cluster", "size", "attribute", "value", "in_cluster",
                                      "overall", "lift"])
    out = out[out["in_cluster"] >= min_support]
    out = out.sort_values(["cluster", "lift", "in_cluster"], ascending=[True, False, False],
                          kind="stable")
    return out.groupby("cluster", sort=True).head(top).reset_index(drop=True)
