"""Object retrieval: precision@k with every object as a query (UNTIE Fig. 11, spec section 5).

Each object queries the others; its ``k`` nearest neighbours (Euclidean by default) on the
embedding vectors are retrieved, and precision@k is the fraction of them that share the
query's class, averaged over all queries. Neighbours come from scikit-learn's
:class:`~sklearn.neighbors.NearestNeighbors`, queried in blocks of rows, so memory is
``O(batch_size x n)`` at most, never ``n x n``.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np
import pandas as pd
from sklearn.neighbors import NearestNeighbors

from .._validation import CatEmbedError

__all__ = ["precision_at_k", "retrieval_curve"]


def _ks(k: Any, n: int) -> list[int]:
    ks = [k] if isinstance(k, numbers.Integral) else list(k)
    if not ks:
        raise CatEmbedError("give at least one k for precision@k.")
    for v in ks:
        if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v < 1:
            raise CatEmbedError(f"k must be a positive integer; got {v!r}.")
        if v > n - 1:
            raise CatEmbedError(
                f"precision@{v} needs at least {v + 1} objects (a query and {v} others); "
                f"got {n}."
            )
    return [int(v) for v in ks]


def retrieval_curve(
    X: Any,
    labels: Any,
    k: int | Iterable[int] = (1, 5, 10, 20, 50, 100),
    *,
    metric: str = "euclidean",
    batch_size: int = 2048,
    n_jobs: int | None = None,
) -> pd.Series:
    """Precision@k for several ``k``, every object a query (UNTIE Fig. 11).

    Parameters
    ----------
    X : array-like of shape (n, d)
        The object vectors (an embedding's ``transform`` output).
    labels : array-like of shape (n,)
        Classes; a retrieved object is relevant when its class equals the query's.
    k : int or iterable of int
        Cut-offs; each must be below ``n``. Values above ``n - 1`` raise an error.
    metric : str, default="euclidean"
        Any metric :class:`~sklearn.neighbors.NearestNeighbors` accepts.
    batch_size : int, default=2048
        Queries per block.
    n_jobs : int, optional
        Passed to ``NearestNeighbors``.

    Returns
    -------
    pandas.Series
        Mean precision indexed by ``k``.

    Notes
    -----
    The query itself is never retrieved; exact duplicates of it are (they are other
    objects). Among neighbours at exactly the same distance the order is the one
    scikit-learn returns, so with many ties the figure depends on that order.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(labels).ravel()
    if X.ndim != 2:
        raise CatEmbedError(f"X must be 2-D (objects x features); got shape {X.shape}.")
    if len(y) != X.shape[0]:
        raise CatEmbedError(f"X has {X.shape[0]} rows but labels has {len(y)} entries.")
    n = X.shape[0]
    ks = _ks(k, n)
    kmax = max(ks)
    codes = pd.factorize(pd.Series(y), use_na_sentinel=False)[0]
    nn = NearestNeighbors(n_neighbors=kmax + 1, metric=metric, n_jobs=n_jobs).fit(X)
    hits = np.zeros(kmax)  # hits[t] = number of relevant objects at rank t+1, over queries
    for start in range(0, n, batch_size):
        stop = min(start + batch_size, n)
        idx = nn.kneighbors(X[start:stop], return_distance=False)
        rows = np.arange(start, stop)
        is_self = idx == rows[:, None]
        # drop the query itself, or the last neighbour when the query was not returned
        # (more than kmax exact duplicates)
        drop = np.where(is_self.any(axis=1), is_self.argmax(axis=1), kmax)
        keep = np.ones_like(idx, dtype=bool)
        keep[np.arange(len(rows)), drop] = False
        nbrs = idx[keep].reshape(len(rows), kmax)
        hits += (codes[nbrs] == codes[rows][:, None]).sum(axis=0)
    cum = np.cumsum(hits)
    return pd.Series({v: float(cum[v - 1] / (n * v)) for v in ks}, name="precision")


def precision_at_k(
    X: Any,
    labels: Any,
    k: int = 10,
    *,
    metric: str = "euclidean",
    batch_size: int = 2048,
    n_jobs: int | None = None,
) -> float:
    """Mean precision@k with every object as a query (see :func:`retrieval_curve`).

    Parameters
    ----------
    X : array-like of shape (n, d)
    labels : array-like of shape (n,)
    k : int, default=10

    Returns
    -------
    float
    """
    if not isinstance(k, numbers.Integral):
        raise CatEmbedError(f"k must be a positive integer; got {k!r}.")
    return float(
        retrieval_curve(X, labels, k, metric=metric, batch_size=batch_size, n_jobs=n_jobs)
        .iloc[0]
    )
