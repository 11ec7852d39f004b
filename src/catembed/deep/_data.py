"""Encoding a mixed table for the deep models: value codes and standardised numbers.

Categorical columns are counted once into a :class:`catembed.stats.ValueStatistics` (its
sorted categories fix the value ids, so value vectors of CDE / UNTIE fitted on the same
statistics line up with the embedding rows); every column gets one extra row for a value
unseen at fit time. Numeric columns are standardised (population standard deviation, as
scikit-learn's ``StandardScaler``); a missing number becomes the column mean (0).

Everything here reads the table in chunks of :data:`CHUNK` rows, so that a fit holds the
table once, compactly: :func:`encode_compact` stores one value id per categorical cell in
the narrowest integer type (one byte when the table has at most 256 values) and one
``float32`` per number, about ``m_cat + 4 m_num`` bytes a row.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import CatEmbedError
from ..stats import compute_statistics, encode

#: rows read, encoded or passed through a network at a time
CHUNK = 8192


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
    stats: Any
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


def chunks(df: pd.DataFrame, size: int | None = None) -> Iterator[pd.DataFrame]:
    """Consecutive row slices of ``df`` of ``size`` rows (default :data:`CHUNK`)."""
    size = CHUNK if size is None else size
    for start in range(0, len(df), size):
        yield df.iloc[start:start + size]


def fit_encoding(df: pd.DataFrame, categorical: list[str], numeric: list[str]) -> MixedEncoding:
    """Count the categorical columns and the numeric means and scales of ``df``.

    The value statistics are counted chunk by chunk and merged exactly
    (:func:`catembed.stats.compute_statistics`); means and population standard deviations
    are taken one column at a time, skipping missing numbers.
    """
    if categorical:
        stats = compute_statistics(chunks(df, 8 * CHUNK), columns=categorical)
        sizes = np.asarray(stats.sizes, dtype=np.int64)
    else:
        stats, sizes = None, np.zeros(0, dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes + 1)[:-1]]).astype(np.int64)
    mean = np.zeros(len(numeric))
    scale = np.ones(len(numeric))
    for j, c in enumerate(numeric):
        col = df[c].to_numpy(dtype=np.float64, na_value=np.nan)
        if np.isnan(col).all():
            continue
        m, sd = np.nanmean(col), np.nanstd(col)
        mean[j] = m if np.isfinite(m) else 0.0
        scale[j] = sd if np.isfinite(sd) and sd > 0 else 1.0
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


def code_dtype(enc: MixedEncoding) -> type:
    """The narrowest integer type that holds every global value id of ``enc``."""
    n = enc.n_embeddings
    return np.uint8 if n <= 256 else np.int16 if n <= 32768 else np.int32


def encode_compact(enc: MixedEncoding, df: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """:func:`apply_encoding` of the whole of ``df``, chunk by chunk, into compact arrays:
    value ids in :func:`code_dtype`, numbers in ``float32``."""
    n = len(df)
    codes = np.empty((n, len(enc.categorical)), dtype=code_dtype(enc))
    nums = np.empty((n, len(enc.numeric)), dtype=np.float32)
    start = 0
    for part in chunks(df):
        c, x = apply_encoding(enc, part)
        codes[start:start + len(part)] = c
        nums[start:start + len(part)] = x
        start += len(part)
    return codes, nums
