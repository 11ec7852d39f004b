"""Value codes in and out of the clusterers that read every column as categorical
(:class:`~catembed.cluster.MGR`, :class:`~catembed.cluster.LSHKRepresentatives`).

``fit_codes`` checks the table, sets the scikit-learn input attributes and the fitted
categories, and returns the ``n x m`` code matrix; ``predict_codes`` encodes new rows
against those categories, an unseen value getting code ``-1``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from .._params import check_int, check_option
from .._validation import CatEmbedError, as_frame, check_table
from ..stats import encode, factorize

__all__ = ["check_common", "fit_codes", "predict_codes"]


def check_common(est: Any) -> int:
    """Check ``n_clusters`` and ``handle_missing``; return ``n_clusters``."""
    check_option("handle_missing", est.handle_missing, ("category", "error"))
    return int(check_int("n_clusters", est.n_clusters))


def fit_codes(est: Any, X: Any) -> np.ndarray:
    """The code matrix (``int64``, ``n x m``) of the training table; sets ``n_features_in_``,
    ``feature_names_in_`` (string column names only), ``feature_names_`` and
    ``categories_``."""
    df = as_frame(X)
    check_table(est, df, reset=True)
    if len(df) < est.n_clusters:
        raise CatEmbedError(f"n_samples={len(df)} should be >= n_clusters={est.n_clusters}; "
                            "use fewer clusters.")
    est.n_features_in_ = df.shape[1]
    if isinstance(X, pd.DataFrame) and all(isinstance(c, str) for c in X.columns):
        est.feature_names_in_ = np.asarray(X.columns, dtype=object)
    elif hasattr(est, "feature_names_in_"):
        del est.feature_names_in_  # a refit on an array: no stale names
    est.feature_names_ = [str(c) for c in df.columns]
    codes = np.empty((len(df), df.shape[1]), dtype=np.int64)
    est.categories_ = []
    for j, c in enumerate(df.columns):
        codes[:, j], cats = factorize(df[c], est.handle_missing)
        est.categories_.append(cats)
    return codes


def predict_codes(est: Any, X: Any) -> np.ndarray:
    """The codes of new rows against the fitted categories (``-1`` for an unseen value)."""
    check_is_fitted(est, "labels_")
    df = as_frame(X, columns=list(getattr(est, "feature_names_in_", [])) or None)
    check_table(est, df, reset=False)
    return encode(df, est.feature_names_, est.categories_, est.handle_missing).astype(np.int64)
