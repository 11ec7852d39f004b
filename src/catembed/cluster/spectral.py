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
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.cluster import spectral_clustering

from .._validation import CatEmbedError, check_option
from ..similarity.estimator import CategoricalDistance
from ..similarity.objects import kneighbors_graph_from_codes, pairwise_from_codes
from ..similarity.tables import METRICS

__all__ = ["SimilaritySpectral", "knn_affinity", "spectral_from_affinity"]


def spectral_from_affinity(affinity: Any, n_clusters: int, *, random_state: Any = None,
                           eigen_solver: str | None = None) -> np.ndarray:
    """Labels from spectral clustering of a symmetric non-negative affinity (dense or sparse).

    A thin wrapper of :func:`sklearn.cluster.spectral_clustering` (normalised Laplacian,
    k-means on the embedding).
    """
    if sp.issparse(affinity):
        affinity = sp.csr_matrix(affinity)
    return spectral_clustering(affinity, n_clusters=n_clusters, random_state=random_state,
                               eigen_solver=eigen_solver, assign_labels="kmeans")


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
    Identical rows are merged first: the graph has one node per distinct row and the
    affinity of two nodes is multiplied by both multiplicities (``m_u m_v a(u, v)``, the
    total affinity between the two groups of rows), so a kNN graph is not broken into
    components of duplicates, and Adult's 30,162 rows become 7,722 nodes. Every row gets
    the label of its node.

    Similarity from distance: COS uses its own similarity ``sum_j s_j = m - d``;
    the other measures ``exp(-d^2 / (2 s^2))`` with ``s`` the median positive distance
    (of all pairs when full, of the neighbour pairs for a kNN graph). Chosen here: the
    CDE paper does not say how it turned distances into similarities.

    Attributes
    ----------
    labels_ : ndarray
    affinity_matrix_ : ndarray or sparse array
    distance_ : CategoricalDistance
    """

    def __init__(self, *, n_clusters: int = 2, metric: str = "cos", graph: str = "auto",
                 n_neighbors: int = 30, full_limit: int = 5000, random_state: Any = None,
                 handle_missing: str = "category", categorical_features: Any = "auto"
                 ) -> None:
        self.n_clusters = n_clusters
        self.metric = metric
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.full_limit = full_limit
        self.random_state = random_state
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features

    def fit(self, X: Any, y: Any = None) -> SimilaritySpectral:
        """Build the similarity graph of the rows of ``X`` and cluster it."""
        check_option("metric", self.metric, tuple(METRICS))
        check_option("graph", self.graph, ("auto", "full", "knn"))
        self.distance_ = CategoricalDistance(
            metric=self.metric, handle_missing=self.handle_missing,
            categorical_features=self.categorical_features,
        ).fit(X)
        codes = self.distance_.encode(X)
        n = len(codes)
        if n <= self.n_clusters:
            raise CatEmbedError(f"n_samples={n} must exceed n_clusters={self.n_clusters}.")
        uniq, inverse, mult = np.unique(codes, axis=0, return_inverse=True,
                                        return_counts=True)
        inverse = inverse.ravel()
        n_u = len(uniq)
        if n_u < self.n_clusters:
            raise CatEmbedError(
                f"the table has only {n_u} distinct rows, fewer than n_clusters="
                f"{self.n_clusters}."
            )
        full = self.graph == "full" or (self.graph == "auto" and n_u <= self.full_limit)
        vt = self.distance_.tables_
        m = len(vt.tables)
        w = mult.astype(np.float64)
        if full:
            d = pairwise_from_codes(uniq, None, vt)
            if self.metric == "cos":
                aff = np.maximum(m - d, 0.0)
            else:
                pos = d[d > 0]
                s = float(np.median(pos)) if pos.size else 1.0
                aff = np.exp(-(d ** 2) / (2.0 * s ** 2))
            aff *= w[:, None] * w[None, :]
        else:
            k = min(self.n_neighbors, n_u - 1)
            g = kneighbors_graph_from_codes(uniq, vt, k)
            if self.metric == "cos":
                g = sp.csr_array(g, copy=True)
                g.data = np.maximum(m - g.data, 1e-12)
                aff = sp.csr_array(g.maximum(g.T))
            else:
                aff = knn_affinity(g)
            scale = sp.diags_array(w)
            aff = sp.csr_array(scale @ aff @ scale)
            aff = sp.csr_array((aff + aff.T) * 0.5)  # exact symmetry after rounding
        self.n_distinct_ = n_u
        self.affinity_matrix_ = aff
        self.labels_ = spectral_from_affinity(aff, self.n_clusters,
                                              random_state=self.random_state)[inverse]
        return self
