"""2-D maps without drawing: the rows of a matrix placed in the plane, the colours, the
zoomed view of a map's bulk and the labels that fit.

Shared by the plots (:mod:`catembed.plot`) and the papers' studies
(:mod:`catembed.evaluation.studies`); matplotlib and scikit-learn are imported when a
function is called.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._params import check_option

__all__ = ["axis_spread", "palette", "place_labels", "project_2d", "robust_limits",
           "value_map_xy"]

#: a spread at most this share of a map's largest range is rounding noise, not a dimension
FLAT_RTOL = 1e-9


def palette(n: int) -> list[Any]:
    """``n`` distinct colours (matplotlib's tab10, or tab20 beyond ten)."""
    import matplotlib

    cmap = matplotlib.colormaps["tab10" if n <= 10 else "tab20"]
    return [cmap(i % cmap.N) for i in range(n)]


def project_2d(data: np.ndarray, method: str = "pca", *, random_state: int = 0,
               max_rows: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """2-D coordinates of the rows of ``data`` and the row positions they belong to.

    Parameters
    ----------
    data : ndarray of shape (n, d)
    method : {"pca", "tsne"}
        Principal components (scikit-learn's ``PCA``) or t-SNE (``TSNE``, perplexity
        ``min(30, (n - 1) / 3)``, PCA initialisation), the map of the UNTIE paper's Fig. 9.
    random_state : int
        Seed of the row sample and of t-SNE.
    max_rows : int, optional
        Project a random sample of at most this many rows (t-SNE is quadratic-ish).

    Returns
    -------
    xy : ndarray of shape (n_kept, 2)
    rows : ndarray of shape (n_kept,)
        Positions in ``data`` of the projected rows (sorted).
    """
    check_option("method", method, ("pca", "tsne"))
    data = np.asarray(data, dtype=np.float64)
    rows = np.arange(len(data))
    if max_rows is not None and len(data) > max_rows:
        rng = np.random.default_rng(random_state)
        rows = np.sort(rng.choice(len(data), size=max_rows, replace=False))
        data = data[rows]
    if data.shape[1] == 1:
        data = np.hstack([data, np.zeros_like(data)])
    if method == "tsne" and len(data) > 3:
        from sklearn.manifold import TSNE
        from threadpoolctl import threadpool_limits

        perplexity = float(min(30.0, (len(data) - 1) / 3))
        # one OpenMP thread: on a loaded machine the threads' spin-waiting made a 30-point
        # t-SNE take 14 s instead of 0.2 s
        with threadpool_limits(limits=1, user_api="openmp"):
            xy = TSNE(n_components=2, perplexity=perplexity, init="pca",
                      random_state=random_state).fit_transform(data)
    else:
        from sklearn.decomposition import PCA

        k = min(2, data.shape[1], len(data))
        xy = PCA(n_components=k, random_state=random_state).fit_transform(data)
        if xy.shape[1] < 2:
            xy = np.hstack([xy, np.zeros((len(xy), 2 - xy.shape[1]))])
    return xy, rows


def robust_limits(xy: np.ndarray, *, quantile: float = 0.05, margin: float = 0.5,
                  min_points: int = 12) -> tuple[np.ndarray, np.ndarray]:
    """Axis limits that show the bulk of a map, and the points left outside them.

    A few extreme values (rare values far from the origin) would otherwise set the axes and
    squeeze every other point into a blob. Per axis the limits are the ``quantile`` and
    ``1 - quantile`` quantiles widened by ``margin`` times their distance on each side; when
    that leaves no point outside, or the map has fewer than ``min_points`` points, the limits
    are the points' own range (widened by 5%). An axis on which the bulk has no spread (its
    quantiles differ by rounding only, :data:`FLAT_RTOL`) is never zoomed.

    Returns
    -------
    limits : ndarray of shape (2, 2)
        ``[[xmin, xmax], [ymin, ymax]]``.
    outside : ndarray of bool, shape (n,)
        The points beyond the limits (to be drawn at the edge and still labelled).
    """
    xy = np.asarray(xy, dtype=np.float64)

    def padded(lo: np.ndarray, hi: np.ndarray, share: float) -> np.ndarray:
        width = np.where(hi > lo, hi - lo, 1.0)
        return np.stack([lo - share * width, hi + share * width], axis=1)

    full = padded(xy.min(axis=0), xy.max(axis=0), 0.05)
    if len(xy) < min_points:
        return full, np.zeros(len(xy), dtype=bool)
    lo, hi = np.quantile(xy, [quantile, 1.0 - quantile], axis=0)
    limits = padded(lo, hi, margin)
    # an axis on which the bulk shares one position (a few points carry the axis, the rest
    # differ by rounding only) keeps the points' own range: zooming on the bulk would draw
    # rounding noise (+-4e-15) as if it were a dimension
    flat_bulk = hi - lo <= FLAT_RTOL * (xy.max(axis=0) - xy.min(axis=0))
    limits[flat_bulk] = full[flat_bulk]
    outside = ((xy < limits[:, 0]) | (xy > limits[:, 1])).any(axis=1)
    if not outside.any():
        return full, outside
    # an axis on which nothing lies outside keeps the points' own range
    for a in range(2):
        if not ((xy[:, a] < limits[a, 0]) | (xy[:, a] > limits[a, 1])).any():
            limits[a] = full[a]
    return limits, outside


# label offsets tried in turn, as multiples of (label width, label height) from the point:
# right-above, right-below, left-above, left-below, above, below
_OFFSETS = ((0.0, 0.0), (0.0, -1.0), (-1.0, 0.0), (-1.0, -1.0), (-0.5, 0.2), (-0.5, -1.2))


def place_labels(anchors: np.ndarray, sizes: np.ndarray, order: Any, *,
                 bounds: tuple[float, float, float, float] | None = None,
                 obstacles: np.ndarray | None = None, gap: float = 2.0,
                 max_labels: int | None = None) -> dict[int, tuple[float, float]]:
    """Greedy label placement: each label in ``order`` takes the first spot that overlaps no
    label placed before it, or is skipped.

    Works in display units (pixels, y upwards). A label of size ``(w, h)`` for a point at
    ``(x, y)`` is tried at six spots around the point (right/left, above/below, centred
    above/below, ``gap`` pixels away); a spot must lie inside ``bounds`` and overlap neither a
    placed label nor an ``obstacle`` box. The first labels of ``order`` (the values that
    carry the map's structure) therefore always get a spot when one is free.

    Parameters
    ----------
    anchors : ndarray of shape (n, 2)
        The points, in pixels.
    sizes : ndarray of shape (n, 2)
        Width and height of each point's label, in pixels.
    order : sequence of int
        The points to label, most important first.
    bounds : (x0, y0, x1, y1), optional
        The labels stay inside this box (the axes).
    obstacles : ndarray of shape (m, 4), optional
        Boxes ``(x0, y0, x1, y1)`` no label may cover (e.g. the legend).
    gap : float
    max_labels : int, optional
        Stop after this many labels.

    Returns
    -------
    dict
        Point index -> lower-left corner of its label (pixels); points left out are absent.
    """
    placed: list[tuple[float, float, float, float]] = []
    blocked = [tuple(map(float, b)) for b in (obstacles if obstacles is not None else [])]
    out: dict[int, tuple[float, float]] = {}

    def free(box: tuple[float, float, float, float]) -> bool:
        if bounds is not None and (box[0] < bounds[0] or box[1] < bounds[1]
                                   or box[2] > bounds[2] or box[3] > bounds[3]):
            return False
        return not any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3]
                       for b in placed + blocked)

    for i in order:
        i = int(i)
        if max_labels is not None and len(out) >= max_labels:
            break
        (x, y), (w, h) = anchors[i], sizes[i]
        for fx, fy in _OFFSETS:
            x0 = x + fx * w + (gap if fx == 0 else -gap if fx == -1 else 0.0)
            y0 = y + fy * h + (gap if fy >= 0 else -gap)
            box = (x0, y0, x0 + w, y0 + h)
            if free(box):
                placed.append(box)
                out[i] = (x0, y0)
                break
    return out


def value_map_xy(data: np.ndarray, counts: np.ndarray, method: str = "pca") -> np.ndarray:
    """2-D coordinates of the values (rows of ``data``) for the value map.

    ``"pca"``: principal axes of the values weighted by their frequency ``counts`` (as
    correspondence analysis weights its columns by their mass, so that a handful of rare values
    does not set the axes), signs fixed so that each axis' largest loading is positive;
    ``"tsne"``: :func:`project_2d`.
    """
    check_option("method", method, ("pca", "tsne"))
    data = np.asarray(data, dtype=np.float64)
    if method != "pca":
        return project_2d(data, method)[0]
    w = np.asarray(counts, dtype=np.float64)
    w = w / w.sum()
    centred = data - w @ data
    _, _, vt = np.linalg.svd(centred * np.sqrt(w)[:, None], full_matrices=False)
    axes = vt[:2].T
    big = np.argmax(np.abs(axes), axis=0)
    axes = axes * np.sign(axes[big, np.arange(axes.shape[1])])  # deterministic signs
    xy = centred @ axes
    return xy if xy.shape[1] == 2 else np.hstack([xy, np.zeros((len(xy), 2 - xy.shape[1]))])


def axis_spread(xy: np.ndarray, *, rtol: float = FLAT_RTOL) -> np.ndarray:
    """Per axis of a 2-D map, how many points lie off the axis' median position.

    A point is off when it differs from the median by more than ``rtol`` times the map's
    largest range: 0 means a flat axis (the map has fewer than two dimensions and the axis
    holds rounding noise); fewer than half the points means a handful of points carry the
    axis and the rest share one position on it.

    Returns
    -------
    ndarray of int, shape (2,)
    """
    xy = np.asarray(xy, dtype=np.float64)
    if len(xy) == 0:
        return np.zeros(xy.shape[1], dtype=int)
    scale = float((xy.max(axis=0) - xy.min(axis=0)).max())
    return (np.abs(xy - np.median(xy, axis=0)) > rtol * scale).sum(axis=0)
