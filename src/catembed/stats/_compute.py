"""The public entry points of the statistics (re-exported by :mod:`catembed.stats`):
:func:`compute_statistics` of one table, of chunks or of a Dask DataFrame's partitions (merged
exactly), and :func:`count_chunks`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._utils._params import check_option
from .._utils._validation import CatEmbedError, as_frame, is_dask_collection
from ._counting import DENSE_LIMIT
from ._encoding import (
    INFREQUENT,
    encode,
    encode_column,
    encode_frame,
    factorize,
    factorize_frame,
)
from ._value_statistics import ValueStatistics, count_table

#: rows counted at a time within one partition of a Dask DataFrame
_DASK_SLICE = 1 << 20

__all__ = [
    "DENSE_LIMIT",
    "INFREQUENT",
    "ValueStatistics",
    "compute_statistics",
    "count_chunks",
    "count_table",
    "encode",
    "encode_column",
    "encode_frame",
    "factorize",
    "factorize_frame",
    "statistics_from_iterable",
]


def count_chunks(
    frames: Iterable[pd.DataFrame],
    *,
    columns: Sequence[str] | None = None,
    handle_missing: str = "category",
    dense_limit: int = DENSE_LIMIT,
    progress: Any = None,
) -> ValueStatistics:
    """Count checked chunks of one table one by one and merge them exactly."""
    total: ValueStatistics | None = None
    for frame in frames:
        part = count_table(frame, columns=columns, handle_missing=handle_missing,
                           dense_limit=dense_limit)
        total = part if total is None else total.merge(part, dense_limit=dense_limit)
        if progress is not None:
            progress(part.n_rows)
    if total is None:
        raise CatEmbedError("the input has no rows.")
    return total


def compute_statistics(
    data: Any,
    *,
    columns: Sequence[str] | None = None,
    handle_missing: str = "category",
    dense_limit: int = DENSE_LIMIT,
    progress: Any = None,
    before_count: Callable[[np.ndarray, int], None] | None = None,
) -> ValueStatistics:
    """Value statistics of a table, or of an iterable of chunks of one table.

    Parameters
    ----------
    data : DataFrame, array-like, Dask DataFrame, or iterable of DataFrames
        An iterable (a ``pandas.read_csv(..., chunksize=...)`` reader, a generator of Parquet
        batches) is counted chunk by chunk in bounded memory and the chunks are merged
        exactly. A Dask DataFrame is counted partition by partition on its scheduler and the
        partitions merged by a tree reduction (``pip install "catembed[dask]"``).
    columns : list of str, optional
        The categorical columns; default every column.
    handle_missing : {"category", "error"}
    dense_limit : int
        Largest number of values for a dense co-occurrence matrix.
    progress : callable, optional
        Called with the number of rows of each chunk once it is counted.
    before_count : callable, optional
        For an in-memory table: called as ``before_count(sizes, n_rows)`` between the
        factorisation and the counting (see :meth:`ValueStatistics.from_frame`).
    """
    if is_dask_collection(data):
        return _dask_statistics(
            data, columns=columns, handle_missing=handle_missing, dense_limit=dense_limit,
            progress=progress,
        )
    if isinstance(data, (pd.DataFrame, pd.Series, np.ndarray, list)):
        stats = ValueStatistics.from_frame(
            data, columns=columns, handle_missing=handle_missing, dense_limit=dense_limit,
            before_count=before_count,
        )
        if progress is not None:
            progress(stats.n_rows)
        return stats
    def checked(chunks: Iterable[Any]) -> Iterable[pd.DataFrame]:
        for chunk in chunks:
            check_option("handle_missing", handle_missing, ("category", "error"))
            yield as_frame(chunk)

    return count_chunks(checked(data), columns=columns,
                        handle_missing=handle_missing, dense_limit=dense_limit,
                        progress=progress)


def _dask_statistics(data: Any, *, progress: Any = None, **kwargs: Any) -> ValueStatistics:
    """Count every partition of a Dask DataFrame in parallel and merge by a tree reduction.

    The statistics of the partitions are exact integer sums, so the result equals the
    statistics of the computed frame, whatever the partitioning or the scheduler.
    """
    import dask

    def merge(a: ValueStatistics, b: ValueStatistics) -> ValueStatistics:
        return a.merge(b, dense_limit=kwargs.get("dense_limit", DENSE_LIMIT))

    def count(part: pd.DataFrame, rows: int) -> ValueStatistics:
        # a large partition is counted by slices of rows: a worker's memory is bounded by
        # the slice's codes (4 bytes per cell), not by the partition's size
        total = ValueStatistics.from_frame(part.iloc[:rows], **kwargs)
        for start in range(rows, len(part), rows):
            total = merge(total, ValueStatistics.from_frame(part.iloc[start : start + rows],
                                                            **kwargs))
        return total

    level = [dask.delayed(count)(part, _DASK_SLICE) for part in data.to_delayed()]
    if not level:
        raise CatEmbedError("the input has no rows.")
    while len(level) > 1:
        level = [dask.delayed(merge)(level[i], level[i + 1]) if i + 1 < len(level)
                 else level[i] for i in range(0, len(level), 2)]
    (stats,) = dask.compute(level[0])
    if progress is not None:
        progress(stats.n_rows)
    return stats


def statistics_from_iterable(chunks: Iterable[Any], **kwargs: Any) -> ValueStatistics:
    """Alias of :func:`compute_statistics` for an iterable of chunks."""
    return compute_statistics(iter(chunks), **kwargs)
