""":class:`~catembed.cluster.Consensus` fitted on a Dask DataFrame with the client's memory
bounded by a sample, not by the rows (``docs/distributed.md``).

A table of at most :data:`CONSENSUS_ROWS` rows is gathered and fitted in memory (the labels
are the in-memory fit's, row for row). A larger one is fitted in memory on a uniform sample
of about ``CONSENSUS_ROWS`` rows gathered to the client: the members' statistics and value
tables, their k-means runs, the agreement weights, ``n_clusters="auto"``'s BIC, the
combination and the trust figures read the sample. Every row is then labelled partition by
partition by ``predict`` (its members' embeddings, a lookup per row, and the nearest
consensus centre): ``labels_`` is a lazy Dask Series aligned with the input's partitions,
and on the sampled rows equal to the sample fit's labels; ``n_rows_fitted_`` is the number
of rows the fit read (a Dask fit only). ``profiles_`` is then computed from every row by
reduced counts (:mod:`._dask_profiles`; medians, interquartile ranges and paragons from the
sample). ``predict`` and ``transform`` of a Dask frame map its partitions. Saving the model
(``save``) computes the labels into the file.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from ..._utils._validation import is_dask_collection
from ._clusterwise import stability_columns
from ._dask_profiles import dask_profiles
from ._degenerate import fit_guarded
from ._runs import _gather

__all__ = ["CONSENSUS_ROWS", "_gather", "fit_routed", "predict_routed", "profiles_deferred",
           "profiles_from_pass", "transform_routed"]

#: the most rows a Dask input's consensus is fitted on in the client's memory (a uniform
#: sample above): about 1 KiB per row at the default members, so 200 MiB
CONSENSUS_ROWS = 200_000

_DEFERRED: contextvars.ContextVar[bool] = contextvars.ContextVar("profiles_deferred",
                                                                default=False)


@contextlib.contextmanager
def profiles_deferred() -> Iterator[None]:
    """Within: a sampled Dask fit leaves ``profiles_`` the sample's and makes no pass of its
    own; the caller labels every row once for its own use (``catembed cluster --scheduler``
    writes them) and gives that pass's counts to :func:`profiles_from_pass`."""
    token = _DEFERRED.set(True)
    try:
        yield
    finally:
        _DEFERRED.reset(token)


def profiles_from_pass(est: Any, counts: Any, numeric: list[Any]) -> None:
    """``profiles_`` from every row after a fit under :func:`profiles_deferred`: ``counts``
    are ``_dask_profiles.reduce_counts``' of the fitted frame and its labels (merged in the
    same tree order: the fit's own pass gives the same frame); nothing to do when the fit
    gathered every row (its ``profiles_`` are the in-memory fit's)."""
    from ._dask_profiles import profiles_from_counts

    n = 0 if counts is None else int(np.sum(counts["sizes"]))
    if est.n_rows_fitted_ < n:
        est.profiles_ = profiles_from_counts(counts, numeric, getattr(est, "profiles_", None))
        stability_columns(est)


def fit_routed(est: Any, X: Any, names: list[str]) -> Any:
    """``Consensus.fit``'s body (``fit_guarded``: ``_fit``, again without an outlier group's
    rows if any), in memory, or of a Dask DataFrame on the whole table or a bounded sample
    (``diagnostics_``' row numbers are then the sample's)."""
    if not is_dask_collection(X):
        est.__dict__.pop("n_rows_fitted_", None)  # a Dask fit's, before this refit
        return fit_guarded(est, X, names)
    from .._dask_fit import predict_dask  # the Dask passes (and k-modes') on Dask input only

    n, table = _small_table(X, int(CONSENSUS_ROWS))
    if table is None:
        seed = np.random.RandomState(_seed(est.random_state)).randint(np.iinfo(np.int32).max)
        table = X.sample(frac=min(1.0, CONSENSUS_ROWS / n), random_state=int(seed)).compute()
    fit_guarded(est, table, names)
    est.n_rows_fitted_ = len(table)
    est.labels_ = predict_dask(est, X)
    if len(table) < n and not _DEFERRED.get():  # a sample: the profiles from every row
        est.profiles_ = dask_profiles(est, X, est.labels_)
        stability_columns(est)
    return est


def predict_routed(est: Any, X: Any) -> Any:
    """``Consensus.predict``: in memory, or of a Dask frame a lazy Dask Series of int64
    labels, partition by partition (``check_is_fitted`` first, as in memory)."""
    from ._combine import nearest_labels

    if is_dask_collection(X):
        from .._dask_fit import predict_dask

        check_is_fitted(est, "labels_")
        return predict_dask(est, X)
    return nearest_labels(est._coordinates_of(X), est.cluster_centers_)


def transform_routed(est: Any, X: Any) -> Any:
    """``Consensus.transform``: in memory, or of a Dask frame a lazy Dask DataFrame of the
    consensus coordinates (columns ``get_feature_names_out()``), partition by partition."""
    if not is_dask_collection(X):
        return est._coordinates_of(X)
    from .._dask_fit import _snapshot

    check_is_fitted(est, "labels_")
    names = [str(c) for c in est.get_feature_names_out()]
    meta = pd.DataFrame({c: np.array([], dtype=np.float64) for c in names},
                        index=X._meta.index[:0])
    return X.map_partitions(_coordinates_partition, _snapshot(est), names, meta=meta)


def _coordinates_partition(part: pd.DataFrame, est: Any, names: list[str]) -> pd.DataFrame:
    return pd.DataFrame(np.asarray(est._coordinates_of(part), dtype=np.float64),
                        index=part.index, columns=names)


def _small_table(ddf: Any, cap: int) -> tuple[int, pd.DataFrame | None]:
    """The number of rows, and the table itself when it has at most ``cap`` rows: one
    pass, partitions concatenated by a tree reduction that drops them above ``cap``."""
    import dask

    def leaf(part: pd.DataFrame) -> tuple[int, pd.DataFrame | None]:
        return len(part), part if len(part) <= cap else None

    def merge(a: tuple[int, Any], b: tuple[int, Any]) -> tuple[int, pd.DataFrame | None]:
        n = a[0] + b[0]
        if n > cap or a[1] is None or b[1] is None:
            return n, None
        return n, pd.concat([a[1], b[1]])

    level = [dask.delayed(leaf)(p) for p in ddf.to_delayed()]
    while len(level) > 1:
        level = [dask.delayed(merge)(level[i], level[i + 1]) if i + 1 < len(level)
                 else level[i] for i in range(0, len(level), 2)]
    (out,) = dask.compute(level[0])
    return out


def _seed(random_state: Any) -> Any:
    """The sample's seed from ``random_state`` without drawing from a given RandomState
    (the fit draws from it afterwards as an in-memory fit does)."""
    if isinstance(random_state, np.random.RandomState):
        return random_state.get_state()[1][0]
    return random_state
