"""CSV text: opening a file (decompressed by its suffix), its header row, and one pass
over its rows that counts them and names the ragged ones (:func:`scan_csv`).

Read errors of the decompressors and decoders become one-line refusals
(:func:`_describe_read_error`), shared with :mod:`catembed.io._readers`.
"""

from __future__ import annotations

import contextlib
import csv
import io as _io
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._utils._validation import CatEmbedError
from ._paths import _compression, _sep, arrow_file, check_input_file

__all__ = ["CsvScan", "scan_csv"]


def _check_file(path: Path) -> None:
    """A table file: a non-empty regular file (:func:`check_input_file`)."""
    if check_input_file(path) == 0:
        raise CatEmbedError(f"{path} is empty.")


@contextlib.contextmanager
def _open_text(path: Path) -> Iterator[Any]:
    """The file as UTF-8 text (a byte-order mark skipped), decompressed by its suffix."""
    check_input_file(path)
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


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


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
    source = arrow_file(path)  # a name that is not UTF-8: the file opened by its bytes
    try:
        if not isinstance(source, str) and _compression(path):
            source = pa.CompressedInputStream(source, _compression(path)[1:].replace(
                "gz", "gzip"))  # a path's suffix is what tells pyarrow to decompress
        reader = pcsv.open_csv(
            source,
            read_options=pcsv.ReadOptions(column_names=names, skip_rows=1,
                                          block_size=1 << 22),
            parse_options=pcsv.ParseOptions(delimiter=_sep(path), newlines_in_values=True,
                                            ignore_empty_lines=n > 1,
                                            invalid_row_handler=on_invalid),
            convert_options=pcsv.ConvertOptions(include_columns=names[:1],
                                                column_types={names[0]: pa.string()}),
        )
        rows = sum(batch.num_rows for batch in reader)
    except Exception:  # noqa: BLE001 - any doubt: the exact scan decides
        return None
    finally:
        if not isinstance(source, str):
            source.close()
    return None if ragged else rows + trailing


def scan_csv(path: str | os.PathLike, limit: int = 10) -> CsvScan:
    """Count the data rows of a CSV file and find rows with more or fewer fields than the
    header (a trailing empty field, i.e. a trailing delimiter, is not counted as one; blank
    lines are skipped as pandas does, except in a one-column file, where a blank line is a
    missing value).

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
        n_rows = int(np.count_nonzero(lens)) if n > 1 else len(lens)
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
