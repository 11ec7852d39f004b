"""Value codes in and out of the clusterers that read every column as categorical
(:class:`~catembed.cluster.MGR`, :class:`~catembed.cluster.LSHKRepresentatives`,
:class:`~catembed.cluster.OCL`).

``fit_codes`` checks the table, sets the scikit-learn input attributes and the fitted
categories, and returns the ``n x m`` code matrix; ``predict_codes`` encodes new rows
against those categories, an unseen value getting code ``-1``; ``check_cost`` refuses a fit
whose memory or time estimate is over the limits before the counting starts (the time
limit: the estimator's ``max_seconds``, else ``CATEMBED_MAX_SECONDS``, else ten minutes).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .._utils._limits import CostWarning, memory_limit, seconds_limit, size
from .._utils._limits import duration as _duration
from .._utils._params import check_int, check_option, check_positive
from .._utils._spelling import rows_below_k
from .._utils._validation import (
    CatEmbedError,
    as_frame,
    check_table,
    has_string_names,
    user_stacklevel,
)
from ..stats._encoding import encode, factorize_frame

__all__ = ["DEFAULT_MAX_SECONDS", "check_common", "check_cost", "fit_codes", "predict_codes",
           "time_limit"]


#: the time limit of these clusterers when neither ``max_seconds`` nor
#: ``CATEMBED_MAX_SECONDS`` is set: ten minutes (the embedders' default is 12 hours)
DEFAULT_MAX_SECONDS = 600.0


def time_limit(est: Any) -> tuple[float, str]:
    """The fit's time limit and where it comes from: ``est.max_seconds`` when set (a
    positive number, ``inf`` for none), else ``CATEMBED_MAX_SECONDS``, else ten minutes."""
    if est.max_seconds is not None:
        return check_positive("max_seconds", est.max_seconds), f"max_seconds={est.max_seconds}"
    env = seconds_limit(None)
    if env is None:
        return DEFAULT_MAX_SECONDS, "the default"
    return env, "CATEMBED_MAX_SECONDS"


def check_cost(est: Any, n_rows: int, sizes: np.ndarray, *, cells: float,
               seconds: float) -> None:
    """Refuse a fit that would need more than the memory limit (``CATEMBED_MAX_MEMORY``,
    default half the RAM) for ``cells`` float64 cells, or more than the time limit
    (:func:`time_limit`: ``max_seconds``, else ``CATEMBED_MAX_SECONDS``, else ten minutes)
    by the estimate ``seconds``; warn above two minutes. Estimates are within a factor of a
    few (calibrated on 2 shared cores)."""
    name = type(est).__name__
    what = (f"{name} on {n_rows} rows with {int(np.sum(sizes))} distinct values in "
            f"{len(sizes)} columns (n_clusters={est.n_clusters})")
    hint = "drop identifier-like columns, use fewer clusters, or cluster a sample of the rows"
    need = 8.0 * cells
    limit = memory_limit()
    if need > limit:
        raise CatEmbedError(f"{what} would need about {size(need)} (limit "
                            f"{size(limit)}, CATEMBED_MAX_MEMORY); {hint}.")
    max_seconds, source = time_limit(est)
    if seconds > max_seconds:
        raise CatEmbedError(
            f"{what} would take about {_duration(seconds)} by the cost estimate (limit "
            f"{_duration(max_seconds)}, {source}); to run it anyway pass a larger "
            f"max_seconds (float('inf'): no limit) or set CATEMBED_MAX_SECONDS, or {hint}.")
    if seconds > 120:
        warnings.warn(f"{what} may take {seconds / 60:.0f} minutes or more; to be faster, "
                      f"{hint}.", CostWarning, stacklevel=user_stacklevel())


def check_common(est: Any) -> int:
    """Check ``n_clusters``, ``handle_missing`` and ``max_seconds``; return
    ``n_clusters``."""
    check_option("handle_missing", est.handle_missing, ("category", "error"))
    time_limit(est)
    return int(check_int("n_clusters", est.n_clusters))


def fit_codes(est: Any, X: Any) -> np.ndarray:
    """The code matrix (``int64``, ``n x m``) of the training table; sets ``n_features_in_``,
    ``feature_names_in_`` (string column names only), ``feature_names_`` and
    ``categories_``."""
    df = as_frame(X)
    check_table(est, df, reset=True)
    if len(df) < est.n_clusters:
        raise CatEmbedError(f"{rows_below_k(len(df), est.n_clusters)}; "
                            "use fewer clusters.")
    est.n_features_in_ = df.shape[1]
    if has_string_names(X):
        est.feature_names_in_ = np.asarray(df.columns, dtype=object)
    elif hasattr(est, "feature_names_in_"):
        del est.feature_names_in_  # a refit on an array: no stale names
    est.feature_names_ = [str(c) for c in df.columns]
    codes, est.categories_ = factorize_frame(df, list(df.columns), est.handle_missing)
    return codes.astype(np.int64, order="C")


def predict_codes(est: Any, X: Any) -> np.ndarray:
    """The codes of new rows against the fitted categories (``-1`` for an unseen value)."""
    check_is_fitted(est, "labels_")
    df = as_frame(X, columns=list(getattr(est, "feature_names_in_", [])) or None)
    check_table(est, df, reset=False)
    return encode(df, est.feature_names_, est.categories_, est.handle_missing).astype(np.int64)
