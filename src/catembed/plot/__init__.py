"""Plots for notebooks and reports: the value map, the object map, cluster profiles.

Every function draws on a matplotlib ``Axes`` (a new figure when ``ax`` is None) and returns
it, as prince's and scikit-learn's display helpers do. matplotlib is the optional ``plot``
extra (``pip install catembed[plot]``); it is imported when a function is called, never by
``import catembed``. Outside a notebook, select a non-interactive backend first
(``matplotlib.use("Agg")``), as :mod:`catembed.report` does.

* :func:`values`: each value of the table as a point (the model's
  :attr:`~catembed.base.ValueEmbedder.value_coordinates_` projected on the two axes that carry
  the coupling between columns), coloured by attribute, labelled without overlaps, with a
  line to its nearest value of another attribute (the coupling the embedding learned);
* :func:`objects`: the rows' embeddings in 2-D (PCA, or t-SNE as the UNTIE paper's Fig. 9),
  coloured by cluster or class, the rows that share a point drawn as one disc per class
  sized by its rows;
* :func:`profiles`: for each cluster the most over-represented values and their lift
  (:func:`catembed.stats._profiles.cluster_profiles`; numbers in quantile bins).

Text from the data or the call (values, column names, classes, titles) is drawn as written:
a ``$`` never starts matplotlib's mathtext, so ``$x^$`` or ``$\\frac{1}{$`` is a label, not
an error. For mathtext in a title, set it on the returned axes (``ax.set_title``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._params import check_option
from .._utils._text import plot_text, value_texts
from ..stats._profiles import cluster_profiles
from .map2d import axis_spread, palette, project_2d, value_map_xy

__all__ = ["objects", "profiles", "project_2d", "stacked_points", "values"]


def _axes(ax: Any, size: tuple[float, float] = (7.0, 6.0)) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size)
    return ax


def _flag_axes(xy: np.ndarray, names: list[str], noun: str, *, few: bool = True) -> list[str]:
    """The axis labels, saying when an axis carries no dimension (its rounding noise is set
    to 0 in ``xy``) or, with ``few``, only a few of the points (the others share one position
    on it: zooming on them would draw rounding noise, :func:`catembed.plot.map2d.robust_limits`)."""
    spread = axis_spread(xy)
    n = len(xy)
    out = []
    for a, name in enumerate(names):
        if spread[a] == 0 and n > 1:
            xy[:, a] = 0.0
            name += f"  (flat: the {noun} differ along one axis only)"
        elif few and 2 * spread[a] < n:
            name += (f"  (carried by {spread[a]} of {n} {noun}; the other {n - spread[a]} "
                     "share one position)")
        out.append(name)
    return out


def values(model: Any, *, ax: Any = None, method: str = "pca", neighbours: bool = True,
           max_labels: int = 40, zoom: bool = True, title: str | None = None,
           max_points: int | None = 2000) -> Any:
    """The value map: every value of the fitted table as a point, the ones that carry the
    map's structure labelled.

    Parameters
    ----------
    model : fitted ValueEmbedder
        Any catembed embedder; its :attr:`value_coordinates_` (the vector each value adds to
        an object's embedding) are projected to 2-D.
    ax : matplotlib Axes, optional
        The labels are placed for the axes' size at the time of the call: resize the figure
        before, not after.
    method : {"pca", "tsne"}
        ``"pca"``: the two axes that carry most of the coupling *between* columns
        (:func:`catembed.plot.map2d.coupling_axes`: the leading eigenvectors of the between-column
        covariance of the values, computed from the co-occurrence counts), so that a column
        independent of the others no longer takes an axis; each axis label gives its share
        of that coupling. ``"tsne"``: t-SNE of the values.
    neighbours : bool, default=True
        Draw a line from each value to its nearest value of *another* attribute in the
        embedding (Euclidean): the inter-attribute couplings the embedding carries.
    max_labels : int, default=40
        At most this many labels. The values beyond the zoomed axes come first, then the
        largest contributions to the map (frequency times squared distance from the centre,
        as correspondence analysis ranks its points), the values of faded columns last.
        Labels never overlap each other, a marker or the axes' edge
        (:func:`catembed.plot.map2d.arrange_labels`): a label with no free spot next to its point
        goes farther out with a leader line, then abbreviated, else is left out.
    zoom : bool, default=True
        Set the axes from robust quantiles of the points (:func:`catembed.plot.map2d.robust_limits`)
        so that a few extreme values do not squeeze the rest into a blob; the values beyond
        are drawn at the edge as triangles pointing towards them, and labelled.
    title : str, optional
        Drawn as written (no mathtext).
    max_points : int or None, default=2000
        Draw at most this many values: the most frequent ones (the map is projected from
        all of them, and the x-axis label says how many are drawn). The lines to the nearest
        value cost the square of the values drawn: a 50,000-value column would need a
        50,000 x 50,000 distance matrix. None: every value.

    Returns
    -------
    matplotlib Axes
        Colour: the value's column (legend beside the axes). An axis label says when the
        axis is flat (the values differ along one axis only) or carried by a few values
        while the others share one position on it (that axis is then never zoomed).
        The values of a column nearly
        independent of all the others (:func:`catembed.plot.map2d.column_dependence` under 0.1)
        are faded, with a faded legend entry.
    """
    from .._utils._params import check_int
    from .map2d import column_dependence, coupling_axes, robust_limits

    check_int("max_points", max_points, allow_none=True)
    check_option("method", method, ("pca", "tsne"))

    ax = _axes(ax, (9.0, 6.5))
    coords = model.value_coordinates_
    attrs = coords.index.get_level_values(0).astype(str)
    vals = value_texts(coords.index.get_level_values(1))  # bytes: one rule
    data = coords.to_numpy()
    stats = model.stats_
    counts = np.asarray(stats.counts, dtype=np.float64)
    aligned = len(counts) == len(data) and hasattr(stats, "cooc")
    share = None
    if method == "pca" and aligned:
        xy, share = coupling_axes(data, stats, independent=_FADED)
    else:
        xy = value_map_xy(data, counts, method)
    dependence = (dict(zip(map(str, stats.feature_names), column_dependence(stats),
                           strict=True)) if aligned else {})
    n_values = len(xy)
    if max_points is not None and n_values > max_points:  # the most frequent, in order
        keep = np.sort(np.argsort(-counts, kind="stable")[:max_points])
        attrs, vals, data, counts, xy = (attrs[keep], vals[keep], data[keep], counts[keep],
                                         xy[keep])
    axis_names = _flag_axes(xy, [f"{method.upper()} 1", f"{method.upper()} 2"], "values")
    names = list(dict.fromkeys(attrs))
    colours = dict(zip(names, palette(len(names)), strict=True))
    tied = [d for d in dependence.values() if d > 0]
    faded_cols = {n for n in names if tied and dependence.get(n, 1.0) < _FADED}
    faded = np.array([a in faded_cols for a in attrs], dtype=bool)
    if zoom:
        limits, outside = robust_limits(xy)
    else:
        limits, outside = robust_limits(xy, min_points=len(xy) + 1)
    inset = 0.015 * (limits[:, 1] - limits[:, 0])
    shown = np.clip(xy, limits[:, 0] + inset, limits[:, 1] - inset)
    ax.set_xlim(*limits[0])
    ax.set_ylim(*limits[1])
    if neighbours and len(names) > 1:
        from sklearn.metrics import pairwise_distances

        d = pairwise_distances(data)
        same = attrs.to_numpy()[:, None] == attrs.to_numpy()[None, :]
        d[same] = np.inf
        nearest = np.argmin(d, axis=1)
        for i, j in enumerate(nearest):
            if np.isfinite(d[i, j]):
                ax.plot(shown[[i, j], 0], shown[[i, j], 1], color="0.8", lw=0.6, zorder=1)
    col = np.array([colours[a] for a in attrs])
    inside = ~outside
    for sel, alpha in ((inside & faded, 0.3), (inside & ~faded, 1.0)):
        if sel.any() or alpha == 1.0:
            ax.scatter(shown[sel, 0], shown[sel, 1], s=30, c=col[sel], zorder=2,
                       edgecolors="white", linewidths=0.5, alpha=alpha,
                       gid="faded" if alpha < 1 else None)
    if outside.any():
        # a triangle at the edge pointing to where the value lies
        beyond = (xy - shown) / np.maximum(limits[:, 1] - limits[:, 0], 1e-300)
        for i in np.flatnonzero(outside):
            a = int(np.argmax(np.abs(beyond[i])))
            marker = ((">" if beyond[i, 0] > 0 else "<") if a == 0
                      else ("^" if beyond[i, 1] > 0 else "v"))
            ax.scatter(shown[i, 0], shown[i, 1], s=60, color=col[i], marker=marker,
                       edgecolors="black", linewidths=0.6, zorder=3, gid="outlier",
                       alpha=0.3 if faded[i] else 1.0)
    handles = [ax.scatter([], [], s=30, color=colours[n], label=plot_text(n),
                          alpha=0.3 if n in faded_cols else 1.0) for n in names]
    if outside.any():
        handles.append(ax.scatter([], [], s=45, marker=">", color="white",
                                  edgecolors="black", linewidths=0.6,
                                  label=plot_text(f"beyond the axes ({int(outside.sum())})")))
    ax.set_title(plot_text(title or f"Values of the {type(model).__name__} embedding "
                           f"({method.upper()})\nlines: nearest value of another column"
                           + ("; faded: columns nearly independent of the others"
                              if faded_cols else "")),
                 fontsize=9)
    axis = list(axis_names)
    if share is not None:
        notes = [a[len(f"{method.upper()} {k + 1}"):] for k, a in enumerate(axis_names)]
        axis = [(f"axis {k + 1}: {share[k]:.0%} of the coupling between columns"
                 if share[k] > 0 else f"axis {k + 1}: spread (no coupling between columns)")
                + notes[k] for k in range(2)]
    ax.set_xlabel(plot_text(axis[0] + ("  (zoomed on the bulk)" if outside.any() else "")
                            + (f"  (the {len(xy):,} most frequent of {n_values:,} values)"
                               if len(xy) < n_values else "")), fontsize=8)
    ax.set_ylabel(plot_text(axis[1]), fontsize=8)
    ncol = 1 if len(handles) <= 18 else 2 if len(handles) <= 40 else 3
    ax.legend(handles=handles, fontsize=7 if len(handles) <= 18 else 6, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, ncols=ncol, title="column",
              title_fontsize=7, markerscale=0.8, frameon=False)
    # labels: beyond-the-axes values first (farthest first), then the largest contributions,
    # the faded columns' values last
    centre = (counts / counts.sum()) @ xy
    dist2 = ((xy - centre) ** 2).sum(axis=1)
    contribution = counts * dist2
    order = [*np.flatnonzero(outside)[np.argsort(-dist2[outside], kind="stable")],
             *np.flatnonzero(inside)[np.argsort(-contribution[inside], kind="stable")]]
    order = [i for i in order if not faded[i]] + [i for i in order if faded[i]]
    _label_values(ax, shown, outside, order[:max(4 * max_labels, 50)], attrs, vals, faded,
                  max_labels)
    return ax


#: a column whose dependence (:func:`catembed.plot.map2d.column_dependence`) is under this is faded
_FADED = 0.1


def _short(attr: str, value: str) -> str:
    """``column=value`` abbreviated: at most 8 characters of the column, 12 of the value."""
    return ((attr if len(attr) <= 8 else attr[:7] + "\u2026") + "="
            + (value if len(value) <= 12 else value[:11] + "\u2026"))


def _label_values(ax: Any, shown: np.ndarray, outside: np.ndarray, order: list[int],
                  attrs: Any, vals: Any, faded: np.ndarray, max_labels: int) -> None:
    """Place the value labels (:func:`catembed.plot.map2d.arrange_labels`) and draw them."""
    from .map2d import arrange_labels

    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    texts = {i: plot_text(f"{attrs[i]}={vals[i]}") for i in order}
    shorts = {i: plot_text(_short(attrs[i], vals[i])) for i in order}
    sizes = np.zeros((len(shown), 2))
    short_sizes = np.zeros((len(shown), 2))
    probe = ax.text(0, 0, "", fontsize=7)
    for i in order:
        probe.set_text(texts[i])
        ext = probe.get_window_extent(renderer)
        sizes[i] = (ext.width, ext.height)
        probe.set_text(shorts[i])
        ext = probe.get_window_extent(renderer)
        short_sizes[i] = (ext.width, ext.height)
    probe.remove()
    anchors = ax.transData.transform(shown)
    box = ax.get_window_extent(renderer)
    px = fig.dpi / 72.0  # marker sizes are in points squared
    radius = np.where(outside, 0.5 * np.sqrt(60.0), 0.5 * np.sqrt(30.0)) * px
    spots = arrange_labels(anchors, sizes, order, bounds=(box.x0, box.y0, box.x1, box.y1),
                           points=anchors, radius=radius, short_sizes=short_sizes,
                           max_labels=max_labels)
    to_points = 72.0 / fig.dpi
    to_data = ax.transData.inverted()
    for spot in spots:
        i = spot.index
        w, h = (short_sizes if spot.short else sizes)[i]
        off = ((spot.x0 - anchors[i, 0]) * to_points, (spot.y0 - anchors[i, 1]) * to_points)
        if spot.leader:  # a line from the point to the nearest point of the label's box
            end = np.clip(anchors[i], [spot.x0, spot.y0], [spot.x0 + w, spot.y0 + h])
            line = to_data.transform(np.vstack([anchors[i], end]))
            ax.plot(line[:, 0], line[:, 1], color="0.55", lw=0.5, zorder=3, gid="leader")
        ax.annotate(shorts[i] if spot.short else texts[i], shown[i], xytext=off,
                    textcoords="offset points", ha="left", va="bottom", fontsize=7,
                    color="0.55" if faded[i] else "0.15", zorder=4, gid="value-label")


def objects(model: Any, X: Any, labels: Any = None, *, ax: Any = None, method: str = "pca",
            max_rows: int = 5000, random_state: int = 0, embedding: np.ndarray | None = None,
            title: str | None = None) -> Any:
    """The object map: the rows' embeddings in 2-D, coloured by ``labels``.

    Rows with the same values share one point (a table of few columns puts hundreds of rows
    on each): each point then gets one disc per class (or cluster) present on it, its area
    proportional to the rows of that class on the point, and the discs are drawn largest
    first, so that a smaller one always lies on top of a larger one and no class hides
    another. When every row has a point of its own, each is a small dot, as before.

    Parameters
    ----------
    model : fitted ValueEmbedder
    X : table
        Rows to embed with ``model.transform`` (ignored when ``embedding`` is given).
    labels : array-like of shape (n,), optional
        Cluster or class of each row (the colours).
    ax : matplotlib Axes, optional
    method : {"pca", "tsne"}
        t-SNE as the UNTIE paper's Fig. 9.
    max_rows : int, default=5000
        A random sample of the rows is drawn beyond this (seed ``random_state``).
    random_state : int, default=0
    embedding : ndarray, optional
        ``model.transform(X)`` when already computed.
    title : str, optional
        Drawn as written (no mathtext).

    Returns
    -------
    matplotlib Axes
        An axis label says when the axis is flat (the rows differ along one axis only).
        One scatter of every disc (largest first); the x-axis label gives the rows of the
        largest disc when rows share points.
    """
    ax = _axes(ax)
    z = model.transform(X) if embedding is None else np.asarray(embedding)
    xy, rows = project_2d(z, method, random_state=random_state, max_rows=max_rows)
    axis_names = _flag_axes(xy, [f"{method.upper()} 1", f"{method.upper()} 2"], "rows",
                            few=False)
    if labels is None:
        lab = np.zeros(len(rows), dtype=np.int64)
        groups: list[str] = []
        colours = ["tab:blue"]
    else:
        raw = np.asarray(labels, dtype=object)[rows].astype(str)
        groups = sorted(set(raw))
        lab = np.searchsorted(np.asarray(groups, dtype=object), raw)
        colours = palette(len(groups))
    where, count, group = stacked_points(xy, lab)
    top = int(count.max()) if len(count) else 1
    if top > 1:  # area proportional to the rows, the largest disc 400 points squared
        size = np.maximum(400.0 * count / top, 8.0)
        ax.scatter(where[:, 0], where[:, 1], s=size, c=[colours[g] for g in group],
                   alpha=0.85, edgecolors="white", linewidths=0.6, gid="objects")
    else:
        ax.scatter(where[:, 0], where[:, 1], s=6, c=[colours[g] for g in group], alpha=0.6,
                   gid="objects")
    if groups and len(groups) <= 20:
        handles = [ax.scatter([], [], s=24, color=c, label=plot_text(g))
                   for g, c in zip(groups, colours, strict=True)]
        ax.legend(handles=handles, fontsize=7, loc="best")
    shown = f"{len(rows)} of {len(z)} rows" if len(rows) < len(z) else f"{len(z)} rows"
    ax.set_title(plot_text(title or f"Objects ({method.upper()} of the "
                           f"{type(model).__name__} embedding, {shown})"), fontsize=9)
    if top > 1:
        ax.set_xlabel(plot_text(f"{axis_names[0]}   (disc area: rows on the point"
                                f"{' per colour' if groups else ''}; largest {top:,} rows; "
                                f"{len(np.unique(where, axis=0)):,} distinct points)"),
                      fontsize=8)
    else:
        ax.set_xlabel(plot_text(axis_names[0]))
    ax.set_ylabel(plot_text(axis_names[1]))
    return ax


def stacked_points(xy: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                 np.ndarray]:
    """The distinct ``(point, group)`` pairs of a map, largest first.

    Points closer than a millionth of the map's extent (its wider axis) count as one (rows
    with the same values land on the same point up to rounding).

    Returns
    -------
    where : ndarray of shape (k, 2)
        The point of each pair.
    count : ndarray of shape (k,)
        The rows of the group on the point.
    group : ndarray of shape (k,)
        Sorted by decreasing count (ties: the group, then the point, in order).
    """
    xy = np.asarray(xy, dtype=np.float64)
    groups = np.asarray(groups, dtype=np.int64)
    if len(xy) == 0:
        return xy.reshape(0, 2), np.zeros(0, dtype=np.int64), groups
    lo = xy.min(axis=0)
    extent = float(np.ptp(xy, axis=0).max())
    key = np.round((xy - lo) / (extent if extent > 0 else 1.0) * 1e6).astype(np.int64)
    _, first, point = np.unique(key, axis=0, return_index=True, return_inverse=True)
    point = point.reshape(-1)
    pair = point * (int(groups.max()) + 1) + groups
    uniq, at, count = np.unique(pair, return_index=True, return_counts=True)
    group = groups[at]
    order = np.lexsort((point[at], group, -count))
    return xy[first[point[at]]][order], count[order], group[order]


def profiles(X: Any, clusters: Any, *, top: int = 3, ax: Any = None,
             min_support: float = 0.05, kind: str = "cluster", n_bins: int | None = 5) -> Any:
    """Profiles as horizontal bars: each cluster's (or class's) most over-represented values.

    Parameters
    ----------
    X : DataFrame
        The categorical table.
    clusters : array-like of shape (n,)
        Cluster (or class) of each row.
    top : int, default=3
        Values per cluster.
    ax : matplotlib Axes, optional
        Default: a new figure whose height follows the number of bars, with a constrained
        layout so that the value labels fit when saved.
    min_support : float, default=0.05
        Only values held by at least this share of the cluster
        (:func:`catembed.stats._profiles.cluster_profiles`).
    kind : {"cluster", "class"}, default="cluster"
        What the groups are: the word of the labels and the title.
    n_bins : int or None, default=5
        Numeric columns of a mixed table are cut into this many quantile bins, as the
        report's profiles and ``--numeric discretize`` cut them
        (:func:`catembed.stats._profiles.cluster_profiles`); None: each number is a value.

    Returns
    -------
    matplotlib Axes
        Bar length: lift ``P(value | group) / P(value)``; the bar's label gives the share of
        the group holding the value.
    """
    from .._utils._params import check_option

    check_option("kind", kind, ("cluster", "class"))
    prof = cluster_profiles(X, clusters, top=top, min_support=min_support, n_bins=n_bins)
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7.5, max(2.5, 0.26 * len(prof) + 1.2)),
                             layout="constrained")
    ks = list(dict.fromkeys(prof["cluster"]))
    colours = dict(zip(ks, palette(len(ks)), strict=True))
    y = np.arange(len(prof))[::-1]
    ax.barh(y, prof["lift"], color=[colours[k] for k in prof["cluster"]])
    ax.set_yticks(y, [plot_text(f"{kind} {k}: {a}={v}") for k, a, v in
                      zip(prof["cluster"], prof["attribute"], prof["value"], strict=True)],
                  fontsize=7)
    ax.set_ylim(-0.6, len(prof) - 0.4)
    for yi, lift, share in zip(y, prof["lift"], prof["in_cluster"], strict=True):
        ax.annotate(plot_text(f"{share:.0%}"), (lift, yi), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=7)
    ax.set_xlim(0, max(1.0, float(prof["lift"].max()) if len(prof) else 1.0) * 1.12)
    ax.axvline(1.0, color="0.5", lw=0.8, ls="--")
    ax.set_xlabel(plot_text(f"lift = P(value | {kind}) / P(value)   (label: share of the "
                            f"{kind})"), fontsize=8)
    ax.set_title(plot_text(f"{kind.capitalize()} profiles: most over-represented values"),
                 fontsize=9)
    return ax
