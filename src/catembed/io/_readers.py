"""Reading tables: column names, whole files and chunks of bounded memory (CSV via
pandas, Parquet via pyarrow).

:func:`iter_chunks` yields DataFrames of at most ``chunksize`` rows, which lets the
statistics pass stream a file far larger than memory; :func:`read_table` reads it whole.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from .._utils._params import check_int
from .._utils._validation import CatEmbedError
from ._csv_text import (
    _check_file,
    _csv_header,
    _describe_read_error,
    _header_names,
    _read_errors,
    _short,
    scan_csv,
)
from ._paths import _sep, arrow_file, check_input_file, table_format

__all__ = ["NUMBER_MISSING", "batch_frame", "count_rows", "index_columns", "iter_chunks",
           "iter_parquet_batches", "numeric_columns", "read_columns", "read_table",
           "unnamed_columns"]

#: in a CSV column read as numbers, these fields are missing numbers besides the empty one
#: (R's ``write.csv`` writes ``NA``; UCI files ``?``); in a column read as text every field
#: but the empty one is a value ("NA" may be a category)
NUMBER_MISSING = ("NA", "NaN", "nan", "N/A", "n/a", "NULL", "null", "None", "<NA>", "#N/A", "?")


def _parquet_schema(path: Path) -> Any:
    import pyarrow.parquet as pq

    check_input_file(path)
    try:
        source = arrow_file(path)
        try:
            return pq.read_schema(source)
        finally:
            if not isinstance(source, str):
                source.close()
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
    dup = sorted(n for n, k in Counter(names).items() if k > 1)  # linear: 100,000 names
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


def count_rows(path: str | os.PathLike) -> int | None:
    """Number of data rows when cheap to know (Parquet metadata); None for CSV."""
    if table_format(path) == "parquet":
        import pyarrow.parquet as pq

        check_input_file(path)
        try:
            source = arrow_file(path)
            try:
                return int(pq.ParquetFile(source).metadata.num_rows)
            finally:
                if not isinstance(source, str):
                    source.close()
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
            raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None
    return None


def check_ragged_rows(path: str | os.PathLike, strict: bool | None = None) -> int | None:
    """Rows of a CSV with another field count than the header: a warning naming their lines
    (a refusal when ``strict``; ``None``: a command without a ``--strict`` flag, whose
    warning does not suggest it). Returns the row count (Parquet: from its metadata)."""
    import warnings

    from .._utils._validation import CatEmbedWarning

    path = Path(path)
    if table_format(path) != "csv":
        return count_rows(path)
    scan = scan_csv(path)
    if scan.n_ragged:
        what = (f"{path.name}: {scan.describe()} with another number of fields than the "
                f"header ({scan.n_fields})")
        if strict:
            raise CatEmbedError(f"{what}; fix the file, or leave out --strict to read short "
                                "rows with missing values and ignore extra fields.")
        warnings.warn(f"{what}: short rows are read with missing values, extra fields are "
                      "ignored. Fix the file" + (", or pass --strict to refuse such files."
                                                 if strict is not None else "."),
                      CatEmbedWarning, stacklevel=3)
    return scan.n_rows


def _wanted(path: Path, names: list[str], columns: Sequence[str] | None) -> list[str]:
    """The columns to read: all (None), else ``columns``, each a column of the file, once
    (an empty list read no rows of a CSV, "has a header but no data rows", and a name
    given twice gave two columns of that name)."""
    if columns is None:
        return list(names)
    wanted = list(columns)
    known = set(names)
    unknown = [c for c in wanted if c not in known]
    if unknown:
        raise CatEmbedError(f"column(s) not in {path.name}: {', '.join(map(str, unknown))}.")
    if not wanted:
        raise CatEmbedError(f"columns is empty: name at least one column of {path.name}.")
    twice = sorted({c for c, k in Counter(wanted).items() if k > 1})
    if twice:
        raise CatEmbedError(f"columns names {', '.join(map(repr, twice))} more than once; "
                            "read each column once.")
    return wanted


def _csv_kwargs(path: Path, columns: Sequence[str] | None,
                text_columns: Sequence[str] | None) -> tuple[dict[str, Any], list[str]]:
    names = read_columns(path)
    wanted = _wanted(path, names, columns)
    position = {c: i for i, c in enumerate(names)}
    kw: dict[str, Any] = {
        "sep": _sep(path),
        "header": 0,
        "names": names,
        "usecols": sorted(position[c] for c in wanted),
        "index_col": False,
        "encoding": "utf-8-sig",
        "keep_default_na": False,
        "na_values": [""],
        "skipinitialspace": False,
        "low_memory": False,
        # a blank line of a one-column file is a missing value, not a line to skip
        "skip_blank_lines": len(names) > 1,
    }
    if text_columns is not None:
        keep = set(wanted)
        text = set(text_columns)
        # every column read as text: one dtype, not a dict of them (30 x 20,000: the dict
        # cost 1.21 CPU s of reading, the one dtype 0.82 s, the same frame)
        kw["dtype"] = str if keep <= text else {c: str for c in text_columns if c in keep}
        if not keep <= text:  # the columns read as numbers: NUMBER_MISSING are missing too
            kw["na_values"] = {c: [""] if c in text else ["", *NUMBER_MISSING]
                               for c in wanted}
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
    kw["na_values"] = ["", *NUMBER_MISSING]  # a column of numbers and "NA" holds numbers
    try:
        head = pd.read_csv(path, nrows=sample_rows, **kw)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError,
            *_read_errors()) as exc:
        raise CatEmbedError(_describe_read_error(path, exc)) from None
    return [c for c, dtype in head.dtypes.items()  # not head[c]: a Series per column
            if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)]


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
        Only empty fields are missing values there; in the other columns (read as numbers)
        the fields of :data:`NUMBER_MISSING` (``NA``, ``NaN``, ``?`` ...) too.
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
    if chunksize is not None:
        check_int("chunksize", chunksize)
    if table_format(path) == "parquet":
        yield from _iter_parquet(path, chunksize, columns)
        return
    kw, wanted = _csv_kwargs(path, columns, text_columns)
    try:
        if chunksize is None:
            df = pd.read_csv(path, **kw)
            if df.shape[0] == 0:
                raise CatEmbedError(f"{path} has a header but no data rows.")
            yield _in_order(df, wanted)
            return
        reader = pd.read_csv(path, chunksize=int(chunksize), **kw)
        first = True
        for chunk in reader:
            if len(chunk):  # pandas yields one empty chunk for a header-only file
                first = False
                yield _in_order(chunk, wanted)
        if first:
            raise CatEmbedError(f"{path} has a header but no data rows.")
    except CatEmbedError:
        raise
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError,
            *_read_errors()) as exc:
        raise CatEmbedError(_describe_read_error(path, exc)) from None


def _in_order(df: pd.DataFrame, wanted: list[str]) -> pd.DataFrame:
    """The columns ``wanted`` of a frame just read, in that order: the frame itself when it
    already is (selecting 20,000 columns copied them one by one for nothing)."""
    return df if list(df.columns) == list(wanted) else df[wanted]


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


def _parquet_file(path: Path, columns: Sequence[str] | None) -> tuple[Any, list[str], list[str]]:
    """The opened file (string columns read dictionary-encoded), the columns asked for and
    those to read (plus the stored pandas index columns)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = _parquet_schema(path)
    index_cols = index_columns(path)
    names = read_columns(path)
    wanted = _wanted(path, names, columns)
    keep = set(wanted)
    for f in schema:
        kind = _nested(f) if f.name in keep else None
        if kind:
            raise CatEmbedError(
                f"column {f.name!r} of {path.name} holds {kind} ({f.type}); catembed embeds "
                f"flat values. Leave it out with --drop {f.name} or flatten it first."
            )
    try:
        string_cols = [
            f.name for f in schema
            if f.name in keep and (pa.types.is_string(f.type) or pa.types.is_large_string(f.type))
        ]
        # pre_buffer=False: with read-ahead buffering the reader's memory grows with the file
        # (50M rows x 8: 460 -> 780 MB); without it, it stays at one row group (about 300 MB).
        # a name that is not UTF-8: the file opened by its bytes, closed with the reader
        pf = pq.ParquetFile(arrow_file(path), read_dictionary=string_cols, pre_buffer=False)
        if pf.metadata.num_rows == 0:
            raise CatEmbedError(f"{path} has no rows.")
    except CatEmbedError:
        raise
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
        raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None
    return pf, wanted, list(wanted) + [c for c in index_cols if c not in keep]


def iter_parquet_batches(
    path: str | os.PathLike, chunksize: int, *, columns: Sequence[str] | None = None,
    use_threads: bool = True,
) -> Iterator[tuple[Any, list[str]]]:
    """Yield a Parquet file as Arrow record batches of at most ``chunksize`` rows, string
    columns dictionary-encoded (each batch's dictionary is that of its row group), with the
    stored pandas index columns; and the columns asked for. :func:`batch_frame` makes a
    batch the DataFrame :func:`iter_chunks` would yield; a caller that reads the dictionary
    codes itself skips building it. ``use_threads=False``: the columns are decoded by the
    calling thread alone, not by Arrow's pool of CPU threads (the same batches)."""
    path = Path(path)
    _check_file(path)
    check_int("chunksize", chunksize)
    pf, wanted, read_cols = _parquet_file(path, columns)
    try:
        for batch in pf.iter_batches(batch_size=int(chunksize), columns=read_cols,
                                     use_pandas_metadata=True, use_threads=use_threads):
            yield batch, wanted
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
        raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None


def batch_frame(batch: Any, wanted: Sequence[str]) -> pd.DataFrame:
    """The DataFrame of a batch of :func:`iter_parquet_batches` (columns ``wanted``)."""
    import pyarrow as pa

    return _flat_columns(pa.Table.from_batches([batch]).to_pandas(), list(wanted))


def _iter_parquet(path: Path, chunksize: int | None, columns: Sequence[str] | None
                  ) -> Iterator[pd.DataFrame]:
    if chunksize is not None:
        for batch, wanted in iter_parquet_batches(path, chunksize, columns=columns):
            try:
                df = batch_frame(batch, wanted)
            except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
                raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None
            yield df
        return
    pf, wanted, read_cols = _parquet_file(path, columns)
    try:
        df = _flat_columns(pf.read(columns=read_cols, use_pandas_metadata=True).to_pandas(),
                           wanted)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
        raise CatEmbedError(f"cannot read {path} as Parquet: {_short(exc)}") from None
    yield df


def _flat_columns(df: pd.DataFrame, wanted: list[str]) -> pd.DataFrame:
    """The columns by their flat Parquet names (pandas MultiIndex columns are stored as
    ``"('a', 'b')"``), in the order asked for."""
    if isinstance(df.columns, pd.MultiIndex):
        df.columns = [str(c) for c in df.columns]
    return df[wanted]
