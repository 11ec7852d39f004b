"""The figures of the cluster page (:mod:`catembed.report._cluster_page`): how much the
clusters overlap, the map of the rows, the criterion per k, the per-cluster stability.

Every figure is linear in the rows: the overlap compares each row's distance to its own
cluster's centre with its distance to the nearest other centre (``n x k`` distances, never
``n x n``), the map projects at most :data:`MAP_ROWS` rows.
"""

from __future__ import annotations

import base64
import io as _io
from typing import Any

import numpy as np

__all__ = ["MAP_ROWS", "NEAR", "overlap", "row_map_png", "criteria_png", "cluster_stability",
           "colours"]

#: the most rows the map draws (a random sample beyond it)
MAP_ROWS = 5000
#: a row is *borderline* when its own centre is at least this fraction of the way as far as
#: the nearest other centre (distance ratio own / other >= NEAR: within 10 %)
NEAR = 0.9


def colours(k: int) -> list[str]:
    """The clusters' colours as hex (:func:`catembed.plot.map2d.palette`: tab10, tab20)."""
    import matplotlib.colors as mcolors

    from ..plot.map2d import palette

    return [mcolors.to_hex(c) for c in palette(max(k, 1))][:max(k, 1)]


def overlap(Z: np.ndarray, centres: np.ndarray, labels: np.ndarray,
            chunk: int = 65536) -> dict[str, Any]:
    """How far the clusters overlap, in the coordinates they were found in.

    Per row, ``a`` the distance to its own cluster's centre and ``b`` to the nearest other
    centre: the row is *borderline* when ``a / b >= NEAR``, and its centroid silhouette is
    ``(b - a) / max(a, b)`` (1 at its own centre, 0 midway, negative nearer another centre;
    the simplified silhouette, which needs no ``n x n`` distances).

    Returns
    -------
    dict
        ``borderline`` (share of all rows), ``silhouette`` (mean), and per cluster
        ``cluster_borderline``, ``cluster_silhouette`` and ``towards`` (the other cluster
        most of its rows are nearest to, -1 when none); ``None`` values at k = 1.
    """
    Z = np.asarray(Z, dtype=np.float64)
    C = np.asarray(centres, dtype=np.float64)
    lab = np.asarray(labels, dtype=np.int64)
    k = len(C)
    if k < 2 or not len(lab):
        return {"borderline": None, "silhouette": None, "cluster_borderline": [None] * k,
                "cluster_silhouette": [None] * k, "towards": [-1] * k}
    own = np.empty(len(lab))
    other = np.empty(len(lab))
    near = np.empty(len(lab), dtype=np.int64)
    c2 = (C * C).sum(axis=1)
    for s in range(0, len(lab), chunk):  # n x k squared distances, a chunk at a time
        z = Z[s:s + chunk]
        d = np.maximum((z * z).sum(axis=1)[:, None] - 2.0 * z @ C.T + c2[None, :], 0.0)
        rows = np.arange(len(z))
        own[s:s + chunk] = d[rows, lab[s:s + chunk]]
        d[rows, lab[s:s + chunk]] = np.inf
        near[s:s + chunk] = d.argmin(axis=1)
        other[s:s + chunk] = d[rows, near[s:s + chunk]]
    a, b = np.sqrt(own), np.sqrt(other)
    top = np.maximum(a, b)
    sil = np.where(top > 0, (b - a) / np.where(top > 0, top, 1.0), 0.0)
    border = a >= NEAR * b
    size = np.bincount(lab, minlength=k).astype(np.float64)
    per_border = np.bincount(lab, weights=border, minlength=k) / np.maximum(size, 1)
    per_sil = np.bincount(lab, weights=sil, minlength=k) / np.maximum(size, 1)
    towards = []
    for c in range(k):
        hits = np.bincount(near[(lab == c) & border], minlength=k)
        towards.append(int(hits.argmax()) if hits.sum() else -1)
    return {"borderline": float(border.mean()), "silhouette": float(sil.mean()),
            "cluster_borderline": [float(v) if size[c] else None
                                   for c, v in enumerate(per_border)],
            "cluster_silhouette": [float(v) if size[c] else None
                                   for c, v in enumerate(per_sil)],
            "towards": towards}


def _png(fig: Any) -> str:
    import matplotlib.pyplot as plt

    buf = _io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def row_map_png(Z: np.ndarray, labels: np.ndarray, seed: int = 0) -> tuple[str, dict[str, Any]]:
    """The rows on the first two principal axes of their coordinates, coloured by cluster,
    each cluster's number at its mean; rows with the same values share a disc whose area
    counts them (:func:`catembed.plot.stacked_points`). Returns the PNG (base64) and
    ``rows`` (drawn), ``of`` (all) and ``explained`` (the share of the coordinates'
    variance the two axes show)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plot import stacked_points
    from ..plot.map2d import project_2d

    Z = np.asarray(Z, dtype=np.float64)
    lab = np.asarray(labels, dtype=np.int64)
    k = int(lab.max()) + 1 if len(lab) else 1
    xy, rows = project_2d(Z, "pca", random_state=seed, max_rows=MAP_ROWS)
    total = float(Z[rows].var(axis=0).sum())
    explained = float(xy.var(axis=0).sum()) / total if total > 0 else 1.0
    lab = lab[rows]
    cols = colours(k)
    fig, ax = plt.subplots(figsize=(7.5, 5.6))
    where, count, group = stacked_points(xy, lab)
    top = int(count.max()) if len(count) else 1
    # a row's area: larger for fewer rows, the largest disc at most 300 points squared
    unit = min(40.0, 300.0 / top, max(6.0, 4000.0 / max(len(rows), 1)))
    ax.scatter(where[:, 0], where[:, 1], s=np.maximum(unit * count, 6.0),
               c=[cols[g] for g in group], alpha=0.75, edgecolors="white", linewidths=0.4)
    for c in range(k):
        mine = xy[lab == c]
        if len(mine):
            m = mine.mean(axis=0)
            ax.annotate(str(c), m, ha="center", va="center", fontsize=11, fontweight="bold",
                        color="white", bbox={"boxstyle": "circle,pad=0.25", "fc": cols[c],
                                             "ec": "black", "lw": 0.8})
    if k <= 20:
        handles = [ax.scatter([], [], s=30, color=cols[c], label=f"cluster {c}")
                   for c in range(k)]
        ax.legend(handles=handles, fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5),
                  frameon=False)
    shown = f"{len(rows):,} of {len(Z):,} rows (a random sample)" if len(rows) < len(Z) \
        else f"{len(Z):,} rows"
    ax.set_title(f"Rows by cluster: {shown}; the two axes show {explained:.0%} of the "
                 "coordinates' variance", fontsize=9)
    ax.set_xlabel("principal axis 1" + (f"   (disc area: rows on the point, largest {top:,})"
                                        if top > 1 else ""), fontsize=8)
    ax.set_ylabel("principal axis 2", fontsize=8)
    ax.tick_params(labelsize=7)
    return _png(fig), {"rows": int(len(rows)), "of": int(len(Z)), "explained": explained}


def criteria_png(scores: Any, chosen: int, tried: list[int] | None = None) -> str:
    """The latent class model's BIC per k (``scores["bic"]``, indexed by k), the chosen k
    marked; ``tried``: the k the rule chose among (the others drawn hollow)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = np.asarray([int(k) for k in scores.index])
    bic = scores["bic"].to_numpy(dtype=np.float64)
    fig, ax = plt.subplots(figsize=(6.4, 3.0))
    ax.plot(ks, bic, color="#555", lw=1.2, zorder=1)
    inside = np.isin(ks, tried) if tried is not None else np.ones(len(ks), dtype=bool)
    ax.scatter(ks[inside], bic[inside], s=28, color="#1f77b4", zorder=2,
               label="BIC, for reference only" if chosen == 1 else "k the rule chose from")
    if (~inside).any():
        ax.scatter(ks[~inside], bic[~inside], s=28, facecolors="white", edgecolors="#1f77b4",
                   zorder=2, label="k = 1: decided by the dependence test, not the BIC")
    at = np.flatnonzero(ks == chosen)
    if len(at):
        ax.scatter(ks[at], bic[at], s=150, facecolors="none", edgecolors="#d62728", lw=2,
                   zorder=3, label=f"chosen: k = {chosen}" + (
                       " (by the dependence test)" if chosen == 1 else ""))
    ax.set_xticks(ks)
    ax.set_xlabel("k (latent classes)", fontsize=8)
    ax.set_ylabel("BIC (lower is better)", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, loc="best")
    ax.grid(alpha=0.3)
    return _png(fig)


def cluster_stability(model: Any) -> list[tuple[float, str]] | None:
    """Per cluster ``(resample Jaccard, reading)`` from ``model.diagnostics_`` (fpc
    clusterboot's reading: stable, doubtful, dissolved); ``None`` at k = 1 or when the fit
    has no per-cluster figures."""
    d = getattr(model, "diagnostics_", None) or {}
    jac, status = d.get("cluster_jaccard"), d.get("cluster_status")
    if jac is None or status is None or int(model.n_clusters_) < 2:
        return None
    return [(float(j), str(s)) for j, s in zip(jac, status, strict=True)]
