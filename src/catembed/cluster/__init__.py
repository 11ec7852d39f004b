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

Names are imported on first use (PEP 562 module ``__getattr__``, as :mod:`catembed.embed`):
``catembed cluster`` imports the consensus and its members only, not k-modes, the similarity
measures, spectral clustering or the survey clusterers (issue 55: start-up).
"""

from __future__ import annotations

from .._utils._lazy import lazy_exports

# public name -> the module that defines it
_NAMES = {
    "Consensus": "consensus",
    "GowerAgglomerative": "mixed",
    "KModes": "kmodes",
    "KPrototypes": "kprototypes",
    "LCA": "lca",
    "LSHKRepresentatives": "lshkreps",
    "MGR": "mgr",
    "NaiveKMeans": "mixed",
    "OCL": "ocl",
    "OneHotKMeans": "mixed",
    "SimilaritySpectral": "spectral",
    "connect_components": "spectral",
    "describe_classes": "lca",
    "describe_clusters": "consensus._describe",
    "init_cao": "_kmodes_init",
    "init_huang": "_kmodes_init",
    "kmodes_lloyd": "_kmodes_core",
    "kmodes_labels": "kmodes",
    "knn_affinity": "spectral",
    "similarity_spectral_labels": "spectral",
    "thesis_preprocess": "mixed",
}

__all__ = sorted(_NAMES)

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
