"""Value encoding: a column's values as integer codes, the same for every storage.

:func:`factorize` gives a column its sorted distinct values (numbers before strings, ``nan``
last when missing values count as a value) and each row's code; :func:`encode_column` codes a
column against known values (a number read as ``1``, ``1.0`` or ``"1"`` is one value;
unknown values get -1). :func:`union_categories` and :func:`_position` match the values of two
tables, as merging their statistics needs. :data:`INFREQUENT` stands for an attribute's pooled
rare values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._utils._validation import (
    CatEmbedError,
    as_frame,
    missing_mask,
    sort_values,
    unhashable_error,
)
from ._frame_codes import (
    block_groups,
    column_chunks,
    encode_text_block,
    factorize_number_block,
    factorize_text_block,
    text_cells,
)

__all__ = [
    "INFREQUENT",
    "code_dtype",
    "encode",
    "encode_column",
    "encode_frame",
    "factorize",
    "factorize_frame",
    "pooled_encoding",
    "promote_numbers",
    "union_categories",
]


class _Infrequent:
    """The value that stands for an attribute's pooled rare values (one object, any column)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "infrequent"

    __str__ = __repr__

    def __reduce__(self) -> str:
        return "INFREQUENT"  # unpickles as the module's one instance


#: the value standing for pooled infrequent values (``min_frequency``/``max_categories``)
INFREQUENT = _Infrequent()


def _is_missing_value(v: Any) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def factorize(col: pd.Series, handle_missing: str = "category") -> tuple[np.ndarray, np.ndarray]:
    """Codes and sorted categories of one column.

    Returns ``(codes, categories)``: ``codes`` is ``int32`` with values in
    ``0..len(categories)-1``; ``categories`` an object array of the distinct non-missing
    values in sorted order, followed by ``nan`` when the column has missing values and
    ``handle_missing="category"``.
    """
    if isinstance(col.dtype, pd.CategoricalDtype):
        return _factorize_categorical(col, handle_missing)
    miss = missing_mask(col)
    try:
        codes, uniques = pd.factorize(col, use_na_sentinel=True)
    except TypeError:
        raise unhashable_error(col.name, col) from None
    uniques = np.asarray(uniques, dtype=object)
    codes = np.asarray(codes, dtype=np.int64)
    if miss.any():
        # the empty string is missing too: it may have been given a code.
        keep = np.array([not (isinstance(u, str) and u == "") for u in uniques], dtype=bool)
        if not keep.all():
            remap = np.full(len(uniques) + 1, -1, dtype=np.int64)
            remap[np.flatnonzero(keep)] = np.arange(keep.sum())
            codes = remap[codes]
            uniques = uniques[keep]
    uniques = promote_numbers(uniques, _number_kinds(col, uniques))
    cats = sort_values(uniques)
    if len(cats):
        rank = np.empty(len(uniques), dtype=np.int64)
        rank[pd.Index(uniques).get_indexer(pd.Index(cats))] = np.arange(len(cats))
        rank = np.append(rank, -1)  # so that code -1 stays -1
        codes = rank[codes]
    if miss.any():
        if handle_missing == "error":
            raise _missing_error(col.name, int(miss.sum()))
        codes[miss] = len(cats)
        cats = np.append(cats, np.array([np.nan], dtype=object))
    return codes.astype(np.int32), cats


def _factorize_categorical(col: pd.Series, handle_missing: str) -> tuple[np.ndarray,
                                                                       np.ndarray]:
    """:func:`factorize` of a category column from its own codes: the distinct values and
    the missing ones (code -1, or the empty string as a category) are found per category
    (one ``bincount`` of the codes), so the per-row work is that count and one gather."""
    raw = col.cat.codes.to_numpy()
    dictionary = col.cat.categories
    n_dict = len(dictionary)
    if raw.dtype.itemsize <= 2:  # code -1 reads as the largest unsigned value: no copy
        hist = np.bincount(raw.view(f"u{raw.dtype.itemsize}"),
                           minlength=1 << (8 * raw.dtype.itemsize))
        per_value, n_missing = hist[:n_dict], int(hist[-1])
    else:
        valid = raw >= 0
        per_value = np.bincount(raw[valid], minlength=n_dict)[:n_dict]
        n_missing = len(raw) - int(np.count_nonzero(valid))
    empty = np.zeros(n_dict, dtype=bool)  # the empty string is missing too
    if n_dict and (dictionary.dtype == object or pd.api.types.is_string_dtype(dictionary.dtype)):
        empty = np.asarray(dictionary == "", dtype=bool)
    used = np.flatnonzero((per_value > 0) & ~empty)
    n_missing += int(per_value[empty].sum())
    uniques = np.asarray(dictionary[used], dtype=object)
    uniques = promote_numbers(uniques, _number_kinds(col, uniques))
    cats = sort_values(uniques)
    table = np.full(n_dict + 1, -1, dtype=np.int32)  # raw code -1 wraps to the last entry
    if len(cats):
        rank = np.empty(len(uniques), dtype=np.int32)
        rank[pd.Index(uniques).get_indexer(pd.Index(cats))] = np.arange(len(cats))
        table[used] = rank
    if n_missing:
        if handle_missing == "error":
            raise _missing_error(col.name, n_missing)
        table[np.append(empty, True)] = len(cats)
        cats = np.append(cats, np.array([np.nan], dtype=object))
    return np.take(table, raw, mode="wrap"), cats


def _missing_error(name: Any, n_missing: int) -> CatEmbedError:
    return CatEmbedError(
        f"column {name!r} has {n_missing} missing values (NaN, None or "
        "empty); use handle_missing='category' to treat missing as a value of its own."
    )


def factorize_frame(
    df: pd.DataFrame, names: Sequence[str], handle_missing: str = "category"
) -> tuple[np.ndarray, list[np.ndarray]]:
    """:func:`factorize` of the columns ``names`` of ``df``: an ``n x m`` ``int32`` code
    matrix (Fortran order) and each column's categories, equal to factorising the columns
    one by one (the same codes, the same categories, the same first error).

    Text columns, and integer or boolean columns of one dtype, are factorised together
    (:mod:`catembed.stats._frame_codes`: the cost grows with the number of cells, not with a fixed
    cost per column, which a table of 20,000 columns paid 20,000 times); the other columns
    one by one. A name not in ``df`` raises :class:`CatEmbedError`.
    """
    names = list(names)
    codes = np.empty((len(df), len(names)), dtype=np.int32, order="F")
    cats: list[np.ndarray | None] = [None] * len(names)
    n_missing: dict[int, int] = {}
    text, numbers = block_groups(df, names)
    n = len(df)
    for chunk in column_chunks(text, n):  # a few columns of a tall table at a time
        cells, miss, ok = text_cells(df, [names[j] for j in chunk])
        keep = np.flatnonzero(ok)
        if len(keep) < len(chunk):  # only the all-text columns (no copy when all are)
            sel = (keep[:, None] * n + np.arange(n)).ravel()
            cells, miss = cells[sel], miss[sel]
        if len(keep):
            block, block_cats, block_miss = factorize_text_block(cells, miss, n, len(keep))
            cols = [chunk[g] for g in keep]
            codes[:, cols] = block
            for g, j in enumerate(cols):
                cats[j] = block_cats[g]
                n_missing[j] = int(block_miss[g])
        del cells, miss
    for group in numbers.values():
        block, block_cats = factorize_number_block(df[[names[j] for j in group]].to_numpy())
        codes[:, group] = block
        for g, j in enumerate(group):
            cats[j] = block_cats[g]
    for j, name in enumerate(names):  # in column order: the first error is the one-by-one one
        if name not in df.columns:
            raise CatEmbedError(f"column {name!r} is not in the input.")
        if cats[j] is None:
            codes[:, j], cats[j] = factorize(df[name], handle_missing)
        elif handle_missing == "error" and n_missing.get(j, 0):
            raise _missing_error(name, n_missing[j])
    return codes, cats  # type: ignore[return-value]


_KIND_OF_TYPE = {bool: 0, np.bool_: 0, int: 1, float: 2}


def _kind(t: type) -> int | None:
    """0 for booleans, 1 for integers, 2 for floats, None for anything else."""
    k = _KIND_OF_TYPE.get(t)
    if k is None:
        if issubclass(t, (bool, np.bool_)):
            return 0
        if issubclass(t, (int, np.integer)):
            return 1
        if issubclass(t, (float, np.floating)):
            return 2
    return k


def _number_kinds(col: pd.Series, uniques: np.ndarray) -> set[int]:
    """The kinds of number (bool, int, float) among a column's values.

    Read from the elements, not the distinct values: Python (and pandas) count ``True``,
    ``1`` and ``1.0`` as one value, so the distinct values alone hide which kinds occurred.
    """
    kinds = {k for k in map(_kind, set(map(type, uniques.tolist()))) if k is not None}
    if not kinds or col.dtype != object:
        return kinds
    return {k for k in map(_kind, set(map(type, col.to_numpy(dtype=object).tolist())))
            if k is not None}


def promote_numbers(values: np.ndarray, kinds: set[int]) -> np.ndarray:
    """Numbers promoted to the widest kind present: bool < int < float (as NumPy does).

    The equality rule for categories: two values are one category when they are equal as
    Python values (``1 == 1.0 == True``, so pandas counts them as one value), and such a
    category is stored as the widest kind of number the column holds anywhere (a column
    holding ``True``, ``1`` and ``2.5`` stores ``1.0``; one holding only ``True`` and
    ``False`` stores booleans). Text is never equal to a number (``"1"`` is its own
    value). The stored categories therefore do not depend on row or chunk order.
    """
    if not kinds:
        return values
    conv = (bool, int, float)[max(kinds)]
    out = np.empty(len(values), dtype=object)
    out[:] = [conv(v) if _kind(type(v)) is not None else v for v in values.tolist()]
    if conv is float and len(set(out.tolist())) < len(set(values.tolist())):
        return values  # integers beyond 2**53 would collide as floats: keep them as they are
    return out


def encode_column(
    col: pd.Series, categories: np.ndarray, handle_missing: str = "category",
    out: np.ndarray | None = None,
) -> np.ndarray:
    """Codes of ``col`` in the fitted ``categories``: -1 for a value not among them.
    ``out``: an ``int32`` vector to write them into (a column of the code matrix).

    A missing entry gets the code of the missing category when the fit saw missing values
    (``handle_missing="category"``); otherwise it is an unknown value (code -1), or an error
    when ``handle_missing="error"``.

    The column is factorised once (a category column's own codes; Arrow dictionary encoding
    for pyarrow-backed strings, through :func:`pandas.factorize`; a hash table otherwise) and
    only its dictionary of distinct values is matched against ``categories``, with the same
    equality rule as the fit (numbers read back as another type, 1 vs 1.0 vs "1", still
    match): the per-row work is one integer gather.
    """
    has_nan = len(categories) > 0 and _is_missing_value(categories[-1])
    known = categories[:-1] if has_nan else categories
    if isinstance(col.dtype, pd.CategoricalDtype):
        raw = col.cat.codes.to_numpy()
        dictionary = np.asarray(col.cat.categories, dtype=object)
    else:
        try:
            raw, uniques = pd.factorize(col, use_na_sentinel=True)
        except TypeError:
            raise unhashable_error(col.name, col.to_numpy(dtype=object)) from None
        dictionary = np.asarray(uniques, dtype=object)
    index = pd.Index(known, dtype=object)
    dmap = np.asarray(index.get_indexer(dictionary), dtype=np.int64)
    if (dmap < 0).any():
        # numeric values read back as another type (1 vs 1.0 vs "1") still match.
        dmap = _match_loosely(dictionary, known, dmap)
    miss_dict = np.fromiter(
        (isinstance(v, str) and v == "" or _is_missing_value(v) for v in dictionary),
        dtype=bool, count=len(dictionary),
    )
    missing_code = len(categories) - 1 if has_nan else -1
    dmap[miss_dict] = missing_code
    # raw code -1 (NA) -> last entry; in the dtype of ``out`` (np.take would cast it)
    table = np.append(dmap, missing_code).astype(np.int32 if out is None else out.dtype)
    if handle_missing == "error" and (miss_dict.any() or (raw < 0).any()):
        n_miss = int(np.sum(np.append(miss_dict, True)[raw]))  # raw -1 (NA): the last entry
        raise CatEmbedError(
            f"column {col.name!r} has {n_miss} missing values (NaN, None or "
            "empty) and handle_missing='error'."
        )
    if out is None:
        return table[raw]
    # raw code -1 wraps to the last entry; mode="wrap" does not buffer ``out`` as "raise" does
    return np.take(table, raw, out=out, mode="wrap")


def _match_loosely(values: np.ndarray, known: np.ndarray, codes: np.ndarray) -> np.ndarray:
    lookup = {}
    for i, k in enumerate(known):
        lookup.setdefault(_loose_key(k), i)
    out = codes.copy()
    for i in np.flatnonzero(codes < 0):
        out[i] = lookup.get(_loose_key(values[i]), -1)
    return out


def _loose_key(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return ("b", bool(v))
    if isinstance(v, (int, float, np.integer, np.floating)):
        f = float(v)
        return ("n", f)
    return ("s", str(v))


def encode(
    X: Any,
    feature_names: Sequence[str],
    categories: Sequence[np.ndarray],
    handle_missing: str = "category",
    dtype: Any = np.int32,
) -> np.ndarray:
    """Encode the columns ``feature_names`` of ``X`` as an ``n x m`` code matrix (``int32``,
    or the signed ``dtype`` asked for: :func:`code_dtype` gives the narrowest).

    Unknown values (not in ``categories``) get code -1; the caller applies its
    ``handle_unknown`` policy.
    """
    return encode_frame(as_frame(X, columns=feature_names), feature_names, categories,
                        handle_missing, dtype)


def code_dtype(categories: Sequence[np.ndarray]) -> np.dtype:
    """The narrowest signed integer dtype for codes ``-1 .. l_j - 1`` of every attribute
    (``int8`` up to 127 values): a quarter of the bytes the compiled lookup reads."""
    largest = max([len(c) for c in categories] + [0])
    for dtype in (np.int8, np.int16):
        if largest <= np.iinfo(dtype).max:
            return np.dtype(dtype)
    return np.dtype(np.int32)


def encode_frame(
    df: pd.DataFrame,
    feature_names: Sequence[str],
    categories: Sequence[np.ndarray],
    handle_missing: str = "category",
    dtype: Any = np.int32,
) -> np.ndarray:
    """:func:`encode` of a table already checked by
    :func:`~catembed._utils._validation.as_frame`."""
    missing = [c for c in feature_names if c not in df.columns]
    if missing:
        raise CatEmbedError(f"input lacks the fitted column(s): {', '.join(missing)}.")
    codes = np.empty((len(df), len(feature_names)), dtype=dtype, order="F")  # by column
    names = list(feature_names)
    done, n_missing = _encode_text_columns(df, names, categories, codes)
    for j, (name, cats) in enumerate(zip(names, categories, strict=True)):
        if j not in done:
            encode_column(df[name], cats, handle_missing, out=codes[:, j])
        elif handle_missing == "error" and n_missing[j]:
            raise CatEmbedError(
                f"column {name!r} has {n_missing[j]} missing values (NaN, None or "
                "empty) and handle_missing='error'."
            )
    return codes


def _encode_text_columns(
    df: pd.DataFrame, names: list[str], categories: Sequence[np.ndarray], codes: np.ndarray
) -> tuple[set[int], dict[int, int]]:
    """Code together the text columns fitted on text categories (the many-column path of
    :func:`encode_column`, :func:`catembed.stats._frame_codes.encode_text_block`) into ``codes``;
    returns their positions and numbers of missing cells."""
    text, _ = block_groups(df, names)
    if not text:
        return set(), {}
    known, missing_codes, fit_text = [], [], []
    for j in text:
        cats = np.asarray(categories[j], dtype=object)
        has_nan = len(cats) > 0 and _is_missing_value(cats[-1])
        k = cats[:-1] if has_nan else cats
        fit_text.append(all(type(v) is str for v in k.tolist()))
        known.append(k)
        missing_codes.append(len(cats) - 1 if has_nan else -1)
    n, done, n_missing = len(df), set(), {}
    for chunk in column_chunks(list(range(len(text))), n):  # positions in text
        cells, miss, ok = text_cells(df, [names[text[g]] for g in chunk])
        keep = [g for g, good in zip(chunk, ok, strict=True) if good and fit_text[g]]
        if not keep:
            continue
        if len(keep) < len(chunk):  # a chunk is consecutive positions
            local = np.array(keep) - chunk[0]
            sel = (local[:, None] * n + np.arange(n)).ravel()
            cells, miss = cells[sel], miss[sel]
        block, block_miss = encode_text_block(cells, miss, n, [known[g] for g in keep],
                                              np.asarray(missing_codes)[keep])
        cols = [text[g] for g in keep]
        codes[:, cols] = block.astype(codes.dtype)
        done.update(cols)
        n_missing.update({j: int(block_miss[i]) for i, j in enumerate(cols)})
    return done, n_missing


def union_categories(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The values of two attributes' categories together, sorted as one table's would be
    (``nan`` last when either counts missing values)."""
    a_nan = len(a) > 0 and _is_missing_value(a[-1])
    b_nan = len(b) > 0 and _is_missing_value(b[-1])
    ka = a[:-1] if a_nan else a
    kb = b[:-1] if b_nan else b
    both = np.concatenate([ka, kb]).astype(object)
    both = promote_numbers(
        both, {k for k in map(_kind, set(map(type, both.tolist()))) if k is not None})
    union = pd.unique(both)
    union = sort_values(np.asarray(union, dtype=object))
    if a_nan or b_nan:
        union = np.append(union, np.array([np.nan], dtype=object))
    return union


def _position(union: np.ndarray, cats: np.ndarray) -> np.ndarray:
    """Index in ``union`` of each of the categories ``cats``."""
    u_nan = len(union) > 0 and _is_missing_value(union[-1])
    c_nan = len(cats) > 0 and _is_missing_value(cats[-1])
    known_u = union[:-1] if u_nan else union
    known_c = cats[:-1] if c_nan else cats
    pos = pd.Index(known_u, dtype=object).get_indexer(pd.Index(known_c, dtype=object))
    if c_nan:
        pos = np.append(pos, len(union) - 1)
    return pos.astype(np.int64)


def pooled_encoding(
    categories: list[np.ndarray], infrequent: list[np.ndarray | None] | None
) -> tuple[list[np.ndarray], dict[int, np.ndarray]]:
    """Categories to encode raw values against (each pooled value listed again in place of
    :data:`INFREQUENT`), and per pooled column the map from those codes to the fitted ones."""
    cats = list(categories)
    remap: dict[int, np.ndarray] = {}
    for j, inf in enumerate(infrequent or []):
        if inf is None or not len(inf):
            continue
        c = categories[j]
        where = next(i for i, v in enumerate(c) if v is INFREQUENT)
        has_nan = len(c) > where + 1
        cats[j] = np.concatenate([c[:where], inf, c[where + 1:]]).astype(object)
        r = np.arange(len(cats[j]))
        r[where : where + len(inf)] = where
        if has_nan:
            r[-1] = where + 1
        remap[j] = r
    return cats, remap
