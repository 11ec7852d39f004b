"""Encoding a mixed table for the deep models: value codes and standardised numbers.

Categorical columns are counted once into a :class:`catembed.stats.ValueStatistics` (its
sorted categories fix the value ids, so value vectors of CDE / UNTIE fitted on the same
statistics line up with the embedding rows); every column gets one extra row for a value
unseen at fit time. Numeric columns are standardised (population standard deviation, as
scikit-learn's ``StandardScaler``); a missing number becomes the column mean (0).

Everything here reads the table in chunks of :data:`CHUNK` rows, so that a fit holds the
table once, compactly: one value id per categorical cell in the narrowest integer type (one
byte when the table has at most 256 values) and one ``float32`` per number, about
``m_cat + 4 m_num`` bytes a row. :func:`fit_encode_compact` does it in one pass over the
categorical cells: the codes that the counting factorises chunk by chunk are kept (in the
narrowest type for the chunk) and mapped to the merged value order at the end, so the
categories are not matched a second time; the numbers' means and variances are merged
chunk by chunk (Chan, Golub and LeVeque's pairwise update), so no full-length ``float64``
column is materialised. :class:`CodedNumbers` (the training table of every deep
clusterer) goes further for numbers with few distinct values, as census and survey
columns usually are: one or two bytes a cell, a code into the column's values.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._utils._validation import CatEmbedError
from ..stats._compute import compute_statistics
from ..stats._encoding import _position, encode, factorize_frame
from ..stats._numeric import check_finite_numbers
from ..stats._value_statistics import ValueStatistics

#: rows read, encoded or passed through a network at a time
CHUNK = 8192


#: rows a pass of :func:`column_moments` reads at a time
MOMENT_CHUNK = 1 << 16


def column_moments(part: Any, n: int, step: int = MOMENT_CHUNK) -> tuple[float, float, int]:
    """Mean, population standard deviation and count of the non-missing values of one
    column of ``n`` rows, read ``step`` rows at a time (``part(start, stop)`` gives them as
    a ``float64`` array, missing = NaN): two passes, the mean then the squared deviations,
    so no full-length ``float64`` copy is made. With one chunk and no missing value the
    figures are NumPy's ``mean`` and ``std`` of the column, bit for bit, which keeps
    ``ThesisClusterer``'s and the guard's figures as they were; :func:`fit_encode_compact`
    merges its chunks' moments in one pass instead (:func:`_merge_moments`), equal up to
    rounding. ``(0.0, 1.0, 0)`` when every value is missing."""
    total, count, gaps = 0.0, 0, False
    for s in range(0, n, step):
        x = part(s, s + step)
        ok = ~np.isnan(x)
        if ok.all():
            total += x.sum()
            count += len(x)
        else:
            gaps = True
            total += np.where(ok, x, 0.0).sum()
            count += int(ok.sum())
    if count == 0:
        return 0.0, 1.0, 0
    mean = total / count
    squares = 0.0
    for s in range(0, n, step):
        d = part(s, s + step) - mean
        squares += np.square(np.where(np.isnan(d), 0.0, d) if gaps else d).sum()
    return float(mean), float(np.sqrt(squares / count)), count


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


def _frame(X: Any, columns: list[str] | None = None) -> pd.DataFrame:
    """``X`` as a DataFrame (:func:`catembed._utils._validation.as_frame`: a 1-D or sparse input is
    refused). A list or an object array of numbers becomes numeric columns (as a
    DataFrame of them would be), so ``fit(X.tolist())`` reads the same table as ``fit(X)``."""
    from .._utils._validation import as_frame, to_pandas

    X = to_pandas(X)
    if isinstance(X, pd.DataFrame):
        return X
    df = as_frame(X, columns=columns)
    return df.infer_objects() if len(df) else df


def _check_shape(df: pd.DataFrame, minimum_rows: int = 1) -> None:
    """Refuse a table without rows or without columns (scikit-learn's messages)."""
    if df.shape[0] < minimum_rows:
        raise CatEmbedError(
            f"Found array with {df.shape[0]} sample(s) (shape={df.shape}) while a minimum of "
            f"{minimum_rows} is required."
        )
    if df.shape[1] == 0:
        raise CatEmbedError(
            f"Found array with 0 feature(s) (shape={df.shape}) while a minimum of 1 is "
            "required."
        )


#: what a user can do about an infinite or overflowing number given to a deep model
_NUMBER_REMEDY = ("replace them with NaN (a missing number: the deep models read it as "
                  "the column's mean), clip them, or rescale the column (e.g. its logarithm).")


def check_numbers(df: pd.DataFrame, numeric: list[str], where: str) -> None:
    """Refuse numeric columns of ``df`` that hold text, infinite numbers or numbers whose
    square overflows (:func:`catembed.stats._numeric.check_finite_numbers`: their mean and
    variance would be NaN, and so every standardised number), read
    :data:`MOMENT_CHUNK` rows at a time; ``where`` names the call in the message."""
    for s in range(0, len(df), MOMENT_CHUNK):
        part = df[numeric].iloc[s:s + MOMENT_CHUNK]
        try:
            x = part.to_numpy(dtype=np.float64, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            bad = [c for c in numeric if not pd.api.types.is_numeric_dtype(part[c].dtype)]
            raise CatEmbedError(
                f"numeric column(s) {', '.join(map(repr, bad or numeric))} hold values "
                f"that are not numbers at {where}; give the numbers the model was fitted "
                "on (NaN for a missing one)."
            ) from exc
        check_finite_numbers(x, numeric, where, remedy=_NUMBER_REMEDY)


def check_inference_input(est: Any, X: Any) -> pd.DataFrame:
    """The table given to ``predict`` / ``transform`` of a fitted deep model: at least one
    row, and as many columns as at fit time (``n_features_in_``); names are strings; its
    numbers finite (:func:`check_numbers`)."""
    names = [str(c) for c in est.feature_names_in_]
    df = _frame(X, columns=names)
    _check_shape(df)
    if df.shape[1] != est.n_features_in_:
        raise CatEmbedError(
            f"X has {df.shape[1]} features, but {type(est).__name__} is expecting "
            f"{est.n_features_in_} features as input."
        )
    df = df.rename(columns=str)
    enc = getattr(est, "encoding_", None)
    if enc is not None:
        check_numbers(df, [c for c in enc.numeric if c in df.columns], "predict/transform")
    return df


def split_columns(X: Any, categorical_features: Any) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The frame and its (categorical, numeric) columns (an all-numeric frame is numeric);
    the numbers finite (:func:`check_numbers`)."""
    from ..cluster.mixed import _split

    df = _frame(X)
    _check_shape(df)
    df, cat, num = _split(df, categorical_features)
    bad = [c for c in num if not pd.api.types.is_numeric_dtype(df[c].dtype)]
    if bad:
        raise CatEmbedError(
            f"column(s) {', '.join(map(str, bad))} are not numeric; list them in "
            "categorical_features or convert them to numbers."
        )
    check_numbers(df, num, "fit")
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
    are taken one column at a time, skipping missing numbers, chunk by chunk
    (:func:`column_moments`).
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
        col = df[c]
        m, sd, count = column_moments(
            lambda s, e, col=col: col.iloc[s:e].to_numpy(dtype=np.float64, na_value=np.nan),
            len(col))
        if not count:
            continue
        mean[j] = m if np.isfinite(m) else 0.0
        scale[j] = sd if np.isfinite(sd) and sd > 0 else 1.0
    return MixedEncoding(list(categorical), list(numeric), stats, offsets[: len(sizes)],
                         sizes, mean, scale)


def apply_encoding(enc: MixedEncoding, df: pd.DataFrame, numbers: bool = True
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Global value ids ``(n, m_cat)`` (``int64``) and standardised numbers ``(n, m_num)``
    (with ``numbers=False`` an empty ``(n, 0)`` array: the numbers are not computed)."""
    missing = [c for c in enc.columns if c not in df.columns]
    if missing:
        raise CatEmbedError(f"input lacks the fitted column(s): {', '.join(map(str, missing))}.")
    if enc.categorical:
        codes = encode(df, enc.categorical, enc.stats.categories).astype(np.int64)
        codes = np.where(codes < 0, enc.sizes[None, :], codes) + enc.offsets[None, :]
    else:
        codes = np.zeros((len(df), 0), dtype=np.int64)
    if enc.numeric and numbers:
        vals = df[enc.numeric].to_numpy(dtype=np.float64, na_value=np.nan)
        nums = np.nan_to_num((vals - enc.mean) / enc.scale).astype(np.float32)
    else:
        nums = np.zeros((len(df), 0), dtype=np.float32)
    return codes, nums


def code_dtype(enc: MixedEncoding) -> type:
    """The narrowest integer type that holds every global value id of ``enc``."""
    n = enc.n_embeddings
    return np.uint8 if n <= 256 else np.int16 if n <= 32768 else np.int32


def encode_compact(enc: MixedEncoding, df: pd.DataFrame, numbers: bool = True
                   ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`apply_encoding` of the whole of ``df``, chunk by chunk, into compact arrays:
    value ids in :func:`code_dtype`, numbers in ``float32`` (with ``numbers=False`` an
    empty ``(n, 0)`` array: the caller holds them otherwise, e.g. :func:`code_numbers`)."""
    n = len(df)
    codes = np.empty((n, len(enc.categorical)), dtype=code_dtype(enc))
    nums = np.empty((n, len(enc.numeric) if numbers else 0), dtype=np.float32)
    start = 0
    for part in chunks(df):
        c, x = apply_encoding(enc, part, numbers)
        codes[start:start + len(part)] = c
        if numbers:
            nums[start:start + len(part)] = x
        start += len(part)
    return codes, nums


#: the most distinct values a numeric column may have for :func:`code_numbers` (``int16``
#: codes, a type PyTorch indexes with)
NUMBER_CODES_MAX = 2**15 - 1


class CodedNumbers:
    """The standardised numbers of a training table held as codes: each column's distinct
    values once (``values``, ``float32``, every column's end to end from ``offsets``) and one
    ``uint8`` code a cell (``int16`` when a column has more than 256 values). Indexing rows
    gives the ``float32`` numbers :func:`encode_compact` gives (each distinct value goes
    through the same arithmetic; only the sign of a zero may differ), so a mini-batch costs
    one lookup more and the table ``m_num`` or ``2 m_num`` bytes a row instead of
    ``4 m_num``. NumPy side: ``len``, ``shape``, ``x[rows]``, ``x[rows, j]`` and
    ``np.asarray(x)`` (a full copy);
    :meth:`to_torch` gives the same lookup on torch tensors."""

    def __init__(self, codes: np.ndarray, values: np.ndarray, offsets: np.ndarray) -> None:
        self.codes, self.values, self.offsets = codes, values, offsets

    def __len__(self) -> int:
        return len(self.codes)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.codes.shape

    def __getitem__(self, key: Any) -> np.ndarray:
        if isinstance(key, tuple):
            rows, j = key
            return self.values[self.codes[rows, j].astype(np.int64) + self.offsets[j]]
        return self.values[self.codes[key].astype(np.int64) + self.offsets]

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """Every row's numbers as one ``float32`` array (a full copy)."""
        out = self[:]
        return out if dtype is None else out.astype(dtype)

    def to_torch(self, torch: Any, device: Any) -> _TorchCodedNumbers:
        return _TorchCodedNumbers(torch.as_tensor(self.codes, device=device),
                                  torch.as_tensor(self.values, device=device),
                                  torch.as_tensor(self.offsets, device=device))


class _TorchCodedNumbers:
    """:class:`CodedNumbers` on the training device: ``x[rows]`` (a slice or an index
    tensor) gives the ``float32`` numbers of the rows."""

    def __init__(self, codes: Any, values: Any, offsets: Any) -> None:
        self.codes, self.values, self.offsets = codes, values, offsets

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, rows: Any) -> Any:
        return self.values[self.codes[rows].long() + self.offsets]


def code_numbers(enc: MixedEncoding, df: pd.DataFrame) -> CodedNumbers | None:
    """The numbers of ``df`` as :class:`CodedNumbers`, or ``None`` when there is no numeric
    column or one has more than :data:`NUMBER_CODES_MAX` distinct values (missing counts as
    one value). Two passes over the numeric columns, :data:`MOMENT_CHUNK` rows at a time:
    the sorted distinct values, then each cell's position among them."""
    if not enc.numeric:
        return None
    n, step = len(df), MOMENT_CHUNK
    distinct = []
    for c in enc.numeric:
        col, u = df[c], np.zeros(0)
        for s in range(0, n, step):
            u = np.union1d(u, col.iloc[s:s + step].to_numpy(dtype=np.float64, na_value=np.nan))
            if len(u) > NUMBER_CODES_MAX:
                return None
        distinct.append(u)
    dtype = np.uint8 if max(len(u) for u in distinct) <= 256 else np.int16
    values = np.concatenate([
        np.nan_to_num((u - enc.mean[j]) / enc.scale[j]).astype(np.float32)
        for j, u in enumerate(distinct)])
    offsets = np.concatenate([[0], np.cumsum([len(u) for u in distinct])[:-1]]).astype(np.int64)
    codes = np.empty((n, len(enc.numeric)), dtype=dtype)
    for s in range(0, n, step):
        x = df[enc.numeric].iloc[s:s + step].to_numpy(dtype=np.float64, na_value=np.nan)
        for j, u in enumerate(distinct):
            codes[s:s + len(x), j] = np.searchsorted(u, x[:, j])
    return CodedNumbers(codes, values, offsets)


def _narrow(codes: np.ndarray, n_values: int) -> np.ndarray:
    """``codes`` (non-negative, below ``n_values``) in the narrowest unsigned type."""
    dt = np.uint8 if n_values <= 256 else np.uint16 if n_values <= 65536 else np.uint32
    return codes.astype(dt)


def _merge_moments(a: tuple[np.ndarray, np.ndarray, np.ndarray], vals: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Counts, means and sums of squared deviations ``(n, mean, M2)`` per column, updated
    with the rows ``vals`` (missing = NaN) by the pairwise update of Chan, Golub and
    LeVeque (1983)."""
    n_a, mean_a, m2_a = a
    ok = ~np.isnan(vals)
    n_b = ok.sum(axis=0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_b = np.where(n_b > 0, np.nansum(vals, axis=0) / np.maximum(n_b, 1), 0.0)
    m2_b = np.nansum(np.where(ok, vals - mean_b, 0.0) ** 2, axis=0)
    n = n_a + n_b
    delta = mean_b - mean_a
    with np.errstate(invalid="ignore", divide="ignore"):
        w = np.where(n > 0, n_b / np.maximum(n, 1), 0.0)
    return n, mean_a + delta * w, m2_a + m2_b + delta ** 2 * n_a * w


def fit_encode_compact(df: pd.DataFrame, categorical: list[str], numeric: list[str]
                       ) -> tuple[MixedEncoding, np.ndarray, np.ndarray | CodedNumbers]:
    """:func:`fit_encoding` and :func:`encode_compact` of ``df`` with one factorisation.

    Every chunk of ``8 * CHUNK`` rows is factorised once (:func:`catembed.stats.factorize_frame`,
    as :meth:`ValueStatistics.from_frame`), counted and merged into the running statistics
    exactly as :func:`catembed.stats.compute_statistics` merges chunks, and its local codes
    are kept in the narrowest type; at the end each chunk's codes are mapped to the merged
    (sorted) value order by the same position lookup that the merge uses. The statistics
    and codes equal those of ``fit_encoding`` + ``encode_compact``; only the numeric
    means and scales are summed in another order (equal up to rounding). The numbers come as
    :class:`CodedNumbers` when :func:`code_numbers` can hold them so, else as ``float32``.
    """
    n, m_cat, m_num = len(df), len(categorical), len(numeric)
    step = 8 * CHUNK
    stats: ValueStatistics | None = None
    parts: list[tuple[np.ndarray, list[np.ndarray]]] = []
    moments = (np.zeros(m_num), np.zeros(m_num), np.zeros(m_num))
    for start in range(0, n, step):
        part = df.iloc[start:start + step]
        if m_cat:
            local, cats = factorize_frame(part, categorical)
            local = np.ascontiguousarray(local)
            st = ValueStatistics.from_codes(local, cats, categorical)
            stats = st if stats is None else stats.merge(st)
            parts.append((_narrow(local, max(map(len, cats))), cats))
        if m_num:
            moments = _merge_moments(
                moments, part[numeric].to_numpy(dtype=np.float64, na_value=np.nan))
    sizes = (np.asarray(stats.sizes, dtype=np.int64) if stats is not None
             else np.zeros(0, dtype=np.int64))
    offsets = np.concatenate([[0], np.cumsum(sizes + 1)[:-1]]).astype(np.int64)[:m_cat]
    cnt, mean, m2 = moments
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.sqrt(m2 / np.maximum(cnt, 1))
    mean = np.where(cnt > 0, mean, 0.0)
    scale = np.where((cnt > 0) & np.isfinite(sd) & (sd > 0), sd, 1.0)
    enc = MixedEncoding(list(categorical), list(numeric), stats, offsets, sizes, mean, scale)
    codes = np.empty((n, m_cat), dtype=code_dtype(enc))
    for i, start in enumerate(range(0, n, step) if m_cat else []):
        local, cats = parts[i]
        parts[i] = None  # type: ignore[call-overload]  # free the chunk as it is mapped
        for j in range(m_cat):
            pos = _position(stats.categories[j], cats[j])
            if (pos < 0).any():  # pragma: no cover - a value the merge could not place
                raise CatEmbedError(f"column {categorical[j]!r}: a value was not placed in "
                                    "the merged categories; please report this table.")
            codes[start:start + len(local), j] = pos[local[:, j]] + offsets[j]
    coded = code_numbers(enc, df)  # numbers with few values: a byte or two a cell
    if coded is not None:
        return enc, codes, coded
    nums = np.empty((n, m_num), dtype=np.float32)
    if m_num:
        for start in range(0, n, CHUNK):
            vals = df.iloc[start:start + CHUNK][numeric].to_numpy(dtype=np.float64,
                                                                  na_value=np.nan)
            nums[start:start + CHUNK] = np.nan_to_num((vals - mean) / scale)
    return enc, codes, nums


def shift_codes(enc: MixedEncoding, codes: np.ndarray, to: str) -> np.ndarray:
    """``codes`` turned from global value ids into column-local ones (``to="local"``: the
    unseen value of column ``j`` is ``sizes[j]``) or back (``to="global"``), in place and
    chunk by chunk in their own narrow type (a local id is never above its global one), so
    no wide copy of the table is made. Returns ``codes``."""
    offsets = enc.offsets.astype(codes.dtype)
    for s in range(0, len(codes), 65_536):
        if to == "local":
            codes[s:s + 65_536] -= offsets[None, :]
        else:
            codes[s:s + 65_536] += offsets[None, :]
    return codes
