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
  trailing delimiter at the end of every line is ignored. Blank lines are skipped, except in
  a one-column file, where a blank line is a missing value. Rows with a different number of
  fields than the header are reported by :func:`scan_csv` (the reader pads short rows with
  missing values and ignores extra fields).
* Parquet, with or without a pandas index (the index is read as the row labels, not as a
  column), and with pandas MultiIndex columns (named by their flat Parquet names). Nested
  columns (lists, structs, maps) are refused when read, naming the column.

Writing never touches the target until it is complete: :class:`TableWriter` and
:func:`atomic_output` write to a temporary file in the target folder and rename it into
place only on success (removed on failure or Ctrl-C), with the permissions a plain write
would give (:func:`output_mode`). :func:`check_output_path` refuses,
before any work, an output that is an input (the same file, also through links), a missing or
unwritable folder and an unknown suffix.

Where each step lives
---------------------
* :mod:`._paths`: the format a file name names, output-path checks, atomic writes.
* :mod:`._csv_text`: CSV text (decompression, header row) and the ragged-row scan.
* :mod:`._readers`: column names, :func:`read_table`, :func:`iter_chunks` (CSV and Parquet),
  :func:`iter_parquet_batches` (Arrow batches, dictionary columns as stored).
* :mod:`._writers`: :class:`TableWriter`.
"""

from ._csv_text import CsvScan, scan_csv
from ._paths import (
    MAX_TEXT_BYTES,
    atomic_output,
    check_input_file,
    check_not_input,
    check_output_path,
    output_mode,
    read_text_file,
    table_format,
    write_text_atomic,
)
from ._readers import (
    NUMBER_MISSING,
    batch_frame,
    check_ragged_rows,
    count_rows,
    index_columns,
    iter_chunks,
    iter_parquet_batches,
    numeric_columns,
    read_columns,
    read_table,
    unnamed_columns,
)
from ._writers import TableWriter

__all__ = ["MAX_TEXT_BYTES", "NUMBER_MISSING", "CsvScan", "TableWriter", "atomic_output",
           "batch_frame", "check_input_file", "check_not_input", "check_output_path",
           "check_ragged_rows", "count_rows", "index_columns", "iter_chunks",
           "iter_parquet_batches", "numeric_columns", "output_mode", "read_columns", "read_table",
           "read_text_file", "scan_csv", "table_format", "unnamed_columns", "write_text_atomic"]
