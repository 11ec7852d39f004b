"""The clusterers of the evaluation protocol (method spec section 5), on an embedding.

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
most ``dense_limit`` distinct rows (default 8000: a ``u x u`` float64 matrix of at most
0.5 GB) the affinity is the full Gaussian matrix and ``sigma`` the exact median over all
``n (n - 1) / 2`` object pairs; this is the exact CDE-G of ``n x n`` spectral clustering.
Above it (``large="nystrom"``, the default) the Nystrom method for spectral grouping
(Fowlkes, Belongie, Chung, Malik, *Spectral grouping using the Nystrom method*, TPAMI 26(2),
2004, Sec. 3-4, Sec. 3-4): ``m`` landmark rows drawn (without
replacement, with probability proportional to their multiplicity, i.e. uniformly over the
objects), ``W ~ C A^+ C^T`` with ``C = W[:, L]`` and ``A = W[L, L]``, degrees
``d ~ C A^-1 C^T c``, and the top eigenvectors of ``B A^-1 B^T`` (``B`` the normalised ``C``)
by Lanczos (ARPACK) on that product, applied through a Cholesky factor of ``A`` (a relative
jitter of 1e-10 keeps the numerically singular kernel matrix factorisable): ``O(m^3 + u m)``
per factorisation and matrix-vector product, ``O(u m)`` memory, and exact when every distinct
row is a landmark (``m = u``), up to the jitter. The number of landmarks is a compute budget, not
a tuned number: ``n_landmarks="auto"`` takes ``min(u, 2000)`` (a ``u x 2000`` float64 block
is 0.5 GB at ``u = 30,000``, the exact path's memory bound). ``sigma`` there is the median
distance over the pairs of a random sample of 2000 objects. ``large="knn"`` keeps the former
sparse symmetric 10-nearest-neighbour Gaussian graph, which scored far below the exact
result on Adult (0.51 against 0.68 F-score in one run).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh
from scipy.spatial.distance import pdist
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.exceptions import ConvergenceWarning
from sklearn.neighbors import kneighbors_graph
from sklearn.utils import check_random_state

from .._utils._eigh import top_eigh
from .._utils._params import check_option
from .._utils._validation import CatEmbedError

__all__ = [
    "INITS",
    "nystrom_spectral_embedding",
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


def _top_eigenvectors(
    S: Any, k: int, random_state: Any, dense: Callable[[], np.ndarray] | None = None
) -> np.ndarray:
    """The ``k`` eigenvectors of the symmetric ``S`` with the largest eigenvalues.

    Dense ``eigh`` for small matrices; ARPACK (``eigsh``, a generous Krylov space) otherwise,
    falling back to dense ``eigh`` when ARPACK does not converge (clustered top eigenvalues,
    e.g. a nearly disconnected graph) and the matrix fits in memory. ``S`` may be a
    :class:`~scipy.sparse.linalg.LinearOperator`; ``dense()`` then builds the matrix.
    """
    u = S.shape[0]
    if dense is None:
        def dense() -> np.ndarray:
            return S.toarray() if sp.issparse(S) else np.asarray(S)
    if u <= 1000 or k >= u - 1:
        return top_eigh(dense(), k)[1]
    rs = check_random_state(random_state)
    v0 = rs.uniform(-1, 1, u)
    try:
        _, vecs = eigsh(S, k=k, which="LA", v0=v0, ncv=min(u, max(2 * k + 1, 40)),
                        maxiter=20 * u)
    except ArpackNoConvergence:
        if u > 20000:
            raise
        return top_eigh(dense(), k)[1]
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
    """Distinct rows (compared as raw bytes), the row -> distinct index map, the counts."""
    Z = np.ascontiguousarray(Z)
    keys = Z.view(np.dtype((np.void, Z.dtype.itemsize * Z.shape[1]))).ravel()
    _, first, inverse, counts = np.unique(keys, return_index=True, return_inverse=True,
                                          return_counts=True)
    return Z[first], inverse.ravel(), counts


def _weighted_median(values: np.ndarray, weights: np.ndarray) -> float:
    """The median of the list in which ``values[i]`` occurs ``weights[i]`` times (integer
    weights; the mean of the two middle elements for an even total, as ``np.median``)."""
    order = np.argsort(values)
    cum = np.cumsum(weights[order])
    total = int(cum[-1]) if len(cum) else 0
    if total == 0:
        return 0.0
    lo, hi = (values[order][np.searchsorted(cum, p + 1)] for p in
              ((total - 1) // 2, total // 2))
    return float((lo + hi) / 2.0)


def _squared_distances(Z: np.ndarray) -> np.ndarray:
    """``||z_a - z_b||^2`` for every pair of rows, from the Gram matrix (BLAS), in place."""
    sq = np.einsum("ij,ij->i", Z, Z)
    D2 = Z @ Z.T
    D2 *= -2.0
    D2 += sq[:, None]
    D2 += sq[None, :]
    np.maximum(D2, 0.0, out=D2)
    np.fill_diagonal(D2, 0.0)
    return D2


def _median_from_squared(D2: np.ndarray, counts: np.ndarray, random_state: Any = 0) -> float:
    """Exact median distance over all object pairs, the objects being ``counts[a]`` copies
    of distinct row ``a`` with squared distances ``D2`` between distinct rows.

    Selection in two passes: a random sample of object pairs brackets the two middle order
    statistics, one pass over ``D2`` counts the pairs below the bracket and collects those in
    it, and only those are sorted (falling back to sorting every pair if the bracket misses).
    """
    u = len(counts)
    c = counts.astype(np.int64)
    n_obj = int(c.sum())
    zero_pairs = int(np.sum(c * (c - 1) // 2))
    total = n_obj * (n_obj - 1) // 2
    if total == 0:
        return 0.0
    targets = ((total - 1) // 2, total // 2)  # 0-based ranks of the middle elements
    if u > 2000:
        rs = check_random_state(random_state)
        owner = np.repeat(np.arange(u), c)
        a, b = rs.randint(n_obj, size=(2, 200_000))
        keep = a != b
        sample = D2[owner[a[keep]], owner[b[keep]]]
        lo_t, hi_t = np.quantile(sample, [0.49, 0.51])
        cf = c.astype(np.float64)
        # pairs of distinct rows below the bracket: (c' [D2 < t] c - sum c^2 [0 < t]) / 2
        both = float(cf @ (D2 < lo_t) @ cf) - (float(cf @ cf) if lo_t > 0 else 0.0)
        n_below = int(round(both / 2.0)) + (zero_pairs if lo_t > 0 else 0)
        ia, ib = np.nonzero((D2 >= lo_t) & (D2 <= hi_t))
        ia, ib = ia[ia < ib], ib[ia < ib]
        values = D2[ia, ib]
        weights = c[ia] * c[ib]
        if lo_t <= 0 <= hi_t:
            values = np.concatenate([[0.0], values])
            weights = np.concatenate([[zero_pairs], weights])
        n_inside = int(weights.sum())
        if n_below <= targets[0] and targets[1] < n_below + n_inside:
            order = np.argsort(values)
            cum = np.cumsum(weights[order]) + n_below
            mid = [values[order][np.searchsorted(cum, t + 1)] for t in targets]
            return float(np.sqrt((mid[0] + mid[1]) / 2.0))
    i, j = np.triu_indices(u, k=1)
    values = np.concatenate([[0.0], D2[i, j]])
    weights = np.concatenate([[zero_pairs], c[i] * c[j]])
    return float(np.sqrt(_weighted_median(values, weights)))


def median_pairwise_distance(
    Z: Any, *, sample: int = 2000, random_state: Any = None, dense_limit: int = 8000
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
    return _median_from_squared(_squared_distances(uniq), counts)


def gaussian_affinity(Z: np.ndarray, sigma: float, *, n_neighbors: int | None = None) -> Any:
    """``exp(-||x - y||^2 / (2 sigma^2))`` between the rows of ``Z``: dense, or on the edges of
    a symmetric ``n_neighbors``-nearest-neighbour graph (diagonal 1) when ``n_neighbors`` is
    given."""
    Z = np.asarray(Z, dtype=np.float64)
    if n_neighbors is None:
        return _gaussian_from_squared(_squared_distances(Z), sigma)
    s2 = 2.0 * sigma * sigma if sigma > 0 else 1.0
    G = kneighbors_graph(Z, n_neighbors=min(n_neighbors, len(Z) - 1), mode="distance")
    G.data = np.exp(-(G.data ** 2) / s2)
    G = G.maximum(G.T)
    return (G + sp.identity(len(Z), format="csr")).tocsr()


def _gaussian_from_squared(D2: np.ndarray, sigma: float) -> np.ndarray:
    s2 = 2.0 * sigma * sigma if sigma > 0 else 1.0
    D2 /= -s2
    return np.exp(D2, out=D2)


def nystrom_spectral_embedding(
    Z: np.ndarray,
    sigma: float,
    n_clusters: int,
    *,
    counts: np.ndarray | None = None,
    n_landmarks: int | str = "auto",
    random_state: Any = None,
) -> np.ndarray:
    """The top ``n_clusters`` eigenvectors of the normalised Gaussian affinity, by Nystrom.

    Fowlkes, Belongie, Chung, Malik (2004), Sec. 3-4, with row multiplicities as in
    :func:`spectral_labels`: the matrix approximated is ``C^1/2 D^-1/2 W D^-1/2 C^1/2`` with
    ``W ~ K_{.L} K_{LL}^-1 K_{L.}`` and degrees ``d = W c``; its top eigenvectors are
    computed by Lanczos on the implicit product (the paper's one-shot orthogonalisation
    gives the same eigenvectors with an ``O(u m^2)`` SVD, far slower). Exact (up to the
    jitter and rounding) when every row is a landmark.

    Parameters
    ----------
    Z : ndarray of shape (u, d)
        Distinct rows.
    sigma : float
        Gaussian width.
    n_clusters : int
    counts : ndarray of shape (u,), optional
        Multiplicity of each row (default 1).
    n_landmarks : int or "auto", default="auto"
        ``"auto"``: ``min(u, 2000)``.
    random_state : int, RandomState or None
        Draws the landmarks (probability proportional to ``counts``).

    Returns
    -------
    ndarray of shape (u, n_clusters)
        ``z`` with ``C^1/2 D^-1/2 W D^-1/2 C^1/2 z ~ z Lambda`` (orthonormal columns).
    """
    Z = np.asarray(Z, dtype=np.float64)
    u = len(Z)
    c = np.ones(u) if counts is None else np.asarray(counts, dtype=np.float64)
    m = min(u, 2000) if n_landmarks == "auto" else int(n_landmarks)
    if m < n_clusters or m > u:
        raise CatEmbedError(
            f"n_landmarks must be between n_clusters={n_clusters} and the {u} distinct rows; "
            f"got {m}."
        )
    rs = check_random_state(random_state)
    if m == u:
        land = np.arange(u)
    else:
        land = np.sort(rs.choice(u, size=m, replace=False, p=c / c.sum()))
    s2 = 2.0 * sigma * sigma if sigma > 0 else 1.0
    sq = np.einsum("ij,ij->i", Z, Z)
    C = Z @ Z[land].T
    C *= -2.0
    C += sq[:, None]
    C += sq[land][None, :]
    np.maximum(C, 0.0, out=C)
    C /= -s2
    np.exp(C, out=C)  # C = W[:, L]
    A = C[land]
    # A^-1 by a Cholesky factor; the Gaussian kernel matrix is positive semi-definite but
    # often numerically singular, so a relative jitter (1e-10 of its unit diagonal, raised
    # tenfold until the factorisation succeeds) regularises it
    jitter = 1e-10
    while True:
        try:
            factor = cho_factor(A + jitter * np.eye(m), lower=True, check_finite=False)
            break
        except np.linalg.LinAlgError:
            jitter *= 10.0
            if jitter > 1e-2:
                raise
    deg = C @ cho_solve(factor, C.T @ c, check_finite=False)  # W c ~ C A^-1 C^T c
    scale = np.sqrt(c) / np.sqrt(np.maximum(deg, np.finfo(float).tiny))

    def matvec(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x).reshape(u, -1) * scale[:, None]
        y = C @ cho_solve(factor, C.T @ x, check_finite=False)
        return (y * scale[:, None]).reshape(np.shape(x)[0], -1).squeeze()

    def dense() -> np.ndarray:
        B = C * scale[:, None]
        S = B @ cho_solve(factor, B.T, check_finite=False)
        return (S + S.T) / 2.0

    op = LinearOperator((u, u), matvec=matvec, matmat=matvec, dtype=np.float64)
    return _top_eigenvectors(op, n_clusters, rs, dense=dense)


def gaussian_spectral_labels(
    Z: Any,
    n_clusters: int,
    random_state: Any = None,
    *,
    sigma: float | str = "median",
    init: str = "matlab",
    dense_limit: int = 8000,
    large: str = "nystrom",
    n_landmarks: int | str = "auto",
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
    dense_limit : int, default=8000
        Most distinct rows for the full affinity.
    large : {"nystrom", "knn"}, default="nystrom"
        Above ``dense_limit`` distinct rows: the Nystrom approximation of the full Gaussian
        graph (module docstring) or a sparse kNN Gaussian graph.
    n_landmarks : int or "auto", default="auto"
        Nystrom landmarks; ``"auto"``: ``min(u, 2000)``.
    n_neighbors : int, default=10
        Neighbours per row in the sparse kNN graph.

    Returns
    -------
    ndarray of shape (n,)
    """
    check_option("large", large, ("nystrom", "knn"))
    Z = np.asarray(Z, dtype=np.float64)
    rs = check_random_state(random_state)
    seed = rs.randint(np.iinfo(np.int32).max)
    if isinstance(sigma, str):
        check_option("sigma", sigma, ("median",))
    uniq, inverse, counts = _unique_rows(Z)
    if len(uniq) < n_clusters:
        raise CatEmbedError(
            f"the embedding has only {len(uniq)} distinct rows; cannot make {n_clusters} "
            "clusters."
        )
    if len(uniq) <= dense_limit:
        D2 = _squared_distances(uniq)
        if isinstance(sigma, str):
            sigma = _median_from_squared(D2, counts)
        W = _gaussian_from_squared(D2, float(sigma))
    else:
        if isinstance(sigma, str):
            sigma = median_pairwise_distance(Z, random_state=seed, dense_limit=dense_limit)
        if large == "nystrom":
            k = min(n_clusters, len(uniq))
            z = nystrom_spectral_embedding(uniq, float(sigma), k, counts=counts,
                                           n_landmarks=n_landmarks, random_state=seed)
            y = z / np.sqrt(counts)[:, None]
            norms = np.linalg.norm(y, axis=1, keepdims=True)
            y = y / np.where(norms > 0, norms, 1.0)
            labels = kmeans_labels(y, k, seed, init=init, sample_weight=counts)
            return labels[inverse]
        W = gaussian_affinity(uniq, float(sigma), n_neighbors=n_neighbors)
    labels = spectral_labels(W, n_clusters, seed, counts=counts, init=init)
    return labels[inverse]
