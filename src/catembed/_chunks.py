"""Fitting on a table read chunk by chunk (a file larger than memory).

The same steps as an in-memory fit: the first chunk gives the input names and the columns;
a numeric policy that needs them first reduces exact mergeable summaries over every chunk
(value counts, sums; :mod:`catembed._numeric`) and the chunks are read again; then every
chunk is counted and the statistics merged exactly (:func:`catembed.stats.count_chunks`).
Each chunk is validated once per read.
"""

from __future__ import annotations

import itertools
from typing import Any

from ._numeric import apply_numeric, numeric_summaries_of_chunks
from ._validation import CatEmbedError, as_frame
from .stats import count_chunks

__all__ = ["fit_chunks"]


def fit_chunks(est: Any, make_chunks: Any) -> Any:
    """``est.fit_chunks(make_chunks)``: see :meth:`catembed.base.ValueEmbedder.fit_chunks`."""
    chunks = iter(make_chunks())
    try:
        first = next(chunks)
    except StopIteration:
        raise CatEmbedError("the input has no rows.") from None
    table = est._start_fit(first, sample=True)
    frames = itertools.chain([table.frame], (as_frame(c) for c in chunks))
    summaries: list[Any] = []
    if table.numeric:
        summaries = numeric_summaries_of_chunks(frames, table.numeric, est._numeric_policy())
        frames = (as_frame(c) for c in make_chunks())  # second pass
    est._set_numeric_from_summaries(summaries)
    bins = est.numeric_bins_
    stats = count_chunks((apply_numeric(f, bins)[table.categorical] for f in frames),
                         columns=table.categorical, handle_missing=est.handle_missing)
    est._fit_statistics(stats)
    return est
