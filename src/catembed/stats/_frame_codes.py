"""Many columns coded at once: the column-count-efficient paths of factorising and encoding.

:func:`catembed.stats._encoding.factorize` and :func:`~catembed.stats._encoding.encode_column`
work on one column; a table of 20,000 columns paid their fixed cost (a hash table, a
missing-value mask, a sort, a few pandas objects: about a millisecond) 20,000 times. Here the
columns that share a simple kind are coded together, with work proportional to the number of
cells:

* text columns (a pandas string dtype, or ``object`` columns holding only ``str`` and missing
  values): one hash factorisation of all their cells, the distinct values sorted once, and one
  ``np.unique`` of the (column, value) pairs;
* integer and boolean NumPy columns of one dtype: one sort along the rows of the block.

Every other column (floats, categoricals, nullable extension types, mixed ``object`` columns)
goes through the per-column functions, whose rules these paths reproduce exactly: the same
sorted categories (the same objects: each column's first occurrence), the same codes, ``nan``
last when missing values count as a value.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

__all__ = ["block_groups", "column_chunks", "encode_text_block", "factorize_number_block",
           "factorize_text_block", "text_cells"]

#: the fewest columns worth a joint path (below that the per-column path is as fast)
_MIN_COLUMNS = 8
#: the most cells coded together: a tall table's text columns go a few at a time (each
#: cell is a Python object and several index arrays while it is coded: at 1M rows x 20
#: columns, all at once peaked at 3.8 GB), a wide table of few rows all at once
CHUNK_CELLS = 1 << 22
#: the most rows for which text columns take the joint path: it walks every cell as a Python
#: object, where the per-column path hashes a column in C (a pandas string column by its
#: Arrow dictionary); per column a table pays about a millisecond, so the joint path gains on
#: short tables only (factorising 10 columns, CPU, load 12-16: 50,000 rows 0.15 s joint
#: against 0.017 s per column for ``str`` columns, 0.12 / 0.052 s for ``object``; 5,000 rows
#: 0.010 / 0.010 and 0.009 / 0.012 s; 1,000 x 20 and 30-300 x 200: 3-25x faster joint)
JOINT_TEXT_MAX_ROWS = 8192


def column_chunks(columns: list[int], n_rows: int) -> list[list[int]]:
    """``columns`` in consecutive groups of at most :data:`CHUNK_CELLS` cells (at least one
    column each). A column's codes and categories do not depend on the others coded with
    it, so the groups give what one joint pass gives."""
    per = max(1, CHUNK_CELLS // max(n_rows, 1))
    return [columns[i:i + per] for i in range(0, len(columns), per)]


def _is_text_dtype(dtype: object) -> bool:
    return isinstance(dtype, pd.StringDtype) or (isinstance(dtype, np.dtype)
                                                 and dtype.kind == "O")


def block_groups(df: pd.DataFrame, names: Sequence[str]) -> tuple[list[int], dict[str, list[int]]]:
    """Positions (in ``names``) of the columns that may be coded jointly: the candidate text
    columns (of a table of at most :data:`JOINT_TEXT_MAX_ROWS` rows), and the integer/boolean
    columns grouped by dtype. Names not in ``df`` and groups too small to gain are left out
    (the per-column path takes them)."""
    text: list[int] = []
    numbers: dict[str, list[int]] = {}
    if len(df) == 0 or len(names) < _MIN_COLUMNS:
        return text, numbers
    dtypes = df.dtypes
    for j, name in enumerate(names):
        if name not in dtypes.index:
            continue
        dt = dtypes[name]
        if isinstance(dt, pd.Series):  # a duplicated label: per column (which refuses it)
            continue
        if _is_text_dtype(dt):
            if len(df) <= JOINT_TEXT_MAX_ROWS:
                text.append(j)
        elif isinstance(dt, np.dtype) and dt.kind in "iub":
            numbers.setdefault(dt.str, []).append(j)
    numbers = {k: v for k, v in numbers.items() if len(v) >= _MIN_COLUMNS}
    return (text if len(text) >= _MIN_COLUMNS else []), numbers


def text_cells(df: pd.DataFrame, names: Sequence[str]) -> tuple[np.ndarray, np.ndarray,
                                                                np.ndarray]:
    """The cells of text-candidate columns, column after column: ``(cells, missing, ok)``.

    ``cells`` is an ``object`` array of ``n * G`` entries (column ``g`` at ``g*n .. g*n+n``),
    ``missing`` marks NaN, None, ``pd.NA``, ``NaT`` and the empty string (as
    :func:`~catembed._utils._validation.missing_mask`), and ``ok`` says per column whether every
    cell is a ``str`` or missing (only those columns may take the joint path)."""
    n = len(df)
    wanted = set(names)  # one column at a time (df[names] copies every column first)
    arrays = {name: col.to_numpy(dtype=object) for name, col in df.items() if name in wanted}
    cells = np.concatenate([arrays[name] for name in names]).astype(object, copy=False)
    missing = np.asarray(pd.isna(cells), dtype=bool)
    is_str = np.fromiter((type(v) is str for v in cells.tolist()), dtype=bool,
                         count=len(cells))
    missing[is_str] |= cells[is_str] == ""  # compared as text only (pd.NA == "" is NA)
    ok = (is_str | missing).reshape(len(names), n).all(axis=1)
    return cells, missing, ok


def factorize_text_block(
    cells: np.ndarray, missing: np.ndarray, n_rows: int, n_cols: int
) -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """Codes and sorted categories of ``n_cols`` text columns given by :func:`text_cells`.

    Returns ``(codes, categories, n_missing)``: ``codes`` an ``n_rows x n_cols`` ``int32``
    matrix (Fortran order), each column's categories with ``nan`` appended where it has
    missing values (code ``len(categories) - 1``), and each column's number of missing
    cells (the caller applies ``handle_missing``)."""
    col = np.repeat(np.arange(n_cols, dtype=np.int64), n_rows)
    present = ~missing
    values = cells[present]
    gcodes, uniques = pd.factorize(values)
    uniques = np.asarray(uniques, dtype=object)
    n_uniques = max(len(uniques), 1)
    rank = np.empty(len(uniques), dtype=np.int64)
    rank[np.argsort(uniques, kind="stable")] = np.arange(len(uniques))
    pcol = col[present]
    key = pcol * n_uniques + rank[gcodes]
    ukey, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    per_col = np.bincount(ukey // n_uniques, minlength=n_cols)
    starts = np.concatenate([[0], np.cumsum(per_col)[:-1]])
    codes = np.empty(n_rows * n_cols, dtype=np.int64)
    codes[present] = inverse.ravel() - starts[pcol]
    n_missing = np.bincount(col[missing], minlength=n_cols)
    codes[missing] = per_col[col[missing]]
    firsts = values[first]  # each column's first occurrence of each value, sorted
    cats = []
    nan = np.array([np.nan], dtype=object)
    for g in range(n_cols):
        c = firsts[starts[g]: starts[g] + per_col[g]].astype(object)
        cats.append(np.concatenate([c, nan]) if n_missing[g] else c)
    return (codes.astype(np.int32).reshape(n_cols, n_rows).T, cats, n_missing)


def factorize_number_block(block: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Codes and sorted categories of the columns of an integer or boolean ``n x G`` block
    (no missing values): the categories as Python ``int`` or ``bool`` objects."""
    order = np.argsort(block, axis=0, kind="stable")
    ordered = np.take_along_axis(block, order, axis=0)
    new = np.ones(ordered.shape, dtype=bool)
    new[1:] = ordered[1:] != ordered[:-1]
    rank = np.cumsum(new, axis=0, dtype=np.int64) - 1
    codes = np.empty(block.shape, dtype=np.int32, order="F")
    np.put_along_axis(codes, order, rank.astype(np.int32), axis=0)
    cats = []
    for g in range(block.shape[1]):
        c = np.empty(int(new[:, g].sum()), dtype=object)
        c[:] = ordered[new[:, g], g].tolist()
        cats.append(c)
    return codes, cats


def encode_text_block(
    cells: np.ndarray, missing: np.ndarray, n_rows: int, known: Sequence[np.ndarray],
    missing_codes: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Codes of text columns (from :func:`text_cells`) in fitted categories of text only.

    ``known[g]`` are column ``g``'s fitted non-missing categories (all ``str``),
    ``missing_codes[g]`` the code a missing cell gets (the missing category, or -1). A value
    not among the fitted ones gets -1, as :func:`~catembed.stats._encoding.encode_column` gives
    (between texts, its loose match is the exact one). Returns ``(codes, n_missing)``:
    ``codes`` ``n_rows x G`` ``int64``, and per column the number of missing cells."""
    n_cols = len(known)
    col = np.repeat(np.arange(n_cols, dtype=np.int64), n_rows)
    present = ~missing
    gcodes, uniques = pd.factorize(cells[present])
    n_uniques = max(len(uniques), 1)
    sizes = np.array([len(k) for k in known], dtype=np.int64)
    all_known = np.empty(int(sizes.sum()), dtype=object)
    all_known[:] = [v for k in known for v in k.tolist()]
    kcol = np.repeat(np.arange(n_cols, dtype=np.int64), sizes)
    kpos = np.arange(len(all_known), dtype=np.int64) - np.repeat(
        np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes)
    kg = pd.Index(np.asarray(uniques, dtype=object), dtype=object).get_indexer(
        pd.Index(all_known, dtype=object))
    hit = kg >= 0
    tkey = kcol[hit] * n_uniques + kg[hit]
    order = np.argsort(tkey, kind="stable")
    tkey, tval = tkey[order], kpos[hit][order]
    ekey = col[present] * n_uniques + gcodes
    pos = np.minimum(np.searchsorted(tkey, ekey), max(len(tkey) - 1, 0))
    found = (tkey[pos] == ekey) if len(tkey) else np.zeros(len(ekey), dtype=bool)
    codes = np.full(n_rows * n_cols, -1, dtype=np.int64)
    codes[present] = np.where(found, tval[pos] if len(tval) else -1, -1)
    codes[missing] = np.asarray(missing_codes, dtype=np.int64)[col[missing]]
    n_missing = np.bincount(col[missing], minlength=n_cols)
    return codes.reshape(n_cols, n_rows).T, n_missing
