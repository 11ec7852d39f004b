"""Data frames from other libraries as pandas: polars (told apart without importing it).

:mod:`catembed._utils._validation` re-exports these; every estimator's input passes through
:func:`to_pandas` there, once.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

__all__ = ["is_frame", "is_polars", "to_pandas"]


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
    see in the same table read by pandas."""
    if not is_polars(X):
        return X
    if type(X).__name__ == "LazyFrame":
        X = X.collect()
    return X.to_pandas()
