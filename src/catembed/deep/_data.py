"""Encoding a mixed table for the deep models: value codes and standardised numbers.

Categorical columns are counted once into a :class:`catembed.stats.ValueStatistics` (its
sorted categories fix the value ids, so value vectors of CDE / UNTIE fitted on the same
statistics line up with the embedding rows); every column gets one extra row for a value
unseen at fit time. Numeric columns are standardised (population standard deviation, as
scikit-learn's ``StandardScaler``); a missing number becomes the column mean (0).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import CatEmbedError
from ..stats import ValueStatistics, encode


@dataclass
class MixedEncoding:
    """What :func:`fit_encoding` learned about a mixed table.

    Attributes
    ----------
    categorical, numeric : list of str
        The categorical and numeric columns, in input order.
    stats : ValueStatistics or None
        Statistics of the categorical columns (``None`` when there is none).
    offsets : ndarray of shape (m_cat,)
        First embedding row of every categorical column; column ``j`` owns
        ``sizes[j] + 1`` rows, the last for unseen values.
    sizes : ndarray of shape (m_cat,)
        Values per categorical column.
    mean, scale : ndarray of shape (m_num,)
    """

    categorical: list[str]
    numeric: list[str]
    stats: ValueStatistics | None
    offsets: np.ndarray
    sizes: np.ndarray
    mean: np.ndarray
    scale: np.ndarray

    @property
    def n_embeddings(self) -> int:
        """Rows of the value-embedding table (values plus one unseen row per column)."""
        return int((self.sizes + 1).sum())

    @property
    def columns(self) -> list[str]:
        """Token order of the attention model: categorical columns, then numeric ones."""
        return list(self.categorical) + list(self.numeric)


def split_columns(X: Any, categorical_features: Any) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The frame and its (categorical, numeric) columns (an all-numeric frame is numeric)."""
    from ..cluster.mixed import _split

    df, cat, num = _split(X, categorical_features)
    if len(df) == 0:
        raise CatEmbedError("the input has no rows; give at least one row to fit.")
    bad = [c for c in num if not pd.api.types.is_numeric_dtype(df[c].dtype)]
    if bad:
        raise CatEmbedError(
            f"column(s) {', '.join(map(str, bad))} are not numeric; list them in "
            "categorical_features or convert them to numbers."
        )
    return df, cat, num


def fit_encoding(df: pd.DataFrame, categorical: list[str], numeric: list[str]) -> MixedEncoding:
    """Count the categorical columns and the numeric means and scales of ``df``."""
    if categorical:
        stats = ValueStatistics.from_frame(df, columns=categorical)
        sizes = np.asarray(stats.sizes, dtype=np.int64)
    else:
        stats, sizes = None, np.zeros(0, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes + 1)[:-1]]).astype(np.int64)
    if numeric:
        vals = df[numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        mean = np.nanmean(vals, axis=0) if len(vals) else np.zeros(len(numeric))
        scale = np.nanstd(vals, axis=0)
        mean = np.nan_to_num(mean)
        scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    else:
        mean = scale = np.zeros(0)
    return MixedEncoding(list(categorical), list(numeric), stats, offsets[: len(sizes)],
                         sizes, mean, scale)


def apply_encoding(enc: MixedEncoding, df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Global value ids ``(n, m_cat)`` (``int64``) and standardised numbers ``(n, m_num)``."""
    missing = [c for c in enc.columns if c not in df.columns]
    if missing:
        raise CatEmbedError(f"input lacks the fitted column(s): {', '.join(map(str, missing))}.")
    if enc.categorical:
        codes = encode(df, enc.categorical, enc.stats.categories).astype(np.int64)
        codes = np.where(codes < 0, enc.sizes[None, :], codes) + enc.offsets[None, :]
    else:
        codes = np.zeros((len(df), 0), dtype=np.int64)
    if enc.numeric:
        vals = df[enc.numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        nums = np.nan_to_num((vals - enc.mean) / enc.scale).astype(np.float32)
    else:
        nums = np.zeros((len(df), 0), dtype=np.float32)
    return codes, nums
