"""2-D maps without drawing: the rows of a matrix placed in the plane, the colours, the
zoomed view of a map's bulk and the labels that fit.

Shared by the plots (:mod:`catembed.plot`) and the papers' studies
(:mod:`catembed.evaluation.studies`); matplotlib and scikit-learn are imported when a
function is called.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from .._utils._params import check_option

__all__ = ["axis_spread", "palette", "place_labels", "project_2d", "robust_limits",
           "value_map_xy"]

#: a spread at most this share of a map's largest range is rounding noise, not a dimension
FLAT_RTOL = 1e-9
__all__ = ["LabelSpot", "arrange_labels", "column_dependence", "coupling_axes", "palette",
           "place_labels", "project_2d", "robust_limits", "value_map_xy"]


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
# directions of the spots away from the point (a leader line joins them to it): right, up,
# left, down, then the diagonals
_FAR = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))


class LabelSpot(NamedTuple):
    """Where :func:`arrange_labels` put one label."""

    index: int  #: the point
    x0: float  #: lower-left corner (pixels)
    y0: float
    short: bool  #: the abbreviated text was placed
    leader: bool  #: away from the point: draw a line to it


def _near_spots(x: float, y: float, w: float, h: float, gap: float) -> list[tuple]:
    return [(x + fx * w + (gap if fx == 0 else -gap if fx == -1 else 0.0),
             y + fy * h + (gap if fy >= 0 else -gap)) for fx, fy in _OFFSETS]


def _far_spots(x: float, y: float, w: float, h: float, gap: float,
               rings: int) -> list[tuple]:
    out = []
    for k in range(1, rings + 1):
        r = gap + 1.5 * k * h
        for cx, cy in _FAR:
            out.append((x + cx * r - (w if cx < 0 else w / 2 if cx == 0 else 0.0),
                        y + cy * r - (h if cy < 0 else h / 2 if cy == 0 else 0.0)))
    return out


def arrange_labels(anchors: np.ndarray, sizes: np.ndarray, order: Any, *,
                   bounds: tuple[float, float, float, float] | None = None,
                   obstacles: np.ndarray | None = None, points: np.ndarray | None = None,
                   radius: Any = 0.0, short_sizes: np.ndarray | None = None,
                   rings: int = 3, gap: float = 2.0, pad: float = 1.0,
                   max_labels: int | None = None) -> list[LabelSpot]:
    """Greedy, deterministic label placement: each label in ``order`` takes the first free
    spot, or is left out.

    Works in display units (pixels, y upwards). A spot is free when it lies inside
    ``bounds``, keeps ``pad`` pixels from every label placed before it, covers no
    ``obstacle`` box and no marker of another point (``points`` with their ``radius``). The
    spots tried, in turn: the six next to the point (right/left, above/below, centred
    above/below, ``gap`` pixels away); then ``rings`` rings of eight spots farther out
    (right, up, left, down, the diagonals; 1.5 label heights apart), joined to the point by
    a leader line; then the same with the abbreviated text (``short_sizes``). The first
    labels of ``order`` (the values that carry the map's structure) therefore get the best
    spots.

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
    points : ndarray of shape (p, 2), optional
        Markers no label may cover, in pixels (a point's own marker is ``anchors[i]``, not
        checked); default none.
    radius : float or ndarray of shape (p,)
        The markers' radius in pixels.
    short_sizes : ndarray of shape (n, 2), optional
        Sizes of the abbreviated labels, tried last.
    rings : int, default=3
        Rings of spots away from the point (0: only the six next to it).
    gap, pad : float
    max_labels : int, optional
        Stop after this many labels.

    Returns
    -------
    list of LabelSpot
        In the order placed.
    """
    anchors = np.asarray(anchors, dtype=np.float64)
    placed = np.empty((0, 4))
    blocked = np.asarray(obstacles if obstacles is not None else np.empty((0, 4)),
                         dtype=np.float64).reshape(-1, 4)
    pts = (np.asarray(points, dtype=np.float64).reshape(-1, 2) if points is not None
           else np.empty((0, 2)))
    rad = np.broadcast_to(np.asarray(radius, dtype=np.float64), (len(pts),))
    out: list[LabelSpot] = []

    def free(box: tuple[float, float, float, float], anchor: np.ndarray) -> bool:
        if bounds is not None and (box[0] < bounds[0] or box[1] < bounds[1]
                                   or box[2] > bounds[2] or box[3] > bounds[3]):
            return False
        for b, margin in ((placed, pad), (blocked, 0.0)):
            if len(b) and np.any((box[0] < b[:, 2] + margin) & (b[:, 0] - margin < box[2])
                                 & (box[1] < b[:, 3] + margin) & (b[:, 1] - margin < box[3])):
                return False
        if len(pts):
            hit = ((pts[:, 0] + rad > box[0]) & (pts[:, 0] - rad < box[2])
                   & (pts[:, 1] + rad > box[1]) & (pts[:, 1] - rad < box[3]))
            if hit.any() and not np.all(np.all(pts[hit] == anchor, axis=1)):
                return False
        return True

    for i in order:
        i = int(i)
        if max_labels is not None and len(out) >= max_labels:
            break
        x, y = anchors[i]
        tries = [(sizes[i], False)] + ([(short_sizes[i], True)] if short_sizes is not None
                                       and short_sizes[i][0] < sizes[i][0] else [])
        for (w, h), short in tries:
            spots = ([(p, False) for p in _near_spots(x, y, w, h, gap)]
                     + [(p, True) for p in _far_spots(x, y, w, h, gap, rings)])
            spot = next((s for s in spots
                         if free((s[0][0], s[0][1], s[0][0] + w, s[0][1] + h), anchors[i])),
                        None)
            if spot is not None:
                (x0, y0), leader = spot
                placed = np.vstack([placed, [x0, y0, x0 + w, y0 + h]])
                out.append(LabelSpot(i, float(x0), float(y0), short, leader))
                break
    return out


def place_labels(anchors: np.ndarray, sizes: np.ndarray, order: Any, *,
                 bounds: tuple[float, float, float, float] | None = None,
                 obstacles: np.ndarray | None = None, gap: float = 2.0,
                 max_labels: int | None = None) -> dict[int, tuple[float, float]]:
    """Greedy label placement next to the points: :func:`arrange_labels` with only the six
    spots next to each point, no padding between labels and no marker check.

    Returns
    -------
    dict
        Point index -> lower-left corner of its label (pixels); points left out are absent.
    """
    spots = arrange_labels(anchors, sizes, order, bounds=bounds, obstacles=obstacles,
                           rings=0, gap=gap, pad=0.0, max_labels=max_labels)
    return {s.index: (s.x0, s.y0) for s in spots}


def value_map_xy(data: np.ndarray, counts: np.ndarray, method: str = "pca",
                 stats: Any = None) -> np.ndarray:
    """2-D coordinates of the values (rows of ``data``) for the value map.

    ``"pca"`` with ``stats`` (the model's :class:`~catembed.stats.ValueStatistics`, one value
    per row of ``data``): the axes of :func:`coupling_axes`, those that carry the couplings
    between columns. Without ``stats``: principal axes of the values weighted by their
    frequency ``counts`` (as correspondence analysis weights its columns by their mass, so
    that a handful of rare values does not set the axes), signs fixed so that each axis'
    largest loading is positive. ``"tsne"``: :func:`project_2d`.
    """
    check_option("method", method, ("pca", "tsne"))
    data = np.asarray(data, dtype=np.float64)
    if method != "pca":
        return project_2d(data, method)[0]
    if stats is not None and len(np.asarray(stats.counts)) == len(data):
        return coupling_axes(data, stats)[0]
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
def _signed(xy: np.ndarray) -> np.ndarray:
    """Each axis flipped so that its largest coordinate (in absolute value) is positive."""
    if len(xy) == 0:
        return xy
    big = np.argmax(np.abs(xy), axis=0)
    sign = np.sign(xy[big, np.arange(xy.shape[1])])
    return xy * np.where(sign == 0, 1.0, sign)


def coupling_axes(data: np.ndarray, stats: Any, *,
                  independent: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """The value map's 2-D coordinates on the axes that carry the couplings between columns.

    Each value ``u`` of column ``j`` is its row of ``data`` (the vector it adds to an object's
    embedding) less its column's frequency-weighted mean, ``d_u``. Over the rows of the table,
    column ``j`` contributes the vector ``g_j`` (the ``d_u`` of the row's value) and an
    object's embedding is ``sum_j g_j``; its covariance is the within-column part
    ``sum_j Cov(g_j)`` plus the between-column part
    ``S_b = sum_{j != k} Cov(g_j, g_k) = D^T (C / n - diag(p)) D``, computed from the
    co-occurrence counts ``C`` of :mod:`catembed.stats` (``p`` the values' frequencies). The
    axes are the two leading eigenvectors of ``S_b``: the directions in which values of
    different columns go together. A column independent of all the others adds nothing to
    ``S_b`` however far apart its values lie, so it no longer takes an axis (frequency-weighted
    PCA of the values, :func:`value_map_xy` without ``stats``, gives the axes to the largest
    spread, often such a column's). The columns nearly independent of all the others
    (:func:`column_dependence` under ``independent``) are left out of ``S_b``, so that their
    chance co-occurrences in a finite sample do not tilt the axes towards them either. Where
    ``S_b`` has fewer than two positive eigenvalues
    (one column, two independent columns), the remaining axes are the largest
    frequency-weighted spread orthogonal to the ones found.

    Parameters
    ----------
    data : ndarray of shape (l, d)
        One row per value, in the order of ``stats`` (``value_coordinates_``).
    stats : ValueStatistics
        The model's statistics (``stats_``).
    independent : float, default=0.1
        Columns whose :func:`column_dependence` is under this do not set the axes (0: every
        column does).

    Returns
    -------
    xy : ndarray of shape (l, 2)
    share : ndarray of shape (2,)
        The share of the between-column coupling (the sum of ``S_b``'s positive eigenvalues)
        each axis carries; 0 for an axis that carries none.
    """
    data = np.asarray(data, dtype=np.float64)
    counts = np.asarray(stats.counts, dtype=np.float64)
    col = np.asarray(stats.attribute_of)
    n = max(int(stats.n_rows), 1)
    per_col = np.bincount(col, weights=counts, minlength=int(col.max()) + 1 if len(col) else 0)
    q = counts / np.where(per_col[col] > 0, per_col[col], 1.0)  # share within the column
    means = np.zeros((len(per_col), data.shape[1]))
    np.add.at(means, col, q[:, None] * data)
    centred = data - means[col]
    # a basis of the values' span: centred = U S Vt; the axes are w = Vt^T y with |w| = |y|
    u, s, _ = np.linalg.svd(centred, full_matrices=False)
    keep = s > (s[0] if len(s) else 0.0) * 1e-10
    us = u[:, keep] * s[keep]
    r = us.shape[1]
    xy = np.zeros((len(data), 2))
    share = np.zeros(2)
    if r == 0:
        return xy, share
    p = counts / n
    tied = column_dependence(stats)
    left_out = tied < independent if tied.any() else np.zeros(len(tied), dtype=bool)
    us_b = np.where(left_out[col][:, None], 0.0, us)
    between = us_b.T @ (np.asarray(stats.cooc @ us_b) / n - p[:, None] * us_b)
    between = (between + between.T) / 2
    spread = us.T @ (p[:, None] * us)  # the values' frequency-weighted spread
    lam, vec = np.linalg.eigh(between)
    lam, vec = lam[::-1], vec[:, ::-1]
    positive = lam > 1e-9 * float(np.trace(spread))  # rounding noise of a zero coupling
    chosen = [vec[:, i] for i in np.flatnonzero(positive)[:2]]
    total = float(lam[positive].sum())
    share[:len(chosen)] = lam[positive][:2] / total if total > 0 else 0.0
    if len(chosen) < min(2, r):  # the largest weighted spread orthogonal to the axes found
        for y in chosen:
            proj = np.eye(r) - np.outer(y, y)
            spread = proj @ spread @ proj
        ev, evec = np.linalg.eigh((spread + spread.T) / 2)
        chosen += [evec[:, i] for i in np.argsort(-ev, kind="stable")[:min(2, r) - len(chosen)]]
    xy[:, :len(chosen)] = us @ np.column_stack(chosen)
    return _signed(xy), share


def column_dependence(stats: Any) -> np.ndarray:
    """How strongly each column is tied to the rest of the table, from 0 to 1.

    For each column its largest symmetric uncertainty with another column
    (:meth:`~catembed.stats.ValueStatistics.normalized_mutual_information`), its mutual
    information first corrected for the chance bias of a finite sample (less
    ``(l_a - 1)(l_b - 1) / 2n`` nats, the Miller-Madow term, so that a column of many values
    in few rows does not look tied by chance), divided by the largest such figure of the
    table. The value map fades the values of a column under 0.1: a column nearly independent
    of all the others, whose values say nothing about which values go together. All zeros
    when no two columns are tied (or there is one column).
    """
    m = int(stats.n_features)
    if m < 2:
        return np.zeros(m)
    mi = stats.mutual_information()
    h = stats.entropy()
    sizes = np.asarray(stats.sizes, dtype=np.float64)
    bias = np.outer(sizes - 1, sizes - 1) / (2.0 * max(int(stats.n_rows), 1))
    denom = h[:, None] + h[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        psi = np.where(denom > 0, 2.0 * np.maximum(mi - bias, 0.0)
                       / np.where(denom > 0, denom, 1.0), 0.0)
    np.fill_diagonal(psi, 0.0)
    best = psi.max(axis=1)
    top = float(best.max())
    return best / top if top > 0 else np.zeros(m)
