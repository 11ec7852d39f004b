"""The value statistics: the one container every value-coupling method fits from.

:class:`ValueStatistics` holds the value counts and the co-occurrence counts of a categorical
table (see :mod:`catembed.stats`) and derives what the methods need from them: value
frequencies, conditional probabilities, entropies, mutual information, rare-value pooling and
column subsets. It is built by counting one table (:meth:`ValueStatistics.from_frame`, or
:func:`count_table` for a table already validated) or a code matrix, and merged exactly
(:meth:`ValueStatistics.merge`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from .._utils._params import check_option
from .._utils._validation import CatEmbedError, as_frame
from ._counting import (
    DENSE_LIMIT,
    as_dense,
    count_codes,
    count_values,
    keeps_factor,
    remap_sparse,
)
from ._encoding import (
    INFREQUENT,
    _is_missing_value,
    _position,
    factorize_frame,
    union_categories,
)
from ._gram import GramCounts
from ._information import pair_information

__all__ = ["ValueStatistics", "count_table", "require_statistics"]


def require_statistics(stats: Any, owner: str) -> None:
    """Refuse what is not a :class:`ValueStatistics` where one is expected (a table given
    to ``fit_statistics`` ended in an ``AttributeError`` on ``feature_names``)."""
    if not isinstance(stats, ValueStatistics):
        from .._utils._errors import CatEmbedTypeError

        raise CatEmbedTypeError(
            f"{owner} takes a catembed.stats.ValueStatistics (e.g. from compute_statistics); "
            f"got a {type(stats).__name__}. Give a table to fit(X) instead."
        )


#: above this many columns, :meth:`ValueStatistics.mutual_information` sums every pair of
#: columns in one pass over the co-occurrence counts rather than one step per pair (the
#: same terms, summed in another order: equal up to rounding)
_MI_LOOP_COLUMNS = 256


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
    cooc : ndarray, scipy.sparse.csr_array or GramCounts of shape (l, l), int64
        ``C[u, v] = cnt(u, v)``; ``C[v, v] = cnt(v)``; 0 within an attribute. Dense while
        ``l <= dense_limit``, else the pairs that occur, or where those would not fit (or
        ``factor``) the one-hot rows ``O`` of ``C = O^T O`` (:mod:`catembed.stats._gram`).
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
        factor: bool = False,
    ) -> ValueStatistics:
        """Count an ``n x m`` matrix of codes (``0 <= codes[:, j] < len(categories[j])``);
        ``factor``: counts of few rows kept as their factor, as are pairs that would not
        fit in memory (:func:`~catembed.stats._counting.keeps_factor`; issue 40)."""
        codes = np.asarray(codes, dtype=np.int32)
        if codes.ndim != 2:
            raise CatEmbedError("codes must be a 2-D matrix.")
        sizes = np.array([len(c) for c in categories], dtype=np.int64)
        dense = int(sizes.sum()) <= dense_limit
        if keeps_factor(codes.shape[0], sizes, factor, dense_limit):
            counts = count_values(codes, sizes)
            offsets = np.concatenate([[0], np.cumsum(sizes)])[:-1]
            cooc: Any = GramCounts(codes + offsets, sizes)
        else:
            counts, cooc = count_codes(codes, sizes, dense)
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
            union = union_categories(ca, cb)
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
        factored = [isinstance(c, GramCounts) for c in (self.cooc, other.cooc)]
        if all(factored):
            new_sizes = np.array([len(c) for c in cats], dtype=np.int64)
            cooc: Any = self.cooc.relabel(gmap_a, new_sizes).stack(
                other.cooc.relabel(gmap_b, new_sizes))
            if n_values <= dense_limit:
                cooc = cooc.toarray()
        elif n_values <= dense_limit:
            cooc = np.zeros((n_values, n_values), dtype=np.int64)
            cooc[np.ix_(gmap_a, gmap_a)] += as_dense(self.cooc)
            cooc[np.ix_(gmap_b, gmap_b)] += as_dense(other.cooc)
        else:  # a factor beside stored pairs: the pairs of both (where they fit)
            cooc = sp.csr_array(
                remap_sparse(_pairs(self.cooc), gmap_a, n_values)
                + remap_sparse(_pairs(other.cooc), gmap_b, n_values)
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
        return as_dense(self.cooc)

    def subset(self, keep: Sequence[int]) -> ValueStatistics:
        """The statistics of a subset of the attributes (by position)."""
        keep = list(keep)
        offs = self.offsets
        idx = np.concatenate([np.arange(offs[j], offs[j + 1]) for j in keep]) if keep else []
        idx = np.asarray(idx, dtype=np.int64)
        if isinstance(self.cooc, GramCounts):
            cooc = self.cooc.columns(keep, offs)
            if len(idx) <= DENSE_LIMIT:
                cooc = cooc.toarray()
        elif sp.issparse(self.cooc):
            cooc = self.cooc[idx][:, idx]
        else:
            cooc = self.cooc[np.ix_(idx, idx)]
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
            cooc = _pairs(self.cooc)
            if m > _MI_LOOP_COLUMNS:
                mi = pair_information(cooc, p, n, self.attribute_of, m)
            else:
                mi = np.zeros((m, m))
                offs = self.offsets
                dense = None if sp.issparse(cooc) else cooc
                for a in range(m):
                    self._pair_information_of(a, mi, p, n, offs, dense, cooc)
            mi[np.diag_indices(m)] = self.entropy()
            self._cache["mi"] = np.maximum(mi, 0.0)
        return self._cache["mi"].copy()

    def _pair_information_of(self, a: int, mi: np.ndarray, p: np.ndarray, n: int,
                             offs: np.ndarray, dense: np.ndarray | None, cooc: Any) -> None:
        """``I(fa; fb)`` for every ``b > a`` into ``mi``, each as the sum of its terms in the
        block's row order. Issue 40: the terms of ``a`` against all later columns at once
        (one slice of sparse counts, not one per ``b``) when they fit in 128 MiB; the same
        numbers added in the same order as one block at a time."""
        m = self.n_features
        lo, hi = offs[a], offs[a + 1]
        if (hi - lo) * (offs[-1] - hi) <= 2**24:
            rows = (dense[lo:hi, hi:] if dense is not None
                    else np.asarray(cooc[lo:hi][:, hi:].toarray()))
            pab = rows / n
            outer = np.outer(p[lo:hi], p[hi:])
            nz = pab > 0
            term = np.zeros_like(pab)
            term[nz] = pab[nz] * np.log(pab[nz] / outer[nz])
            for b in range(a + 1, m):
                cb = slice(offs[b] - hi, offs[b + 1] - hi)
                mi[a, b] = mi[b, a] = float(np.sum(term[:, cb][nz[:, cb]]))
            return
        ra = slice(lo, hi)
        for b in range(a + 1, m):
            rb = slice(offs[b], offs[b + 1])
            block = (cooc[ra][:, rb] if dense is None else dense[ra, rb])
            block = np.asarray(block.toarray() if sp.issparse(block) else block)
            pab = block / n
            outer = np.outer(p[ra], p[rb])
            nz = pab > 0
            mi[a, b] = mi[b, a] = float(np.sum(pab[nz] * np.log(pab[nz] / outer[nz])))

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
        if isinstance(self.cooc, GramCounts):
            new_sizes = np.array([len(c) for c in new_cats], dtype=np.int64)
            cooc = self.cooc.relabel(target, new_sizes)
            if start <= DENSE_LIMIT:
                cooc = cooc.toarray()
        elif sp.issparse(self.cooc):
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
        if isinstance(self.cooc, GramCounts):  # the factor: each row's value ids
            out["cooc_ids"] = self.cooc.ids
        elif sp.issparse(self.cooc):
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
        elif "cooc_ids" in arrays:
            cooc = GramCounts(arrays["cooc_ids"], [len(c) for c in categories])
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


def _pairs(cooc: Any) -> Any:
    """Stored counts as they are; factored counts as their stored pairs (where they fit)."""
    return cooc.tocsr() if isinstance(cooc, GramCounts) else cooc


def count_table(
    df: pd.DataFrame,
    *,
    columns: Sequence[str] | None = None,
    handle_missing: str = "category",
    dense_limit: int = DENSE_LIMIT,
    before_count: Callable[[np.ndarray, int], None] | None = None,
    on_codes: Callable[[np.ndarray, list[np.ndarray]], None] | None = None,
    factor: bool = False,
) -> ValueStatistics:
    """:meth:`ValueStatistics.from_frame` of a table already checked by
    :func:`~catembed._utils._validation.as_frame`: factorise the columns, then count.
    ``on_codes(codes, categories)`` receives the factorisation (``fit_transform`` reuses
    it rather than factorise the table a second time)."""
    names = list(df.columns) if columns is None else [str(c) for c in columns]
    codes, cats = factorize_frame(df, names, handle_missing)  # Fortran order: by column
    if before_count is not None:
        before_count(np.array([len(c) for c in cats], dtype=np.int64), len(df))
    if on_codes is not None:
        on_codes(codes, cats)
    return ValueStatistics.from_codes(codes, cats, names, dense_limit=dense_limit,
                                      factor=factor)
