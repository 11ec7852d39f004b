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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .map2d import palette, project_2d
from .profiles import cluster_profiles

__all__ = ["objects", "profiles", "project_2d", "values"]


def _axes(ax: Any, size: tuple[float, float] = (7.0, 6.0)) -> Any:
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=size)
    return ax


def _weighted_pca(data: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """2-D principal coordinates with each row weighted (values by their frequency, so that
    a handful of rare values does not set the axes)."""
    w = weights / weights.sum()
    centred = data - w @ data
    _, _, vt = np.linalg.svd(centred * np.sqrt(w)[:, None], full_matrices=False)
    axes = vt[:2].T
    big = np.argmax(np.abs(axes), axis=0)
    axes = axes * np.sign(axes[big, np.arange(axes.shape[1])])  # deterministic signs
    xy = centred @ axes
    return xy if xy.shape[1] == 2 else np.hstack([xy, np.zeros((len(xy), 2 - xy.shape[1]))])


def values(model: Any, *, ax: Any = None, method: str = "pca", neighbours: bool = True,
           max_labels: int = 40, title: str | None = None) -> Any:
    """The value map: every value of the fitted table as a point.

    Parameters
    ----------
    model : fitted ValueEmbedder
        Any catembed embedder; its :attr:`value_coordinates_` (the vector each value adds to
        an object's embedding) are projected to 2-D.
    ax : matplotlib Axes, optional
    method : {"pca", "tsne"}
        ``"pca"``: principal axes of the values weighted by their frequency (as
        correspondence analysis weights its columns by their mass); ``"tsne"``: t-SNE.
    neighbours : bool, default=True
        Draw a line from each value to its nearest value of *another* attribute in the
        embedding (Euclidean): the inter-attribute couplings the embedding carries.
    max_labels : int, default=40
        Label every point up to this many values; beyond it, only the most frequent ones.
    title : str, optional

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    coords = model.value_coordinates_
    attrs = coords.index.get_level_values(0).astype(str)
    vals = coords.index.get_level_values(1).astype(str)
    data = coords.to_numpy()
    counts = np.asarray(model.stats_.counts, dtype=np.float64)
    if method == "pca":
        xy = _weighted_pca(data, counts)
    else:
        xy, _ = project_2d(data, method)
    names = list(dict.fromkeys(attrs))
    colours = dict(zip(names, palette(len(names)), strict=True))
    if neighbours and len(names) > 1:
        from sklearn.metrics import pairwise_distances

        d = pairwise_distances(data)
        same = attrs.to_numpy()[:, None] == attrs.to_numpy()[None, :]
        d[same] = np.inf
        nearest = np.argmin(d, axis=1)
        for i, j in enumerate(nearest):
            if np.isfinite(d[i, j]):
                ax.plot(xy[[i, j], 0], xy[[i, j], 1], color="0.75", lw=0.6, zorder=1)
    for name in names:
        sel = attrs == name
        ax.scatter(xy[sel, 0], xy[sel, 1], s=30, color=colours[name], label=name, zorder=2,
                   edgecolors="white", linewidths=0.5)
    show = np.argsort(-counts, kind="stable")[:max_labels]
    for i in show:
        ax.annotate(f"{attrs[i]}={vals[i]}", xy[i], fontsize=7, xytext=(3, 2),
                    textcoords="offset points", color="0.2")
    ax.set_title(title or f"Values of the {type(model).__name__} embedding ({method.upper()}); "
                 "lines: nearest value of another attribute", fontsize=9)
    ax.set_xlabel(f"{method.upper()} 1")
    ax.set_ylabel(f"{method.upper()} 2")
    if len(names) <= 20:
        ax.legend(fontsize=7, loc="best", markerscale=0.8, title="attribute",
                  title_fontsize=7)
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

    Returns
    -------
    matplotlib Axes
    """
    ax = _axes(ax)
    z = model.transform(X) if embedding is None else np.asarray(embedding)
    xy, rows = project_2d(z, method, random_state=random_state, max_rows=max_rows)
    if labels is None:
        ax.scatter(xy[:, 0], xy[:, 1], s=6, color="tab:blue", alpha=0.6)
    else:
        lab = np.asarray(labels, dtype=object)[rows].astype(str)
        groups = sorted(set(lab))
        for g, colour in zip(groups, palette(len(groups)), strict=True):
            sel = lab == g
            ax.scatter(xy[sel, 0], xy[sel, 1], s=6, color=colour, alpha=0.6, label=g)
        if len(groups) <= 20:
            ax.legend(fontsize=7, markerscale=2, loc="best")
    shown = f"{len(rows)} of {len(z)} rows" if len(rows) < len(z) else f"{len(z)} rows"
    ax.set_title(title or f"Objects ({method.upper()} of the {type(model).__name__} "
                 f"embedding, {shown})", fontsize=9)
    ax.set_xlabel(f"{method.upper()} 1")
    ax.set_ylabel(f"{method.upper()} 2")
    return ax


def profiles(X: Any, clusters: Any, *, top: int = 3, ax: Any = None,
             min_support: float = 0.05) -> Any:
    """Cluster profiles as horizontal bars: each cluster's most over-represented values.

    Parameters
    ----------
    X : DataFrame
        The categorical table.
    clusters : array-like of shape (n,)
        Cluster of each row.
    top : int, default=3
        Values per cluster.
    ax : matplotlib Axes, optional
    min_support : float, default=0.05
        Only values held by at least this share of the cluster
        (:func:`catembed.profiles.cluster_profiles`).

    Returns
    -------
    matplotlib Axes
        Bar length: lift ``P(value | cluster) / P(value)``; the bar's label gives the share of
        the cluster holding the value.
    """
    prof = cluster_profiles(X, clusters, top=top, min_support=min_support)
    ax = _axes(ax, (7.0, max(2.5, 0.28 * len(prof) + 1)))
    ks = list(dict.fromkeys(prof["cluster"]))
    colours = dict(zip(ks, palette(len(ks)), strict=True))
    y = np.arange(len(prof))[::-1]
    ax.barh(y, prof["lift"], color=[colours[k] for k in prof["cluster"]])
    ax.set_yticks(y, [f"cluster {k}: {a}={v}" for k, a, v in
                      zip(prof["cluster"], prof["attribute"], prof["value"], strict=True)],
                  fontsize=7)
    for yi, lift, share in zip(y, prof["lift"], prof["in_cluster"], strict=True):
        ax.annotate(f"{share:.0%}", (lift, yi), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=7)
    ax.axvline(1.0, color="0.5", lw=0.8, ls="--")
    ax.set_xlabel("lift = P(value | cluster) / P(value)   (label: share of the cluster)")
    ax.set_title("Cluster profiles: most over-represented values", fontsize=9)
    return ax
