"""Streaming a table through a fitted model: bounded memory at any number of rows.

:func:`transform_file` reads a CSV or Parquet file in chunks (:func:`catembed.io.iter_chunks`:
Parquet string columns arrive dictionary-encoded, so a chunk costs its codes), embeds each
chunk (the values are matched against the fitted categories once per chunk dictionary, then
gathered into one column-major float32 or float64 block reused for every chunk, whose columns
Arrow takes without a copy) and appends it to the output (:class:`catembed.io.TableWriter`:
Parquet row groups or CSV), in the input's row order, with the identifier and target columns
copied through. The peak memory is that of one chunk and its output block, whatever the
number of rows: chunks are cut so that an output block stays under ``max_block_bytes``.

``catembed transform MODEL INPUT -o OUT`` and ``catembed embed --chunksize`` use it.
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["transform_file", "write_chunks"]

#: default bound of one output block (rows x width x itemsize)
MAX_BLOCK_BYTES = 64 << 20


def _load_model(model_or_path: Any) -> Any:
    from .base import ValueEmbedder
    from .persist import load

    if isinstance(model_or_path, ValueEmbedder):
        return model_or_path
    return load(model_or_path)


def _block_rows(est: Any, max_block_bytes: int) -> int:
    import numpy as np

    width = len(est.get_feature_names_out())
    item = np.dtype(est._output_dtype()).itemsize
    return max(1024, int(max_block_bytes) // max(width * item, 1))


def write_chunks(
    est: Any,
    chunks: Iterable[Any],
    writer: Any,
    *,
    features: Sequence[str],
    before: Sequence[str] = (),
    after: Sequence[str] = (),
    progress: Any = None,
    max_block_bytes: int = MAX_BLOCK_BYTES,
) -> int:
    """Embed DataFrame chunks with a fitted ``est`` and append them to ``writer``.

    Each chunk is cut into blocks whose output stays under ``max_block_bytes``; the output
    has the columns ``before``, the embedding, then ``after``, and the chunk's index is
    written when it is not the default one. Returns the number of rows written.
    """
    import numpy as np
    import pandas as pd
    import pyarrow as pa

    names = [str(n) for n in est.get_feature_names_out()]
    step = _block_rows(est, max_block_bytes)
    # two column-major output blocks, used in turn: the lookup writes each column
    # contiguously, Arrow takes the columns without a copy, and one thread writes a block
    # (Arrow encodes and compresses without the GIL) while the next is embedded; a block is
    # reused once its write has returned.
    blocks = [np.empty((step, len(names)), dtype=est._output_dtype(), order="F")
              for _ in range(2)]
    pending: list[Any] = [None, None]
    rows = 0
    turn = 0
    write_index = None
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="catembed-write") as pool:
        try:
            for chunk in chunks:
                if write_index is None:
                    write_index = not (isinstance(chunk.index, pd.RangeIndex)
                                       and chunk.index.name is None)
                    writer.index = write_index
                for s in range(0, len(chunk), step):
                    part = chunk.iloc[s : s + step]
                    if pending[turn] is not None:
                        pending[turn].result()  # the block is free again
                    block = blocks[turn][: len(part)]
                    z = est._transform_array(part[list(features)], out=block)
                    if write_index:
                        out = pd.DataFrame(z.copy(), columns=names, index=part.index, copy=False)
                        out = pd.concat([part[list(before)], out, part[list(after)]], axis=1)
                    else:  # straight to Arrow: each column of the block, without a copy
                        arrays = ([pa.Array.from_pandas(part[c]) for c in before]
                                  + [pa.array(z[:, j]) for j in range(z.shape[1])]
                                  + [pa.Array.from_pandas(part[c]) for c in after])
                        out = pa.table(arrays, names=[*before, *names, *after])
                    pending[turn] = pool.submit(writer.write, out)
                    turn = 1 - turn
                    rows += len(part)
                    if progress is not None:
                        progress(len(part))
        finally:
            for f in pending:  # in order; the first error is raised
                if f is not None:
                    f.result()
    return rows


def transform_file(
    model_or_path: Any,
    input: str | os.PathLike,  # noqa: A002 - the documented name
    output: str | os.PathLike | None,
    *,
    chunksize: int | None = None,
    id_columns: Sequence[str] = (),
    target: str | None = None,
    progress: bool = True,
    handle_unknown: str | None = None,
    max_block_bytes: int = MAX_BLOCK_BYTES,
) -> int:
    """Embed a CSV or Parquet file with a fitted model, chunk by chunk, into a new file.

    Parameters
    ----------
    model_or_path : ValueEmbedder or path
        A fitted estimator, or a model file written by :meth:`ValueEmbedder.save`.
    input : path
        CSV (``.csv``, ``.tsv``, ...) or Parquet file holding the model's input columns
        (``feature_names_in_``), in any order, plus any other columns.
    output : path or None
        ``.parquet`` or ``.csv``/``.tsv``; ``None`` writes CSV to standard output. Written
        to a temporary file and renamed on success by :class:`catembed.io.TableWriter`.
    chunksize : int, optional
        Rows read at a time; default: as many as make an output block of
        ``max_block_bytes`` (at least 1024).
    id_columns : list of str
        Columns copied, before the embedding, to the output (row identifiers).
    target : str, optional
        A column copied after the embedding (a class label).
    progress : bool
        Show a progress bar on standard error (when it is a terminal).
    handle_unknown : {"error", "ignore", "warn"}, optional
        Override the model's policy for values it never saw (the model is not changed).
    max_block_bytes : int
        Largest output block held in memory at once.

    Returns
    -------
    int
        Number of rows written (that of the input).
    """
    from . import io
    from ._validation import CatEmbedError

    est = _load_model(model_or_path)
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(est, "_tables")
    if handle_unknown is not None:
        est = copy.copy(est)
        est.set_params(handle_unknown=handle_unknown)
        est._check_params()
    if output is not None:
        inputs = [input] + ([model_or_path] if isinstance(model_or_path, (str, os.PathLike))
                            else [])
        io.check_output_path(output, inputs=inputs)
    columns = io.read_columns(input)
    fitted = getattr(est, "feature_names_in_", None)
    if fitted is None:
        raise CatEmbedError(
            "the model was fitted on an array without column names; transform_file needs a "
            "model fitted on a table with named columns."
        )
    features = [str(c) for c in fitted]
    ids = [str(c) for c in id_columns]
    after = [str(target)] if target else []
    twice = sorted({c for c in ids if ids.count(c) > 1} | (set(after) & set(ids)))
    if twice:
        raise CatEmbedError(
            f"column(s) {', '.join(map(repr, twice))} given more than once as id_columns "
            "(--id) or target (--target); give each column one role, once."
        )
    missing = [c for c in features + ids + after if c not in columns]
    if missing:
        raise CatEmbedError(
            f"column(s) not in {os.fspath(input)}: {', '.join(missing[:10])}"
            f"{' ...' if len(missing) > 10 else ''} (the model needs "
            f"{', '.join(features[:10])}{' ...' if len(features) > 10 else ''})."
        )
    numeric = {str(c) for c in getattr(est, "numeric_features_", [])}
    used = list(dict.fromkeys(ids + features + after))
    text = [c for c in used if c not in numeric]
    step = int(chunksize) if chunksize else _block_rows(est, max_block_bytes)
    chunks = io.iter_chunks(input, step, columns=used, text_columns=text)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=io.count_rows(input), desc="transform", unit="rows",
                   unit_scale=True, file=sys.stderr, leave=False, disable=None)
    try:
        with io.TableWriter(output, index=False) as writer:
            rows = write_chunks(
                est, chunks, writer, features=features, before=ids, after=after,
                progress=None if bar is None else bar.update, max_block_bytes=max_block_bytes,
            )
    finally:
        if bar is not None:
            bar.close()
    return rows
