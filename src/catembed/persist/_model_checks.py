"""What a loaded model file must mean: every stored part checked against the others.

:func:`catembed.persist.load` verifies the checksum first; a file whose checksum was
recomputed after an edit (as any tool that re-saves a model would) still has to pass these
checks: parameters through the same rules as ``fit``, the output projection, the numeric
columns' state, the order of the categories, the statistics and the method's own arrays,
each against the shapes the categories give, finite where numbers must be.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._validation import CatEmbedError

# parameter rules that fit applies inside its computation rather than in _check_params
# (class name -> [(parameter, rule)]); rule "positive": a number > 0, "count": an int >= 1,
# "count_or_none": None or an int >= 1, "non_negative": a number >= 0
_FIT_PARAM_RULES: dict[str, list[tuple[str, str]]] = {
    "CDE": [("alpha", "positive"), ("max_iter", "count")],
    "OneHotPCA": [("n_components", "count_or_none")],
    "LCME": [("n_components", "count"), ("n_init", "count"), ("max_iter", "count")],
    "CategoricalDistance": [("sigma", "non_negative")],
}



def one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200]


def bad(path: str, what: str) -> CatEmbedError:
    return CatEmbedError(f"{path} is a damaged catembed model file: {what}.")


def check_fit_params(est: Any) -> None:
    """Refuse the parameter values that ``fit`` refuses (CDE ``alpha=-1``...), with the
    parameter's name, for the checks that live in the fitting code."""
    from .._utils._params import check_int, check_positive

    for klass in type(est).__mro__:
        for name, rule in _FIT_PARAM_RULES.get(klass.__name__, []):
            value = getattr(est, name, None)
            if rule == "positive":
                check_positive(name, value)
            elif rule in ("count", "count_or_none"):
                check_int(name, value, allow_none=rule == "count_or_none")
            elif rule == "non_negative" and (
                isinstance(value, bool) or not isinstance(value, (int, float))
                or not value >= 0
            ):
                raise CatEmbedError(f"{name} must be a non-negative number; got {value!r}.")


def check_array(path: str, name: str, arr: Any, shape: tuple, *, minimum: float | None = None
                 ) -> np.ndarray:
    """``arr`` as finite float64 of ``shape`` (``-1``: any length), else a CatEmbedError."""
    arr = np.asarray(arr)
    if (arr.dtype.kind not in "fiu" or arr.ndim != len(shape)
            or any(want not in (-1, got) for want, got in zip(shape, arr.shape, strict=True))):
        want = "(" + ", ".join("any" if w == -1 else str(w) for w in shape) + ")"
        raise bad(path, f"{name} has shape {arr.shape} and dtype {arr.dtype}; expected a "
                         f"numeric array of shape {want}")
    arr = arr.astype(np.float64)
    if not np.isfinite(arr).all():
        raise bad(path, f"{name} holds NaN or inf")
    if minimum is not None and (arr < minimum).any():
        raise bad(path, f"{name} holds a value below {minimum}")
    return arr


def check_projection(path: str, est: Any, data: dict[str, np.ndarray],
                      tables: list[np.ndarray]) -> tuple | None:
    """The ``n_components`` output projection: present exactly when the parameters ask for
    one, of the shapes the value tables give, finite."""
    keys = ("components", "mean", "variance")
    present = [f"output__{k}" in data for k in keys]
    k = getattr(est, "n_components", None)
    wanted = not getattr(est, "_own_n_components", False) and k is not None
    if not any(present):
        if wanted:
            raise bad(path, f"n_components={k} but the output projection is missing")
        return None
    if not wanted:
        raise bad(path, "it holds an output projection (output__components) but its "
                         "parameters ask for none (n_components=None)")
    if not all(present):
        raise bad(path, "the output projection is incomplete (output__components, "
                         "output__mean and output__variance go together)")
    width = (tables[0].shape[1] if getattr(est, "_combine", "concat") == "sum"
             else sum(t.shape[1] for t in tables))
    components = check_array(path, "the output projection output__components",
                              data["output__components"], (width, int(k)))
    mean = check_array(path, "the output projection output__mean", data["output__mean"],
                        (width,))
    variance = check_array(path, "the output projection output__variance",
                            data["output__variance"], (int(k),), minimum=0.0)
    return components, mean, variance


def check_output_width(path: str, est: Any) -> None:
    """The output names fit the output: as many embedding names as the value tables give
    columns (a CDE file relabelled ``IDFEmbedder``, whose names are one per column, gave 24
    columns under 4 names)."""
    if getattr(est, "_projection", None) is not None:
        return  # k components, k names (check_projection)
    projected = getattr(est, "_proj_tables", None)  # UNTIE's projection: summed
    tables = projected or est._tables
    width = (tables[0].shape[1] if projected or getattr(est, "_combine", "concat") == "sum"
             else sum(t.shape[1] for t in tables))
    n_names = len(est._embedding_names())
    if n_names != width:
        raise bad(path, f"its value tables give {width} output columns but a "
                         f"{type(est).__name__} names {n_names} (get_feature_names_out)")


def check_numeric_state(path: str, est: Any, state: Any, feature_names_in: Any) -> None:
    """The numeric-column policy's state fits the ``numeric`` parameter and the columns."""
    if not isinstance(state, dict):
        raise bad(path, "the numeric-column state is not a JSON object")
    policy = est._numeric_policy()
    feats = state.get("features", [])
    bins = state.get("bins", {})
    if (not isinstance(feats, list) or not all(isinstance(f, str) for f in feats)
            or len(set(feats)) != len(feats) or not isinstance(bins, dict)):
        raise bad(path, "the numeric-column state (numeric.features, numeric.bins) is not "
                         "a list of distinct column names and a table of cut points")
    names = [str(f) for f in est.feature_names_]
    if feature_names_in is not None and not set(feats) <= set(feature_names_in):
        raise bad(path, "numeric.features names columns that are not input columns")
    has_mean = "mean" in state or "scale" in state
    if policy == "drop" and (feats or bins or has_mean):
        raise bad(path, "it holds numeric-column state although numeric='drop'")
    if policy == "discretize":
        if set(bins) != set(feats) or has_mean:
            raise bad(path, "numeric.bins must give the cut points of exactly the columns in "
                             "numeric.features (numeric='discretize')")
        from ..stats._numeric import bin_labels

        for c, edges in bins.items():
            e = check_array(path, f"the cut points numeric.bins[{c!r}]", edges, (-1,))
            if (np.diff(e) <= 0).any():
                raise bad(path, f"the cut points numeric.bins[{c!r}] are not increasing")
            if c in names:  # its categories are bin labels of these cut points
                probe = np.concatenate([e, e[-1:] + 1.0]) if len(e) else np.zeros(1)
                labels = set(bin_labels(probe, e).tolist())
                cats = est.categories_[names.index(c)]
                if not all(isinstance(v, float) and v != v or v in labels for v in cats):
                    raise bad(path, f"the categories of column {c!r} are not the bin labels "
                                     f"of its cut points numeric.bins[{c!r}]")
        if len(feats) + len([f for f in names if f not in feats]) > est.n_features_in_:
            raise bad(path, "numeric.features do not fit n_features_in")
    if policy == "passthrough":
        if bins:
            raise bad(path, "it holds cut points (numeric.bins) although "
                             "numeric='passthrough'")
        if set(feats) & set(names):
            raise bad(path, "numeric.features overlap the categorical columns")
        if len(names) + len(feats) > est.n_features_in_:
            raise bad(path, "numeric.features and the categorical columns are more than "
                             "n_features_in")
        if feats or has_mean:
            n = len(feats)
            if not feats:
                raise bad(path, "numeric.mean/scale are given but numeric.features is empty")
            check_array(path, "numeric.mean", state.get("mean"), (n,))
            check_array(path, "numeric.scale", state.get("scale"), (n,))
            if not (np.asarray(state["scale"], dtype=np.float64) > 0).all():
                raise bad(path, "numeric.scale holds a value that is not positive (fit "
                                 "stores 1 for a constant column)")


def check_extra_state(path: str, est: Any, extra: dict[str, np.ndarray]) -> None:
    """Method-specific arrays against the value tables (shapes, ranges)."""
    kinds = {k.__name__ for k in type(est).__mro__}
    n_values = sum(len(c) for c in est.categories_)
    width = est._tables[0].shape[1]
    total = sum(t.shape[1] for t in est._tables)
    k = getattr(est, "n_components", None)
    if kinds & {"OneHotPCA", "MCA"}:
        check_array(path, "array components", est.components_, (n_values, width))
        ev = est.explained_variance_ if "OneHotPCA" in kinds else est.eigenvalues_
        check_array(path, "the eigenvalues (explained_variance / eigenvalues)", ev, (width,),
                     minimum=0.0)
        if k is not None and width > int(k):
            raise bad(path, f"it holds {width} components but n_components={k}")
        if "MCA" in kinds and not (np.isfinite(est.total_inertia_)
                                   and est.total_inertia_ > 0):
            raise bad(path, "total_inertia is not a positive number")
    if "UNTIE" in kinds:
        check_array(path, "array omega", est.omega_, (total,), minimum=0.0)
        space_of = np.asarray(extra.get("space_of"))
        n_spaces = len(est._space_names)
        if (space_of.dtype.kind not in "iu" or space_of.shape != (total,)
                or (len(space_of) and (space_of.min() < 0 or space_of.max() >= n_spaces))):
            raise bad(path, f"array space_of must give one of the {n_spaces} spaces for each "
                             f"of the {total} table columns")
        if "components" in extra:
            kk = est.components_.shape[1] if est.components_.ndim == 2 else -1
            check_array(path, "array components", est.components_, (total, -1))
            if k is not None and kk != int(k):
                raise bad(path, f"array components has {kk} columns but n_components={k}")
            check_array(path, "array mean", est.mean_, (total,))
            check_array(path, "array explained_variance", est.explained_variance_, (kk,),
                         minimum=0.0)
        elif k is not None:
            raise bad(path, f"n_components={k} but the projection (array components) is "
                             "missing")
    if "CategoricalDistance" in kinds and "fit_codes" in extra:
        codes = np.asarray(extra["fit_codes"])
        sizes = np.array([len(c) for c in est.categories_])
        if (codes.dtype.kind not in "iu" or codes.ndim != 2 or codes.shape[1] != len(sizes)
                or (codes.size and ((codes < -1).any() or (codes >= sizes).any()))):
            raise bad(path, "array fit_codes is not one code per fitted column (each -1 or "
                             "below the column's number of values)")


def need(path: str, meta: dict, fields: dict[str, type]) -> None:
    for key, typ in fields.items():
        if not isinstance(meta.get(key), typ) or (typ is int and isinstance(meta[key], bool)):
            raise bad(path, f"metadata field {key!r} is missing or not a {typ.__name__}")


def check_categories(path: str, column: str, cats: np.ndarray) -> None:
    import pandas as pd

    miss = pd.isna(pd.Series(cats, dtype=object)).to_numpy()
    if miss[:-1].any():
        raise bad(path, f"column {column!r} has a missing value before its last category")
    if not pd.Index(cats[~miss], dtype=object).is_unique:
        raise bad(path, f"column {column!r} has duplicate categories")
    from .._utils._validation import sort_values
    from ..stats._encoding import INFREQUENT

    known = [v for v, m in zip(cats.tolist(), miss, strict=True) if not m and v is not INFREQUENT]
    marker = [i for i, v in enumerate(cats.tolist()) if v is INFREQUENT]
    if marker not in ([], [len(known)]) or (order_is_checkable(known) and [
            repr(v) for v in known] != [
            repr(v) for v in sort_values(np.asarray(known, dtype=object)).tolist()]):
        raise bad(path, f"the categories of column {column!r} are not in their documented "
                         "order (sorted values, then the infrequent value, then missing)")


def order_is_checkable(values: list) -> bool:
    """Whether the file keeps the values the order was made of: numbers, or text that is
    no other value's ``str`` (tuples, bytes, decimals... are saved as their text, which
    sorts differently)."""
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return True
    if not all(isinstance(v, str) for v in values):
        return False
    for v in values:
        if v[:1] in ("(", "[", "{") or v[:2] in ("b'", 'b"'):
            return False
        try:
            float(v)
            return False
        except ValueError:
            pass
    return True


def check_stats_arrays(path: str, arrays: dict[str, np.ndarray], n_values: int,
                       sizes: list[int] | None = None) -> None:
    counts = arrays.get("counts")
    n_rows = arrays.get("n_rows")
    if counts is None or n_rows is None:
        raise bad(path, "the value statistics are missing")
    if counts.dtype.kind not in "iu" or counts.shape != (n_values,):
        raise bad(path, f"the value counts have shape {counts.shape} and dtype {counts.dtype}; "
                         f"expected {n_values} integers")
    if n_rows.dtype.kind not in "iu" or n_rows.shape != () or int(n_rows) < 0:
        raise bad(path, "the row count is not a non-negative integer")
    if (counts < 0).any() or (counts > int(n_rows)).any():
        raise bad(path, "a value count is negative or above the row count")
    if "cooc_ids" in arrays:  # counts kept as their factor (catembed.stats._gram)
        ids = arrays["cooc_ids"]
        offs = np.concatenate([[0], np.cumsum(sizes if sizes is not None else [n_values])])
        if (ids.dtype.kind not in "iu" or ids.ndim != 2 or ids.shape[0] != int(n_rows)
                or ids.shape[1] != len(offs) - 1):
            raise bad(path, f"the co-occurrence counts' one-hot rows have shape {ids.shape}; "
                             f"expected ({int(n_rows)}, {len(offs) - 1}) integers")
        if ids.size and ((ids < offs[:-1]) | (ids >= offs[1:])).any():
            raise bad(path, "the co-occurrence counts' one-hot rows are out of range")
        if not np.array_equal(np.bincount(ids.ravel().astype(np.int64),
                                          minlength=n_values), counts):
            raise bad(path, "the co-occurrence counts disagree with the value counts")
    elif "cooc" in arrays:
        cooc = arrays["cooc"]
        if cooc.dtype.kind not in "iu" or cooc.shape != (n_values, n_values):
            raise bad(path, f"the co-occurrence counts have shape {cooc.shape}; expected "
                             f"({n_values}, {n_values}) integers")
        if (cooc < 0).any() or not np.array_equal(np.diagonal(cooc), counts):
            raise bad(path, "the co-occurrence counts are negative or disagree with the "
                             "value counts")
        if not np.array_equal(cooc, cooc.T):
            raise bad(path, "the co-occurrence counts are not symmetric")
    else:
        parts = [arrays.get(k) for k in ("cooc_row", "cooc_col", "cooc_data")]
        if any(p is None for p in parts):
            raise bad(path, "the co-occurrence counts are missing")
        row, col, val = parts
        if (any(p.dtype.kind not in "iu" or p.ndim != 1 for p in parts)
                or not len(row) == len(col) == len(val)):
            raise bad(path, "the sparse co-occurrence counts are not integer arrays of one "
                             "length")
        if len(row) and (row.min() < 0 or col.min() < 0 or max(row.max(), col.max())
                         >= n_values or val.min() < 0):
            raise bad(path, "the sparse co-occurrence counts are out of range")
        # symmetric: the pairs sorted by (row, col) are those sorted by (col, row), swapped
        by_row, by_col = np.lexsort((val, col, row)), np.lexsort((val, row, col))
        if not (np.array_equal(row[by_row], col[by_col]) and np.array_equal(
                col[by_row], row[by_col]) and np.array_equal(val[by_row], val[by_col])):
            raise bad(path, "the co-occurrence counts are not symmetric")


def check_value_tables(path: str, names: list[str], cats: list[np.ndarray],
                       data: dict[str, np.ndarray], rule: str | None) -> list[np.ndarray]:
    """The value tables ``table__<j>``: one per column, one finite float64 row per value,
    of the class's shape ``rule`` (``"common"``: one width; ``"square"``: ``l_j x l_j``)."""
    tables = []
    for j, c in enumerate(cats):
        t = data.get(f"table__{j}")
        if t is None:
            raise bad(path, f"the value table of column {names[j]!r} is missing")
        if t.dtype != np.float64 or t.ndim != 2 or t.shape[0] != len(c) or t.shape[1] < 1:
            raise bad(path, f"the value table of column {names[j]!r} has shape {t.shape} "
                             f"and dtype {t.dtype}; expected {len(c)} rows of float64 "
                             "and at least one column")
        if not np.isfinite(t).all():
            raise bad(path, f"the value table of column {names[j]!r} holds NaN or inf")
        tables.append(t)
    if f"table__{len(cats)}" in data:
        raise bad(path, "it holds more value tables than columns")
    if rule == "common" and len({t.shape[1] for t in tables}) > 1:
        raise bad(path, "its value tables have different widths")
    if rule == "square" and any(t.shape[0] != t.shape[1] for t in tables):
        raise bad(path, "its value tables are not square (one column per value)")
    return tables
