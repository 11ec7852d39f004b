"""Data frames from other libraries as pandas: polars (told apart without importing it).

:mod:`catembed._utils._validation` re-exports these; every estimator's input passes through
:func:`to_pandas` there, once.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from ._errors import CatEmbedError

__all__ = ["check_polars_columns", "is_frame", "is_polars", "to_pandas"]


def is_polars(X: Any) -> bool:
    """``X`` is a polars DataFrame, LazyFrame or Series (told by its type's module, so that
    polars, an optional dependency, is never imported here)."""
    return type(X).__module__.split(".", 1)[0] == "polars"


def is_frame(X: Any) -> bool:
    """``X`` is a data frame with column labels: pandas', or a polars DataFrame/LazyFrame."""
    return isinstance(X, pd.DataFrame) or (
        is_polars(X) and type(X).__name__ in ("DataFrame", "LazyFrame"))


def to_pandas(X: Any) -> Any:
    """A polars table as the pandas one it holds (a LazyFrame collected first); any other
    input as it is. Polars' own conversion (through Arrow, a dependency of catembed): text
    columns become object columns, nulls ``None`` (``NaN`` in a float column), a
    categorical column a pandas categorical, so every estimator sees the values it would
    see in the same table read by pandas. A ``List`` or ``Array`` column (a list in every
    cell) is refused before any conversion: :func:`check_polars_columns`."""
    if not is_polars(X):
        return X
    check_polars_columns(X)
    if type(X).__name__ == "LazyFrame":
        X = X.collect()
    return X.to_pandas()


#: polars types whose cells are lists: a cell is no category (issue 52 item 13: NumPy's
#: "truth value of an array is ambiguous" came out of every estimator)
_LIST_TYPES = ("List", "Array")


def check_polars_columns(X: Any) -> None:
    """Refuse a polars column of a list type (``List``, ``Array``), naming it and its type;
    the schema only is read (a LazyFrame is not collected)."""
    if type(X).__name__ == "Series":
        schema = {X.name: X.dtype}
    elif type(X).__name__ == "LazyFrame":
        schema = dict(X.collect_schema() if hasattr(X, "collect_schema") else X.schema)
    else:
        schema = dict(X.schema)
    for name, dtype in schema.items():
        if type(dtype).__name__ in _LIST_TYPES or getattr(dtype, "__name__", "") in _LIST_TYPES:
            raise CatEmbedError(
                f"column {str(name)!r} has the polars type {dtype}: every cell is a list of "
                "items, which cannot be a category. Join each list into one string "
                f"(pl.col({str(name)!r}).cast(pl.List(pl.String)).list.join(',')), give each "
                "item a column of its own, or drop the column.")
