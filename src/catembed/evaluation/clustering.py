"""The clusterers of the evaluation protocol (method spec section 5).

* :func:`kmeans_labels`: one k-means start, seeded MATLAB's way (k-means++ with one
  candidate per step, ``init="matlab"``, the papers' protocol) or scikit-learn's way (greedy
  k-means++ with ``2 + log k`` candidates, ``init="sklearn"``), at most 100 Lloyd iterations.
* :func:`spectral_labels`: spectral clustering (Ng, Jordan and Weiss 2002) of an affinity
  matrix, with optional row multiplicities.
* :func:`gaussian_spectral_labels`: CDE-G (CDE section 5.2, Table 2): the Gaussian similarity
  ``exp(-||x - y||^2 / (2 sigma^2))`` of the embedded objects, ``sigma`` = the median pairwise
  distance, then spectral clustering.

Scaling of CDE-G. Identical rows have identical embeddings, so the objects are first reduced
to their distinct embedding rows with multiplicities; the normalised spectral embedding of
the ``n x n`` graph is computed exactly from the ``u x u`` graph of distinct rows (see
:func:`spectral_labels`) and k-means weights each distinct row by its multiplicity. With at
most ``dense_limit`` distinct rows (default 6000) the affinity is the full Gaussian matrix;
above it, a sparse symmetric k-nearest-neighbour graph (scikit-learn ``kneighbors_graph``,
``n_neighbors=10``) with the Gaussian kept on its edges, and ``sigma`` is the median
distance over the pairs of a random sample of 2000 objects. (Adult, 30,162 rows with 7,722
distinct embedding rows, takes the sparse route.)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigh
from scipy.sparse.linalg import eigsh
from scipy.spatial.distance import pdist
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import kneighbors_graph
from sklearn.utils import check_random_state

from .._validation import CatEmbedError, check_option

__all__ = [
    "INITS",
    "gaussian_affinity",
    "gaussian_spectral_labels",
    "kmeans_labels",
    "median_pairwise_distance",
    "spectral_labels",
]

#: k-means seeding schemes
INITS = ("matlab", "sklearn")


def kmeans_labels(
    X: Any,
    n_clusters: int,
    random_state: Any = None,
    *,
    init: str = "matlab",
    max_iter: int = 100,
    sample_weight: np.ndarray | None = None,
) -> np.ndarray:
    """One k-means run (one start) and its labels.

    Parameters
    ----------
    X : array-like of shape (n, d)
    n_clusters : int
    random_state : int, RandomState or None
        Decides the seeding; the same seed gives the same labels.
    init : {"matlab", "sklearn"}, default="matlab"
        ``"matlab"``: k-means++ drawing one candidate per step, as MATLAB's ``kmeans`` does
        and the papers used (:func:`catembed.embed.cde.matlab_kmeans` is the same thing);
        ``"sklearn"``: scikit-learn's greedy k-means++ (``2 + log k`` candidates per step,
        the best kept), which gives better single-run clusterings.
    max_iter : int, default=100
        Lloyd iterations (MATLAB's default).
    sample_weight : ndarray of shape (n,), optional
        Multiplicity of each row (k-means on the rows repeated that many times).
    """
    check_option("init", init, INITS)
    X = np.asarray(X, dtype=np.float64)
    if n_clusters > len(X):
        raise CatEmbedError(f"cannot make {n_clusters} clusters of {len(X)} rows.")
    rs = check_random_state(random_state)
    trials = 1 if init == "matlab" else None
    centers, _ = kmeans_plusplus(X, n_clusters, random_state=rs, n_local_trials=trials,
                                 sample_weight=sample_weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = KMeans(n_clusters, init=centers, n_init=1, max_iter=max_iter, random_state=rs)
        km.fit(X, sample_weight=sample_weight)
    return km.labels_


def _top_eigenvectors(S: Any, k: int, random_state: Any) -> np.ndarray:
    """The ``k`` eigenvectors of the symmetric ``S`` with the largest eigenvalues."""
    u = S.shape[0]
    if u <= 1000 or k >= u - 1:
        dense = S.toarray() if sp.issparse(S) else np.asarray(S)
        _, vecs = eigh(dense, subset_by_index=(u - k, u - 1))
        return vecs
    rs = check_random_state(random_state)
    v0 = rs.uniform(-1, 1, u)
    _, vecs = eigsh(S, k=k, which="LA", v0=v0)
    return vecs


def spectral_labels(
    affinity: Any,
    n_clusters: int,
    random_state: Any = None,
    *,
    counts: np.ndarray | None = None,
    init: str = "matlab",
) -> np.ndarray:
    """Normalised spectral clustering (Ng, Jordan and Weiss 2002) of an affinity matrix.

    The top ``n_clusters`` eigenvectors of ``D^-1/2 W D^-1/2``, rows scaled to unit length,
    then one k-means run (:func:`kmeans_labels`).

    Parameters
    ----------
    affinity : ndarray or sparse matrix of shape (u, u)
        Symmetric, non-negative similarities ``W``.
    n_clusters : int
    random_state : int, RandomState or None
    counts : ndarray of shape (u,), optional
        Row ``a`` stands for ``counts[a]`` identical objects. The result equals spectral
        clustering of the expanded ``n x n`` graph (``W_full = E W E^T``): its degrees are
        ``d = W c``, and the eigenvectors of the expanded normalised affinity that are
        constant on each group are ``C^-1/2 z`` for the eigenvectors ``z`` of
        ``C^1/2 D^-1/2 W D^-1/2 C^1/2`` (the other eigenvalues are 0), so the ``n x n``
        matrix is never built. k-means then weights each row by its count.
    init : {"matlab", "sklearn"}
        k-means seeding (see :func:`kmeans_labels`).
    """
    W = affinity.tocsr() if sp.issparse(affinity) else np.asarray(affinity, dtype=np.float64)
    u = W.shape[0]
    c = np.ones(u) if counts is None else np.asarray(counts, dtype=np.float64)
    deg = np.asarray(W @ c).ravel()
    if np.any(deg <= 0):
        raise CatEmbedError("the affinity has an object with no similarity to any object.")
    scale = np.sqrt(c) / np.sqrt(deg)
    if sp.issparse(W):
        D = sp.diags(scale)
        S = (D @ W @ D).tocsr()
    else:
        S = W * scale[:, None] * scale[None, :]
    k = min(n_clusters, u)
    z = _top_eigenvectors(S, k, random_state)
    y = z / np.sqrt(c)[:, None]
    norms = np.linalg.norm(y, axis=1, keepdims=True)
    y = y / np.where(norms > 0, norms, 1.0)
    return kmeans_labels(y, k, random_state, init=init,
                         sample_weight=None if counts is None else c)


def _unique_rows(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    uniq, inverse, counts = np.unique(Z, axis=0, return_inverse=True, return_counts=True)
    return uniq, inverse.ravel(), counts


def median_pairwise_distance(
    Z: Any, *, sample: int = 2000, random_state: Any = None, dense_limit: int = 6000
) -> float:
    """Median Euclidean distance over all pairs of distinct objects (rows of ``Z``).

    Exact (weighted over the distinct rows) when ``Z`` has at most ``dense_limit`` distinct
    rows; otherwise the median over the pairs of ``sample`` rows drawn without replacement.
    """
    Z = np.asarray(Z, dtype=np.float64)
    uniq, _, counts = _unique_rows(Z)
    if len(uniq) > dense_limit:
        rs = check_random_state(random_state)
        idx = rs.choice(len(Z), size=min(sample, len(Z)), replace=False)
        return float(np.median(pdist(Z[idx])))
    d = pdist(uniq)
    i, j = np.triu_indices(len(uniq), k=1)
    weights = np.concatenate([[np.sum(counts * (counts - 1) // 2)], counts[i] * counts[j]])
    values = np.concatenate([[0.0], d])
    order = np.argsort(values, kind="stable")
    cum = np.cumsum(weights[order])
    n_pairs = int(cum[-1])
    if n_pairs == 0:
        return 0.0
    # the two middle elements of the expanded sorted list (as np.median of all pairs)
    lo, hi = (values[order][np.searchsorted(cum, p + 1)] for p in
              ((n_pairs - 1) // 2, n_pairs // 2))
    return float((lo + hi) / 2.0)


def gaussian_affinity(Z: np.ndarray, sigma: float, *, n_neighbors: int | None = None) -> Any:
    """``exp(-||x - y||^2 / (2 sigma^2))`` between the rows of ``Z``: dense, or on the edges of
    a symmetric ``n_neighbors``-nearest-neighbour graph (diagonal 1) when ``n_neighbors`` is
    given."""
    Z = np.asarray(Z, dtype=np.float64)
    s2 = 2.0 * sigma * sigma if sigma > 0 else 1.0
    if n_neighbors is None:
        sq = np.sum(Z * Z, axis=1)
        d2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * (Z @ Z.T), 0.0)
        np.fill_diagonal(d2, 0.0)
        return np.exp(-d2 / s2)
    G = kneighbors_graph(Z, n_neighbors=min(n_neighbors, len(Z) - 1), mode="distance")
    G.data = np.exp(-(G.data ** 2) / s2)
    G = G.maximum(G.T)
    return (G + sp.identity(len(Z), format="csr")).tocsr()


def gaussian_spectral_labels(
    Z: Any,
    n_clusters: int,
    random_state: Any = None,
    *,
    sigma: float | str = "median",
    init: str = "matlab",
    dense_limit: int = 6000,
    n_neighbors: int = 10,
) -> np.ndarray:
    """CDE-G: Gaussian similarity of embedded objects + spectral clustering (CDE Table 2).

    Parameters
    ----------
    Z : array-like of shape (n, d)
        The object embedding.
    n_clusters : int
    random_state : int, RandomState or None
    sigma : float or "median", default="median"
        The Gaussian width; ``"median"``: :func:`median_pairwise_distance` (the paper does
        not say; the method spec's default).
    init : {"matlab", "sklearn"}
        Seeding of the final k-means.
    dense_limit : int, default=6000
        Most distinct rows for the full affinity; above, a sparse kNN Gaussian graph.
    n_neighbors : int, default=10
        Neighbours per row in the sparse graph.

    Returns
    -------
    ndarray of shape (n,)
    """
    Z = np.asarray(Z, dtype=np.float64)
    rs = check_random_state(random_state)
    seed = rs.randint(np.iinfo(np.int32).max)
    if isinstance(sigma, str):
        check_option("sigma", sigma, ("median",))
        sigma = median_pairwise_distance(Z, random_state=seed, dense_limit=dense_limit)
    uniq, inverse, counts = _unique_rows(Z)
    if len(uniq) < n_clusters:
        raise CatEmbedError(
            f"the embedding has only {len(uniq)} distinct rows; cannot make {n_clusters} "
            "clusters."
        )
    W = gaussian_affinity(uniq, float(sigma),
                          n_neighbors=None if len(uniq) <= dense_limit else n_neighbors)
    labels = spectral_labels(W, n_clusters, seed, counts=counts, init=init)
    return labels[inverse]
