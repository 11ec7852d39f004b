"""Fitting on a table read chunk by chunk (a file larger than memory).

The same steps as an in-memory fit: the first chunk gives the input names and the columns;
a numeric policy that needs them first reduces exact mergeable summaries over every chunk
(value counts, sums; :mod:`catembed.stats._numeric`) and the chunks are read again; then every
chunk is counted and the statistics merged exactly (:func:`catembed.stats.count_chunks`).
Each chunk is validated once per read.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd

from .._utils._progress import counted, reporting, step
from .._utils._validation import CatEmbedError, CatEmbedTypeError, as_frame
from ..stats._compute import count_chunks
from ..stats._numeric import apply_numeric, numeric_summaries_of_chunks

__all__ = ["fit_chunks"]


def _read_chunks(make_chunks: Any) -> Iterator[Any]:
    """``iter(make_chunks())``, refusing what is not a callable returning an iterable of
    chunks (a list, a generator, or a callable returning None or one DataFrame)."""
    got = f"it is a {type(make_chunks).__name__}"
    if callable(make_chunks):
        chunks = make_chunks()
        got = f"it returned a {type(chunks).__name__}"
        if not isinstance(chunks, (pd.DataFrame, np.ndarray, str, bytes)):
            try:
                return iter(chunks)
            except TypeError:
                pass
    raise CatEmbedTypeError(
        "make_chunks must be a callable returning a fresh iterable of DataFrame chunks, e.g. "
        f"lambda: pandas.read_csv(path, chunksize=100_000); {got}."
    )


def _frames(chunks: Iterator[Any], columns: Any, start: int) -> Iterator[Any]:
    """The chunks as frames, each holding the columns of the first chunk (by name)."""
    for number, chunk in enumerate(chunks, start):
        frame = as_frame(chunk)
        lacking = [str(c) for c in columns if c not in frame.columns]
        if lacking:
            raise CatEmbedError(f"chunk {number} lacks the column(s) of the first chunk: "
                                f"{', '.join(lacking)}.")
        yield frame


def fit_chunks(est: Any, make_chunks: Any, verbose: bool = False) -> Any:
    """``est.fit_chunks(make_chunks)``: see :meth:`catembed.base.ValueEmbedder.fit_chunks`.
    Each pass's rows are counted by the progress reporter in use, or by one on stderr with
    ``verbose`` (:mod:`catembed._utils._progress`)."""
    with reporting(verbose, f"{type(est).__name__}.fit_chunks"):
        return _fit_chunks(est, make_chunks)


def _fit_chunks(est: Any, make_chunks: Any) -> Any:
    step("reading the first chunk")
    chunks = _read_chunks(make_chunks)
    try:
        first = next(chunks)
    except StopIteration:
        raise CatEmbedError("the input has no rows.") from None
    table = est._start_fit(first, sample=True)
    columns = table.frame.columns
    frames = itertools.chain([table.frame], _frames(chunks, columns, 2))
    summaries: list[Any] = []
    if table.numeric:
        summaries = numeric_summaries_of_chunks(
            counted(frames, "numeric summaries (pass 1 of 2)"), table.numeric,
            est._numeric_policy())
        frames = _frames(_read_chunks(make_chunks), columns, 1)  # second pass
    est._set_numeric_from_summaries(summaries)
    bins = est.numeric_bins_
    what = "counting values" + (" (pass 2 of 2)" if table.numeric else "")
    stats = count_chunks((apply_numeric(f, bins)[table.categorical]
                          for f in counted(frames, what)),
                         columns=table.categorical, handle_missing=est.handle_missing)
    step(f"fitting {type(est).__name__} from the counts")
    est._fit_statistics(stats)
    return est
