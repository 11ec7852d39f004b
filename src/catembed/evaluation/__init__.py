"""Evaluation: the papers' protocol, significance tests and the paper-table benchmark.

* :mod:`.methods`: the method registry (name -> how to run it);
* :mod:`.clustering`: MATLAB-style k-means, spectral clustering, CDE-G;
* :mod:`.protocol`: embed -> cluster -> score, repeated over seeds;
* :mod:`.significance`: paired t-test, Friedman test with Nemenyi / Bonferroni-Dunn CDs;
* :mod:`.classify`: classifiers on an embedding, repeated stratified splits (task
  ``classify``);
* :mod:`.retrieval`: precision@k with every object as a query (task ``retrieve``);
* :mod:`.bench`: run a paper table (``tables/*.json``) and print ours beside the paper's;
* :mod:`.cli`: the ``evaluate`` and ``bench`` subcommands.
"""

from . import classify as _classify  # noqa: F401  (registers the "classify" task)
from . import retrieval as _retrieval  # noqa: F401  (registers the "retrieve" task)
from .methods import EvalMethod, get_method, method_names, register_method
from .protocol import CLUSTERERS, TASKS, MethodResult, MethodSpec, run_clustering

__all__ = [
    "CLUSTERERS",
    "EvalMethod",
    "MethodResult",
    "MethodSpec",
    "TASKS",
    "get_method",
    "method_names",
    "register_method",
    "run_clustering",
]
