"""Evaluation: the papers' protocol, significance tests and the paper-table benchmark.

* :mod:`.methods`: the method registry (name -> how to run it);
* :mod:`catembed.cluster.embedding_labels` (below this package): MATLAB-style k-means,
  spectral clustering, CDE-G;
* :mod:`.protocol`: embed -> cluster -> score, repeated over seeds;
* :mod:`.significance`: paired t-test, Friedman test with Nemenyi / Bonferroni-Dunn CDs;
* :mod:`.classify`: classifiers on an embedding, repeated stratified splits (task
  ``classify``);
* :mod:`.retrieval`: precision@k with every object as a query (task ``retrieve``);
* :mod:`.bench`: run a paper table (``tables/*.json``) and print ours beside the paper's;
* :mod:`.studies`: the papers' studies (sensitivity, scalability, UNTIE's figures);
* :mod:`.cli`: the ``evaluate`` and ``bench`` subcommands.

The names below are loaded on first use (PEP 562), so that the command line, which imports
:mod:`.cli` for every command, starts without NumPy, pandas or scikit-learn.
"""

from __future__ import annotations

import importlib
from typing import Any

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

_WHERE = {
    "EvalMethod": "methods",
    "get_method": "methods",
    "method_names": "methods",
    "register_method": "methods",
    "CLUSTERERS": "protocol",
    "TASKS": "protocol",
    "MethodResult": "protocol",
    "MethodSpec": "protocol",
    "run_clustering": "protocol",
}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == "TASKS":  # the classify and retrieve tasks register themselves on import
        importlib.import_module(f"{__name__}.classify")
        importlib.import_module(f"{__name__}.retrieval")
    value = getattr(importlib.import_module(f"{__name__}.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
