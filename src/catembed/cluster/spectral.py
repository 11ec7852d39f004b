"""Spectral clustering on a precomputed similarity or a sparse kNN graph of value distances.

The similarity baselines of CDE Table 2 (COS, DILCA, ALGO) are clustered spectrally. On a
small table the full ``n x n`` similarity is fine; on a large one (Adult, 30,162 rows, where
the papers ran out of memory) the graph is the ``k`` nearest neighbours of each row, found
in chunks from the value tables (memory ``O(chunk x n)``), symmetrised and sparse, and the
eigenvectors come from a sparse solver.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils import check_random_state

from .._utils._params import check_int, check_option, check_random_state_param
from .._utils._spelling import in_cli, k_asked
from .._utils._validation import CatEmbedError, categorical_input_tags
from ..similarity.estimator import CategoricalDistance
from ..similarity.objects import (
    kneighbors_graph_from_codes,
    pairwise_chunks_from_codes,
    pairwise_from_codes,
)
from ..similarity.tables import METRICS, ValueTables
from .embedding_labels import kmeans_labels, spectral_labels

__all__ = [
    "SimilaritySpectral",
    "connect_components",
    "knn_affinity",
    "similarity_spectral_labels",
]


def _sparse_spectral_labels(W: sp.csr_array, n_clusters: int, random_state: Any, *,
                            counts: np.ndarray, init: str) -> np.ndarray:
    """:func:`catembed.cluster.embedding_labels.spectral_labels` for a large sparse graph.

    The same count-weighted Ng-Jordan-Weiss steps, but the top eigenvectors of
    ``C^1/2 D^-1/2 W D^-1/2 C^1/2`` come from ARPACK in shift-invert mode around 1 (a
    sparse LU factorisation), which converges where plain Lanczos stalls on the clustered
    eigenvalues near 1 of a kNN graph with weakly joined parts.
    """
    from scipy.sparse.linalg import ArpackNoConvergence, eigsh

    c = np.asarray(counts, dtype=np.float64)
    deg = np.asarray(W @ c).ravel()
    scale = np.sqrt(c) / np.sqrt(deg)
    S = sp.csc_matrix(sp.diags(scale) @ W @ sp.diags(scale))
    k = min(n_clusters, S.shape[0] - 1)
    rs = check_random_state(random_state)
    try:
        _, z = eigsh(S, k=k, sigma=1.0 + 1e-6, which="LM", v0=rs.uniform(-1, 1, S.shape[0]))
    except (ArpackNoConvergence, RuntimeError):
        return spectral_labels(W, n_clusters, random_state, counts=counts, init=init)
    y = z / np.sqrt(c)[:, None]
    norms = np.linalg.norm(y, axis=1, keepdims=True)
    y = y / np.where(norms > 0, norms, 1.0)
    return kmeans_labels(y, k, random_state, init=init, sample_weight=c)


def _median_scale(d: np.ndarray, mult: np.ndarray) -> float:
    """Median positive distance over all pairs of rows (distinct rows weighted by counts)."""
    iu = np.triu_indices(len(d), k=1)
    vals = d[iu]
    w = (mult[iu[0]] * mult[iu[1]]).astype(np.float64)
    keep = vals > 0
    vals, w = vals[keep], w[keep]
    if vals.size == 0:
        return 1.0
    order = np.argsort(vals, kind="stable")
    cum = np.cumsum(w[order])
    return float(vals[order][np.searchsorted(cum, cum[-1] / 2.0)])


def connect_components(graph: sp.csr_array, codes: np.ndarray, vt: ValueTables
                       ) -> sp.csr_array:
    """Join the components of a kNN distance graph by their shortest links (Boruvka steps).

    A kNN graph can fall apart into components (rare values far from the rest), which
    leaves spectral clustering an eigenvalue 1 of high multiplicity: arbitrary labels and a
    slow eigensolver. Each step adds, for every component, the edge to its nearest row in
    another component (distances computed in chunks, memory ``O(chunk x n)``); the number of
    components at least halves per step.
    """
    g = sp.csr_array(graph, copy=True)
    n = g.shape[0]
    while True:
        n_comp, comp = connected_components(g, directed=False)
        if n_comp <= 1:
            return g
        best_d = np.full(n_comp, np.inf)
        best_ij = np.zeros((n_comp, 2), dtype=np.int64)
        for start, block in pairwise_chunks_from_codes(codes, codes, vt):
            rows = np.arange(start, start + len(block))
            block[comp[rows][:, None] == comp[None, :]] = np.inf
            j = np.argmin(block, axis=1)
            dj = block[np.arange(len(block)), j]
            for c in np.unique(comp[rows]):
                sel = np.flatnonzero(comp[rows] == c)
                i = sel[np.argmin(dj[sel])]
                if dj[i] < best_d[c]:
                    best_d[c] = dj[i]
                    best_ij[c] = (rows[i], j[i])
        add = sp.csr_array((np.maximum(best_d, 1e-12), (best_ij[:, 0], best_ij[:, 1])),
                           shape=(n, n))
        g = sp.csr_array(g.maximum(add))


def knn_affinity(dist_graph: sp.csr_array, *, scale: float | None = None) -> sp.csr_array:
    """Gaussian affinity ``exp(-d^2 / (2 s^2))`` on a kNN distance graph, symmetrised.

    ``s`` defaults to the median of the positive neighbour distances; the graph is made
    symmetric by ``max(A, A^T)`` so an edge kept by either end point survives.
    """
    g = sp.csr_array(dist_graph, copy=True)
    d = g.data
    if scale is None:
        pos = d[d > 0]
        scale = float(np.median(pos)) if pos.size else 1.0
    g.data = np.exp(-(d ** 2) / (2.0 * scale ** 2))
    return sp.csr_array(g.maximum(g.T))


class SimilaritySpectral(ClusterMixin, BaseEstimator):
    """Spectral clustering with a categorical similarity measure (CDE Table 2 baselines).

    Parameters
    ----------
    n_clusters : int, default=2
    metric : {"cos", "dilca", "ahmad", ...}, default="cos"
        Value distance tables (:class:`catembed.similarity.CategoricalDistance`).
    graph : {"auto", "full", "knn"}, default="auto"
        ``"full"``: the ``n x n`` similarity (the papers' setting); ``"knn"``: a sparse graph
        of ``n_neighbors`` neighbours per row; ``"auto"``: full up to ``full_limit`` rows.
    n_neighbors : int, default=30
    full_limit : int, default=5000
        Largest number of distinct rows for ``graph="auto"`` to build the full graph.
    random_state : int, RandomState or None

    Notes
    -----
    Identical rows are merged first: the graph has one node per distinct row (Adult's
    30,162 rows are 7,722 distinct rows) and
    :func:`catembed.cluster.embedding_labels.spectral_labels` with the multiplicities as
    ``counts`` gives exactly the spectral clustering of the graph over all rows (identical
    rows joined by the self-similarity). In a kNN graph the neighbours are distinct rows,
    so it is not broken into components of duplicates; components that remain are joined
    by their shortest links (:func:`connect_components`). Every row gets its node's label.
    Spectral clustering is Ng-Jordan-Weiss (normalised affinity, unit rows, k-means with
    ``init``: ``"matlab"`` k-means++ with one candidate per step, or ``"sklearn"``).

    Similarity from distance: COS uses its own similarity ``sum_j s_j = m - d``;
    the other measures ``exp(-d^2 / (2 s^2))`` with ``s`` the median positive distance
    over pairs of rows (all pairs when full; for a kNN graph, the pairs of a random sample
    of 2000 rows, drawn with ``random_state``). The median over neighbour pairs only would
    be far smaller and leave weakly joined parts of the graph nearly disconnected. Chosen
    here: the CDE paper does not say how it turned distances into similarities.

    Attributes
    ----------
    labels_ : ndarray
    affinity_matrix_ : ndarray or sparse array
    distance_ : CategoricalDistance
    """

    def __init__(self, n_clusters: int = 2, *, metric: str = "cos", graph: str = "auto",
                 n_neighbors: int = 30, full_limit: int = 5000, init: str = "matlab",
                 random_state: Any = None, handle_missing: str = "category",
                 categorical_features: Any = "auto") -> None:
        self.n_clusters = n_clusters
        self.metric = metric
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.full_limit = full_limit
        self.init = init
        self.random_state = random_state
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features

    def fit(self, X: Any, y: Any = None) -> SimilaritySpectral:
        """Build the similarity graph of the rows of ``X`` and cluster it."""
        check_option("metric", self.metric, tuple(METRICS))
        check_option("graph", self.graph, ("auto", "full", "knn"))
        check_int("n_clusters", self.n_clusters)
        check_int("n_neighbors", self.n_neighbors)
        check_int("full_limit", self.full_limit, minimum=0)
        check_random_state_param(self.random_state)
        from .mixed import _frame

        X = _frame(self, X)  # empty tables refused as scikit-learn does; n_features_in_
        self.distance_ = CategoricalDistance(
            metric=self.metric, handle_missing=self.handle_missing,
            categorical_features=self.categorical_features,
        ).fit(X)
        codes = self.distance_.encode(X)
        n = len(codes)
        if n <= self.n_clusters:
            raise CatEmbedError(f"the table has only {n} row(s), not more than "
                                f"{k_asked(self.n_clusters)}." if in_cli() else
                                f"n_samples={n} must exceed n_clusters={self.n_clusters}.")
        uniq, inverse, mult = np.unique(codes, axis=0, return_inverse=True,
                                        return_counts=True)
        inverse = inverse.ravel()
        n_u = len(uniq)
        if n_u < self.n_clusters:
            raise CatEmbedError(
                f"the table has only {n_u} distinct rows, fewer than "
                f"{k_asked(self.n_clusters)}."
            )
        full = self.graph == "full" or (self.graph == "auto" and n_u <= self.full_limit)
        vt = self.distance_.tables_
        m = len(vt.tables)
        if full:
            d = pairwise_from_codes(uniq, None, vt)
            if self.metric == "cos":
                aff = np.maximum(m - d, 0.0)
            else:
                s = _median_scale(d, mult)
                aff = np.exp(-(d ** 2) / (2.0 * s ** 2))
        else:
            k = min(self.n_neighbors, n_u - 1)
            g = connect_components(kneighbors_graph_from_codes(uniq, vt, k), uniq, vt)
            if self.metric == "cos":
                g = sp.csr_array(g, copy=True)
                g.data = np.maximum(m - g.data, 1e-12)
                aff = sp.csr_array(g.maximum(g.T))
                self_aff = float(m)
            else:
                # the same scale as the full graph: the median distance over pairs of rows,
                # estimated on a random sample of at most 2000 rows
                rs = check_random_state(self.random_state)
                pick = rs.choice(n, size=min(n, 2000), replace=False)
                ds = pairwise_from_codes(codes[pick], None, vt)
                aff = knn_affinity(g, scale=_median_scale(ds, np.ones(len(pick))))
                self_aff = 1.0
            aff = sp.csr_array(aff + sp.diags_array(np.full(n_u, self_aff)))
        self.n_distinct_ = n_u
        self.affinity_matrix_ = aff
        if sp.issparse(aff):
            labels = _sparse_spectral_labels(aff, self.n_clusters, self.random_state,
                                             counts=mult, init=self.init)
        else:
            labels = spectral_labels(aff, self.n_clusters, self.random_state, counts=mult,
                                     init=self.init)
        self.labels_ = labels[inverse]
        return self

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())


def similarity_spectral_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                               metric: str = "cos", **params: Any) -> np.ndarray:
    """Labels of :class:`SimilaritySpectral` (the evaluation protocol's ``labels`` hook)."""
    return SimilaritySpectral(n_clusters=n_clusters, metric=metric, random_state=random_state,
                              categorical_features="all", **params).fit(X).labels_
