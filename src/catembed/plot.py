"""Plots for notebooks and reports: the value map, the object map, cluster profiles.

Every function draws on a matplotlib ``Axes`` (a new figure when ``ax`` is None) and returns
it, as prince's and scikit-learn's display helpers do. matplotlib is the optional ``plot``
extra (``pip install catembed[plot]``); it is imported when a function is called, never by
``import catembed``. Outside a notebook, select a non-interactive backend first
(``matplotlib.use("Agg")``), as :mod:`catembed.report` does.

* :func:`values`: each value of the table as a point (the model's
  :attr:`~catembed.base.ValueEmbedder.value_coordinates_` projected to 2-D), coloured by
  attribute, labelled, with a line to its nearest value of another attribute (the coupling the
  embedding learned);
* :func:`objects`: the rows' embeddings in 2-D (PCA, or t-SNE as the UNTIE paper's Fig. 9),
  coloured by cluster or class;
* :func:`profiles`: for each cluster the most over-represented values and their lift
  (:func:`catembed.profiles.cluster_profiles`).

Text from the data or the call (values, column names, classes, titles) is drawn as written:
a ``$`` never starts matplotlib's mathtext, so ``$x^$`` or ``$\\frac{1}{$`` is a label, not
an error. For mathtext in a title, set it on the returned axes (``ax.set_title``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._text import plot_text
from .map2d import axis_spread, palette, project_2d, value_map_xy
from .profiles import cluster_profiles

__all__ = ["objects", "profiles", "project_2d", "values"]


def _axes(ax: Any, size: tuple[float, float] = (7.0, 6.0)) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size)
    return ax


def _flag_axes(xy: np.ndarray, names: list[str], noun: str, *, few: bool = True) -> list[str]:
    """The axis labels, saying when an axis carries no dimension (its rounding noise is set
    to 0 in ``xy``) or, with ``few``, only a few of the points (the others share one position
    on it: zooming on them would draw rounding noise, :func:`catembed.map2d.robust_limits`)."""
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
        ``"pca"``: principal axes of the values weighted by their frequency (as
        correspondence analysis weights its columns by their mass); ``"tsne"``: t-SNE.
    neighbours : bool, default=True
        Draw a line from each value to its nearest value of *another* attribute in the
        embedding (Euclidean): the inter-attribute couplings the embedding carries.
    max_labels : int, default=40
        At most this many labels. The values beyond the zoomed axes come first, then the
        largest contributions to the map's inertia (frequency times squared distance from
        the centre, as correspondence analysis ranks its points); a label that would overlap
        one already placed, or leave the axes, is skipped
        (:func:`catembed.map2d.place_labels`).
    zoom : bool, default=True
        Set the axes from robust quantiles of the points (:func:`catembed.map2d.robust_limits`)
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
    """
    from ._params import check_int
    from .map2d import place_labels, robust_limits

    check_int("max_points", max_points, allow_none=True)

    ax = _axes(ax, (9.0, 6.5))
    coords = model.value_coordinates_
    attrs = coords.index.get_level_values(0).astype(str)
    vals = coords.index.get_level_values(1).astype(str)
    data = coords.to_numpy()
    counts = np.asarray(model.stats_.counts, dtype=np.float64)
    xy = value_map_xy(data, counts, method)
    n_values = len(xy)
    if max_points is not None and n_values > max_points:  # the most frequent, in order
        keep = np.sort(np.argsort(-counts, kind="stable")[:max_points])
        attrs, vals, data, counts, xy = (attrs[keep], vals[keep], data[keep], counts[keep],
                                         xy[keep])
    axis_names = _flag_axes(xy, [f"{method.upper()} 1", f"{method.upper()} 2"], "values")
    names = list(dict.fromkeys(attrs))
    colours = dict(zip(names, palette(len(names)), strict=True))
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
    ax.scatter(shown[inside, 0], shown[inside, 1], s=30, c=col[inside], zorder=2,
               edgecolors="white", linewidths=0.5)
    if outside.any():
        # a triangle at the edge pointing to where the value lies
        beyond = (xy - shown) / np.maximum(limits[:, 1] - limits[:, 0], 1e-300)
        for i in np.flatnonzero(outside):
            a = int(np.argmax(np.abs(beyond[i])))
            marker = ((">" if beyond[i, 0] > 0 else "<") if a == 0
                      else ("^" if beyond[i, 1] > 0 else "v"))
            ax.scatter(shown[i, 0], shown[i, 1], s=60, color=col[i], marker=marker,
                       edgecolors="black", linewidths=0.6, zorder=3, gid="outlier")
    handles = [ax.scatter([], [], s=30, color=colours[n], label=plot_text(n)) for n in names]
    if outside.any():
        handles.append(ax.scatter([], [], s=45, marker=">", color="white",
                                  edgecolors="black", linewidths=0.6,
                                  label=plot_text(f"beyond the axes ({int(outside.sum())})")))
    ax.set_title(plot_text(title or f"Values of the {type(model).__name__} embedding "
                           f"({method.upper()}); lines: nearest value of another attribute"),
                 fontsize=9)
    ax.set_xlabel(plot_text(axis_names[0]
                            + ("  (zoomed on the bulk)" if outside.any() else "")
                            + (f"  (the {len(xy):,} most frequent of {n_values:,} values)"
                               if len(xy) < n_values else "")))
    ax.set_ylabel(plot_text(axis_names[1]))
    ncol = 1 if len(handles) <= 18 else 2 if len(handles) <= 40 else 3
    ax.legend(handles=handles, fontsize=7 if len(handles) <= 18 else 6, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, ncols=ncol, title="column",
              title_fontsize=7, markerscale=0.8, frameon=False)
    # labels: beyond-the-axes values first (farthest first), then the largest contributions
    centre = (counts / counts.sum()) @ xy
    dist2 = ((xy - centre) ** 2).sum(axis=1)
    contribution = counts * dist2
    order = [*np.flatnonzero(outside)[np.argsort(-dist2[outside], kind="stable")],
             *np.flatnonzero(inside)[np.argsort(-contribution[inside], kind="stable")]]
    texts = [plot_text(f"{attrs[i]}={vals[i]}") for i in range(len(xy))]
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    sizes = np.zeros((len(xy), 2))
    probe = ax.text(0, 0, "", fontsize=7)
    for i in order[:max(4 * max_labels, 50)]:
        probe.set_text(texts[i])
        ext = probe.get_window_extent(renderer)
        sizes[i] = (ext.width, ext.height)
    probe.remove()
    anchors = ax.transData.transform(shown)
    box = ax.get_window_extent(renderer)
    spots = place_labels(anchors, sizes, order[:max(4 * max_labels, 50)],
                         bounds=(box.x0, box.y0, box.x1, box.y1), max_labels=max_labels)
    to_points = 72.0 / fig.dpi
    for i, (x0, y0) in spots.items():
        off = ((x0 - anchors[i, 0]) * to_points, (y0 - anchors[i, 1]) * to_points)
        ax.annotate(texts[i], shown[i],
                    xytext=off, textcoords="offset points", ha="left", va="bottom",
                    fontsize=7, color="0.15", zorder=4, gid="value-label")
    return ax


def objects(model: Any, X: Any, labels: Any = None, *, ax: Any = None, method: str = "pca",
            max_rows: int = 5000, random_state: int = 0, embedding: np.ndarray | None = None,
            title: str | None = None) -> Any:
    """The object map: the rows' embeddings in 2-D, coloured by ``labels``.

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
    """
    ax = _axes(ax)
    z = model.transform(X) if embedding is None else np.asarray(embedding)
    xy, rows = project_2d(z, method, random_state=random_state, max_rows=max_rows)
    axis_names = _flag_axes(xy, [f"{method.upper()} 1", f"{method.upper()} 2"], "rows",
                            few=False)
    if labels is None:
        ax.scatter(xy[:, 0], xy[:, 1], s=6, color="tab:blue", alpha=0.6)
    else:
        lab = np.asarray(labels, dtype=object)[rows].astype(str)
        groups = sorted(set(lab))
        for g, colour in zip(groups, palette(len(groups)), strict=True):
            sel = lab == g
            ax.scatter(xy[sel, 0], xy[sel, 1], s=6, color=colour, alpha=0.6,
                       label=plot_text(g))
        if len(groups) <= 20:
            ax.legend(fontsize=7, markerscale=2, loc="best")
    shown = f"{len(rows)} of {len(z)} rows" if len(rows) < len(z) else f"{len(z)} rows"
    ax.set_title(plot_text(title or f"Objects ({method.upper()} of the "
                           f"{type(model).__name__} embedding, {shown})"), fontsize=9)
    ax.set_xlabel(plot_text(axis_names[0]))
    ax.set_ylabel(plot_text(axis_names[1]))
    return ax


def profiles(X: Any, clusters: Any, *, top: int = 3, ax: Any = None,
             min_support: float = 0.05, kind: str = "cluster") -> Any:
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
        (:func:`catembed.profiles.cluster_profiles`).
    kind : {"cluster", "class"}, default="cluster"
        What the groups are: the word of the labels and the title.

    Returns
    -------
    matplotlib Axes
        Bar length: lift ``P(value | group) / P(value)``; the bar's label gives the share of
        the group holding the value.
    """
    from ._params import check_option

    check_option("kind", kind, ("cluster", "class"))
    prof = cluster_profiles(X, clusters, top=top, min_support=min_support)
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
