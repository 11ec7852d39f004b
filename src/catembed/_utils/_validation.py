"""Input validation shared by every estimator: column kinds, missing values, clear errors.

Everything that turns user input into a clean ``pandas.DataFrame`` of categorical columns
lives here, so that the statistics, the estimators and the command line agree on what a
missing value is, what a categorical column is, and what an error message says.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

__all__ = [
    "CatEmbedError",
    "CatEmbedWarning",
    "ValidatedTable",
    "as_frame",
    "is_frame",
    "to_pandas",
    "missing_mask",
    "select_categorical",
    "sort_values",
]

HANDLE_UNKNOWN = ("error", "ignore", "warn")
HANDLE_MISSING = ("category", "error")
NUMERIC_POLICIES = ("drop", "discretize", "passthrough")


from ._errors import (  # noqa: E402 - defined without imports
    CatEmbedError,
    CatEmbedTypeError,
    CatEmbedWarning,
)
from ._frames import is_frame, is_polars, to_pandas  # noqa: E402, F401 - re-exported


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
    as it is (no copy); a Series becomes a one-column frame; a polars DataFrame, LazyFrame
    or Series becomes the pandas one (:func:`to_pandas`).
    """
    X = to_pandas(X)
    if isinstance(X, pd.DataFrame):
        df = X
    elif isinstance(X, pd.Series):
        df = X.to_frame()
    else:
        if hasattr(X, "toarray") or hasattr(X, "tocsr"):
            raise CatEmbedTypeError(
                "catembed needs dense categorical input (a DataFrame or an array of values); "
                f"got a sparse matrix ({type(X).__name__}). Convert it with X.toarray() or "
                "pandas.DataFrame.sparse.from_spmatrix(X)."
            )
        _check_table_type(X)
        arr = np.asarray(X, dtype=object) if not isinstance(X, np.ndarray) else X
        if arr.ndim == 1:
            raise CatEmbedError(
                "Expected 2D array, got 1D array instead. Reshape your data either using "
                "array.reshape(-1, 1) if your data has a single feature or array.reshape(1, -1) "
                "if it contains a single sample."
            )
        if arr.ndim != 2:
            raise CatEmbedError(
                f"Expected a 2D table (rows x columns), got an array with {arr.ndim} "
                f"dimensions (shape {arr.shape})."
            )
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


def _check_table_type(X: Any) -> None:
    """Refuse inputs that are no table: None, a string, a dict, a set, an iterator or
    generator, a scalar (issue 21 item 9)."""
    from collections.abc import Iterator, Mapping

    what = None
    if X is None:
        what = "None"
    elif isinstance(X, (str, bytes)):
        what = f"a {type(X).__name__} ({X[:40]!r})"
    elif isinstance(X, Mapping):
        what = "a dict; build a table from it with pandas.DataFrame(X)"
    elif isinstance(X, (set, frozenset)):
        what = "a set, which has no order"
    elif isinstance(X, Iterator):
        what = f"an iterator ({type(X).__name__}); pass a list of rows, e.g. list(X)"
    elif isinstance(X, (int, float, complex, np.generic)):
        what = f"a scalar of type {type(X).__name__}"
    if what is not None:
        raise CatEmbedTypeError(
            "X must be a table: a pandas DataFrame, a 2-D NumPy array or a list of rows; got "
            f"{what}."
        )


def is_dask_collection(X: Any, *, frames: bool = True) -> bool:
    """Whether ``X`` is a lazy Dask collection (its class from a ``dask`` module).

    By default a Dask DataFrame or Series (``map_partitions``), which the fits and
    ``compute_statistics`` count partition by partition (:mod:`catembed.transform._dask`); with
    ``frames=False`` any Dask collection that computes (``compute``: a Dask Array too), for
    the callers that gather the rows into memory.
    """
    if not type(X).__module__.startswith("dask"):
        return False
    return hasattr(X, "map_partitions" if frames else "compute")


@dataclass
class ValidatedTable:
    """An input table checked once by a public call and handed down to every step.

    ``frame`` has unique string column names (:func:`as_frame`); ``categorical`` are the
    columns whose values are counted and encoded, ``numeric`` the numeric columns of the
    ``numeric`` policy (both filled when the estimator chooses its columns).
    """

    frame: pd.DataFrame
    categorical: list[str] = field(default_factory=list)
    numeric: list[str] = field(default_factory=list)


def has_string_names(X: Any) -> bool:
    """``X`` is a DataFrame whose column labels are all strings (scikit-learn's feature
    names); a polars frame's are (polars names its columns with strings)."""
    if is_polars(X):
        return is_frame(X)
    return isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns)


def validate_fit_input(X: Any) -> pd.DataFrame:
    """The training table as a frame: at least one row and one column."""
    df = as_frame(X)
    if df.shape[0] == 0:
        raise CatEmbedError(
            f"Found array with 0 sample(s) (shape={df.shape}) while a minimum of 2 "
            "is required."
        )
    if df.shape[1] == 0:
        raise CatEmbedError(
            f"Found array with 0 feature(s) (shape={df.shape}) while a minimum of 1 "
            "is required."
        )
    return df


def validate_training_table(X: Any, *, sample: bool = False
                            ) -> tuple[pd.DataFrame, np.ndarray | None]:
    """A training table as a frame and its feature names (``None`` unless ``X`` is a
    DataFrame with string labels). ``sample``: ``X`` is a sample of the table (its first
    chunk, or a Dask frame's ``_meta``), which may have no rows."""
    if sample:
        df = as_frame(X)
        has_names = has_string_names(X)
    else:
        df = validate_fit_input(X)
        has_names = has_string_names(X)
    return df, np.asarray(df.columns, dtype=object) if has_names else None


def validate_transform_input(
    X: Any, *, fitted_names: np.ndarray | None, n_features_in: int, owner: str,
    unnamed_names: Any = None,
) -> pd.DataFrame:
    """A table to transform with an estimator fitted on ``n_features_in`` columns named
    ``fitted_names`` (``None``: fitted without names), with scikit-learn's checks and
    warnings; the result has the fitted column names.

    A frame with names given to an estimator fitted without them is read by position, after
    scikit-learn's warning, as scikit-learn's estimators read it: its columns take the names
    the fit gave its columns, ``unnamed_names`` when it names all ``n_features_in`` of them
    (a frame with integer labels gave ``"0", "1", ...``), else those of an array (``x0,
    x1, ...``)."""
    X = to_pandas(X)
    has_names = has_string_names(X)
    if has_names and fitted_names is None:
        warnings.warn(
            f"X has feature names, but {owner} was fitted without feature names",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        if X.shape[1] == n_features_in:
            names = ([str(c) for c in unnamed_names] if unnamed_names is not None
                     and len(unnamed_names) == n_features_in
                     else [f"x{i}" for i in range(n_features_in)])
            X = X.set_axis(names, axis=1)
            has_names = False
    if not has_names and fitted_names is not None and isinstance(X, pd.DataFrame) is False:
        if not _is_ours(fitted_names):
            warnings.warn(
                f"X does not have valid feature names, but {owner} was "
                "fitted with feature names",
                UserWarning,
                stacklevel=user_stacklevel(),
            )
    if has_names and fitted_names is not None:
        cols = list(X.columns)
        if cols != list(fitted_names):
            missing = [c for c in fitted_names if c not in cols]
            if missing or len(cols) != len(fitted_names):
                extra = [c for c in cols if c not in set(fitted_names)]
                raise CatEmbedError(
                    "The feature names should match those that were passed during fit.\n"
                    + (f"Feature names unseen at fit time: {extra[:10]}\n" if extra else "")
                    + (f"Feature names seen at fit time, yet now missing: {missing[:10]}\n"
                       if missing else "")
                )
            raise CatEmbedError(
                "The feature names should match those that were passed during fit.\n"
                "Feature names must be in the same order as they were in fit.\n"
            )
    names = list(fitted_names) if fitted_names is not None else None
    df = as_frame(X, columns=names)
    if df.shape[1] != n_features_in:
        raise CatEmbedError(
            f"X has {df.shape[1]} features, but {owner} is expecting "
            f"{n_features_in} features as input."
        )
    if not has_names:
        if fitted_names is not None:
            names = list(fitted_names)
        elif isinstance(X, pd.DataFrame):  # non-string labels, e.g. 0, 1, 2: as in fit
            names = [str(c) for c in X.columns]
        else:
            names = [f"x{i}" for i in range(df.shape[1])]
        df = df.set_axis(names, axis=1)
    return df


def _is_ours(names: np.ndarray) -> bool:
    """Names we gave a NumPy input ourselves (x0, x1, ...) need no warning."""
    return all(str(n) == f"x{i}" for i, n in enumerate(names))


def missing_mask(col: pd.Series) -> np.ndarray:
    """Boolean mask of missing entries: NaN, None, ``pd.NA``, ``NaT`` and the empty string."""
    mask = np.array(col.isna().to_numpy(dtype=bool, na_value=True), dtype=bool, copy=True)
    if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
        with np.errstate(all="ignore"):
            try:
                empty = (col == "").to_numpy(dtype=bool, na_value=False)
            except ValueError:  # cells that are arrays (a Parquet list column): no category
                raise unhashable_error(col.name, col) from None
        mask |= empty
    elif isinstance(col.dtype, pd.CategoricalDtype):
        cats = col.cat.categories
        if len(cats) and (cats.dtype == object or pd.api.types.is_string_dtype(cats.dtype)):
            # (no categories: an all-missing column, e.g. a Parquet string column of nulls)
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
        # the dtypes at once, and sets for membership: a Series and a list scan per column
        # took 9 s on 20,000 columns
        cat = [c for c, dt in zip(cols, df.dtypes, strict=True) if _is_categorical_dtype(dt)]
        if not cat:
            return cols, []
        chosen = set(cat)
        return cat, [c for c in cols if c not in chosen]
    sel = list(np.atleast_1d(np.asarray(categorical_features, dtype=object)))
    if sel and all(isinstance(s, (bool, np.bool_)) for s in sel):
        if len(sel) != len(cols):
            raise CatEmbedError(
                f"categorical_features mask has {len(sel)} entries for {len(cols)} columns."
            )
        cat = [c for c, s in zip(cols, sel, strict=True) if s]
    else:
        cat = []
        names = set(cols)
        for s in sel:
            if isinstance(s, (int, np.integer)) and not isinstance(s, bool):
                if not -len(cols) <= int(s) < len(cols):
                    raise CatEmbedError(f"categorical feature index {s} is out of range.")
                cat.append(cols[int(s)])
            elif str(s) in names:
                cat.append(str(s))
            else:
                raise CatEmbedError(f"categorical feature {s!r} is not a column of the input.")
        if len(set(cat)) != len(cat):  # issue 21 item 10: a column embedded twice
            twice = sorted({c for i, c in enumerate(cat) if c in cat[:i]})
            raise CatEmbedError(
                f"categorical_features names column(s) {', '.join(map(repr, twice))} more than "
                "once (by index or by name); list each column once."
            )
    chosen = set(cat)
    return cat, [c for c in cols if c not in chosen]


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


def user_stacklevel() -> int:
    """The ``stacklevel`` of a warning that points at the caller's code.

    Counts the frames from the one calling :func:`warnings.warn` out to the first frame
    outside catembed and scikit-learn (whose ``set_output`` and pipelines wrap the public
    calls), so that a warning names the user's line however deep the library raised it.
    """
    import os
    import sys

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the catembed package
    try:
        import sklearn

        skl = os.path.dirname(os.path.abspath(sklearn.__file__))
    except ImportError:  # pragma: no cover - sklearn is a dependency
        skl = here
    frame = sys._getframe(1)  # the function that warns
    level = 1
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not (path.startswith(here) or path.startswith(skl)):
            return level
        frame = frame.f_back
        level += 1
    return 1


def check_table(est: Any, df: pd.DataFrame, *, reset: bool) -> None:
    """scikit-learn's shape errors for a table (empty, one sample, wrong width)."""
    name = type(est).__name__
    if df.shape[1] == 0:
        raise CatEmbedError(f"Found array with 0 feature(s) (shape={df.shape}) while a minimum "
                            "of 1 is required.")
    if reset:
        if len(df) < 2:
            raise CatEmbedError(f"{name} needs at least 2 samples to fit; got n_samples = "
                                f"{len(df)}.")
    elif df.shape[1] != est.n_features_in_:
        raise CatEmbedError(f"X has {df.shape[1]} features, but {name} is expecting "
                            f"{est.n_features_in_} features as input.")


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """``warnings.warn`` naming the user's line."""
    warnings.warn(message, category, stacklevel=user_stacklevel())


class warnings_at_caller:  # noqa: N801 (used as a context manager, like warnings.catch_warnings)
    """Re-emit the warnings raised inside the ``with`` block at the user's line, in order.

    For warnings raised with a fixed ``stacklevel`` by code called along several paths. The
    user's filters apply at re-emission (``"error"`` raises then, ``"once"`` dedupes against
    the user's registry). ``owner``: a message that starts with ``"CategoricalDistance "``
    (the helper estimator's name) is attributed to ``owner`` instead.
    """

    def __init__(self, owner: str | None = None) -> None:
        self.owner = owner

    def __enter__(self) -> None:
        self._catch = warnings.catch_warnings(record=True)
        self._caught = self._catch.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: object) -> None:
        self._catch.__exit__(*exc)
        for w in self._caught:
            message = w.message
            text = str(message)
            if self.owner and text.startswith("CategoricalDistance "):
                message = self.owner + text[len("CategoricalDistance"):]
            warnings.warn(message, w.category, stacklevel=user_stacklevel())
