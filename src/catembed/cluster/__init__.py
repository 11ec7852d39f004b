"""Clustering of categorical and mixed data on the shared value tables.

* :class:`KModes`, :class:`KPrototypes`: Huang (1998), vectorised, any value distance.
* :class:`SimilaritySpectral`: spectral clustering on a similarity measure (full or kNN).
* The thesis baselines: :class:`NaiveKMeans`, :class:`OneHotKMeans`,
  :class:`GowerAgglomerative` (and :class:`KPrototypes`).
* :class:`LCA`: latent class analysis (EM on the value indicators, chunked).
* :class:`MGR`: divisive clustering by the mean gain ratio (Qin et al. 2014).
* :class:`LSHKRepresentatives`: k-representatives started from LSH buckets (Mau & Huynh
  2021).
* :class:`OCL`: k-modes-type clustering with a learned order of each attribute's values
  (Zhang et al. 2024).
* :class:`Consensus`: a label-free consensus of several embeddings' k-means runs.
* :func:`describe_clusters`: what each cluster means (FactoMineR's ``catdes`` statistics:
  shares, hypergeometric p-values and v-tests, chi-square per column, Eta2 and v-tests of
  numbers, paragons); :func:`describe_classes`: an :class:`LCA`'s class shares and
  class-conditional probabilities.
* :mod:`.embedding_labels`: k-means (MATLAB-style seeding), spectral clustering and CDE-G of
  an embedding, the papers' evaluation protocol's clusterers.
"""

from ._describe import describe_classes, describe_clusters
from ._kmodes_core import kmodes_lloyd
from ._kmodes_init import init_cao, init_huang
from .consensus import Consensus
from .kmodes import KModes, kmodes_labels
from .kprototypes import KPrototypes
from .lca import LCA
from .lshkreps import LSHKRepresentatives
from .mgr import MGR
from .mixed import GowerAgglomerative, NaiveKMeans, OneHotKMeans, thesis_preprocess
from .ocl import OCL
from .spectral import (
    SimilaritySpectral,
    connect_components,
    knn_affinity,
    similarity_spectral_labels,
)

__all__ = [
    "Consensus",
    "GowerAgglomerative",
    "KModes",
    "KPrototypes",
    "LCA",
    "LSHKRepresentatives",
    "MGR",
    "NaiveKMeans",
    "OCL",
    "OneHotKMeans",
    "SimilaritySpectral",
    "connect_components",
    "describe_classes",
    "describe_clusters",
    "init_cao",
    "init_huang",
    "kmodes_lloyd",
    "kmodes_labels",
    "knn_affinity",
    "similarity_spectral_labels",
    "thesis_preprocess",
]
