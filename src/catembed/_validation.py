"""Input validation shared by every estimator: column kinds, missing values, clear errors.

Everything that turns user input into a clean ``pandas.DataFrame`` of categorical columns
lives here, so that the statistics, the estimators and the command line agree on what a
missing value is, what a categorical column is, and what an error message says.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "CatEmbedError",
    "CatEmbedWarning",
    "as_frame",
    "missing_mask",
    "select_categorical",
    "sort_values",
]

HANDLE_UNKNOWN = ("error", "ignore", "warn")
HANDLE_MISSING = ("category", "error")
NUMERIC_POLICIES = ("drop", "discretize", "passthrough")


from ._errors import CatEmbedError, CatEmbedWarning  # noqa: E402 - defined without imports


def categorical_input_tags(tags: Any) -> Any:
    """scikit-learn tags of an estimator that takes categorical tables: strings, categories
    and missing values (NaN, None, empty) are valid input."""
    tags.input_tags.allow_nan = True
    tags.input_tags.categorical = True
    tags.input_tags.string = True
    return tags


def as_frame(X: Any, *, columns: Sequence[str] | None = None) -> pd.DataFrame:
    """Return ``X`` as a DataFrame with unique string column names.

    NumPy arrays and lists get the names ``x0, x1, ...`` (or ``columns`` when given, as at
    transform time for an estimator fitted on a NumPy array). A pandas DataFrame is returned
    as it is (no copy); a Series becomes a one-column frame.
    """
    if isinstance(X, pd.DataFrame):
        df = X
    elif isinstance(X, pd.Series):
        df = X.to_frame()
    else:
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise TypeError(
                "catembed needs dense categorical input (a DataFrame or an array of values); "
                "got a sparse matrix."
            )
        arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
        if arr.ndim == 1:
            raise ValueError(
                "Expected 2D array, got 1D array instead. Reshape your data either using "
                "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) "
                "if it contains a single sample."
            )
        if arr.ndim != 2:
            raise ValueError(f"Expected a 2D table, got an array with {arr.ndim} dimensions.")
        names = list(columns) if columns is not None else [f"x{i}" for i in range(arr.shape[1])]
        if len(names) != arr.shape[1]:
            names = [f"x{i}" for i in range(arr.shape[1])]
        df = pd.DataFrame(arr, columns=names, copy=False)
    if any(pd.api.types.is_complex_dtype(t) for t in df.dtypes) or (
        df.shape[1] and df.dtypes.eq(object).any()
        and any(isinstance(v, complex) for v in df.iloc[:1].to_numpy().ravel())
    ):
        raise CatEmbedError("Complex data not supported: categorical values must be real.")
    cols = [str(c) for c in df.columns]
    if len(set(cols)) != len(cols):
        seen: set[str] = set()
        dup = sorted({c for c in cols if c in seen or seen.add(c)})
        raise CatEmbedError(f"duplicate column names: {', '.join(dup)}; rename them first.")
    if any(not isinstance(c, str) for c in df.columns):
        df = df.set_axis(cols, axis=1)
    return df


def missing_mask(col: pd.Series) -> np.ndarray:
    """Boolean mask of missing entries: NaN, None, ``pd.NA``, ``NaT`` and the empty string."""
    mask = np.array(col.isna().to_numpy(dtype=bool, na_value=True), dtype=bool, copy=True)
    if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
        with np.errstate(all="ignore"):
            empty = (col == "").to_numpy(dtype=bool, na_value=False)
        mask |= empty
    elif isinstance(col.dtype, pd.CategoricalDtype):
        cats = col.cat.categories
        if cats.dtype == object or pd.api.types.is_string_dtype(cats.dtype):
            mask |= (col.cat.codes.to_numpy() >= 0) & np.asarray(
                cats == "", dtype=bool
            )[np.maximum(col.cat.codes.to_numpy(), 0)]
    return mask


def _is_categorical_dtype(dtype: Any) -> bool:
    return (
        (isinstance(dtype, np.dtype) and dtype.kind == "O")
        or isinstance(dtype, pd.CategoricalDtype)
        or pd.api.types.is_string_dtype(dtype)
        or pd.api.types.is_bool_dtype(dtype)
    )


def select_categorical(
    df: pd.DataFrame, categorical_features: Any = "auto"
) -> tuple[list[str], list[str]]:
    """Split the columns of ``df`` into (categorical, other).

    Parameters
    ----------
    df : DataFrame
    categorical_features : "auto", "all", list of names or indices, or boolean mask
        ``"auto"``: object, string, category and bool columns; when the input had no column
        of these kinds at all (a NumPy array of integer codes, say) every column is taken as
        categorical, since catembed is for categorical tables. ``"all"``: every column.
    """
    cols = list(df.columns)
    if isinstance(categorical_features, str):
        if categorical_features == "all":
            return cols, []
        if categorical_features != "auto":
            raise CatEmbedError(
                "categorical_features must be 'auto', 'all', a list of column names or "
                f"indices, or a boolean mask; got {categorical_features!r}."
            )
        cat = [c for c in cols if _is_categorical_dtype(df[c].dtype)]
        if not cat:
            return cols, []
        return cat, [c for c in cols if c not in cat]
    sel = list(np.atleast_1d(np.asarray(categorical_features, dtype=object)))
    if sel and all(isinstance(s, (bool, np.bool_)) for s in sel):
        if len(sel) != len(cols):
            raise CatEmbedError(
                f"categorical_features mask has {len(sel)} entries for {len(cols)} columns."
            )
        cat = [c for c, s in zip(cols, sel, strict=True) if s]
    else:
        cat = []
        for s in sel:
            if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
                if not -len(cols) <= int(s) < len(cols):
                    raise CatEmbedError(f"categorical feature index {s} is out of range.")
                cat.append(cols[int(s)])
            elif str(s) in cols:
                cat.append(str(s))
            else:
                raise CatEmbedError(f"categorical feature {s!r} is not a column of the input.")
    return cat, [c for c in cols if c not in cat]


def _sort_key(v: Any) -> tuple[int, Any]:
    if isinstance(v, (bool, np.bool_)):
        return (0, int(v))
    if isinstance(v, (int, float, np.integer, np.floating)):
        return (1, float(v))
    return (2, type(v).__name__ if not isinstance(v, str) else "", str(v))


def sort_values(values: np.ndarray) -> np.ndarray:
    """Sort distinct non-missing values deterministically (numbers before strings).

    Values of one comparable kind (all strings, all numbers) sort naturally; a mix of kinds
    (numbers and strings, tuples, bytes...) sorts by kind (booleans, numbers, strings, then
    other types by type name) and within a kind by value or text. The result never depends
    on the order the values came in.
    """
    vals = np.asarray(values, dtype=object)
    if vals.ndim != 1:  # an array of tuples of equal length becomes 2-D: rebuild it
        flat = np.empty(len(values), dtype=object)
        flat[:] = list(values)
        vals = flat
    kinds = {_sort_key(v)[0] for v in vals.tolist()} if len(vals) < 50_000 else None
    if kinds is None or len(kinds) == 1:
        try:
            order = np.argsort(vals, kind="stable")
            sorted_vals = vals[order]
            # argsort of mixed objects may "succeed" without a total order: verify.
            with np.errstate(all="ignore"):
                ok = bool(np.all(sorted_vals[:-1] <= sorted_vals[1:])) if len(vals) > 1 else True
            if ok:
                return sorted_vals
        except (TypeError, ValueError):
            pass
    return np.array(sorted(vals.tolist(), key=_sort_key), dtype=object)


def unhashable_error(column: Any, values: Any) -> CatEmbedError:
    """The error for a column holding lists, dicts or sets (values that cannot be counted)."""
    kind = next(
        (type(v).__name__ for v in values if not _hashable(v)), "unhashable"
    )
    return CatEmbedError(
        f"column {str(column)!r} holds {kind} values, which cannot be categories; convert "
        f"them to strings (df[{str(column)!r}].map(str)) or tuples, or drop the column."
    )


def _hashable(v: Any) -> bool:
    try:
        hash(v)
    except TypeError:
        return False
    return True


def warn(message: str) -> None:
    """Emit a :class:`CatEmbedWarning` attributed to the user's call site."""
    warnings.warn(message, CatEmbedWarning, stacklevel=3)
