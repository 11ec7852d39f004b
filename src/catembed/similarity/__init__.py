"""Similarity baselines: value distance tables, object distances in chunks, Gower.

* :func:`value_tables` / :class:`CategoricalDistance`: Hamming, Ahmad & Dey (ALGO), DILCA,
  COS, DM, Rough value distance tables from the shared statistics (method spec section 4).
* :func:`pairwise_chunks_from_codes`, :func:`kneighbors_from_codes`: object distances and
  nearest neighbours from the tables, memory ``O(chunk x n)``.
* :class:`GowerDistance`, :func:`gower_distances`: mixed data, missing values skipped.
"""

from .estimator import CategoricalDistance
from .gower import GowerDistance, gower_distances
from .objects import (
    dm_distances,
    dm_parameters,
    kneighbors_from_codes,
    kneighbors_graph_from_codes,
    pairwise_chunks_from_codes,
    pairwise_from_codes,
)
from .tables import (
    METRICS,
    ValueTables,
    ahmad_tables,
    cos_similarity_tables,
    cos_tables,
    dilca_context,
    dilca_tables,
    dm_tables,
    hamming_tables,
    rough_tables,
    value_tables,
)

__all__ = [
    "METRICS",
    "CategoricalDistance",
    "GowerDistance",
    "ValueTables",
    "ahmad_tables",
    "cos_similarity_tables",
    "cos_tables",
    "dilca_context",
    "dilca_tables",
    "dm_distances",
    "dm_parameters",
    "dm_tables",
    "gower_distances",
    "hamming_tables",
    "kneighbors_from_codes",
    "kneighbors_graph_from_codes",
    "pairwise_chunks_from_codes",
    "pairwise_from_codes",
    "rough_tables",
    "value_tables",
]
