"""The default clusterer, :class:`Consensus`, and its parts (issue 57: one room).

* ``_estimator``: the class; ``_members``, ``_runs``, ``_combine``: its members, their k-means
  runs and weights, the combination step; ``_auto_k``, ``_blrt``: k chosen without labels;
  ``_trust``, ``_clusterwise``, ``_degenerate``: the trust figures, warnings and issue 53's
  guard; ``_describe``: the profiles (:func:`describe_clusters`); ``_state``: saving;
  ``_dask``, ``_dask_profiles``: Dask input.

Names are imported on first use, as in :mod:`catembed.cluster`.
"""

from __future__ import annotations

from ..._utils._lazy import lazy_exports

# public name -> the module that defines it
_NAMES = {
    "Consensus": "_estimator",
    "DEFAULT_MEMBERS": "_estimator",
    "consensus_embedder": "_estimator",
    "consensus_labels": "_estimator",
}

__all__ = sorted(_NAMES)

__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
