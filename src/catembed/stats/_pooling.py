"""The value space a fit may afford: rare-value pooling, degenerate columns, the cost guard.

Before a value-level model is fitted, the counted statistics are cleaned
(:func:`prune_statistics`): identifier-like columns are flagged, rare values are pooled into
one :data:`~catembed.stats.INFREQUENT` value per column (``min_frequency`` /
``max_categories``, scikit-learn's ``OneHotEncoder`` meaning; :func:`pool_rare_values`), and
single-valued columns are dropped. :func:`check_fit_cost` estimates the memory and time of
the fit from the numbers of values and refuses a fit that would not fit the machine, before
anything large is allocated.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._utils._errors import named
from .._utils._limits import check_limits, memory_limit, size
from .._utils._validation import CatEmbedError, CatEmbedWarning, user_stacklevel
from ._counting import DENSE_LIMIT, pair_bytes
from ._encoding import pooled_encoding
from ._value_statistics import ValueStatistics

__all__ = [
    "check_cost_before_counting",
    "check_fit_cost",
    "check_matrix_memory",
    "identifier_columns",
    "identifier_message",
    "pool_rare_values",
    "pooled_encoding",
    "prune_statistics",
]


def prune_statistics(
    est: Any, stats: ValueStatistics
) -> tuple[ValueStatistics, list[np.ndarray | None], list[str]]:
    """The statistics the value-level model sees: rare values pooled, constant columns out.

    Refuses fewer than two rows or a table of single-valued columns; warns about
    identifier-like columns, pooled values and dropped columns. Returns the statistics, per
    kept column its pooled original values (``None`` where nothing was pooled) and the names
    of the dropped single-valued columns.
    """
    if stats.n_rows < 2:
        raise CatEmbedError(
            f"{type(est).__name__} needs at least 2 samples to fit; got "
            f"{stats.n_rows} sample{'s' if stats.n_rows != 1 else ''} "
            f"(n_samples = {stats.n_rows})."
        )
    id_like = identifier_columns(stats.feature_names, stats.sizes, stats.n_rows)
    if id_like:
        warnings.warn(identifier_message(id_like), CatEmbedWarning,
                      stacklevel=user_stacklevel())
    stats, infrequent = pool_rare_values(est, stats)
    sizes = stats.sizes
    constant = [f for f, s in zip(stats.feature_names, sizes, strict=True) if s <= 1]
    keep = [j for j, s in enumerate(sizes) if s > 1]
    if not keep:
        raise CatEmbedError(
            "every categorical column has a single value; nothing to embed."
        )
    if constant:
        warnings.warn(
            f"dropping {len(constant)} column(s) with a single value, which carry no "
            f"information: {', '.join(constant[:10])}{' ...' if len(constant) > 10 else ''}.",
            CatEmbedWarning,
            stacklevel=user_stacklevel(),
        )
    if len(keep) < len(sizes):
        stats = stats.subset(keep)
    return stats, [infrequent[j] for j in keep], constant


def identifier_columns(names: Any, sizes: Any, n_rows: int) -> list[str]:
    """The columns that look like identifiers: a distinct value in at least 90 % of the
    rows (of at least 10 rows); ``sizes`` are the columns' numbers of distinct values."""
    return [str(f) for f, s in zip(names, sizes, strict=True)
            if n_rows >= 10 and s >= 0.9 * n_rows]


def identifier_message(columns: Sequence[str], flag: str = "--drop") -> str:
    """The one warning for identifier-like columns (``embed``'s, ``cluster``'s)."""
    return (f"column(s) {named(columns)} look like identifiers (a distinct value "
            "in almost every row); they make the value space as large as the table and "
            f"carry no coupling. Drop them (CLI: {flag}).")


def pool_rare_values(
    est: Any, stats: ValueStatistics
) -> tuple[ValueStatistics, list[np.ndarray | None]]:
    """Pool the rare values of ``stats`` by the estimator's ``min_frequency`` /
    ``max_categories`` (scikit-learn's ``OneHotEncoder`` meaning), with one warning.

    Returns the pooled statistics and, per column, the pooled original values (``None``
    where nothing was pooled); :func:`pooled_encoding` turns those back into code maps.
    """
    mf = getattr(est, "min_frequency", None)
    mc = getattr(est, "max_categories", None)
    none: list[np.ndarray | None] = [None] * stats.n_features
    if mf is None and mc is None:
        return stats, none
    masks = [m if m.sum() >= 2 else np.zeros_like(m) for m in stats.infrequent(mf, mc)]
    if not any(m.any() for m in masks):
        return stats, none
    infrequent = [c[m] if m.any() else None
                  for c, m in zip(stats.categories, masks, strict=True)]
    parts = [f"{f} keeps {len(c) - int(m.sum())} of {len(c)} values, pools {int(m.sum())}"
             for f, c, m in zip(stats.feature_names, stats.categories, masks, strict=True)
             if m.any()]
    rule = ", ".join(f"{k}={v!r}" for k, v in
                     (("min_frequency", mf), ("max_categories", mc)) if v is not None)
    # identifier-like columns (a row number) get the identifier advice, not binning
    ids = identifier_columns(stats.feature_names, stats.sizes, stats.n_rows)
    numbers = [str(f) for f, c, m in zip(stats.feature_names, stats.categories, masks,
                                         strict=True)
               if m.any() and _all_numbers(c) and str(f) not in ids]
    named_ids = f" ({', '.join(ids[:8])})" if ids else ""
    hint = (f"Column(s) {', '.join(numbers[:8])} hold numbers: cut them into bins instead "
            "(CLI: --numeric discretize; Python: numeric='discretize' with those columns "
            "left out of categorical_features). For the others, set " if numbers else "Set ")
    warnings.warn(
        f"{type(est).__name__} pooled rare values into one 'infrequent' value per column "
        f"({rule}): {'; '.join(parts[:5])}{' ...' if len(parts) > 5 else ''}. "
        f"{hint}max_categories=None and min_frequency=None to keep every "
        "value (the cost grows with the square of the number of values), or drop "
        f"identifier-like columns{named_ids} (CLI: --drop).",
        CatEmbedWarning,
        stacklevel=user_stacklevel(),
    )
    return stats.pool(masks), infrequent


def _all_numbers(categories: np.ndarray) -> bool:
    """Whether every (non-missing) value of a column parses as a number."""
    try:
        np.asarray([v for v in categories if v is not None and v == v], dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def check_matrix_memory(n_rows: int, n_cols: int, what: str, *, per_cell: float = 8.0) -> None:
    """Refuse a full ``n_rows x n_cols`` result (``per_cell`` bytes a cell) above the memory
    limit of :func:`memory_limit` before it is allocated (200,000 rows asked for a 298 GiB
    distance matrix, NumPy's bare ``MemoryError`` at best)."""
    need = float(n_rows) * float(n_cols) * per_cell
    limit = memory_limit()
    if need > limit:
        raise CatEmbedError(
            f"{what} of {n_rows} x {n_cols} rows would need about {size(need)} "
            f"(limit {size(limit)}, CATEMBED_MAX_MEMORY); use the chunked form "
            "(pairwise_chunks, kneighbors) or fewer rows."
        )


def _size_cells(est: Any, sizes: np.ndarray, n_rows: int | None) -> dict[str, float]:
    """Float64 cells the size parameters make a fit allocate beyond its value-level work
    (issue 21 item 5), by parameter (``"name=value"``): ``n_components=k`` a ``k``-vector per
    value plus the ``k``-column embedding of the rows, ``hidden_size=h`` (the autoencoders)
    a few value-by-hidden weight matrices and the hidden layer of the rows; a method that
    holds ``k x k`` matrices too (LCME's view scaling) says so in ``_n_components_squares``."""
    n_values = float(np.sum(sizes))
    rows = float(n_rows or 0)
    cells = {}
    for name, per_value, per_row in (("n_components", 2.0, 1.0), ("hidden_size", 6.0, 2.0)):
        k = getattr(est, name, None)
        if name == "n_components" and getattr(est, "_clips_n_components", False):
            continue  # clipped to the rank by the method itself (MCA, OneHotPCA)
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            squares = getattr(est, "_n_components_squares", 0.0) if name == "n_components" else 0
            cells[f"{name}={k!r}"] = float(k) * (per_value * n_values + per_row * rows
                                                 + squares * float(k))
    return cells


def _projection_seconds(est: Any, sizes: np.ndarray, n_rows: int | None) -> float:
    """The output projection's time (:func:`catembed.transform._projection.object_pca`) for
    ``l x l`` value tables (one-hot: ``_table_shape = "square"``) and ``n_components`` set:
    two dense ``l x l`` decompositions, ``l^3 / 2e8`` seconds (issue 52 item 2: 515 s for
    the 5,164 values of 3,000 x 4 columns on 2 shared cores under load, estimate 688 s), or
    a Lanczos solver (fewer rows than a quarter of the values: not counted)."""
    k = getattr(est, "n_components", None)
    if (getattr(est, "_table_shape", None) != "square" or est._own_n_components
            or not isinstance(k, (int, np.integer)) or isinstance(k, bool)):
        return 0.0
    l_ = float(np.sum(sizes))
    return 0.0 if n_rows is not None and 4.0 * n_rows < l_ else l_**3 / 2e8


def check_cost_before_counting(est: Any, sizes: np.ndarray, n_rows: int) -> None:
    """The cost check of :func:`check_fit_cost` from the distinct-value counts of the
    factorised columns, before the co-occurrence counts are allocated."""
    mc = getattr(est, "max_categories", None)
    pooled = np.minimum(sizes, mc + 1) if mc is not None else sizes
    check_fit_cost(est, np.asarray(pooled, dtype=np.int64), n_rows=n_rows,
                   counted_sizes=np.asarray(sizes, dtype=np.int64))


def check_fit_cost(
    est: Any, sizes: np.ndarray, *, n_rows: int | None = None,
    counted_sizes: np.ndarray | None = None, n_output_rows: int | None = None,
) -> None:
    """Estimate a fit's memory and time from the value counts before allocating anything.

    ``sizes`` are the numbers of values per column the method will see (after pooling).
    The estimator says how many float64 cells its value-level work holds at once
    (``_cost_cells``: a few ``l x l`` matrices for CDE, ``sum_j l_j^2`` for one-hot tables)
    and roughly how long it takes (``_cost_seconds``: ``l^3`` operations for the methods
    that decompose or cluster ``l x l`` matrices). With ``n_rows`` and ``counted_sizes``
    (the values before pooling) the counting pass is estimated too: a dense ``l x l``
    co-occurrence matrix, or for ``l > 4096`` about ``n m^2 / 2`` stored pairs and one step
    per pair of columns. A fit whose memory estimate exceeds the limit
    (``CATEMBED_MAX_MEMORY``, default half the machine's RAM), or whose time estimate
    exceeds ``CATEMBED_MAX_SECONDS`` (default 12 hours), is refused with a one-line hint; a
    fit estimated above two minutes gets a warning. Estimates are within a factor of a few.
    The size parameters (``n_components``, ``hidden_size``) count too (:func:`_size_cells`,
    with ``n_rows`` or ``n_output_rows`` the rows embedded), so ``n_components=10**9`` is
    refused before anything is allocated.
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    size_cells = _size_cells(est, sizes, n_rows or n_output_rows)
    need = 8.0 * (float(est._cost_cells(sizes)) + sum(size_cells.values()))
    seconds = float(est._cost_seconds(sizes)) + _projection_seconds(est, sizes,
                                                                     n_rows or n_output_rows)
    limit = memory_limit()
    if n_rows is not None and counted_sizes is not None:
        lc = float(np.sum(counted_sizes))
        m = float(len(counted_sizes))
        pairs = m * (m - 1) / 2
        count = 8.0 * lc * lc if lc <= DENSE_LIMIT else pair_bytes(n_rows, counted_sizes)
        if lc > DENSE_LIMIT and (count > limit or (getattr(est, "_prefers_factor", False)
                                                   and 4 * n_rows < lc)):
            count = 40.0 * n_rows * m  # kept as the factor: ids and one-hot rows (_gram)
        else:
            seconds += pairs * 2e-5 + n_rows * pairs * 2e-8
        need = max(need, count)
    name = type(est).__name__
    what = f"{name} on {int(sizes.sum())} distinct values in {len(sizes)} columns"
    hint = ("pool rare values (min_frequency=, max_categories=), drop identifier-like "
            "columns (CLI: --drop), or read numeric columns as numbers (CLI: --numeric)")
    sized = [p for p, c in size_cells.items() if 8.0 * c > limit / 2]
    if sized and need > limit:
        what = f"{what} with {', '.join(sized)}"
        hint = "lower " + " or ".join(p.split("=")[0] for p in sized) + ", " + hint
    check_limits(what, need, seconds, hint)
