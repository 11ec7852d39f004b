"""Reading and writing tables, whole or in chunks of bounded memory.

CSV (via pandas) and Parquet (via pyarrow) are supported. Chunked reading is what lets the
statistics pass stream a file far larger than memory: :func:`iter_chunks` yields DataFrames
of at most ``chunksize`` rows, and :class:`TableWriter` appends transformed chunks to a CSV or
Parquet output in the input's row order.

What is accepted
----------------
* CSV (``.csv``, ``.tsv`` tab-separated, anything else comma-separated), UTF-8 with or
  without a byte-order mark, plain or compressed (``.gz``, ``.bz2``, ``.xz``, ``.zip`` with
  one member). Header names are stripped of surrounding spaces; an empty header field gets
  pandas' name ``Unnamed: i`` (the first column of ``DataFrame.to_csv(path)`` is one). A
  trailing delimiter at the end of every line is ignored. Rows with a different number of
  fields than the header are reported by :func:`scan_csv` (the reader pads short rows with
  missing values and ignores extra fields).
* Parquet, with or without a pandas index (the index is read as the row labels, not as a
  column), and with pandas MultiIndex columns (named by their flat Parquet names). Nested
  columns (lists, structs, maps) are refused when read, naming the column.

Writing never touches the target until it is complete: :class:`TableWriter` and
:func:`atomic_output` write to a temporary file in the target folder and rename it into
place only on success (removed on failure or Ctrl-C). :func:`check_output_path` refuses,
before any work, an output that is an input (the same file, also through links), a missing or
unwritable folder and an unknown suffix.
"""

from __future__ import annotations

import contextlib
import csv
import io as _io
import os
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ._validation import CatEmbedError

__all__ = ["CsvScan", "TableWriter", "atomic_output", "check_not_input",
           "check_output_path", "count_rows", "index_columns", "iter_chunks", "numeric_columns",
           "read_columns", "read_table", "scan_csv", "table_format", "unnamed_columns"]

_PARQUET = (".parquet", ".pq", ".parq")
_CSV = (".csv", ".txt", ".tsv", ".data")
_COMPRESSED = (".gz", ".bz2", ".xz", ".zip")
_OUTPUT_TABLE = _PARQUET + (".csv", ".tsv", ".txt")


def _plain_suffix(path: Path) -> str:
    """The format suffix, skipping a compression suffix (``t.csv.gz`` -> ``.csv``)."""
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _compression(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return suffix if suffix in _COMPRESSED else None


def table_format(path: str | os.PathLike) -> str:
    """``"parquet"`` or ``"csv"`` from the file name (``.parquet``/``.pq``; anything else CSV)."""
    return "parquet" if _plain_suffix(Path(path)) in _PARQUET else "csv"


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def check_not_input(output: str | os.PathLike, inputs: Sequence[str | os.PathLike],
                    flag: str = "--output") -> None:
    """Refuse an output path that is one of ``inputs`` (same file, also via symbolic or hard
    links), so that no command ever writes over what it reads."""
    out = Path(output)
    for inp in inputs:
        if inp is not None and _same_file(out, Path(inp)):
            raise CatEmbedError(
                f"{flag} {output} is the input file {inp}; writing it would destroy the input. "
                f"Give {flag} a new file name."
            )


def check_output_path(path: str | os.PathLike, *, inputs: Sequence[str | os.PathLike] = (),
                      flag: str = "--output", suffixes: Sequence[str] = _OUTPUT_TABLE) -> None:
    """Check, before any work is done, that ``path`` can be written.

    Refuses a suffix not in ``suffixes`` (default: CSV/TSV/Parquet), a folder, an output that
    is one of ``inputs`` (:func:`check_not_input`), a missing folder and a folder where a file
    cannot be created (probed with a temporary file, removed at once).
    """
    path = Path(path)
    if path.is_dir():
        raise CatEmbedError(f"{flag} {path} is a folder; give a file name inside it, e.g. "
                            f"{path / ('model.npz' if '.npz' in suffixes else 'out.csv')}.")
    suffix = path.suffix.lower()
    if suffix not in suffixes:
        raise CatEmbedError(
            f"cannot write {path.name}: {flag} must end in {', '.join(suffixes)}."
        )
    check_not_input(path, inputs, flag)
    parent = path.parent
    if not parent.is_dir():
        raise CatEmbedError(f"{flag}: the folder {parent} does not exist; create it first.")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{path.name}.", suffix=".probe"):
            pass
    except OSError as exc:
        raise CatEmbedError(f"{flag}: cannot write in the folder {parent} "
                            f"({exc.strerror or exc}).") from None
    if path.exists() and not os.access(path, os.W_OK):
        raise CatEmbedError(f"{flag} {path} exists and is read-only; give another name or "
                            "make it writable.")


def _temp_name(path: Path) -> Path:
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp"
                                + path.suffix)
    os.close(fd)
    return Path(name)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder (same suffix); on success rename it to
    ``path``, on any exception (Ctrl-C included) remove it, leaving ``path`` untouched."""
    target = Path(path)
    tmp = _temp_name(target)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _check_file(path: Path) -> None:
    if not path.exists():
        raise CatEmbedError(f"input file not found: {path}")
    if path.is_dir():
        raise CatEmbedError(f"{path} is a directory, not a table file.")
    if path.stat().st_size == 0:
        raise CatEmbedError(f"{path} is empty.")


def _sep(path: Path) -> str:
    return "\t" if _plain_suffix(path) == ".tsv" else ","


@contextlib.contextmanager
def _open_text(path: Path) -> Iterator[Any]:
    """The file as UTF-8 text (a byte-order mark skipped), decompressed by its suffix."""
    comp = _compression(path)
    if comp == ".zip":
        import zipfile

        with zipfile.ZipFile(path) as zf:
            members = [m for m in zf.namelist() if not m.endswith("/")]
            if len(members) != 1:
                raise CatEmbedError(f"{path} holds {len(members)} files; a zipped table must "
                                    "hold exactly one.")
            with zf.open(members[0]) as raw:
                yield _io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")
        return
    if comp == ".gz":
        import gzip

        opener: Any = gzip.open
    elif comp == ".bz2":
        import bz2

        opener = bz2.open
    elif comp == ".xz":
        import lzma

        opener = lzma.open
    else:
        opener = open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as fh:
        yield fh


#: errors of the decompressors and decoders, turned into one-line refusals
def _read_errors() -> tuple[type[BaseException], ...]:
    import gzip
    import lzma
    import zipfile
    import zlib

    # zip: NotImplementedError (unknown compression), RuntimeError (encrypted member)
    return (UnicodeDecodeError, csv.Error, gzip.BadGzipFile, zipfile.BadZipFile, lzma.LZMAError,
            zlib.error, EOFError, OSError, NotImplementedError, RuntimeError)


def _describe_read_error(path: Path, exc: BaseException) -> str:
    if isinstance(exc, UnicodeDecodeError):
        return (f"cannot read {path}: it is not UTF-8 text (byte {exc.start}); re-save it as "
                "UTF-8.")
    if isinstance(exc, csv.Error | pd.errors.ParserError):
        return f"cannot read {path} as CSV: {_short(exc)}"
    if isinstance(exc, pd.errors.EmptyDataError):
        return f"{path} is empty."
    if _compression(path):
        return f"cannot read {path}: the {_compression(path)} file is damaged ({_short(exc)})."
    return f"cannot read {path}: {_short(exc)}"


def _csv_reader(fh: Any, path: Path) -> Any:
    csv.field_size_limit(max(csv.field_size_limit(), 2**31 - 1))  # huge fields are data too
    return csv.reader(fh, delimiter=_sep(path))


def _csv_header(path: Path) -> list[str]:
    try:
        with _open_text(path) as fh:
            header = next(_csv_reader(fh, path), None)
    except CatEmbedError:
        raise
    except _read_errors() as exc:
        raise CatEmbedError(_describe_read_error(path, exc)) from None
    if not header or all(not h.strip() for h in header):
        raise CatEmbedError(f"{path} has no header row; the first line must name the columns.")
    return header


def _header_names(header: Sequence[str]) -> list[str]:
    names = [h.strip() for h in header]
    if len(names) > 1 and names[-1] == "":
        names = names[:-1]  # a trailing delimiter
    return [n if n else f"Unnamed: {i}" for i, n in enumerate(names)]


def _parquet_schema(path: Path) -> Any:
    import pyarrow.parquet as pq

    try:
        return pq.read_schema(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
        raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None


def index_columns(path: str | os.PathLike) -> list[str]:
    """The stored pandas index columns of a Parquet file (read as row labels, not data)."""
    path = Path(path)
    if table_format(path) != "parquet":
        return []
    meta = _parquet_schema(path).pandas_metadata or {}
    return [c for c in meta.get("index_columns", []) if isinstance(c, str)]


def read_columns(path: str | os.PathLike) -> list[str]:
    """The column names of a CSV or Parquet file; duplicates are an error.

    CSV header names are stripped of spaces; an empty one is named ``Unnamed: i`` as pandas
    does. A Parquet file's stored pandas index is not a column.
    """
    path = Path(path)
    _check_file(path)
    if table_format(path) == "parquet":
        skip = set(index_columns(path))
        names = [n for n in _parquet_schema(path).names
                 if n not in skip and not n.startswith("__index_level_")]
    else:
        names = _header_names(_csv_header(path))
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise CatEmbedError(f"{path} has duplicate column names: {', '.join(dup)}; rename them "
                            "in the header.")
    if not names:
        raise CatEmbedError(f"{path} has no columns.")
    return names


def unnamed_columns(path: str | os.PathLike) -> list[str]:
    """CSV columns whose header field is empty (named ``Unnamed: i``)."""
    path = Path(path)
    if table_format(path) == "parquet":
        return []
    raw = _csv_header(path)
    return [n for n, h in zip(_header_names(raw), raw, strict=False) if not h.strip()]


@dataclass
class CsvScan:
    """What one pass over a CSV file found: data rows, and rows whose field count differs
    from the header's (the line each starts on, 1 for the header; the first ``limit``)."""

    n_rows: int
    n_fields: int
    ragged_lines: list[int] = field(default_factory=list)
    n_ragged: int = 0

    def describe(self, limit: int = 10) -> str:
        """``"3 row(s) (lines 4, 9, 12)"``."""
        lines = ", ".join(map(str, self.ragged_lines[:limit]))
        more = " ..." if self.n_ragged > limit else ""
        return f"{self.n_ragged} row(s) (line{'s' if self.n_ragged > 1 else ''} {lines}{more})"


def _arrow_count(path: Path, n_raw: int, n: int) -> int | None:
    """The data-row count by pyarrow's streaming CSV reader (multithreaded C++, converting
    one column only), or None when a row has another field count than the header (or pyarrow
    cannot read the file: the caller then scans with the :mod:`csv` module)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    if _compression(path) not in (None, ".gz", ".bz2"):
        return None
    ragged = 0
    trailing = 0

    def on_invalid(row: Any) -> str:
        nonlocal ragged, trailing
        text = row.text or ""
        if row.actual_columns == n + 1 and text.rstrip("\r\n").endswith(_sep(path)):
            trailing += 1  # a trailing delimiter: a complete row
        else:
            ragged += 1
        return "skip"

    names = [f"f{i}" for i in range(n_raw)]
    try:
        reader = pcsv.open_csv(
            path,
            read_options=pcsv.ReadOptions(column_names=names, skip_rows=1,
                                          block_size=1 << 22),
            parse_options=pcsv.ParseOptions(delimiter=_sep(path), newlines_in_values=True,
                                            invalid_row_handler=on_invalid),
            convert_options=pcsv.ConvertOptions(include_columns=names[:1],
                                                column_types={names[0]: pa.string()}),
        )
        rows = sum(batch.num_rows for batch in reader)
    except Exception:  # noqa: BLE001 - any doubt: the exact scan decides
        return None
    return None if ragged else rows + trailing


def scan_csv(path: str | os.PathLike, limit: int = 10) -> CsvScan:
    """Count the data rows of a CSV file and find rows with more or fewer fields than the
    header (a trailing empty field, i.e. a trailing delimiter, is not counted as one; blank
    lines are skipped as pandas does).

    A first pass with pyarrow's CSV reader counts the rows; only when it finds a ragged row
    (or cannot read the file) does a pass with the :mod:`csv` module name the lines."""
    path = Path(path)
    _check_file(path)
    raw = _csv_header(path)
    n = len(_header_names(raw))
    rows = _arrow_count(path, len(raw), n)
    if rows is not None:
        return CsvScan(rows, n)
    try:
        with _open_text(path) as fh:
            reader = _csv_reader(fh, path)
            next(reader, None)
            lens = np.fromiter(map(len, reader), dtype=np.int64)
        n_rows = int(np.count_nonzero(lens))
        if np.isin(lens, (0, n)).all():
            return CsvScan(n_rows, n)
        lines: list[int] = []
        count = 0
        with _open_text(path) as fh:
            reader = _csv_reader(fh, path)
            next(reader, None)
            end = reader.line_num
            for row in reader:
                start, end = end + 1, reader.line_num  # a quoted field may span lines
                k = len(row)
                if k and k != n and not (k == n + 1 and row[-1] == ""):
                    count += 1
                    if len(lines) < limit:
                        lines.append(start)
    except _read_errors() as exc:
        raise CatEmbedError(_describe_read_error(path, exc)) from None
    return CsvScan(n_rows, n, lines, count)


def count_rows(path: str | os.PathLike) -> int | None:
    """Number of data rows when cheap to know (Parquet metadata); None for CSV."""
    if table_format(path) == "parquet":
        import pyarrow.parquet as pq

        try:
            return int(pq.ParquetFile(path).metadata.num_rows)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
            raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None
    return None


def _csv_kwargs(path: Path, columns: Sequence[str] | None,
                text_columns: Sequence[str] | None) -> tuple[dict[str, Any], list[str]]:
    names = read_columns(path)
    wanted = list(names) if columns is None else list(columns)
    unknown = [c for c in wanted if c not in names]
    if unknown:
        raise CatEmbedError(f"column(s) not in {path.name}: {', '.join(map(str, unknown))}.")
    kw: dict[str, Any] = {
        "sep": _sep(path),
        "header": 0,
        "names": names,
        "usecols": sorted(names.index(c) for c in wanted),
        "index_col": False,
        "encoding": "utf-8-sig",
        "keep_default_na": False,
        "na_values": [""],
        "skipinitialspace": False,
        "low_memory": False,
    }
    if text_columns is not None:
        kw["dtype"] = {c: str for c in text_columns if c in wanted}
    return kw, wanted


def numeric_columns(path: str | os.PathLike, sample_rows: int = 10_000) -> list[str]:
    """Columns whose first ``sample_rows`` values all parse as numbers (CSV) or whose type
    is numeric (Parquet)."""
    path = Path(path)
    if table_format(path) == "parquet":
        import pyarrow as pa

        skip = set(index_columns(path))
        return [f.name for f in _parquet_schema(path)
                if f.name not in skip and (pa.types.is_integer(f.type)
                                           or pa.types.is_floating(f.type))]
    _check_file(path)
    kw, _ = _csv_kwargs(path, None, None)
    try:
        head = pd.read_csv(path, nrows=sample_rows, **kw)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError,
            *_read_errors()) as exc:
        raise CatEmbedError(_describe_read_error(path, exc)) from None
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
        Read only these columns (in this order).
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
    if chunksize is not None and (isinstance(chunksize, bool) or int(chunksize) < 1):
        raise CatEmbedError(f"chunksize must be a positive number of rows; got {chunksize}.")
    if table_format(path) == "parquet":
        yield from _iter_parquet(path, chunksize, columns)
        return
    kw, wanted = _csv_kwargs(path, columns, text_columns)
    try:
        if chunksize is None:
            df = pd.read_csv(path, **kw)
            if df.shape[0] == 0:
                raise CatEmbedError(f"{path} has a header but no data rows.")
            yield df[wanted]
            return
        reader = pd.read_csv(path, chunksize=int(chunksize), **kw)
        first = True
        for chunk in reader:
            if len(chunk):  # pandas yields one empty chunk for a header-only file
                first = False
                yield chunk[wanted]
        if first:
            raise CatEmbedError(f"{path} has a header but no data rows.")
    except CatEmbedError:
        raise
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError,
            *_read_errors()) as exc:
        raise CatEmbedError(_describe_read_error(path, exc)) from None


def _nested(field: Any) -> str | None:
    import pyarrow as pa

    t = field.type
    if pa.types.is_dictionary(t):
        t = t.value_type
    if pa.types.is_struct(t):
        return "structs"
    if pa.types.is_map(t):
        return "maps"
    if (pa.types.is_list(t) or pa.types.is_large_list(t) or pa.types.is_fixed_size_list(t)
            or getattr(pa.types, "is_list_view", lambda _: False)(t)):
        return "lists"
    if pa.types.is_union(t):
        return "unions"
    return None


def _iter_parquet(path: Path, chunksize: int | None, columns: Sequence[str] | None
                  ) -> Iterator[pd.DataFrame]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _parquet_schema(path)
    index_cols = index_columns(path)
    names = read_columns(path)
    wanted = list(columns) if columns is not None else names
    unknown = [c for c in wanted if c not in names]
    if unknown:
        raise CatEmbedError(f"column(s) not in {path.name}: {', '.join(map(str, unknown))}.")
    for f in schema:
        kind = _nested(f) if f.name in wanted else None
        if kind:
            raise CatEmbedError(
                f"column {f.name!r} of {path.name} holds {kind} ({f.type}); catembed embeds "
                f"flat values. Leave it out with --drop {f.name} or flatten it first."
            )
    try:
        string_cols = [
            f.name for f in schema
            if f.name in wanted and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
        ]
        # pre_buffer=False: with read-ahead buffering the reader's memory grows with the file
        # (50M rows x 8: 460 -> 780 MB); without it, it stays at one row group (about 300 MB).
        pf = pq.ParquetFile(path, read_dictionary=string_cols, pre_buffer=False)
        if pf.metadata.num_rows == 0:
            raise CatEmbedError(f"{path} has no rows.")
        read_cols = list(wanted) + [c for c in index_cols if c not in wanted]
        if chunksize is None:
            table = pf.read(columns=read_cols, use_pandas_metadata=True)
            yield _flat_columns(table.to_pandas(), wanted)
            return
        for batch in pf.iter_batches(batch_size=int(chunksize), columns=read_cols,
                                     use_pandas_metadata=True):
            yield _flat_columns(pa.Table.from_batches([batch]).to_pandas(), wanted)
    except CatEmbedError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
        raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None


def _flat_columns(df: pd.DataFrame, wanted: list[str]) -> pd.DataFrame:
    """The columns by their flat Parquet names (pandas MultiIndex columns are stored as
    ``"('a', 'b')"``), in the order asked for."""
    if isinstance(df.columns, pd.MultiIndex):
        df.columns = [str(c) for c in df.columns]
    return df[wanted]


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


class TableWriter:
    """Append DataFrame chunks to a CSV or Parquet file (format from the suffix).

    Use as a context manager. The chunks go to a temporary file in the target folder, which
    is renamed to ``path`` when the block ends without an exception and removed otherwise:
    a failed or interrupted run leaves neither a half-written output nor a changed old one.
    The index is written when ``index=True``; ``path=None`` writes CSV to standard output.
    """

    def __init__(self, path: str | os.PathLike | None, *, index: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.index = index
        self._parquet_writer: Any = None
        self._csv_writer: Any = None
        self._schema: Any = None
        self._csv_header_done = False
        self._tmp: Path | None = None
        self.rows = 0

    def __enter__(self) -> TableWriter:
        if self.path is not None:
            check_output_path(self.path)
            self._tmp = _temp_name(self.path)
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
                self._parquet_writer = pq.ParquetWriter(self._tmp, table.schema,
                                                        use_dictionary=keep_dict)
                self._schema = table.schema
            elif table.schema != self._schema:
                table = table.cast(self._schema)
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
                str(self._tmp), table.schema,
                write_options=pcsv.WriteOptions(delimiter=_sep(self.path),
                                                quoting_style="needed"),
            )
            self._schema = table.schema
        elif table.schema != self._schema:
            table = table.cast(self._schema)
        self._csv_writer.write_table(table)

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        try:
            if self._parquet_writer is not None:
                self._parquet_writer.close()
            if self._csv_writer is not None:
                self._csv_writer.close()
        finally:
            if self._tmp is not None:
                if exc_type is None and (self._parquet_writer or self._csv_writer):
                    os.replace(self._tmp, self.path)
                else:
                    with contextlib.suppress(OSError):
                        self._tmp.unlink()
                self._tmp = None
