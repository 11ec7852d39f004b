""":class:`~catembed.cluster.Consensus` fitted on a Dask DataFrame with the client's memory
bounded by a sample, not by the rows (``docs/distributed.md``).

A table of at most :data:`CONSENSUS_ROWS` rows is gathered and fitted in memory (the labels
are the in-memory fit's, row for row). A larger one is fitted in memory on a uniform sample
of about ``CONSENSUS_ROWS`` rows gathered to the client: the members' statistics and value
tables, their k-means runs, the agreement weights, ``n_clusters="auto"``'s BIC, the
combination, the trust figures and ``profiles_`` all read the sample. Every row is then
labelled partition by partition by ``predict`` (its members' embeddings, a lookup per row,
and the nearest consensus centre): ``labels_`` is a lazy Dask Series aligned with the input's
partitions, and on the sampled rows equal to the sample fit's labels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._validation import is_dask_collection
from ._consensus_degenerate import fit_guarded
from ._consensus_runs import _gather
from ._dask_fit import _Parts, predict_dask

__all__ = ["CONSENSUS_ROWS", "_gather", "fit_routed"]

#: the most rows a Dask input's consensus is fitted on in the client's memory (a uniform
#: sample above): about 1 KiB per row at the default members, so 200 MiB
CONSENSUS_ROWS = 200_000


def fit_routed(est: Any, X: Any, names: list[str]) -> Any:
    """``Consensus._fit``: in memory, or of a Dask DataFrame on a bounded sample."""
    if not is_dask_collection(X):
        return fit_guarded(est, X, names)
    parts = _Parts(X)
    if parts.n <= int(CONSENSUS_ROWS):
        table = X.compute()
    else:
        seed = np.random.RandomState(_seed(est.random_state)).randint(np.iinfo(np.int32).max)
        table = parts.sample(int(CONSENSUS_ROWS), int(seed))
    fit_guarded(est, table, names)
    est.n_rows_fitted_ = len(table)
    est.labels_ = predict_dask(est, X)
    return est


def _seed(random_state: Any) -> Any:
    """The sample's seed from ``random_state`` without drawing from a given RandomState
    (the fit draws from it afterwards as an in-memory fit does)."""
    if isinstance(random_state, np.random.RandomState):
        return random_state.get_state()[1][0]
    return random_state
