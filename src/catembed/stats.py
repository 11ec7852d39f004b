"""The shared sufficient statistics of every value-coupling method.

Every method in catembed (CDE, CDE++, UNTIE, the similarity baselines) is a function of
two things computed in a single pass over the rows (method spec, section 0):

* the value counts ``cnt(v)`` for each of the ``l`` values of all attributes, and
* the ``l x l`` co-occurrence count matrix ``C = O^T O`` (``O`` the ``n x l`` one-hot matrix):
  ``C[u, v]`` is the number of rows holding both ``u`` and ``v``, ``C[v, v] = cnt(v)``, and 0
  for two values of one attribute.

Both are integer sums over rows, so the statistics of two chunks of a table add up exactly:
:meth:`ValueStatistics.merge` re-indexes both onto the union of their values and adds. A file
read chunk by chunk, or a table split into partitions on a cluster, gives bit for bit the
statistics of the whole table (:func:`compute_statistics` accepts an iterable of chunks).

Entropies, mutual information and the normalised mutual information (symmetric uncertainty)
between attributes are derived from the blocks of ``C``.

Storage of ``C``: a dense ``int64`` array while ``l <= dense_limit`` (default 4096 values,
i.e. at most 128 MiB); above that a ``scipy.sparse`` CSR array holding only the value pairs
that occur. ``l`` is limited by that memory: dense ``8 l^2`` bytes, sparse about 12 bytes per
co-occurring pair (at most ``n m (m-1)`` of them). An identifier column (as many values as
rows) makes ``l`` explode; drop it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from ._params import check_option
from ._validation import CatEmbedError, as_frame, missing_mask, sort_values, unhashable_error

__all__ = [
    "INFREQUENT",
    "ValueStatistics",
    "compute_statistics",
    "encode",
    "factorize",
]

DENSE_LIMIT = 4096


class _Infrequent:
    """The value that stands for an attribute's pooled rare values (one object, any column)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "infrequent"

    __str__ = __repr__

    def __reduce__(self) -> str:
        return "INFREQUENT"  # unpickles as the module's one instance


#: the value standing for pooled infrequent values (``min_frequency``/``max_categories``)
INFREQUENT = _Infrequent()
_ROW_BLOCK = 1 << 20


def _is_missing_value(v: Any) -> bool:
    try:
        return bool(pd.isna(v))
    except (TypeError, ValueError):
        return False


def factorize(col: pd.Series, handle_missing: str = "category") -> tuple[np.ndarray, np.ndarray]:
    """Codes and sorted categories of one column.

    Returns ``(codes, categories)``: ``codes`` is ``int32`` with values in
    ``0..len(categories)-1``; ``categories`` an object array of the distinct non-missing
    values in sorted order, followed by ``nan`` when the column has missing values and
    ``handle_missing="category"``.
    """
    miss = missing_mask(col)
    if isinstance(col.dtype, pd.CategoricalDtype):
        raw_codes = col.cat.codes.to_numpy().astype(np.int64)
        used = np.unique(raw_codes[(raw_codes >= 0) & ~miss])
        uniques = np.asarray(col.cat.categories[used], dtype=object)
        remap = np.full(len(col.cat.categories) + 1, -1, dtype=np.int64)
        remap[used] = np.arange(len(used))
        codes = remap[raw_codes]
    else:
        try:
            codes, uniques = pd.factorize(col, use_na_sentinel=True)
        except TypeError:
            raise unhashable_error(col.name, col) from None
        uniques = np.asarray(uniques, dtype=object)
        codes = np.asarray(codes, dtype=np.int64)
        if miss.any():
            # the empty string is missing too: it may have been given a code.
            keep = np.array([not (isinstance(u, str) and u == "") for u in uniques], dtype=bool)
            if not keep.all():
                remap = np.full(len(uniques) + 1, -1, dtype=np.int64)
                remap[np.flatnonzero(keep)] = np.arange(keep.sum())
                codes = remap[codes]
                uniques = uniques[keep]
    uniques = promote_numbers(uniques, _number_kinds(col, uniques))
    cats = sort_values(uniques)
    if len(cats):
        rank = np.empty(len(uniques), dtype=np.int64)
        rank[pd.Index(uniques).get_indexer(pd.Index(cats))] = np.arange(len(cats))
        rank = np.append(rank, -1)  # so that code -1 stays -1
        codes = rank[codes]
    if miss.any():
        if handle_missing == "error":
            raise CatEmbedError(
                f"column {col.name!r} has {int(miss.sum())} missing values (NaN, None or "
                "empty); use handle_missing='category' to treat missing as a value of its own."
            )
        codes[miss] = len(cats)
        cats = np.append(cats, np.array([np.nan], dtype=object))
    return codes.astype(np.int32), cats


_KIND_OF_TYPE = {bool: 0, np.bool_: 0, int: 1, float: 2}


def _kind(t: type) -> int | None:
    """0 for booleans, 1 for integers, 2 for floats, None for anything else."""
    k = _KIND_OF_TYPE.get(t)
    if k is None:
        if issubclass(t, (bool, np.bool_)):
            return 0
        if issubclass(t, (int, np.integer)):
            return 1
        if issubclass(t, (float, np.floating)):
            return 2
    return k


def _number_kinds(col: pd.Series, uniques: np.ndarray) -> set[int]:
    """The kinds of number (bool, int, float) among a column's values.

    Read from the elements, not the distinct values: Python (and pandas) count ``True``,
    ``1`` and ``1.0`` as one value, so the distinct values alone hide which kinds occurred.
    """
    kinds = {k for k in map(_kind, set(map(type, uniques.tolist()))) if k is not None}
    if not kinds or col.dtype != object:
        return kinds
    return {k for k in map(_kind, set(map(type, col.to_numpy(dtype=object).tolist())))
            if k is not None}


def promote_numbers(values: np.ndarray, kinds: set[int]) -> np.ndarray:
    """Numbers promoted to the widest kind present: bool < int < float (as NumPy does).

    The equality rule for categories: two values are one category when they are equal as
    Python values (``1 == 1.0 == True``, so pandas counts them as one value), and such a
    category is stored as the widest kind of number the column holds anywhere (a column
    holding ``True``, ``1`` and ``2.5`` stores ``1.0``; one holding only ``True`` and
    ``False`` stores booleans). Text is never equal to a number (``"1"`` is its own
    value). The stored categories therefore do not depend on row or chunk order.
    """
    if not kinds:
        return values
    conv = (bool, int, float)[max(kinds)]
    out = np.empty(len(values), dtype=object)
    out[:] = [conv(v) if _kind(type(v)) is not None else v for v in values.tolist()]
    if conv is float and len(set(out.tolist())) < len(set(values.tolist())):
        return values  # integers beyond 2**53 would collide as floats: keep them as they are
    return out


def encode_column(
    col: pd.Series, categories: np.ndarray, handle_missing: str = "category"
) -> np.ndarray:
    """Codes of ``col`` in the fitted ``categories``: -1 for a value not among them.

    A missing entry gets the code of the missing category when the fit saw missing values
    (``handle_missing="category"``); otherwise it is an unknown value (code -1), or an error
    when ``handle_missing="error"``.

    The column is factorised once (a category column's own codes; Arrow dictionary encoding
    for pyarrow-backed strings, through :func:`pandas.factorize`; a hash table otherwise) and
    only its dictionary of distinct values is matched against ``categories``, with the same
    equality rule as the fit (numbers read back as another type, 1 vs 1.0 vs "1", still
    match): the per-row work is one integer gather.
    """
    has_nan = len(categories) > 0 and _is_missing_value(categories[-1])
    known = categories[:-1] if has_nan else categories
    if isinstance(col.dtype, pd.CategoricalDtype):
        raw = col.cat.codes.to_numpy()
        dictionary = np.asarray(col.cat.categories, dtype=object)
    else:
        try:
            raw, uniques = pd.factorize(col, use_na_sentinel=True)
        except TypeError:
            raise unhashable_error(col.name, col.to_numpy(dtype=object)) from None
        dictionary = np.asarray(uniques, dtype=object)
    index = pd.Index(known, dtype=object)
    dmap = np.asarray(index.get_indexer(dictionary), dtype=np.int64)
    if (dmap < 0).any():
        # numeric values read back as another type (1 vs 1.0 vs "1") still match.
        dmap = _match_loosely(dictionary, known, dmap)
    miss_dict = np.fromiter(
        (isinstance(v, str) and v == "" or _is_missing_value(v) for v in dictionary),
        dtype=bool, count=len(dictionary),
    )
    missing_code = len(categories) - 1 if has_nan else -1
    dmap[miss_dict] = missing_code
    table = np.append(dmap, missing_code).astype(np.int32)  # raw code -1 (NA) -> last entry
    if handle_missing == "error" and (miss_dict.any() or (raw < 0).any()):
        n_miss = int(np.sum((raw < 0) | miss_dict[np.maximum(raw, 0)]))
        raise CatEmbedError(
            f"column {col.name!r} has {n_miss} missing values (NaN, None or "
            "empty) and handle_missing='error'."
        )
    return table[raw]


def _match_loosely(values: np.ndarray, known: np.ndarray, codes: np.ndarray) -> np.ndarray:
    lookup = {}
    for i, k in enumerate(known):
        lookup.setdefault(_loose_key(k), i)
    out = codes.copy()
    for i in np.flatnonzero(codes < 0):
        out[i] = lookup.get(_loose_key(values[i]), -1)
    return out


def _loose_key(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return ("b", bool(v))
    if isinstance(v, (int, float, np.integer, np.floating)):
        f = float(v)
        return ("n", f)
    return ("s", str(v))


def encode(
    X: Any,
    feature_names: Sequence[str],
    categories: Sequence[np.ndarray],
    handle_missing: str = "category",
) -> np.ndarray:
    """Encode the columns ``feature_names`` of ``X`` as an ``n x m`` ``int32`` code matrix.

    Unknown values (not in ``categories``) get code -1; the caller applies its
    ``handle_unknown`` policy.
    """
    return encode_frame(as_frame(X, columns=feature_names), feature_names, categories,
                        handle_missing)


def encode_frame(
    df: pd.DataFrame,
    feature_names: Sequence[str],
    categories: Sequence[np.ndarray],
    handle_missing: str = "category",
) -> np.ndarray:
    """:func:`encode` of a table already checked by :func:`~catembed._validation.as_frame`."""
    missing = [c for c in feature_names if c not in df.columns]
    if missing:
        raise CatEmbedError(f"input lacks the fitted column(s): {', '.join(missing)}.")
    codes = np.empty((len(df), len(feature_names)), dtype=np.int32, order="F")  # by column
    for j, (name, cats) in enumerate(zip(feature_names, categories, strict=True)):
        codes[:, j] = encode_column(df[name], cats, handle_missing)
    return codes


def _count_codes(
    codes: np.ndarray, sizes: np.ndarray, dense: bool
) -> tuple[np.ndarray, np.ndarray | sp.csr_array]:
    """Value counts and co-occurrence counts of a code matrix (all codes valid)."""
    n, m = codes.shape
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_values = int(offsets[-1])
    counts = np.zeros(n_values, dtype=np.int64)
    for j in range(m):
        counts[offsets[j] : offsets[j + 1]] = np.bincount(codes[:, j], minlength=int(sizes[j]))
    if dense:
        cooc = np.zeros((n_values, n_values), dtype=np.int64)
    else:
        rows_l: list[np.ndarray] = []
        cols_l: list[np.ndarray] = []
        vals_l: list[np.ndarray] = []
    cols = np.ascontiguousarray(codes.T)  # one contiguous row per attribute
    for a in range(m - 1):
        la = int(sizes[a])
        for b in range(a + 1, m):
            lb = int(sizes[b])
            size = la * lb
            for start in range(0, n, _ROW_BLOCK):
                ca = cols[a, start : start + _ROW_BLOCK]
                cb = cols[b, start : start + _ROW_BLOCK]
                if size < 2**31:
                    key = ca * np.int32(lb) + cb
                else:
                    key = ca.astype(np.int64) * lb + cb
                if dense:
                    block = np.bincount(key, minlength=size).reshape(la, lb)
                    cooc[offsets[a] : offsets[a + 1], offsets[b] : offsets[b + 1]] += block
                else:
                    if size <= (1 << 22):
                        block = np.bincount(key, minlength=size)
                        uk = np.flatnonzero(block)
                        uc = block[uk]
                    else:
                        uk, uc = np.unique(key, return_counts=True)
                    rows_l.append(offsets[a] + uk // lb)
                    cols_l.append(offsets[b] + uk % lb)
                    vals_l.append(uc.astype(np.int64))
    if dense:
        cooc += cooc.T
        cooc[np.diag_indices(n_values)] = counts
        return counts, cooc
    diag = np.arange(n_values, dtype=np.int64)
    r = np.concatenate(rows_l + [diag]) if rows_l else diag
    c = np.concatenate(cols_l + [diag]) if cols_l else diag
    v = np.concatenate(vals_l + [counts]) if vals_l else counts
    upper = sp.coo_array((v, (r, c)), shape=(n_values, n_values)).tocsr()
    upper.sum_duplicates()
    full = upper + sp.triu(upper, k=1, format="csr").T
    return counts, sp.csr_array(full)


@dataclass(eq=False)
class ValueStatistics:
    """Value counts and co-occurrence counts of a categorical table (method spec section 0).

    Attributes
    ----------
    feature_names : tuple of str
        The ``m`` categorical attributes, in input order.
    categories : tuple of ndarray
        For each attribute its ``l_j`` values, sorted, with ``nan`` last when missing values
        are counted as a value of their own.
    n_rows : int
        Number of rows counted (``n``).
    counts : ndarray of shape (l,), int64
        ``cnt(v)`` for every value, attributes in order.
    cooc : ndarray or scipy.sparse.csr_array of shape (l, l), int64
        ``C[u, v] = cnt(u, v)``; ``C[v, v] = cnt(v)``; 0 within an attribute.
    """

    feature_names: tuple[str, ...]
    categories: tuple[np.ndarray, ...]
    n_rows: int
    counts: np.ndarray
    cooc: Any
    _cache: dict = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_frame(
        cls,
        X: Any,
        *,
        columns: Sequence[str] | None = None,
        handle_missing: str = "category",
        dense_limit: int = DENSE_LIMIT,
        before_count: Callable[[np.ndarray, int], None] | None = None,
    ) -> ValueStatistics:
        """Count one table (a DataFrame or a 2-D array) in one pass.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n, p)
        columns : list of str, optional
            The categorical columns to count; default every column.
        handle_missing : {"category", "error"}
            Missing values (NaN, None, empty string) are a value of their own, or an error.
        dense_limit : int
            Largest ``l`` for which ``cooc`` is stored dense.
        before_count : callable, optional
            Called as ``before_count(sizes, n_rows)`` once the columns are factorised and
            before the co-occurrence counts are allocated (a cost check may raise there).
        """
        check_option("handle_missing", handle_missing, ("category", "error"))
        return count_table(as_frame(X), columns=columns, handle_missing=handle_missing,
                           dense_limit=dense_limit, before_count=before_count)

    @classmethod
    def from_codes(
        cls,
        codes: np.ndarray,
        categories: Sequence[np.ndarray],
        feature_names: Sequence[str],
        *,
        dense_limit: int = DENSE_LIMIT,
    ) -> ValueStatistics:
        """Count an ``n x m`` matrix of codes (``0 <= codes[:, j] < len(categories[j])``)."""
        codes = np.ascontiguousarray(codes, dtype=np.int32)
        sizes = np.array([len(c) for c in categories], dtype=np.int64)
        if codes.size and (codes.min() < 0 or (codes.max(axis=0) >= sizes).any()):
            raise CatEmbedError("codes out of range of the categories.")
        dense = int(sizes.sum()) <= dense_limit
        counts, cooc = _count_codes(codes, sizes, dense)
        return cls(
            tuple(str(f) for f in feature_names),
            tuple(np.asarray(c, dtype=object) for c in categories),
            int(codes.shape[0]),
            counts,
            cooc,
        )

    # ------------------------------------------------------------------ merging
    def merge(self, other: ValueStatistics, *, dense_limit: int = DENSE_LIMIT) -> ValueStatistics:
        """The statistics of the two tables stacked: exact integer sums on the union of values.

        Both must have the same attributes. Values seen in only one of them are added to the
        union (sorted as a whole-table fit would sort them), so ``a.merge(b)`` equals the
        statistics of ``concat([A, B])`` exactly.
        """
        if self.feature_names != other.feature_names:
            raise CatEmbedError(
                "cannot merge statistics of different columns: "
                f"{list(self.feature_names)} vs {list(other.feature_names)}."
            )
        cats = []
        maps_a, maps_b = [], []
        for ca, cb in zip(self.categories, other.categories, strict=True):
            union = _union_categories(ca, cb)
            cats.append(union)
            maps_a.append(_position(union, ca))
            maps_b.append(_position(union, cb))
        offs = np.concatenate([[0], np.cumsum([len(c) for c in cats])])
        gmap_a = np.concatenate([m + o for m, o in zip(maps_a, offs[:-1], strict=True)])
        gmap_b = np.concatenate([m + o for m, o in zip(maps_b, offs[:-1], strict=True)])
        n_values = int(offs[-1])
        counts = np.zeros(n_values, dtype=np.int64)
        counts[gmap_a] += self.counts
        counts[gmap_b] += other.counts
        if n_values <= dense_limit:
            cooc = np.zeros((n_values, n_values), dtype=np.int64)
            cooc[np.ix_(gmap_a, gmap_a)] += _dense(self.cooc)
            cooc[np.ix_(gmap_b, gmap_b)] += _dense(other.cooc)
        else:
            cooc = sp.csr_array(
                _remap_sparse(self.cooc, gmap_a, n_values)
                + _remap_sparse(other.cooc, gmap_b, n_values)
            )
        return ValueStatistics(
            self.feature_names, tuple(cats), self.n_rows + other.n_rows, counts, cooc
        )

    __add__ = merge

    # ------------------------------------------------------------------ shape
    @property
    def n_features(self) -> int:
        """Number of attributes ``m``."""
        return len(self.feature_names)

    @property
    def sizes(self) -> np.ndarray:
        """Number of values ``l_j`` of each attribute."""
        return np.array([len(c) for c in self.categories], dtype=np.int64)

    @property
    def n_values(self) -> int:
        """Total number of values ``l``."""
        return int(self.sizes.sum())

    @property
    def offsets(self) -> np.ndarray:
        """Global id of the first value of each attribute, plus ``l`` at the end."""
        return np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)

    @property
    def attribute_of(self) -> np.ndarray:
        """For each value its attribute index (length ``l``)."""
        return np.repeat(np.arange(self.n_features), self.sizes)

    def value_index(self) -> pd.MultiIndex:
        """A ``(column, value)`` MultiIndex over the ``l`` values, in global-id order."""
        cols = np.repeat(np.asarray(self.feature_names, dtype=object), self.sizes)
        vals = np.concatenate(self.categories) if self.n_features else np.array([], object)
        return pd.MultiIndex.from_arrays([cols, vals], names=["column", "value"])

    def cooc_dense(self) -> np.ndarray:
        """``C`` as a dense ``int64`` array."""
        return _dense(self.cooc)

    def subset(self, keep: Sequence[int]) -> ValueStatistics:
        """The statistics of a subset of the attributes (by position)."""
        keep = list(keep)
        offs = self.offsets
        idx = np.concatenate([np.arange(offs[j], offs[j + 1]) for j in keep]) if keep else []
        idx = np.asarray(idx, dtype=np.int64)
        cooc = self.cooc[idx][:, idx] if sp.issparse(self.cooc) else self.cooc[np.ix_(idx, idx)]
        return ValueStatistics(
            tuple(self.feature_names[j] for j in keep),
            tuple(self.categories[j] for j in keep),
            self.n_rows,
            self.counts[idx].copy(),
            sp.csr_array(cooc) if sp.issparse(cooc) else cooc,
        )

    # ------------------------------------------------------------------ derived quantities
    def probabilities(self) -> np.ndarray:
        """``p(v) = cnt(v) / n``."""
        return self.counts / max(self.n_rows, 1)

    def conditional(self) -> np.ndarray:
        """``P[u, v] = p(v | u) = cnt(u, v) / cnt(u)`` as a dense ``l x l`` array."""
        cnt = np.maximum(self.counts, 1).astype(float)
        return self.cooc_dense() / cnt[:, None]

    def entropy(self) -> np.ndarray:
        """``H(f) = -sum_v p(v) log p(v)`` (nats) for each attribute."""
        if "entropy" not in self._cache:
            p = self.probabilities()
            with np.errstate(divide="ignore", invalid="ignore"):
                t = np.where(p > 0, -p * np.log(np.where(p > 0, p, 1.0)), 0.0)
            self._cache["entropy"] = np.bincount(
                self.attribute_of, weights=t, minlength=self.n_features
            )
        return self._cache["entropy"].copy()

    def mutual_information(self) -> np.ndarray:
        """``I(fa; fb)`` (nats) for every pair of attributes, an ``m x m`` matrix.

        ``I(f; f) = H(f)`` on the diagonal.
        """
        if "mi" not in self._cache:
            m = self.n_features
            n = max(self.n_rows, 1)
            p = self.probabilities()
            offs = self.offsets
            mi = np.zeros((m, m))
            dense = None if sp.issparse(self.cooc) else self.cooc
            for a in range(m):
                for b in range(a + 1, m):
                    ra, rb = slice(offs[a], offs[a + 1]), slice(offs[b], offs[b + 1])
                    block = (self.cooc[ra][:, rb] if dense is None else dense[ra, rb])
                    block = np.asarray(block.toarray() if sp.issparse(block) else block)
                    pab = block / n
                    outer = np.outer(p[ra], p[rb])
                    nz = pab > 0
                    mi[a, b] = mi[b, a] = float(np.sum(pab[nz] * np.log(pab[nz] / outer[nz])))
            mi[np.diag_indices(m)] = self.entropy()
            self._cache["mi"] = np.maximum(mi, 0.0)
        return self._cache["mi"].copy()

    def normalized_mutual_information(self) -> np.ndarray:
        """``psi(fa, fb) = 2 I(fa; fb) / (H(fa) + H(fb))``, the symmetric uncertainty.

        ``psi(f, f) = 1``; ``psi = 0`` for ``fa != fb`` when ``H(fa) + H(fb) = 0`` (spec 0).
        """
        mi = self.mutual_information()
        h = self.entropy()
        denom = h[:, None] + h[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            psi = np.where(denom > 0, 2.0 * mi / np.where(denom > 0, denom, 1.0), 0.0)
        psi = np.clip(psi, 0.0, 1.0)
        psi[np.diag_indices(self.n_features)] = 1.0
        return psi

    # ------------------------------------------------------------------ pooling
    def infrequent(
        self, min_frequency: int | float | None = None, max_categories: int | None = None
    ) -> list[np.ndarray]:
        """Which values are infrequent, with scikit-learn's ``OneHotEncoder`` meaning.

        For each attribute a boolean mask over its values: a value is infrequent when its
        count is below ``min_frequency`` (an int: a count; a float in ``(0, 1)``: a fraction
        of the rows), and, when more than ``max_categories`` outputs would remain (the
        frequent values plus one for the pooled ones), the least frequent values are added
        until ``max_categories - 1`` frequent values are left (ties: the earlier value in the
        sorted order is pooled first, as with scikit-learn's stable sort). The missing-value
        category is never pooled and is not counted in ``max_categories``.
        """
        offs = self.offsets
        out = []
        for j, cats in enumerate(self.categories):
            cnt = self.counts[offs[j] : offs[j + 1]]
            has_nan = len(cats) > 0 and _is_missing_value(cats[-1])
            known = len(cats) - int(has_nan)
            mask = np.zeros(len(cats), dtype=bool)
            c = cnt[:known]
            if min_frequency is not None:
                limit = (min_frequency * self.n_rows if isinstance(min_frequency, float)
                         else min_frequency)
                mask[:known] = c < limit
            if max_categories is not None and known - mask[:known].sum() + 1 > max_categories:
                keep = max_categories - 1
                order = np.argsort(c, kind="mergesort")
                mask[order[: known - keep] if keep > 0 else order] = True
            out.append(mask)
        return out

    def pool(self, masks: Sequence[np.ndarray]) -> ValueStatistics:
        """The statistics with each attribute's masked values merged into one value.

        The merged value is :data:`INFREQUENT`, placed after the remaining values (before
        the missing-value category). Counts and co-occurrence counts of the merged values
        are added exactly (``C' = M^T C M`` for the 0/1 merge matrix ``M``; values of one
        attribute never co-occur, so the merged diagonal is the sum of their counts), so
        pooling commutes with :meth:`merge` and works on streamed and Dask statistics.
        An attribute with fewer than two masked values is left as it is.
        """
        offs = self.offsets
        new_cats = []
        target = np.empty(self.n_values, dtype=np.int64)
        start = 0
        for j, (cats, mask) in enumerate(zip(self.categories, masks, strict=True)):
            mask = np.asarray(mask, dtype=bool)
            if mask.sum() < 2:
                mask = np.zeros(len(cats), dtype=bool)
            kept = np.flatnonzero(~mask)
            has_nan = len(cats) > 0 and _is_missing_value(cats[-1])
            known_kept = kept[:-1] if has_nan else kept
            local = np.empty(len(cats), dtype=np.int64)
            local[known_kept] = np.arange(len(known_kept))
            pos = len(known_kept)
            parts = [cats[known_kept]]
            if mask.any():
                local[mask] = pos
                parts.append(np.array([INFREQUENT], dtype=object))
                pos += 1
            if has_nan:
                local[len(cats) - 1] = pos
                parts.append(cats[-1:])
                pos += 1
            new_cats.append(np.concatenate(parts).astype(object))
            target[offs[j] : offs[j + 1]] = start + local
            start += pos
        if start == self.n_values:
            return self
        merge = sp.csr_array(
            (np.ones(self.n_values, dtype=np.int64), (np.arange(self.n_values), target)),
            shape=(self.n_values, start),
        )
        counts = np.bincount(target, weights=self.counts, minlength=start).astype(np.int64)
        if sp.issparse(self.cooc):
            cooc = sp.csr_array(merge.T @ self.cooc @ merge)
            if start <= DENSE_LIMIT:
                cooc = np.asarray(cooc.toarray(), dtype=np.int64)
        else:
            cooc = np.asarray(merge.T @ (merge.T @ self.cooc).T, dtype=np.int64)
        return ValueStatistics(self.feature_names, tuple(new_cats), self.n_rows, counts, cooc)

    # ------------------------------------------------------------------ persistence helpers
    def to_arrays(self) -> dict[str, np.ndarray]:
        """Numeric arrays for saving (categories are stored by the caller as JSON)."""
        out = {"counts": self.counts, "n_rows": np.array(self.n_rows)}
        if sp.issparse(self.cooc):
            coo = sp.coo_array(self.cooc)
            out.update(cooc_row=coo.row, cooc_col=coo.col, cooc_data=coo.data)
        else:
            out["cooc"] = self.cooc
        return out

    @classmethod
    def from_arrays(
        cls, arrays: dict[str, np.ndarray], feature_names: Sequence[str],
        categories: Sequence[np.ndarray],
    ) -> ValueStatistics:
        """Inverse of :meth:`to_arrays`."""
        counts = np.asarray(arrays["counts"], dtype=np.int64)
        if "cooc" in arrays:
            cooc = np.asarray(arrays["cooc"], dtype=np.int64)
        else:
            n_values = len(counts)
            cooc = sp.csr_array(
                sp.coo_array(
                    (arrays["cooc_data"], (arrays["cooc_row"], arrays["cooc_col"])),
                    shape=(n_values, n_values),
                )
            )
        return cls(
            tuple(feature_names), tuple(categories), int(arrays["n_rows"]), counts, cooc
        )


def _dense(cooc: Any) -> np.ndarray:
    return np.asarray(cooc.toarray()) if sp.issparse(cooc) else np.asarray(cooc)


def _remap_sparse(cooc: Any, gmap: np.ndarray, n_values: int) -> sp.csr_array:
    coo = sp.coo_array(cooc) if sp.issparse(cooc) else sp.coo_array(np.asarray(cooc))
    return sp.csr_array(
        sp.coo_array((coo.data, (gmap[coo.row], gmap[coo.col])), shape=(n_values, n_values))
    )


def _union_categories(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a_nan = len(a) > 0 and _is_missing_value(a[-1])
    b_nan = len(b) > 0 and _is_missing_value(b[-1])
    ka = a[:-1] if a_nan else a
    kb = b[:-1] if b_nan else b
    both = np.concatenate([ka, kb]).astype(object)
    both = promote_numbers(
        both, {k for k in map(_kind, set(map(type, both.tolist()))) if k is not None})
    union = pd.unique(both)
    union = sort_values(np.asarray(union, dtype=object))
    if a_nan or b_nan:
        union = np.append(union, np.array([np.nan], dtype=object))
    return union


def _position(union: np.ndarray, cats: np.ndarray) -> np.ndarray:
    u_nan = len(union) > 0 and _is_missing_value(union[-1])
    c_nan = len(cats) > 0 and _is_missing_value(cats[-1])
    known_u = union[:-1] if u_nan else union
    known_c = cats[:-1] if c_nan else cats
    pos = pd.Index(known_u, dtype=object).get_indexer(pd.Index(known_c, dtype=object))
    if c_nan:
        pos = np.append(pos, len(union) - 1)
    return pos.astype(np.int64)


def count_table(
    df: pd.DataFrame,
    *,
    columns: Sequence[str] | None = None,
    handle_missing: str = "category",
    dense_limit: int = DENSE_LIMIT,
    before_count: Callable[[np.ndarray, int], None] | None = None,
) -> ValueStatistics:
    """:meth:`ValueStatistics.from_frame` of a table already checked by
    :func:`~catembed._validation.as_frame`: factorise the columns, then count."""
    names = list(df.columns) if columns is None else [str(c) for c in columns]
    codes = np.empty((len(df), len(names)), dtype=np.int32)
    cats = []
    for j, name in enumerate(names):
        if name not in df.columns:
            raise CatEmbedError(f"column {name!r} is not in the input.")
        codes[:, j], c = factorize(df[name], handle_missing)
        cats.append(c)
    if before_count is not None:
        before_count(np.array([len(c) for c in cats], dtype=np.int64), len(df))
    return ValueStatistics.from_codes(codes, cats, names, dense_limit=dense_limit)


def count_chunks(
    frames: Iterable[pd.DataFrame],
    *,
    columns: Sequence[str] | None = None,
    handle_missing: str = "category",
    dense_limit: int = DENSE_LIMIT,
    progress: Any = None,
) -> ValueStatistics:
    """Count checked chunks of one table one by one and merge them exactly."""
    total: ValueStatistics | None = None
    for frame in frames:
        part = count_table(frame, columns=columns, handle_missing=handle_missing,
                           dense_limit=dense_limit)
        total = part if total is None else total.merge(part, dense_limit=dense_limit)
        if progress is not None:
            progress(part.n_rows)
    if total is None:
        raise CatEmbedError("the input has no rows.")
    return total


def compute_statistics(
    data: Any,
    *,
    columns: Sequence[str] | None = None,
    handle_missing: str = "category",
    dense_limit: int = DENSE_LIMIT,
    progress: Any = None,
    before_count: Callable[[np.ndarray, int], None] | None = None,
) -> ValueStatistics:
    """Value statistics of a table, or of an iterable of chunks of one table.

    Parameters
    ----------
    data : DataFrame, array-like, Dask DataFrame, or iterable of DataFrames
        An iterable (a ``pandas.read_csv(..., chunksize=...)`` reader, a generator of Parquet
        batches) is counted chunk by chunk in bounded memory and the chunks are merged
        exactly. A Dask DataFrame is counted partition by partition on its scheduler and the
        partitions merged by a tree reduction (``pip install "catembed[dask]"``).
    columns : list of str, optional
        The categorical columns; default every column.
    handle_missing : {"category", "error"}
    dense_limit : int
        Largest number of values for a dense co-occurrence matrix.
    progress : callable, optional
        Called with the number of rows of each chunk once it is counted.
    before_count : callable, optional
        For an in-memory table: called as ``before_count(sizes, n_rows)`` between the
        factorisation and the counting (see :meth:`ValueStatistics.from_frame`).
    """
    if _is_dask_collection(data):
        return _dask_statistics(
            data, columns=columns, handle_missing=handle_missing, dense_limit=dense_limit,
            progress=progress,
        )
    if isinstance(data, (pd.DataFrame, pd.Series, np.ndarray, list)):
        stats = ValueStatistics.from_frame(
            data, columns=columns, handle_missing=handle_missing, dense_limit=dense_limit,
            before_count=before_count,
        )
        if progress is not None:
            progress(stats.n_rows)
        return stats
    def checked(chunks: Iterable[Any]) -> Iterable[pd.DataFrame]:
        for chunk in chunks:
            check_option("handle_missing", handle_missing, ("category", "error"))
            yield as_frame(chunk)

    return count_chunks(checked(data), columns=columns,
                        handle_missing=handle_missing, dense_limit=dense_limit,
                        progress=progress)


def _is_dask_collection(data: Any) -> bool:
    return type(data).__module__.startswith("dask") and hasattr(data, "to_delayed")


def _dask_statistics(data: Any, *, progress: Any = None, **kwargs: Any) -> ValueStatistics:
    """Count every partition of a Dask DataFrame in parallel and merge by a tree reduction.

    The statistics of the partitions are exact integer sums, so the result equals the
    statistics of the computed frame, whatever the partitioning or the scheduler.
    """
    import dask

    def count(part: pd.DataFrame) -> ValueStatistics:
        return ValueStatistics.from_frame(part, **kwargs)

    def merge(a: ValueStatistics, b: ValueStatistics) -> ValueStatistics:
        return a.merge(b, dense_limit=kwargs.get("dense_limit", DENSE_LIMIT))

    level = [dask.delayed(count)(part) for part in data.to_delayed()]
    if not level:
        raise CatEmbedError("the input has no rows.")
    while len(level) > 1:
        level = [dask.delayed(merge)(level[i], level[i + 1]) if i + 1 < len(level)
                 else level[i] for i in range(0, len(level), 2)]
    (stats,) = dask.compute(level[0])
    if progress is not None:
        progress(stats.n_rows)
    return stats


def statistics_from_iterable(chunks: Iterable[Any], **kwargs: Any) -> ValueStatistics:
    """Alias of :func:`compute_statistics` for an iterable of chunks."""
    return compute_statistics(iter(chunks), **kwargs)
