"""UNTIE's Table IV protocol: UNTIE with ``c`` = the number of classes, then k-means."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..embed.untie import UNTIE

__all__ = ["untie_cluster_labels"]


_EMBED_CACHE: dict[tuple, np.ndarray] = {}


def untie_cluster_labels(
    frame: Any,
    n_clusters: int,
    random_state: Any = None,
    *,
    init: str = "matlab",
    **params: Any,
) -> np.ndarray:
    """UNTIE Table IV protocol: UNTIE with ``c`` = the number of classes, then k-means.

    The paper sets ``c`` to the number of classes, which an unsupervised ``fit(X)`` does not
    know; the evaluation protocol's ``labels`` methods receive it. The exact solver is
    deterministic, so the embedding is computed once per table and ``c`` and reused across
    runs; only the k-means seeding changes with ``random_state``. k-means runs on the
    ``n_components="all"`` projection, which keeps every Euclidean distance of the Eq. 21
    vectors (so it gives the same clustering as the full vectors, faster).

    Parameters
    ----------
    frame : DataFrame
    n_clusters : int
        ``c`` and the number of k-means clusters.
    random_state : int, optional
        Seed of the k-means run (and of the sgd solver when ``solver="sgd"``).
    init : {"matlab", "sklearn"}
        k-means seeding, as in :func:`catembed.cluster.embedding_labels.kmeans_labels`.
    **params
        Passed to :class:`UNTIE`.

    Returns
    -------
    ndarray of shape (n,)
    """
    from ..cluster.embedding_labels import kmeans_labels

    params = {"n_components": "all", **params}
    frame = frame if isinstance(frame, pd.DataFrame) else pd.DataFrame(frame)
    deterministic = params.get("solver", "exact") == "exact"
    key = None
    if deterministic:
        digest = int(pd.util.hash_pandas_object(frame, index=False).sum()) & (2**63 - 1)
        key = (digest, frame.shape, tuple(map(str, frame.columns)), int(n_clusters),
               repr(sorted(params.items())))
    Z = _EMBED_CACHE.get(key) if key is not None else None
    if Z is None:
        est = UNTIE(n_clusters=int(n_clusters), random_state=random_state,
                    categorical_features="all", **params)
        Z = est.fit(frame).transform(frame)
        if key is not None:
            _EMBED_CACHE.clear()
            _EMBED_CACHE[key] = Z
    return np.asarray(kmeans_labels(Z, int(n_clusters), random_state, init=init))
