"""Reading and writing tables, whole or in chunks of bounded memory.

CSV (via pandas) and Parquet (via pyarrow) are supported. Chunked reading is what lets the
statistics pass stream a file far larger than memory: :func:`iter_chunks` yields DataFrames
of at most ``chunksize`` rows, and :class:`TableWriter` appends transformed chunks to a CSV or
Parquet output in the input's row order.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._validation import CatEmbedError

__all__ = ["TableWriter", "check_output_path", "count_rows", "iter_chunks", "numeric_columns",
           "read_columns", "read_table", "table_format"]

_PARQUET = (".parquet", ".pq", ".parq")
_CSV = (".csv", ".txt", ".tsv", ".data")


def table_format(path: str | os.PathLike) -> str:
    """``"parquet"`` or ``"csv"`` from the file name (``.parquet``/``.pq``; anything else CSV)."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    return "parquet" if any(s in _PARQUET for s in suffixes) else "csv"


def check_output_path(path: str | os.PathLike) -> None:
    """Refuse an output name whose suffix is neither CSV/TSV nor Parquet, or whose folder is
    missing, before any work is done."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in _PARQUET + (".csv", ".tsv", ".txt"):
        raise CatEmbedError(
            f"cannot write {path.name}: the output must end in .csv, .tsv or .parquet."
        )
    parent = path.parent
    if str(parent) and not parent.exists():
        raise CatEmbedError(f"output folder does not exist: {parent}")


def _check_file(path: Path) -> None:
    if not path.exists():
        raise CatEmbedError(f"input file not found: {path}")
    if path.is_dir():
        raise CatEmbedError(f"{path} is a directory, not a table file.")
    if path.stat().st_size == 0:
        raise CatEmbedError(f"{path} is empty.")


def _sep(path: Path) -> str:
    return "\t" if path.suffix.lower() == ".tsv" else ","


def read_columns(path: str | os.PathLike) -> list[str]:
    """The column names of a CSV or Parquet file; duplicates are an error."""
    path = Path(path)
    _check_file(path)
    if table_format(path) == "parquet":
        try:
            import pyarrow.parquet as pq

            names = list(pq.read_schema(path).names)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
            raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None
        names = [n for n in names if not n.startswith("__index_level_")]
    else:
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                header = next(csv.reader(fh, delimiter=_sep(path)), None)
        except UnicodeDecodeError:
            raise CatEmbedError(f"cannot read {path}: it is not UTF-8 text.") from None
        if not header or all(not h.strip() for h in header):
            raise CatEmbedError(f"{path} has no header row.")
        names = [h.strip() for h in header]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise CatEmbedError(f"{path} has duplicate column names: {', '.join(dup)}.")
    return names


def count_rows(path: str | os.PathLike) -> int | None:
    """Number of data rows when cheap to know (Parquet metadata); None for CSV."""
    if table_format(path) == "parquet":
        import pyarrow.parquet as pq

        return int(pq.ParquetFile(path).metadata.num_rows)
    return None


def _csv_kwargs(path: Path, text_columns: Sequence[str] | None) -> dict[str, Any]:
    kw: dict[str, Any] = {
        "keep_default_na": False,
        "na_values": [""],
        "sep": _sep(path),
        "skipinitialspace": False,
    }
    if text_columns is not None:
        kw["dtype"] = {c: str for c in text_columns}
    return kw


def numeric_columns(path: str | os.PathLike, sample_rows: int = 10_000) -> list[str]:
    """Columns whose first ``sample_rows`` values all parse as numbers (CSV) or whose type
    is numeric (Parquet)."""
    path = Path(path)
    if table_format(path) == "parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pq.read_schema(path)
        return [f.name for f in schema
                if pa.types.is_integer(f.type) or pa.types.is_floating(f.type)]
    _check_file(path)
    head = pd.read_csv(path, sep=_sep(path), nrows=sample_rows, keep_default_na=False,
                       na_values=[""], low_memory=False)
    return [c for c in head.columns
            if pd.api.types.is_numeric_dtype(head[c].dtype)
            and not pd.api.types.is_bool_dtype(head[c].dtype)]


def read_table(
    path: str | os.PathLike,
    *,
    columns: Sequence[str] | None = None,
    text_columns: Sequence[str] | None = None,
) -> pd.DataFrame:
    """Read a whole CSV or Parquet file.

    Parameters
    ----------
    columns : list of str, optional
        Read only these columns.
    text_columns : list of str, optional
        CSV only: read these columns as text (so integer codes stay categorical).
        Only empty fields are missing values.
    """
    return next(iter_chunks(path, None, columns=columns, text_columns=text_columns))


def iter_chunks(
    path: str | os.PathLike,
    chunksize: int | None,
    *,
    columns: Sequence[str] | None = None,
    text_columns: Sequence[str] | None = None,
) -> Iterator[pd.DataFrame]:
    """Yield the file as DataFrames of at most ``chunksize`` rows (all of it when None).

    Parquet string columns are read dictionary-encoded (pandas ``category``), which keeps a
    chunk's memory to its codes.
    """
    path = Path(path)
    _check_file(path)
    if chunksize is not None and int(chunksize) < 1:
        raise CatEmbedError(f"chunksize must be a positive number of rows; got {chunksize}.")
    if table_format(path) == "parquet":
        yield from _iter_parquet(path, chunksize, columns)
        return
    kw = _csv_kwargs(path, text_columns)
    try:
        if chunksize is None:
            df = pd.read_csv(path, usecols=columns, **kw)
            if df.shape[0] == 0:
                raise CatEmbedError(f"{path} has a header but no data rows.")
            yield df
            return
        reader = pd.read_csv(path, usecols=columns, chunksize=int(chunksize), **kw)
        first = True
        for chunk in reader:
            first = False
            yield chunk
        if first:
            raise CatEmbedError(f"{path} has a header but no data rows.")
    except CatEmbedError:
        raise
    except pd.errors.EmptyDataError:
        raise CatEmbedError(f"{path} is empty.") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise CatEmbedError(f"cannot read {path} as CSV: {_short(exc)}") from None


def _iter_parquet(path: Path, chunksize: int | None, columns: Sequence[str] | None
                  ) -> Iterator[pd.DataFrame]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
        wanted = list(columns) if columns is not None else [
            n for n in schema.names if not n.startswith("__index_level_")
        ]
        string_cols = [
            f.name for f in schema
            if f.name in wanted and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
        ]
        # pre_buffer=False: with read-ahead buffering the reader's memory grows with the file
        # (50M rows x 8: 460 -> 780 MB); without it, it stays at one row group (about 300 MB).
        pf = pq.ParquetFile(path, read_dictionary=string_cols, pre_buffer=False)
        if pf.metadata.num_rows == 0:
            raise CatEmbedError(f"{path} has no rows.")
        read_cols = list(wanted)
        pandas_meta = schema.pandas_metadata or {}
        index_cols = [c for c in pandas_meta.get("index_columns", []) if isinstance(c, str)]
        read_cols += [c for c in index_cols if c not in read_cols]
        if chunksize is None:
            table = pf.read(columns=read_cols, use_pandas_metadata=True)
            yield table.to_pandas()
            return
        for batch in pf.iter_batches(batch_size=int(chunksize), columns=read_cols,
                                     use_pandas_metadata=True):
            df = pa.Table.from_batches([batch]).to_pandas()
            yield df
    except CatEmbedError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
        raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class TableWriter:
    """Append DataFrame chunks to a CSV or Parquet file (format from the suffix).

    Use as a context manager; the index is written when ``index=True``.
    """

    def __init__(self, path: str | os.PathLike | None, *, index: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.index = index
        self._parquet_writer = None
        self._csv_writer = None
        self._schema = None
        self._csv_header_done = False
        self._fh = None
        self.rows = 0

    def __enter__(self) -> TableWriter:
        if self.path is not None:
            check_output_path(self.path)
            parent = self.path.parent
            if str(parent) and not parent.exists():
                raise CatEmbedError(f"output folder does not exist: {parent}")
        return self

    def write(self, df: Any) -> None:
        """Append one chunk (a DataFrame, or a ``pyarrow.Table`` written as it is)."""
        import sys

        import pyarrow as pa

        arrow = df if isinstance(df, pa.Table) else None
        if arrow is not None and self.path is None:
            df = arrow.to_pandas()
        self.rows += len(df)
        if self.path is None:
            df.to_csv(sys.stdout, index=self.index, header=not self._csv_header_done)
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
                self._parquet_writer = pq.ParquetWriter(self.path, table.schema,
                                                        use_dictionary=keep_dict)
            self._parquet_writer.write_table(table)
            return
        # pyarrow's CSV writer: about 10x faster than DataFrame.to_csv, and floats are
        # written in their shortest exact form, so reading the file back is lossless.
        import pyarrow as pa
        import pyarrow.csv as pcsv

        table = arrow if arrow is not None else pa.Table.from_pandas(
            df.reset_index() if self.index else df, preserve_index=False)
        if self._csv_writer is None:
            self._csv_writer = pcsv.CSVWriter(
                str(self.path), table.schema,
                write_options=pcsv.WriteOptions(delimiter=_sep(self.path),
                                                quoting_style="needed"),
            )
            self._schema = table.schema
        elif table.schema != self._schema:
            table = table.cast(self._schema)
        self._csv_writer.write_table(table)

    def __exit__(self, *exc: Any) -> None:
        if self._parquet_writer is not None:
            self._parquet_writer.close()
        if self._csv_writer is not None:
            self._csv_writer.close()


def as_output_frame(
    embedding: np.ndarray,
    names: Sequence[str],
    index: pd.Index,
    before: pd.DataFrame | None = None,
    after: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Assemble ``[before | embedding | after]`` with the input's index."""
    parts = []
    if before is not None and before.shape[1]:
        parts.append(before)
    parts.append(pd.DataFrame(embedding, index=index, columns=list(names)))
    if after is not None and after.shape[1]:
        parts.append(after)
    return pd.concat(parts, axis=1) if len(parts) > 1 else parts[0]
