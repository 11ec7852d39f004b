"""Writing tables: :class:`TableWriter` appends chunks to a CSV or Parquet file, atomically."""

from __future__ import annotations

import contextlib
import os
import threading
from collections import Counter
from pathlib import Path
from typing import Any

from .._utils._validation import CatEmbedError
from ._paths import (
    _publish,
    _reserve,
    _sep,
    _temp_name,
    arrow_file,
    check_output_path,
    output_mode,
    table_format,
)

__all__ = ["TableWriter"]


def _created(tmp: Path) -> Any:
    """``tmp`` (the empty file that reserved the name) removed, for the writer to create
    anew: on ext4 a file opened with truncation is flushed to disk when it is closed
    (``auto_da_alloc``), which cost 0.38 s at close for a 1.28 GB output; a new file is not.
    Returns what pyarrow's writers take (:func:`~._paths.arrow_file`: the name, or for a name
    that is not UTF-8 the file created by its bytes)."""
    with contextlib.suppress(FileNotFoundError):
        tmp.unlink()
    return arrow_file(tmp, "wb")


def _bytes_as_text(df: Any) -> Any:
    """``df`` with its columns of bytes (a Parquet binary id or target column copied to a
    CSV) as text by the one rule (:func:`catembed._utils._text.value_texts`: UTF-8, other
    bytes as ``\\xNN``): pyarrow's CSV writer refused bytes that are not UTF-8 ("Invalid
    UTF8 payload") and pandas wrote ``b'...'``. Other columns are not touched."""
    import pandas as pd

    from .._utils._text import value_texts

    found = [c for c in df.columns if df[c].dtype == object and pd.api.types.infer_dtype(
        df[c], skipna=True) in ("bytes", "mixed") and df[c].map(
            lambda v: isinstance(v, bytes | bytearray)).any()]
    if not found:
        return df
    df = df.copy()
    for c in found:
        df[c] = pd.Series(value_texts(df[c]), index=df.index, dtype=object).where(
            df[c].notna(), None)
    return df


def _csv_to_stdout(df: Any, **kwargs: Any) -> None:
    """``df.to_csv`` on standard output in UTF-8, as a CSV file is written, whatever the
    stream's encoding (``PYTHONIOENCODING=ascii`` ended the command at the first name or
    value it cannot hold, with part of the table written): the bytes go to the stream's
    buffer, after the text already written to it. A stream without a buffer takes text."""
    import io
    import sys

    out = sys.stdout
    buffer = getattr(out, "buffer", None)
    if buffer is None or not isinstance(out, io.TextIOBase):
        df.to_csv(out, **kwargs)
        return
    out.flush()
    text = io.TextIOWrapper(buffer, encoding="utf-8", errors="backslashreplace", newline="",
                            write_through=True)
    try:
        df.to_csv(text, **kwargs)
        text.flush()
    finally:
        text.detach()  # the buffer stays open: it is standard output's


def _arrow_text(table: Any) -> Any:
    """A ``pyarrow.Table`` for a CSV file: its binary columns as text by the same rule."""
    import pyarrow as pa

    from .._utils._text import value_texts

    for i, f in enumerate(table.schema):
        if pa.types.is_binary(f.type) or pa.types.is_large_binary(f.type):
            col = table.column(i)
            text = pa.array(value_texts(col.to_pylist()), type=pa.string(),
                            mask=col.is_null().to_numpy(zero_copy_only=False))
            table = table.set_column(i, pa.field(f.name, pa.string()), text)
    return table


class TableWriter:
    """Append DataFrame chunks to a CSV or Parquet file (format from the suffix).

    Use as a context manager. The chunks go to a temporary file in the target folder, which
    is renamed to ``path`` when the block ends without an exception and removed otherwise:
    a failed or interrupted run leaves neither a half-written output nor a changed old one.
    The file gets the permissions a plain write would give (:func:`~._paths.output_mode`).
    The index is written when ``index=True``; ``path=None`` writes CSV to standard output,
    in UTF-8 whatever the stream's encoding. A column of bytes (a Parquet binary column) is
    written to a CSV as text by :func:`catembed._utils._text.value_texts`; Parquet keeps it.
    """

    def __init__(self, path: str | os.PathLike | None, *, index: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.index = index
        self._parquet_writer: Any = None
        self._csv_writer: Any = None
        self._sink: Any = None  # the file pyarrow writes to, where catembed opened it
        self._schema: Any = None
        self._csv_header_done = False
        self._tmp: Path | None = None
        self._mode = 0o644
        self.rows = 0
        self._chunks = 0
        # write() may run in a helper thread; one that a signal orphaned (its thread started
        # while the main thread's submit was interrupted, so nobody waits for it) must not
        # create the temporary file again after __exit__ removed it
        self._lock = threading.Lock()
        self._closed = False

    def __enter__(self) -> TableWriter:
        if self.path is not None:
            check_output_path(self.path)
            self._mode = output_mode(self.path)
            try:  # the name is kept before the file exists (see _reserve)
                while True:
                    self._tmp = _temp_name(self.path)
                    if _reserve(self._tmp):
                        break
            except BaseException:  # __exit__ is not called when __enter__ raises
                if self._tmp is not None:
                    with contextlib.suppress(OSError):
                        self._tmp.unlink()
                self._tmp = None
                raise
        return self

    def write(self, df: Any) -> None:
        """Append one chunk (a DataFrame, or a ``pyarrow.Table`` written as it is)."""
        with self._lock:
            if self._closed:
                raise ValueError("write to a TableWriter whose block has ended")
            self._write(df)

    def _write(self, df: Any) -> None:

        import pyarrow as pa

        arrow = df if isinstance(df, pa.Table) else None
        names = [str(c) for c in (arrow.column_names if arrow is not None else df.columns)]
        if len(set(names)) < len(names):  # a file no reader takes back (CSV, Parquet)
            repeated = sorted({c for c, k in Counter(names).items() if k > 1})
            raise CatEmbedError(
                f"the output would have two columns named {', '.join(map(repr, repeated))}: "
                "a copied column (--id, --target) has the name of a column catembed writes; "
                "rename it in the input."
            )
        if arrow is not None and self.path is None:
            df = arrow.to_pandas()
        if self.path is None or table_format(self.path) != "parquet":  # CSV: bytes as text
            if arrow is not None and self.path is not None:
                df = arrow = _arrow_text(arrow)
            else:
                df = _bytes_as_text(df)
        self.rows += len(df)
        self._chunks += 1
        if self.path is None:
            _csv_to_stdout(df, index=self.index, header=not self._csv_header_done)
            self._csv_header_done = True
            return
        if table_format(self.path) == "parquet":
            import pyarrow as pa
            import pyarrow.parquet as pq

            table = arrow if arrow is not None else pa.Table.from_pandas(
                df, preserve_index=self.index)
            if self._parquet_writer is None:
                # no dictionary encoding for float columns (embeddings): trying it costs 6x
                # the write time of 32 float32 columns and makes the file larger.
                keep_dict = [f.name for f in table.schema if not pa.types.is_floating(f.type)]
                self._sink = _created(self._tmp)
                self._parquet_writer = pq.ParquetWriter(self._sink, table.schema,
                                                        use_dictionary=keep_dict)
                self._schema = table.schema
            elif table.schema != self._schema:
                table = self._conform(table)
            self._parquet_writer.write_table(table)
            return
        # pyarrow's CSV writer: about 10x faster than DataFrame.to_csv, and floats are
        # written in their shortest exact form, so reading the file back is lossless.
        import pyarrow as pa
        import pyarrow.csv as pcsv

        table = arrow if arrow is not None else pa.Table.from_pandas(
            df.reset_index() if self.index else df, preserve_index=False)
        if self._csv_writer is None:
            self._sink = _created(self._tmp)
            self._csv_writer = pcsv.CSVWriter(
                self._sink, table.schema,
                write_options=pcsv.WriteOptions(delimiter=_sep(self.path),
                                                quoting_style="needed"),
            )
            self._schema = table.schema
        elif table.schema != self._schema:
            table = self._conform(table)
        self._csv_writer.write_table(table)

    def _conform(self, table: Any) -> Any:
        """``table`` cast to the first chunk's schema; a chunk with other columns, or a
        column whose values that type cannot hold, is refused (not pyarrow's error)."""
        import pyarrow as pa

        first = self._schema
        n = self._chunks
        if table.schema.names != first.names:
            raise CatEmbedError(
                f"chunk {n} written to {self.path.name} has the columns "
                f"{', '.join(table.schema.names[:10])} but the first chunk had "
                f"{', '.join(first.names[:10])}; every chunk needs the same columns, in order.")
        for f0, f in zip(first, table.schema, strict=True):
            if f.type == f0.type:
                continue
            try:
                table.column(f.name).cast(f0.type)
            except (ValueError, TypeError, NotImplementedError, pa.ArrowException) as exc:
                raise CatEmbedError(
                    f"column {f.name!r} of chunk {n} written to {self.path.name} holds {f.type} "
                    f"values that the first chunk's type {f0.type} cannot hold "
                    f"({str(exc).splitlines()[0] if str(exc) else type(exc).__name__}); give "
                    "the column one type in every chunk (e.g. .astype(str)).") from None
        return table.cast(first)

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        with self._lock:
            self._closed = True
            self._finish(exc_type)

    def _finish(self, exc_type: Any) -> None:
        try:
            if self._parquet_writer is not None:
                self._parquet_writer.close()
            if self._csv_writer is not None:
                self._csv_writer.close()
        finally:
            if self._sink is not None and not isinstance(self._sink, str):
                self._sink.close()  # a file opened by its bytes name (arrow_file)
            self._sink = None
            if self._tmp is not None:
                if exc_type is None and (self._parquet_writer or self._csv_writer):
                    _publish(self._tmp, self.path, self._mode)
                else:
                    with contextlib.suppress(OSError):
                        self._tmp.unlink()
                self._tmp = None
