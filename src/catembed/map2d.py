"""2-D maps without drawing: the rows of a matrix placed in the plane, and the colours.

Shared by the plots (:mod:`catembed.plot`) and the papers' studies
(:mod:`catembed.evaluation.studies`); matplotlib and scikit-learn are imported when a
function is called.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._params import check_option

__all__ = ["palette", "project_2d"]


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
