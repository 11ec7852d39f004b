"""Numeric columns: the ``numeric`` policy of every embedder (drop, discretize, passthrough).

A categorical embedder sees numbers in one of three ways (``docs/design.md``, "Numeric
columns"): ``"drop"`` them with a warning, ``"discretize"`` them into quantile bins whose
labels are then counted as categories, or ``"passthrough"``: standardise them and append them
to the embedding (the *numeric block*). The fitted parameters (bin edges, means, scales) are
learned from the whole column in memory or from exact mergeable summaries of its chunks or
partitions (:func:`numeric_summary`, :func:`quantiles_from_counts`), so a streamed or Dask fit
equals the in-memory fit.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._utils._validation import CatEmbedError, CatEmbedWarning, select_categorical, user_stacklevel

__all__ = [
    "NumericState",
    "apply_numeric",
    "bin_labels",
    "bin_numbers",
    "check_finite_numbers",
    "finite_matrix",
    "read_numbers",
    "fit_numeric",
    "numeric_block",
    "numeric_from_summaries",
    "numeric_summaries_of_chunks",
    "numeric_summary",
    "quantiles_from_counts",
    "select_columns",
    "warn_missing_numbers",
]


@dataclass
class NumericState:
    """The fitted numeric policy: bin edges per column (``"discretize"``), or the means and
    scales of the numeric columns (``"passthrough"``; ``None`` otherwise)."""

    bins: dict[str, np.ndarray] = field(default_factory=dict)
    mean: np.ndarray | None = None
    scale: np.ndarray | None = None


def is_numeric(col: pd.Series) -> bool:
    """A numeric (not boolean) column."""
    return pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype)


def as_float(col: pd.Series) -> np.ndarray:
    """The column as float64, anything not a number becoming NaN."""
    return pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


def select_columns(df: pd.DataFrame, categorical_features: Any, policy: str,
                   owner: str) -> tuple[list[str], list[str]]:
    """``(columns to count, numeric columns)`` of ``df`` under the numeric ``policy``.

    Columns that are neither categorical nor kept as numbers are dropped with a warning
    naming ``owner`` (the estimator). With ``"discretize"`` the numeric columns are counted
    too (as bin labels), in input order.
    """
    cat_cols, other = select_categorical(df, categorical_features)
    if (policy == "discretize" and not other and isinstance(categorical_features, str)
            and categorical_features == "auto"
            and all(is_numeric(df[c]) for c in cat_cols)):
        # an all-numeric table: "auto" would read the numbers as categories; the user
        # asked for them to be binned
        cat_cols, other = [], cat_cols
    numeric = [c for c in other if is_numeric(df[c])] if policy != "drop" else []
    kept = set(numeric)
    dropped = [c for c in other if c not in kept]
    if dropped:
        hint = (
            " Cast them to str or category, or list them in categorical_features, to embed "
            "them as categories"
            + (", or set numeric='discretize' or 'passthrough' for numeric columns."
               if policy == "drop" else ".")
        )
        warnings.warn(
            f"{owner} embeds categorical columns only; dropping "
            f"{len(dropped)} non-categorical column(s): {', '.join(map(str, dropped[:10]))}"
            f"{' ...' if len(dropped) > 10 else ''}." + hint,
            CatEmbedWarning,
            stacklevel=user_stacklevel(),
        )
    if policy == "discretize":
        counted = set(cat_cols) | kept  # once, not per column (114 s on 20,000 columns)
        cat_cols = [c for c in df.columns if c in counted]
    if not cat_cols:
        raise CatEmbedError("the input has no categorical columns to embed.")
    return cat_cols, numeric


def _bin_quantiles(n_bins: int, n_numbers: int) -> np.ndarray:
    """The cut quantiles of ``n_bins`` bins of a column of ``n_numbers`` numbers.

    ``n_bins`` beyond ``n_numbers`` is clipped to it: ``n`` numbers fill at most ``n`` bins,
    and the cut points stay as many as the column's numbers whatever ``n_bins`` says
    (``n_bins=10**9`` no longer allocates gigabytes; issue 21 item 5).
    """
    return np.linspace(0, 1, max(min(n_bins, n_numbers), 1) + 1)[1:-1]


#: numbers beyond this magnitude are refused by ``"passthrough"``: their square (the
#: variance's sums) overflows float64
MAX_PASSTHROUGH = 1e150


def finite_matrix(x: Any, name: str) -> np.ndarray:
    """``x`` (object vectors: an embedding) as ``float64``, refusing text and NaN or infinite
    entries by name (scikit-learn's neighbour searches and classifiers raised their own
    errors, or NumPy a bare ``ValueError``)."""
    try:
        out = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise CatEmbedError(f"{name} must hold numbers (object vectors); {exc}.") from None
    bad = ~np.isfinite(out)
    if bad.any():
        raise CatEmbedError(
            f"{name} holds {int(bad.sum())} NaN or infinite value(s); object vectors must be "
            "finite: drop or impute those objects first."
        )
    return out


def check_finite_numbers(x: np.ndarray, names: Sequence[Any], where: str, *,
                         limit: float = MAX_PASSTHROUGH, remedy: str | None = None) -> None:
    """Refuse infinite numbers, and numbers beyond ``limit`` in magnitude (by default those
    whose square overflows), in the numeric columns ``names`` (the columns of ``x``);
    ``where`` (``"fit"``, ``"transform"``, ``"predict"``) and ``remedy`` (what to do
    instead; by default the ``numeric=`` options of the embedders) go into the message.
    NaN is a missing number (issue 21 item 4): it passes."""
    x = np.asarray(x, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    with np.errstate(invalid="ignore"):
        bad = np.isinf(x) | (np.abs(x) > limit)
    if not bad.any():
        return
    j = int(np.flatnonzero(bad.any(axis=0))[0])
    i = int(np.flatnonzero(bad[:, j])[0])
    bound = (f" and at most {limit:g} in magnitude (their square must not overflow)"
             if np.isfinite(limit) else "")
    raise CatEmbedError(
        f"numeric column {str(names[j])!r} holds {float(x[i, j])!r} at {where}: numbers "
        f"must be finite{bound}; "
        + (remedy or "replace them with NaN (a missing number), clip them, or use "
           "numeric='discretize' (CLI: --numeric discretize).")
    )


def read_numbers(df: pd.DataFrame, cols: Sequence[Any], owner: str) -> np.ndarray:
    """``df[cols]`` as ``float64`` (missing: NaN); columns holding text are refused with
    a message naming ``owner`` (an estimator's name) and the columns."""
    try:
        return df[list(cols)].apply(pd.to_numeric).to_numpy(dtype=np.float64)
    except (TypeError, ValueError) as exc:
        bad = [c for c in cols if not pd.api.types.is_numeric_dtype(df[c].dtype)] or cols
        raise CatEmbedError(
            f"{owner} numeric columns must hold numbers; column(s) {', '.join(map(repr, bad))} "
            "hold text: list text columns in categorical_features."
        ) from exc


def quantile_edges(x: np.ndarray, n_bins: int) -> np.ndarray:
    """The cut points of ``n_bins`` quantile bins of the finite numbers of ``x`` (distinct,
    increasing; ``n_bins`` clipped to the count of numbers, :func:`_bin_quantiles`)."""
    finite = x[np.isfinite(x)]
    if not finite.size:
        return np.array([])
    return np.unique(np.quantile(finite, _bin_quantiles(n_bins, finite.size)))


def bin_numbers(x: np.ndarray, n_bins: int) -> np.ndarray:
    """The quantile-bin label of each number of ``x`` (NaN stays missing): ``n_bins`` bins cut
    at the quantiles of ``x`` itself (:func:`quantile_edges`, :func:`bin_labels`). The one
    binning of ``--numeric discretize`` (the evaluation commands and the report), of the LCA
    protocol's numeric columns and of the cluster profiles."""
    return bin_labels(x, quantile_edges(x, n_bins))


def fit_numeric(df: pd.DataFrame, numeric: Sequence[str], policy: str,
                n_bins: int) -> NumericState:
    """The numeric policy's parameters from the whole columns in memory."""
    state = NumericState()
    if policy == "discretize":
        for c in numeric:
            state.bins[str(c)] = quantile_edges(as_float(df[c]), n_bins)
    elif policy == "passthrough" and len(numeric):
        x = np.column_stack([as_float(df[c]) for c in numeric])
        check_finite_numbers(x, numeric, "fit")
        warn_missing_numbers(numeric, np.isnan(x).sum(axis=0), len(x))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
            mean = np.nanmean(x, axis=0)
            scale = np.nanstd(x, axis=0)
        state.mean = np.nan_to_num(mean)
        state.scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    return state


def numeric_summary(col: pd.Series, policy: str) -> pd.Series:
    """A mergeable summary of one chunk of a numeric column: its value counts
    (``"discretize"``) or its count, sum, sum of squares and number of missing numbers
    (``"passthrough"``)."""
    x = as_float(col)
    if policy == "discretize":
        return pd.Series(x[np.isfinite(x)]).value_counts(sort=False).astype(np.float64)
    check_finite_numbers(x, [col.name], "fit")
    missing = np.isnan(x)
    x = x[~missing]
    return pd.Series([float(x.size), float(x.sum()), float((x * x).sum()),
                      float(missing.sum())])


def numeric_summaries_of_chunks(frames: Iterable[pd.DataFrame], numeric: Sequence[str],
                                policy: str) -> list[pd.Series]:
    """Per numeric column, the summaries of every chunk concatenated (value counts merged
    as they come, so memory stays proportional to the distinct values)."""
    parts: list[list[Any]] = [[] for _ in numeric]
    for frame in frames:
        for i, c in enumerate(numeric):
            parts[i].append(numeric_summary(frame[c], policy))
            if policy == "discretize" and len(parts[i]) > 1:  # keep memory bounded
                parts[i] = [pd.concat(parts[i]).groupby(level=0).sum()]
    return [pd.concat(p) for p in parts]


def numeric_from_summaries(numeric: Sequence[str], policy: str, n_bins: int,
                           summaries: Sequence[Any]) -> NumericState:
    """The numeric policy's parameters from per-column mergeable summaries.

    ``summaries[i]`` is the concatenation over chunks of :func:`numeric_summary` of
    ``numeric[i]``: value counts (``"discretize"``: exact quantiles, equal to
    ``numpy.quantile`` of the whole column) or count, sum, sum of squares and missing count
    (``"passthrough"``; missing numbers are named in one warning).
    """
    state = NumericState()
    if not numeric or policy == "drop":
        return state
    if policy == "discretize":
        for c, vc in zip(numeric, summaries, strict=True):
            vc = vc.groupby(level=0).sum()
            qs = _bin_quantiles(n_bins, int(vc.sum()))
            state.bins[c] = np.unique(quantiles_from_counts(vc, qs))
        return state
    mean, scale, missing = [], [], []
    for part in summaries:
        k, s1, s2, m = (float(v) for v in np.asarray(part).reshape(-1, 4).sum(axis=0))
        missing.append(int(m))
        mu = s1 / k if k else 0.0
        var = max(s2 / k - mu * mu, 0.0) if k else 0.0
        mean.append(mu)
        scale.append(np.sqrt(var) if var > 0 else 1.0)
    state.mean = np.asarray(mean)
    state.scale = np.asarray(scale)
    if summaries:
        rows = int(np.asarray(summaries[0]).reshape(-1, 4)[:, [0, 3]].sum())
        warn_missing_numbers(numeric, missing, rows)
    return state


def warn_missing_numbers(names: Sequence[Any], missing: Sequence[int], n_rows: int) -> None:
    """One warning naming the numeric columns (``numeric="passthrough"``) that hold missing
    numbers, with their counts: each becomes the column's mean (0 once standardised)."""
    found = [(str(c), int(m)) for c, m in zip(names, missing, strict=True) if m]
    if not found:
        return
    listed = ", ".join(f"{c} ({m} of {n_rows} rows)" for c, m in found[:10])
    warnings.warn(
        f"numeric column(s) with missing numbers: {listed}"
        f"{' ...' if len(found) > 10 else ''}. numeric='passthrough' gives a missing number "
        "the column's mean (0 once standardised); fill them in yourself, or use "
        "numeric='discretize' (CLI: --numeric discretize), which keeps them as a value of "
        "their own.",
        CatEmbedWarning,
        stacklevel=user_stacklevel(),
    )


def apply_numeric(df: pd.DataFrame, bins: dict[str, np.ndarray]) -> pd.DataFrame:
    """Replace numeric columns by their bin labels (``numeric="discretize"``)."""
    if not bins:
        return df
    df = df.copy()
    for c, edges in bins.items():
        df[c] = bin_labels(as_float(df[c]), edges)
    return df


def numeric_block(df: pd.DataFrame, features: Sequence[str], mean: np.ndarray,
                  scale: np.ndarray) -> np.ndarray:
    """Standardised numeric columns (``numeric="passthrough"``); NaN becomes 0."""
    x = np.column_stack([as_float(df[c]) for c in features])
    check_finite_numbers(x, features, "transform")
    z = (x - mean) / scale
    return np.where(np.isnan(z), 0.0, z)


def quantiles_from_counts(value_counts: pd.Series, qs: np.ndarray) -> np.ndarray:
    """``numpy.quantile(x, qs)`` (linear method) from the value counts of ``x``.

    Value counts add up over chunks and partitions, so the quantiles of a streamed or
    partitioned column are exact, in memory proportional to its number of distinct values.
    The interpolation follows NumPy's formula, so the result equals ``np.quantile`` on the
    whole column.
    """
    if value_counts.empty:
        return np.array([])
    vc = value_counts.sort_index()
    values = vc.index.to_numpy(dtype=np.float64)
    cum = np.cumsum(vc.to_numpy(dtype=np.int64))
    n = int(cum[-1])
    qs = np.asarray(qs, dtype=np.float64)
    virtual = n * qs + (1 + qs * (1 - 1 - 1)) - 1  # NumPy's linear (alpha = beta = 1)
    lo = np.floor(virtual)
    gamma = virtual - lo
    lo_i = np.clip(lo.astype(np.int64), 0, n - 1)
    hi_i = np.clip(lo_i + 1, 0, n - 1)
    a = values[np.searchsorted(cum, lo_i, side="right")]
    b = values[np.searchsorted(cum, hi_i, side="right")]
    diff = b - a
    out = a + diff * gamma
    return np.where(gamma >= 0.5, b - diff * (1 - gamma), out)


def bin_labels(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Quantile-bin labels of ``x`` for the cut points ``edges`` (NaN stays missing).

    Bin ``k`` holds ``edges[k-1] < x <= edges[k]``; labels read ``"b0: <= 3.5"``,
    ``"b1: (3.5, 7]"``, ..., ``"bK: > 12"``, zero-padded so that they sort in bin order.
    """
    k = len(edges)
    width = len(str(k))
    fmt = [f"{e:.6g}" for e in edges]
    if k == 0:
        labels = np.array(["b0: all"], dtype=object)
    else:
        labels = np.array(
            [f"b{0:0{width}d}: <= {fmt[0]}"]
            + [f"b{i:0{width}d}: ({fmt[i - 1]}, {fmt[i]}]" for i in range(1, k)]
            + [f"b{k:0{width}d}: > {fmt[-1]}"],
            dtype=object,
        )
    idx = np.searchsorted(edges, x, side="left")
    out = labels[np.minimum(idx, k)].astype(object)
    out[np.isnan(x)] = np.nan
    return out
