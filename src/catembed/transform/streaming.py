"""Streaming a table through a fitted model: bounded memory at any number of rows.

:func:`transform_file` reads a CSV or Parquet file in chunks (:func:`catembed.io.iter_chunks`:
Parquet string columns arrive dictionary-encoded, so a chunk costs its codes), embeds each
chunk (the values are matched against the fitted categories once per chunk dictionary, then
gathered into one column-major float32 or float64 block reused for every chunk, whose columns
Arrow takes without a copy) and appends it to the output (:class:`catembed.io.TableWriter`:
Parquet row groups or CSV), in the input's row order, with the identifier and target columns
copied through. The peak memory is that of one chunk and its output block, whatever the
number of rows: chunks are cut so that an output block stays under ``max_block_bytes``.

A Parquet file embedded by a model whose transform is the lookup of its categorical codes
(no numeric block, no discretised columns) takes a faster road with the same output bytes
(:func:`_write_batches`): its batches stay Arrow record batches, each column's codes come
from the batch's dictionary (:class:`~catembed.transform._arrow_codes.DictionaryCodes`: each value
matched once, then one integer gather per row; no DataFrame), and three threads work as a
pipeline, one reading (Arrow decodes without the GIL), the caller coding and looking up, one
writing, with bounded queues between them so memory stays flat.

The compiled lookup (numba) is used where it pays for its start-up, about 0.5 s in a fresh
process: when it is already loaded, or when the file has at least 2^31 output cells
(:func:`catembed.transform._lookup.compiled_lookup_pays`); the writer, not the lookup, sets the
pace.

A model file given with a Parquet input is read as its lookup alone where its class allows
(:func:`catembed.transform._saved_lookup.saved_lookup`: no scikit-learn import, the same bytes); the
estimator is loaded for the other models, and for a batch only it can embed.

``catembed transform MODEL INPUT -o OUT`` and ``catembed embed --chunksize`` use it.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
import os
import queue
import threading
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

__all__ = ["transform_file", "write_chunks"]

#: default bound of one output block (rows x width x itemsize)
MAX_BLOCK_BYTES = 64 << 20
#: whether the Parquet pipeline's reading thread also uses Arrow's pool of CPU threads to
#: decode columns in parallel: no. The reading thread already overlaps with the lookup and
#: the write (the writer sets the pace), and the pool's hand-offs cost: 10M x 8 rows beside
#: one busy-loop process on 2 cores, 3.42 s wall without the pool, 3.57 s with it (median of
#: 4 each); on idle cores the same wall time. A transform beside other CPU-bound work has one
#: core or less, and its wall time follows its CPU time (docs/benchmarks.md, "catembed
#: transform under load").
READ_THREADS = False
#: output blocks in turn in the Parquet pipeline (one being written, one being filled, one
#: spare so that the lookup need not wait on a slow write)
_BLOCKS = 3


def _load_model(model_or_path: Any) -> Any:
    """The embedder, or the one its model file holds (another catembed model is refused)."""
    from .._utils._validation import CatEmbedTypeError
    from ..base import ValueEmbedder

    if isinstance(model_or_path, ValueEmbedder):
        return model_or_path
    if not isinstance(model_or_path, (str, os.PathLike)):
        raise CatEmbedTypeError(
            "model_or_path must be a fitted catembed embedder or the path of its model file; "
            f"got a {type(model_or_path).__name__}."
        )
    return ValueEmbedder.load(model_or_path)


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
    blocks = [np.empty(step * len(names), dtype=est._output_dtype()) for _ in range(2)]
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
                    block = _column_major(blocks[turn], len(part), len(names))
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


def _column_major(buf: Any, rows: int, width: int) -> Any:
    """The first ``rows x width`` elements of the flat ``buf`` as a column-major block:
    contiguous for any ``rows`` (a row slice of a taller block is not, and the compiled
    lookup would load a second variant of itself, 0.3 s, for the last rows of a file)."""
    return buf[: rows * width].reshape((rows, width), order="F")


def _codes_lookup(est: Any) -> bool:
    """Whether ``est`` embeds a table by looking up its categorical codes alone (no numeric
    block, no discretised columns, no embedding of its own): then a Parquet file's
    dictionary columns can be coded without a DataFrame (:func:`_write_batches`)."""
    from ..base import ValueEmbedder

    cls = type(est)
    lookup = (cls._transform_codes is ValueEmbedder._transform_codes
              or getattr(est, "_projection", None) is not None)
    numeric = est._numeric_policy() == "passthrough" and len(
        getattr(est, "numeric_features_", []))
    return bool(lookup and not numeric and not getattr(est, "numeric_bins_", None)
                and cls._transform_array is ValueEmbedder._transform_array
                and cls._encode_values is ValueEmbedder._encode_values
                and cls._validate_input is ValueEmbedder._validate_input)


_END = object()


@contextlib.contextmanager
def _prefetch(items: Iterable[Any], depth: int = 2) -> Iterator[Iterator[Any]]:
    """``items`` drawn by a thread of its own, at most ``depth`` ahead of the consumer (the
    Parquet reader decodes without the GIL while the caller embeds); its errors are raised
    in the consumer."""
    q: queue.Queue = queue.Queue(depth)
    stop = threading.Event()

    def put(item: Any) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        try:
            for x in items:
                if not put((x, None)):
                    return
            put((_END, None))
        except BaseException as exc:  # noqa: BLE001 - raised again in the consumer
            put((_END, exc))

    def drain() -> Iterator[Any]:
        while True:
            x, exc = q.get()
            if x is _END:
                if exc is not None:
                    raise exc
                return
            yield x

    thread = threading.Thread(target=run, name="catembed-read", daemon=True)
    thread.start()
    try:
        yield drain()
    finally:
        stop.set()
        thread.join()


def _write_batches(
    est: Any,
    batches: Iterable[Any],
    writer: Any,
    *,
    features: Sequence[str],
    before: Sequence[str] = (),
    after: Sequence[str] = (),
    progress: Any = None,
    max_block_bytes: int = MAX_BLOCK_BYTES,
) -> int:
    """:func:`write_chunks` for the Arrow batches of :func:`catembed.io.iter_parquet_batches`,
    with the same output: three threads in a pipeline, each batch read by one (Arrow
    decodes without the GIL), coded and looked up by the caller, written by another.

    The codes come from the batch's dictionaries (:class:`~catembed.transform._arrow_codes.
    DictionaryCodes`: each dictionary matched once, then one gather per row), not from a
    DataFrame; a batch that cannot be coded so (a column not dictionary-encoded, an unknown
    value to warn of or refuse, a missing value under ``handle_missing="error"``) takes the
    DataFrame path, as does a file with a stored index (which is written).
    """
    import numpy as np
    import pyarrow as pa

    from .. import io
    from ._arrow_codes import DictionaryCodes

    items = iter(batches)
    first = next(items)  # the file has rows (checked when opened)
    if _stored_index(*first):
        frames = (io.batch_frame(b, w) for b, w in itertools.chain([first], items))
        return write_chunks(est, frames, writer, features=features, before=before,
                            after=after, progress=progress, max_block_bytes=max_block_bytes)
    writer.index = False
    names = [str(n) for n in est.get_feature_names_out()]
    plan = est._get_plan()
    codes_of = DictionaryCodes(est.feature_names_, est.categories_,
                               getattr(est, "infrequent_categories_", None), est.handle_missing)
    ignore = est.handle_unknown == "ignore"
    side = list(dict.fromkeys([*before, *after]))
    step = _block_rows(est, max_block_bytes)
    # output blocks used in turn (as write_chunks): one is written while the next is filled
    blocks = [np.empty(step * len(names), dtype=est._output_dtype())
              for _ in range(_BLOCKS)]
    pending: list[Any] = [None] * _BLOCKS
    rows = turn = 0
    with (ThreadPoolExecutor(max_workers=1, thread_name_prefix="catembed-write") as pool,
          _prefetch(itertools.chain([first], items)) as stream):
        try:
            for batch, wanted in stream:
                for s in range(0, batch.num_rows, step):
                    part = batch.slice(s, step)
                    if pending[turn] is not None:
                        pending[turn].result()  # the block is free again
                    block = _column_major(blocks[turn], part.num_rows, len(names))
                    codes = codes_of(part)
                    if codes is not None and (ignore or not codes.size or codes.min() >= 0):
                        z = plan(codes, out=block)
                        frame = io.batch_frame(part.select(side), side) if side else None
                    else:  # the DataFrame path raises or warns as transform does
                        frame = io.batch_frame(part, wanted)
                        z = est._transform_array(frame[list(features)], out=block)
                    arrays = ([pa.Array.from_pandas(frame[c]) for c in before]
                              + [pa.array(z[:, j]) for j in range(z.shape[1])]
                              + [pa.Array.from_pandas(frame[c]) for c in after])
                    pending[turn] = pool.submit(
                        writer.write, pa.table(arrays, names=[*before, *names, *after]))
                    turn = (turn + 1) % _BLOCKS
                    rows += part.num_rows
                    if progress is not None:
                        progress(part.num_rows)
        finally:
            for f in pending[turn:] + pending[:turn]:  # in order; the first error is raised
                if f is not None:
                    f.result()
    return rows


def _stored_index(batch: Any, wanted: Sequence[str]) -> bool:
    """Whether the file's rows carry a stored pandas index other than an unnamed range (as
    :func:`write_chunks` decides from the first chunk)."""
    import pandas as pd
    import pyarrow as pa

    extra = [c for c in batch.schema.names if c not in set(wanted)]
    index = pa.Table.from_batches([batch.select(extra)]).to_pandas().index
    return not (isinstance(index, pd.RangeIndex) and index.name is None)


def transform_file(
    model_or_path: Any,
    input: str | os.PathLike,  # noqa: A002 - the documented name
    output: str | os.PathLike | None,
    *,
    chunksize: int | None = None,
    id_columns: Sequence[str] = (),
    target: str | None = None,
    progress: bool = False,
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
        Show the rows embedded so far on standard error: a line redrawn in place on a
        terminal, a line every 10 s otherwise (:mod:`catembed._utils._progress`). Default: silent
        (the command line shows it on a terminal unless ``--quiet``).
    handle_unknown : {"error", "ignore", "warn"}, optional
        Override the model's policy for values it never saw (the model is not changed).
    max_block_bytes : int
        Largest output block held in memory at once.

    Returns
    -------
    int
        Number of rows written (that of the input).
    """
    from .. import io
    from .._utils._progress import reporting
    from .._utils._validation import CatEmbedError
    from ._lookup import compiled_lookup, compiled_lookup_pays
    from ._saved_lookup import saved_lookup

    # a Parquet file and a model whose transform is a lookup: the lookup alone, read from
    # the file without importing scikit-learn (the same bytes; _saved_lookup.py)
    lookup_only = isinstance(model_or_path, (str, os.PathLike)) and (
        io.table_format(input) == "parquet")
    est = saved_lookup(model_or_path, handle_unknown) if lookup_only else None
    if est is None:
        lookup_only = False
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
    if lookup_only or (io.table_format(input) == "parquet" and _codes_lookup(est)):
        # one reading thread, not Arrow's pool too (READ_THREADS): it overlaps with the
        # lookup and the write already, and the pool's hand-offs cost CPU a busy machine lacks
        chunks = io.iter_parquet_batches(input, step, columns=used,
                                         use_threads=READ_THREADS)
        write = _write_batches
    else:
        chunks = io.iter_chunks(input, step, columns=used, text_columns=text)
        write = write_chunks
    n_rows = io.count_rows(input)
    # the compiled lookup where it pays for its start-up (the NumPy path: the same bytes)
    cells = None if n_rows is None else n_rows * len(est.get_feature_names_out())
    with reporting(progress, "catembed transform_file") as reporter, io.TableWriter(
            output, index=False) as writer, compiled_lookup(compiled_lookup_pays(cells)):
        if reporter is not None:
            reporter.step("embedding and writing", n_rows, unit="rows")
        rows = write(
            est, chunks, writer, features=features, before=ids, after=after,
            progress=None if reporter is None else reporter.update,
            max_block_bytes=max_block_bytes,
        )
    return rows
