"""Gower's (1971) distance for mixed categorical and numeric data, in chunks.

Gower's general similarity coefficient ``S_ij = sum_k s_ijk delta_ijk / sum_k delta_ijk``
(Gower 1971, Eq. 1; the thesis' Section 1.3.3): ``s_ijk`` is 1 for equal and 0 for
different categorical values, ``1 - |x_ik - x_jk| / R_k`` for a numeric feature with range
``R_k`` (over the fitted table), and ``delta_ijk = 0`` when either value is missing, so a
missing value is skipped, not propagated. The distance returned is ``1 - S_ij`` (as the
``gower`` package and R's ``daisy`` return it; Gower showed ``sqrt(1 - S_ij)`` is Euclidean,
``squared=False`` gives that). A pair with no feature comparable gets distance 1.
A numeric feature with zero range contributes ``s = 1`` for every comparable pair.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .._utils._params import check_int, check_param_types
from .._utils._validation import CatEmbedError, as_frame, missing_mask, select_categorical
from ..stats._encoding import encode_column, factorize_frame
from ..stats._numeric import check_finite_numbers
from ..stats._pooling import check_matrix_memory

__all__ = ["GowerDistance", "gower_distances"]

_CHUNK_BYTES = 64 << 20


class GowerDistance(BaseEstimator):
    """Gower distance between rows of a mixed table, computed in chunks.

    Parameters
    ----------
    categorical_features : "auto", "all", list or mask, default="auto"
        Categorical columns (object, string, category, bool under ``"auto"``); the others
        must be numeric.
    sqrt : bool, default=False
        Return ``sqrt(1 - S)`` instead of ``1 - S``.
    chunk_size : int, optional
        Rows per block (memory ``O(chunk_size x n)``); default keeps a block near 64 MiB.

    Attributes
    ----------
    categorical_features_, numeric_features_ : list of str
    categories_ : list of ndarray
    ranges_ : ndarray
        ``R_k`` of each numeric feature over the fitted table (missing values ignored).
    """

    def __init__(self, *, categorical_features: Any = "auto", sqrt: bool = False,
                 chunk_size: int | None = None) -> None:
        self.categorical_features = categorical_features
        self.sqrt = sqrt
        self.chunk_size = chunk_size

    def fit(self, X: Any, y: Any = None) -> GowerDistance:
        """Learn the column kinds, categories and numeric ranges of ``X``."""
        check_param_types(self)  # sqrt="no" was read as True, chunk_size=1.5 a TypeError
        check_int("chunk_size", self.chunk_size, allow_none=True)  # -1 gave no rows at all
        df = as_frame(X)
        if len(df) == 0:
            raise CatEmbedError("GowerDistance needs at least one row.")
        cat, num = select_categorical(df, self.categorical_features)
        if self.categorical_features == "auto" and not num and not any(
            _is_cat(df[c]) for c in cat
        ):
            cat, num = [], list(df.columns)  # a purely numeric array
        self.feature_names_in_ = np.asarray(df.columns, dtype=object)
        self.categorical_features_ = cat
        self.numeric_features_ = num
        self.categories_ = factorize_frame(df, cat, "category")[1]
        vals = self._numeric(df, "fit")
        with np.errstate(invalid="ignore"):
            lo = np.nanmin(vals, axis=0) if len(num) else np.zeros(0)
            hi = np.nanmax(vals, axis=0) if len(num) else np.zeros(0)
        self.ranges_ = np.nan_to_num(hi - lo, nan=0.0)
        return self

    def _numeric(self, df: pd.DataFrame, where: str) -> np.ndarray:
        """The numeric columns as ``float64`` (missing: NaN); infinite numbers are refused
        (their range, and every distance along them, would be NaN)."""
        out = np.empty((len(df), len(self.numeric_features_)))
        for k, c in enumerate(self.numeric_features_):
            try:
                out[:, k] = pd.to_numeric(df[c], errors="raise").to_numpy(
                    dtype=np.float64, na_value=np.nan
                )
            except (TypeError, ValueError) as exc:
                raise CatEmbedError(
                    f"column {c!r} is neither categorical nor numeric; list it in "
                    "categorical_features."
                ) from exc
        check_finite_numbers(out, self.numeric_features_, where, limit=np.inf,
                             remedy="replace them with NaN (a missing number, skipped by "
                             "Gower) or clip them.")
        return out

    def _codes(self, df: pd.DataFrame) -> np.ndarray:
        out = np.empty((len(df), len(self.categorical_features_)), dtype=np.int64)
        for k, (c, cats) in enumerate(zip(self.categorical_features_, self.categories_,
                                          strict=True)):
            has_nan = len(cats) > 0 and not isinstance(cats[-1], str) and pd.isna(cats[-1])
            known = cats[:-1] if has_nan else cats
            codes = encode_column(df[c], np.asarray(known, dtype=object), "category")
            codes = codes.astype(np.int64)
            codes[missing_mask(df[c])] = -1  # missing: skipped
            # an unseen value is a value of its own: never equal to a fitted one
            unseen = (codes < 0) & ~missing_mask(df[c])
            codes[unseen] = -2 - np.arange(int(unseen.sum()))
            out[:, k] = codes
        return out

    def _prepare(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        df = as_frame(X, columns=list(self.feature_names_in_))
        lacking = [c for c in self.feature_names_in_ if c not in df.columns]
        if lacking:
            raise CatEmbedError(f"input lacks the fitted column(s): {', '.join(lacking)}.")
        return self._codes(df), self._numeric(df, "pairwise")

    def pairwise_chunks(self, X: Any, Y: Any = None) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(start, block)``: Gower distances of rows ``start:start+c`` of X to all Y."""
        check_is_fitted(self, "ranges_")
        ca, na = self._prepare(X)
        if Y is None:
            cb, nb = ca, na
        else:
            cb, nb = self._prepare(Y)
            cb = np.where(cb < -1, cb - (1 << 40), cb)  # unseen in Y never equals unseen in X
        step = self.chunk_size or max(1, _CHUNK_BYTES // (16 * max(len(cb), 1)))
        rng = np.where(self.ranges_ > 0, self.ranges_, 1.0)
        for s in range(0, len(ca), step):
            a_c, a_n = ca[s : s + step], na[s : s + step]
            score = np.zeros((len(a_c), len(cb)))
            valid = np.zeros((len(a_c), len(cb)))
            for k in range(ca.shape[1]):
                ok = (a_c[:, k, None] != -1) & (cb[None, :, k] != -1)
                score += (a_c[:, k, None] == cb[None, :, k]) & ok
                valid += ok
            for k in range(na.shape[1]):
                diff = np.abs(a_n[:, k, None] - nb[None, :, k]) / rng[k]
                ok = ~np.isnan(diff)
                score += np.where(ok, 1.0 - diff, 0.0)
                valid += ok
            with np.errstate(invalid="ignore", divide="ignore"):
                d = np.where(valid > 0, 1.0 - score / np.maximum(valid, 1.0), 1.0)
            np.clip(d, 0.0, None, out=d)
            yield s, (np.sqrt(d) if self.sqrt else d)

    def pairwise(self, X: Any, Y: Any = None) -> np.ndarray:
        """The full distance matrix between the rows of X (and Y): ``n_X x n_Y`` memory."""
        n_a = len(as_frame(X))
        n_b = n_a if Y is None else len(as_frame(Y))
        check_matrix_memory(n_a, n_b, "the Gower matrix")
        blocks = [b for _, b in self.pairwise_chunks(X, Y)]
        return np.vstack(blocks) if blocks else np.zeros((0, n_b))


def _is_cat(s: pd.Series) -> bool:
    from .._utils._validation import _is_categorical_dtype

    return _is_categorical_dtype(s.dtype)


def gower_distances(X: Any, Y: Any = None, *, categorical_features: Any = "auto",
                    sqrt: bool = False, chunk_size: int | None = None) -> np.ndarray:
    """Gower distance matrix of the rows of ``X`` (against ``Y``), ranges taken from ``X``.

    See :class:`GowerDistance`. Memory: the ``n_X x n_Y`` result plus one block.
    """
    g = GowerDistance(categorical_features=categorical_features, sqrt=sqrt,
                      chunk_size=chunk_size).fit(X)
    return g.pairwise(X, Y)
