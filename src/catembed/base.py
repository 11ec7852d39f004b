"""The estimator base every value-level method shares.

``fit``: validate the table -> :class:`~catembed.stats.ValueStatistics` (one pass over the
rows) -> :meth:`ValueEmbedder._fit_values`, which sees only the statistics and returns one
value table per attribute. ``transform``: encode each row's values and look their vectors up
(concatenated over attributes, or summed for methods whose object vector is a sum). Nothing
after the counting pass depends on the number of rows.
"""

from __future__ import annotations

import itertools
import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._lookup import LookupPlan
from ._params import check_option, check_param_types, check_pooling
from ._projection import object_pca
from ._threads import small_problem_threads
from ._validation import (
    HANDLE_MISSING,
    HANDLE_UNKNOWN,
    NUMERIC_POLICIES,
    CatEmbedError,
    CatEmbedWarning,
    as_frame,
    categorical_input_tags,
    select_categorical,
)
from .stats import DENSE_LIMIT, INFREQUENT, ValueStatistics, compute_statistics, encode

__all__ = ["ValueEmbedder", "object_pca"]


class ValueEmbedder(TransformerMixin, BaseEstimator):
    """Base class: statistics in, one value table per attribute out, lookup at transform.

    Subclasses implement :meth:`_fit_values` and declare ``_combine`` (``"concat"``: the
    object vector concatenates its values' vectors; ``"sum"``: it adds them) and
    ``_feature_prefix`` (used in :meth:`get_feature_names_out`).

    Shared parameters (see ``docs/design.md``): ``handle_unknown`` in ``{"error", "ignore",
    "warn"}`` (an unseen value embeds as the zero vector), ``handle_missing`` in
    ``{"category", "error"}``, ``categorical_features`` (``"auto"``, ``"all"``, names, indices
    or a mask). Columns that are not categorical are dropped with a warning.

    Output parameters, shared by every embedder (``docs/design.md``, "Compact output"):

    n_components : int or None, default=None
        ``None``: the paper's object vector (the concatenation of the value vectors, or their
        sum), whose width may depend on the data and, for CDE-like methods, on the seed. An
        int ``k``: the top ``k`` principal components of those object vectors, computed
        exactly from the value statistics (:func:`object_pca`: the covariance of the object
        vectors is ``T^T (C / n - p p^T) T`` for the block-diagonal value table ``T``), so it
        costs nothing per row; ``transform`` then adds one ``k``-vector per value. The
        result equals scikit-learn's ``PCA(k)`` fitted on the full training embedding (up to
        the sign of each component); the width is ``k`` whatever the seed (components
        beyond the rank are zero, with a warning).
    dtype : {None, numpy.float32, numpy.float64}, default=None
        Output dtype. ``None``: float32 when ``n_components`` is set (the compact mode:
        half the memory and disk; about 7 significant digits), float64 for the papers'
        concatenation (which the reproduction tables compare digit for digit).

    The transform gathers value vectors with a fused lookup (:class:`catembed._lookup.
    LookupPlan`) into a preallocated block of that dtype.
    """

    _combine = "concat"
    _feature_prefix = "emb"
    #: shape rule of the value tables, checked when a model file is loaded: ``"square"``
    #: (``l_j x l_j``), ``"common"`` (one width for every column) or None (no rule)
    _table_shape: str | None = None

    #: ``l^3`` operations per second of the value-level fit (:meth:`_cost_seconds`)
    _cost_rate = 2e8

    def _cost_cells(self, sizes: np.ndarray) -> float:
        """Float64 cells the value-level fit holds at once (default: four ``l x l``)."""
        return 4.0 * float(np.sum(sizes)) ** 2

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        """A rough fit time: ``l x l`` decompositions and clusterings, ``~l^3`` operations."""
        return float(np.sum(sizes)) ** 3 / self._cost_rate

    #: subclasses that implement ``n_components`` themselves (OneHotPCA, UNTIE)
    _own_n_components = False
    #: the output dtype that ``dtype=None`` means when ``n_components`` is set
    _compact_dtype = np.float32

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any = None) -> ValueEmbedder:
        """Count the value statistics of ``X`` and learn the value embedding.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Categorical table. Missing values are NaN, None or the empty string.
        y : None
            Ignored; present for API consistency.

        Returns
        -------
        self
        """
        self._check_params()
        if _is_dask_collection(X):
            return self._fit_dask(X)
        df = self._validate_input(X, reset=True)
        cat_cols = self._select_columns(df)
        df = self._fit_numeric(df)
        stats = compute_statistics(df, columns=cat_cols, handle_missing=self.handle_missing,
                                   before_count=self._check_cost_before_counting)
        self._fit_statistics(stats)
        return self

    def _fit_dask(self, ddf: Any) -> ValueEmbedder:
        """Fit on a Dask DataFrame without computing it (see ``docs/design.md``, "Dask").

        The statistics are counted partition by partition on the Dask scheduler and merged
        exactly (:func:`catembed.stats.compute_statistics`); the numeric policies reduce
        exact mergeable summaries: value counts for ``"discretize"`` (the quantiles equal
        ``numpy.quantile`` of the whole column), sums for ``"passthrough"``.
        """
        meta = as_frame(ddf._meta)
        cat_cols, numeric, policy = self._setup_from_sample(ddf._meta)
        summaries: list[Any] = []
        if numeric:
            import dask

            summaries = list(dask.compute(*[
                ddf[c].map_partitions(_numeric_summary, policy, meta=(c, "float64"))
                for c in numeric
            ]))
        self._set_numeric(summaries)
        if self.numeric_bins_:
            ddf = ddf.map_partitions(self._apply_numeric, meta=self._apply_numeric(meta))
        stats = compute_statistics(ddf[cat_cols], columns=cat_cols,
                                   handle_missing=self.handle_missing)
        self._fit_statistics(stats)
        return self

    def _setup_from_sample(self, sample: pd.DataFrame) -> tuple[list[str], list[str], str]:
        """Input names and column selection from a sample of the table (its first chunk, or
        a Dask frame's ``_meta``): ``(columns to count, numeric columns needing a summary
        pass, numeric policy)``."""
        meta = as_frame(sample)
        self.n_features_in_ = meta.shape[1]
        if all(isinstance(c, str) for c in sample.columns):
            self.feature_names_in_ = np.asarray(meta.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        cat_cols = self._select_columns(meta)
        policy = self._numeric_policy()
        numeric = [str(c) for c in self.numeric_features_] if policy in (
            "discretize", "passthrough") else []
        return cat_cols, numeric, policy

    def _set_numeric(self, summaries: Sequence[Any]) -> None:
        """The numeric policy's parameters from per-column mergeable summaries.

        ``summaries[i]`` is the concatenation over chunks of :func:`_numeric_summary` of
        ``numeric_features_[i]``: value counts (``"discretize"``: exact quantiles, equal to
        ``numpy.quantile`` of the whole column) or count, sum and sum of squares
        (``"passthrough"``).
        """
        self.numeric_bins_ = {}
        policy = self._numeric_policy()
        numeric = [str(c) for c in self.numeric_features_]
        if not numeric or policy == "drop":
            return
        if policy == "discretize":
            n_bins = int(getattr(self, "n_bins", 5))
            qs = np.linspace(0, 1, n_bins + 1)[1:-1]
            for c, vc in zip(numeric, summaries, strict=True):
                vc = vc.groupby(level=0).sum()
                self.numeric_bins_[c] = np.unique(quantiles_from_counts(vc, qs))
            return
        mean, scale = [], []
        for part in summaries:
            k, s1, s2 = (float(v) for v in np.asarray(part).reshape(-1, 3).sum(axis=0))
            mu = s1 / k if k else 0.0
            var = max(s2 / k - mu * mu, 0.0) if k else 0.0
            mean.append(mu)
            scale.append(np.sqrt(var) if var > 0 else 1.0)
        self.numeric_mean_ = np.asarray(mean)
        self.numeric_scale_ = np.asarray(scale)

    def fit_chunks(self, make_chunks: Any) -> ValueEmbedder:
        """Fit on a table read chunk by chunk (a file larger than memory).

        Parameters
        ----------
        make_chunks : callable
            Returns a fresh iterable of DataFrame chunks of the table (e.g.
            ``lambda: catembed.io.iter_chunks(path, 1_000_000)``). Called once, or twice
            when a numeric policy (``"discretize"``, ``"passthrough"``) needs its exact
            mergeable summaries first (value counts, sums) before the counting pass.

        Returns
        -------
        self
        """
        self._check_params()
        chunks = iter(make_chunks())
        try:
            first = next(chunks)
        except StopIteration:
            raise CatEmbedError("the input has no rows.") from None
        cat_cols, numeric, policy = self._setup_from_sample(first)
        summaries: list[Any] = []
        if numeric:
            parts: list[list[Any]] = [[] for _ in numeric]
            for chunk in itertools.chain([first], chunks):
                for i, c in enumerate(numeric):
                    parts[i].append(_numeric_summary(chunk[c], policy))
                    if policy == "discretize" and len(parts[i]) > 1:  # keep memory bounded
                        parts[i] = [pd.concat(parts[i]).groupby(level=0).sum()]
            summaries = [pd.concat(p) for p in parts]
            chunks = iter(make_chunks())
            first = None
        self._set_numeric(summaries)
        head = [] if first is None else [first]
        stream = (as_frame(self._apply_numeric(as_frame(c)))[cat_cols]
                  for c in itertools.chain(head, chunks))
        stats = compute_statistics(stream, columns=cat_cols,
                                   handle_missing=self.handle_missing)
        self._fit_statistics(stats)
        return self

    def _transform_dask(self, ddf: Any) -> Any:
        """``transform`` of a Dask DataFrame: a lazy Dask DataFrame, partition by partition."""
        check_is_fitted(self, "_tables")
        names = [str(n) for n in self.get_feature_names_out()]
        dtype = self._output_dtype()
        meta = pd.DataFrame({n: np.array([], dtype=dtype) for n in names},
                            index=ddf._meta.index[:0])
        return ddf.map_partitions(_transform_partition, self, names, meta=meta)

    def fit_statistics(
        self, stats: ValueStatistics, *, feature_names_in: Sequence[str] | None = None
    ) -> ValueEmbedder:
        """Fit from precomputed statistics (a streamed file, merged partitions).

        Parameters
        ----------
        stats : ValueStatistics
            Statistics of the categorical columns, e.g. from
            :func:`catembed.stats.compute_statistics` over chunks.
        feature_names_in : list of str, optional
            All input columns expected at transform time; default ``stats.feature_names``.

        Returns
        -------
        self
        """
        self._check_params()
        names = list(feature_names_in) if feature_names_in is not None else list(
            stats.feature_names
        )
        self.n_features_in_ = len(names)
        self.feature_names_in_ = np.asarray(names, dtype=object)
        self.numeric_features_ = np.asarray([], dtype=object)
        self.numeric_bins_ = {}
        self._fit_statistics(stats)
        return self

    def _check_params(self) -> None:
        check_param_types(self)
        check_option("handle_unknown", self.handle_unknown, HANDLE_UNKNOWN)
        check_option("handle_missing", self.handle_missing, HANDLE_MISSING)
        check_option("numeric", self._numeric_policy(), NUMERIC_POLICIES)
        check_pooling(getattr(self, "min_frequency", None), getattr(self, "max_categories", None))
        n_bins = getattr(self, "n_bins", 5)
        if not isinstance(n_bins, (int, np.integer)) or isinstance(n_bins, bool) or n_bins < 2:
            raise CatEmbedError(f"n_bins must be an integer of at least 2; got {n_bins!r}.")
        self._output_dtype()
        k = getattr(self, "n_components", None)
        if not self._own_n_components and k is not None and (
            not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1
        ):
            raise CatEmbedError(
                f"n_components must be None or a positive integer; got {k!r}."
            )

    def _output_dtype(self) -> np.dtype:
        """The output dtype: ``dtype``, or float32 in compact mode and float64 otherwise."""
        dtype = getattr(self, "dtype", None)
        if dtype is None:
            k = getattr(self, "n_components", None)
            return np.dtype(self._compact_dtype if k is not None else np.float64)
        try:
            resolved = np.dtype(dtype)
        except TypeError:
            resolved = None
        if resolved not in (np.dtype(np.float32), np.dtype(np.float64)):
            raise CatEmbedError(
                f"dtype must be None, numpy.float32 or numpy.float64; got {dtype!r}."
            )
        return resolved

    def _numeric_policy(self) -> str:
        return getattr(self, "numeric", "drop")

    def _select_columns(self, df: pd.DataFrame) -> list[str]:
        """The columns to count; sets ``numeric_features_`` for the numeric policy."""
        cat_cols, other = select_categorical(df, self.categorical_features)
        policy = self._numeric_policy()
        if (policy == "discretize" and not other and isinstance(self.categorical_features, str)
                and self.categorical_features == "auto"
                and all(_is_numeric(df[c]) for c in cat_cols)):
            # an all-numeric table: "auto" would read the numbers as categories; the user
            # asked for them to be binned
            cat_cols, other = [], cat_cols
        numeric = [c for c in other if _is_numeric(df[c])] if policy != "drop" else []
        dropped = [c for c in other if c not in numeric]
        if dropped:
            hint = (
                " Cast them to str or category, or list them in categorical_features, to embed "
                "them as categories"
                + (", or set numeric='discretize' or 'passthrough' for numeric columns."
                   if policy == "drop" else ".")
            )
            warnings.warn(
                f"{type(self).__name__} embeds categorical columns only; dropping "
                f"{len(dropped)} non-categorical column(s): {', '.join(map(str, dropped[:10]))}"
                f"{' ...' if len(dropped) > 10 else ''}." + hint,
                CatEmbedWarning,
                stacklevel=3,
            )
        self.numeric_features_ = np.asarray(numeric, dtype=object)
        if policy == "discretize":
            cat_cols = [c for c in df.columns if c in set(cat_cols) | set(numeric)]
        if not cat_cols:
            raise CatEmbedError("the input has no categorical columns to embed.")
        return cat_cols

    # ------------------------------------------------------------------ numeric columns
    def _fit_numeric(self, df: pd.DataFrame) -> pd.DataFrame:
        """Learn the numeric policy's parameters and apply it to ``df`` (see ``numeric``)."""
        self.numeric_bins_ = {}
        policy = self._numeric_policy()
        if policy == "discretize":
            n_bins = int(getattr(self, "n_bins", 5))
            qs = np.linspace(0, 1, n_bins + 1)[1:-1]
            for c in self.numeric_features_:
                x = _as_float(df[c])
                finite = x[np.isfinite(x)]
                edges = np.unique(np.quantile(finite, qs)) if finite.size else np.array([])
                self.numeric_bins_[str(c)] = edges
        elif policy == "passthrough" and len(self.numeric_features_):
            x = np.column_stack([_as_float(df[c]) for c in self.numeric_features_])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
                mean = np.nanmean(x, axis=0)
                scale = np.nanstd(x, axis=0)
            self.numeric_mean_ = np.nan_to_num(mean)
            self.numeric_scale_ = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
        return self._apply_numeric(df)

    def _apply_numeric(self, df: pd.DataFrame) -> pd.DataFrame:
        """Replace numeric columns by their bin labels (``numeric="discretize"``)."""
        bins = getattr(self, "numeric_bins_", {})
        if not bins:
            return df
        df = df.copy()
        for c, edges in bins.items():
            df[c] = bin_labels(_as_float(df[c]), edges)
        return df

    def _numeric_block(self, df: pd.DataFrame) -> np.ndarray | None:
        """Standardised numeric columns (``numeric="passthrough"``); NaN becomes 0."""
        if self._numeric_policy() != "passthrough" or not len(
            getattr(self, "numeric_features_", [])
        ):
            return None
        x = np.column_stack([_as_float(df[c]) for c in self.numeric_features_])
        z = (x - self.numeric_mean_) / self.numeric_scale_
        return np.where(np.isnan(z), 0.0, z)

    def _fit_statistics(self, stats: ValueStatistics) -> None:
        if stats.n_rows < 2:
            raise CatEmbedError(
                f"{type(self).__name__} needs at least 2 samples to fit; got "
                f"{stats.n_rows} sample{'s' if stats.n_rows != 1 else ''} "
                f"(n_samples = {stats.n_rows})."
            )
        id_like = [
            f
            for f, s in zip(stats.feature_names, stats.sizes, strict=True)
            if stats.n_rows >= 10 and s >= 0.9 * stats.n_rows
        ]
        if id_like:
            warnings.warn(
                f"column(s) {', '.join(id_like[:10])} look like identifiers (a distinct value "
                "in almost every row); they make the value space as large as the table and "
                "carry no coupling. Drop them (CLI: --drop).",
                CatEmbedWarning,
                stacklevel=4,
            )
        stats, infrequent = pool_rare_values(self, stats)
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
                stacklevel=4,
            )
        if len(keep) < len(sizes):
            stats = stats.subset(keep)
        self.infrequent_categories_ = [infrequent[j] for j in keep]
        self.stats_ = stats
        self.feature_names_ = np.asarray(stats.feature_names, dtype=object)
        self.categories_ = [np.asarray(c, dtype=object) for c in stats.categories]
        self.dropped_features_ = np.asarray(constant, dtype=object)
        check_fit_cost(self, stats.sizes)
        with small_problem_threads(int(np.sum(stats.sizes))):
            tables = self._fit_values(stats)
            self._set_tables(tables)
            self._fit_output_projection()

    def _check_cost_before_counting(self, sizes: np.ndarray, n_rows: int) -> None:
        """The cost check of :func:`check_fit_cost` from the distinct-value counts of the
        factorised columns, before the co-occurrence counts are allocated."""
        mc = getattr(self, "max_categories", None)
        pooled = np.minimum(sizes, mc + 1) if mc is not None else sizes
        check_fit_cost(self, np.asarray(pooled, dtype=np.int64), n_rows=n_rows,
                       counted_sizes=np.asarray(sizes, dtype=np.int64))

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray] | np.ndarray:
        """Learn the value tables from the statistics: override in subclasses.

        Return either an ``l x r`` array (every attribute gets its rows, ``r`` columns each) or
        a list of ``m`` arrays of shape ``(l_j, r_j)``.
        """
        raise NotImplementedError

    def _set_tables(self, tables: list[np.ndarray] | np.ndarray) -> None:
        offs = np.concatenate([[0], np.cumsum([len(c) for c in self.categories_])])
        if isinstance(tables, np.ndarray):
            tables = [tables[offs[j] : offs[j + 1]] for j in range(len(self.categories_))]
        self._tables = [np.ascontiguousarray(t, dtype=np.float64) for t in tables]
        self._plan_cache = None

    def _fit_output_projection(self) -> None:
        """The ``n_components`` projection of the object vectors (see :func:`object_pca`)."""
        self._projection = None
        self._plan_cache = None
        k = getattr(self, "n_components", None)
        if self._own_n_components or k is None:
            self._get_plan()
            return
        components, mean, variance, rank = object_pca(
            self.stats_, self._tables, int(k), combine=self._combine
        )
        if rank < int(k):
            warnings.warn(
                f"n_components={k} exceeds the number of components with non-zero variance "
                f"({rank}); the last {int(k) - rank} output column(s) are 0.",
                CatEmbedWarning,
                stacklevel=5,
            )
        self._projection = (components, mean, variance)
        self._get_plan()

    @property
    def output_components_(self) -> np.ndarray:
        """The ``n_components`` principal axes in the object-vector space, shape ``(k, D)``.

        Only for an int ``n_components`` (otherwise an AttributeError).
        """
        proj = getattr(self, "_projection", None)
        if proj is None:
            raise AttributeError("output_components_ exists only with n_components set.")
        return proj[0].T

    @property
    def output_explained_variance_(self) -> np.ndarray:
        """Variance of each output component over the training rows (``n - 1`` divisor)."""
        proj = getattr(self, "_projection", None)
        if proj is None:
            raise AttributeError(
                "output_explained_variance_ exists only with n_components set."
            )
        return proj[2]

    def _lookup_tables(self) -> tuple[list[np.ndarray], str]:
        """Per-attribute tables with an unknown-value row last, and how they combine."""
        proj = getattr(self, "_projection", None)
        if proj is None:
            tables = [np.vstack([t, np.zeros((1, t.shape[1]))]) for t in self._tables]
            return tables, self._combine
        components, mean, _ = proj
        tables = []
        start = 0
        for j, t in enumerate(self._tables):
            if self._combine == "sum":
                block = t @ components
            else:
                block = t @ components[start : start + t.shape[1]]
                start += t.shape[1]
            block = np.vstack([block, np.zeros((1, block.shape[1]))])
            if j == 0:  # centring: subtract the projected mean once per row
                block = block - mean @ components
            tables.append(block)
        return tables, "sum"

    def _get_plan(self) -> LookupPlan:
        """The fused lookup of the fitted tables, built in ``fit`` (or once after loading)."""
        dtype = self._output_dtype()
        plan = getattr(self, "_plan_cache", None)
        if plan is None or plan.dtype != dtype:
            tables, combine = self._lookup_tables()
            new = LookupPlan(tables, combine, dtype)
            if plan is None:  # not after set_params(dtype=...): transform keeps __dict__
                self._plan_cache = new
            return new
        return plan

    # ------------------------------------------------------------------ transform
    def transform(self, X: Any) -> np.ndarray:
        """Embed each row: look up its values' vectors.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_features_out)
        """
        check_is_fitted(self, "_tables")
        df = self._validate_input(X, reset=False)
        df = self._apply_numeric(df)
        codes = self._encode(df)
        extra = self._numeric_block(df)
        dtype = self._output_dtype()
        if getattr(self, "_projection", None) is not None:
            width = self._get_plan().width
        else:
            out = self._transform_codes(codes, df)
            if extra is None:
                return np.asarray(out, dtype=dtype)
            return np.hstack([out, extra]).astype(dtype, copy=False)
        block = np.empty((codes.shape[0], width + (0 if extra is None else extra.shape[1])),
                         dtype=dtype)
        self._get_plan()(codes, out=block[:, :width] if extra is not None else block)
        if extra is not None:
            block[:, width:] = extra
        return block

    def _transform_codes(self, codes: np.ndarray, df: pd.DataFrame) -> np.ndarray:
        """The embedding of encoded rows; the default looks up the value tables."""
        return self._lookup(codes)

    def _encode_values(self, X: Any) -> np.ndarray:
        """Codes of the fitted columns of ``X`` in ``categories_`` (``-1``: not seen in fit).

        Pooled rare values get the code of the infrequent value; no ``handle_unknown``
        policy is applied.
        """
        cats, remap = pooled_encoding(self.categories_,
                                      getattr(self, "infrequent_categories_", None))
        codes = encode(X, list(self.feature_names_), cats, self.handle_missing)
        for j, r in remap.items():  # pooled values -> the infrequent value's code
            codes[:, j] = np.where(codes[:, j] >= 0, r[np.maximum(codes[:, j], 0)], -1)
        return codes

    def _encode(self, df: pd.DataFrame) -> np.ndarray:
        codes = self._encode_values(df)
        unknown = codes < 0
        if unknown.any():
            bad = np.flatnonzero(unknown.any(axis=0))
            names = self.feature_names_
            detail = "; ".join(
                f"{names[j]!s}: {_first_unknown(df, names[j], codes[:, j])!r}" for j in bad[:5]
            )
            msg = (
                f"{int(unknown.sum())} value(s) not seen during fit in column(s) "
                f"{', '.join(map(str, self.feature_names_[bad]))} (e.g. {detail})"
            )
            if self.handle_unknown == "error":
                raise CatEmbedError(
                    msg + "; use handle_unknown='ignore' to embed them as the zero vector."
                )
            if self.handle_unknown == "warn":
                warnings.warn(msg + "; embedded as the zero vector.", CatEmbedWarning,
                              stacklevel=4)
        return codes

    def _lookup(self, codes: np.ndarray) -> np.ndarray:
        """Gather and combine the value vectors of encoded rows (unknown code -1 -> 0)."""
        return self._get_plan()(codes)

    # ------------------------------------------------------------------ validation
    def _validate_input(self, X: Any, *, reset: bool) -> pd.DataFrame:
        has_names = isinstance(X, pd.DataFrame) and all(
            isinstance(c, str) for c in X.columns
        )
        if reset:
            df = as_frame(X)
            if df.shape[0] == 0:
                raise CatEmbedError(
                    f"Found array with 0 sample(s) (shape={df.shape}) while a minimum of 2 "
                    "is required."
                )
            if df.shape[1] == 0:
                raise CatEmbedError(
                    f"Found array with 0 feature(s) (shape={df.shape}) while a minimum of 1 "
                    "is required."
                )
            self.n_features_in_ = df.shape[1]
            if has_names:
                self.feature_names_in_ = np.asarray(df.columns, dtype=object)
            elif hasattr(self, "feature_names_in_"):
                del self.feature_names_in_
            return df
        fitted_names = getattr(self, "feature_names_in_", None)
        if has_names and fitted_names is None:
            warnings.warn(
                f"X has feature names, but {type(self).__name__} was fitted without feature "
                "names",
                UserWarning,
                stacklevel=3,
            )
        if not has_names and fitted_names is not None and isinstance(X, pd.DataFrame) is False:
            if not _is_ours(fitted_names):
                warnings.warn(
                    f"X does not have valid feature names, but {type(self).__name__} was "
                    "fitted with feature names",
                    UserWarning,
                    stacklevel=3,
                )
        if has_names and fitted_names is not None:
            cols = list(X.columns)
            if cols != list(fitted_names):
                missing = [c for c in fitted_names if c not in cols]
                if missing or len(cols) != len(fitted_names):
                    extra = [c for c in cols if c not in set(fitted_names)]
                    raise CatEmbedError(
                        "The feature names should match those that were passed during fit.\n"
                        + (f"Feature names unseen at fit time: {extra[:10]}\n" if extra else "")
                        + (f"Feature names seen at fit time, yet now missing: {missing[:10]}\n"
                           if missing else "")
                    )
                raise CatEmbedError(
                    "The feature names should match those that were passed during fit.\n"
                    "Feature names must be in the same order as they were in fit.\n"
                )
        names = list(fitted_names) if fitted_names is not None else None
        df = as_frame(X, columns=names)
        if df.shape[1] != self.n_features_in_:
            raise CatEmbedError(
                f"X has {df.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input."
            )
        if not has_names:
            if fitted_names is not None:
                names = list(fitted_names)
            elif isinstance(X, pd.DataFrame):  # non-string labels, e.g. 0, 1, 2: as in fit
                names = [str(c) for c in X.columns]
            else:
                names = [f"x{i}" for i in range(df.shape[1])]
            df = df.set_axis(names, axis=1)
        return df

    # ------------------------------------------------------------------ output
    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Output feature names: ``{column}__{prefix}{k}`` per attribute and component.

        Methods whose object vector is a sum over attributes name components
        ``{prefix}{k}``.
        """
        check_is_fitted(self, "_tables")
        if getattr(self, "_projection", None) is not None:
            k = self._projection[0].shape[1]
            names = [f"{self._feature_prefix}{i}" for i in range(k)]
        else:
            names = list(self._embedding_names())
        if self._numeric_policy() == "passthrough":
            names += [str(c) for c in getattr(self, "numeric_features_", [])]
        return np.asarray(names, dtype=object)

    def _embedding_names(self) -> list[str]:
        """Names of the embedding columns (before any passed-through numeric column)."""
        if self._combine == "sum":
            width = self._tables[0].shape[1] if self._tables else 0
            return [f"{self._feature_prefix}{k}" for k in range(width)]
        names = []
        for f, t in zip(self.feature_names_, self._tables, strict=True):
            names.extend(f"{f}__{self._feature_prefix}{k}" for k in range(t.shape[1]))
        return names

    @property
    def value_embedding_(self) -> pd.DataFrame:
        """The learned value table: one row per ``(column, value)``.

        For methods with one common width (CDE, CDE++, UNTIE...) the columns are the
        components; otherwise each attribute's block is padded with zeros to a common width.
        """
        check_is_fitted(self, "_tables")
        width = max(t.shape[1] for t in self._tables)
        rows = [
            np.hstack([t, np.zeros((t.shape[0], width - t.shape[1]))]) for t in self._tables
        ]
        index = self.stats_.value_index()
        return pd.DataFrame(
            np.vstack(rows), index=index,
            columns=[f"{self._feature_prefix}{k}" for k in range(width)],
        )

    @property
    def value_coordinates_(self) -> pd.DataFrame:
        """Each value as a point of the object space (prince's column coordinates).

        One row per ``(column, value)``, one column per embedding dimension (named as
        :meth:`get_feature_names_out`): the vector the value adds to an object's embedding,
        i.e. its attribute's block with zeros elsewhere when vectors are concatenated, its
        row of the value table when they are summed. For every method whose ``transform`` is
        a lookup (all but UNTIE's and the one-hot encoder's own paths), an object's
        embedding is the sum of its values' rows. Used by :func:`catembed.plot.values`.
        """
        check_is_fitted(self, "_tables")
        names = self._embedding_names()
        if self._combine == "sum":
            data = np.vstack(self._tables)
        else:
            data = np.zeros((sum(t.shape[0] for t in self._tables), len(names)))
            r = c = 0
            for t in self._tables:
                data[r : r + t.shape[0], c : c + t.shape[1]] = t
                r, c = r + t.shape[0], c + t.shape[1]
        return pd.DataFrame(data, index=self.stats_.value_index(), columns=names)

    # ------------------------------------------------------------------ persistence
    def save(self, path: Any) -> None:
        """Save the fitted model to ``path`` (a ``.npz`` file that cannot execute code).

        See :func:`catembed.persist.save`.
        """
        from .persist import save

        save(self, path)

    @classmethod
    def load(cls, path: Any) -> ValueEmbedder:
        """Load a model saved with :meth:`save` (see :func:`catembed.persist.load`)."""
        from .persist import load

        est = load(path)
        if not isinstance(est, cls):
            raise CatEmbedError(
                f"{path} holds a {type(est).__name__}, not a {cls.__name__}."
            )
        return est

    def _extra_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        """Arrays and JSON metadata beyond the statistics and value tables (for saving)."""
        return {}, {}

    def _restore_extra_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        """Inverse of :meth:`_extra_state`."""

    def __sklearn_tags__(self):  # noqa: D105
        tags = categorical_input_tags(super().__sklearn_tags__())
        try:  # the output dtype is a parameter, whatever the input's
            tags.transformer_tags.preserves_dtype = [self._output_dtype().name]
        except CatEmbedError:
            pass
        return tags


def _is_dask_collection(X: Any) -> bool:
    return type(X).__module__.startswith("dask") and hasattr(X, "map_partitions")


def _transform_partition(part: pd.DataFrame, est: ValueEmbedder, names: list[str]
                         ) -> pd.DataFrame:
    z = _RAW_TRANSFORM(est, part)
    return pd.DataFrame(z, columns=names, index=part.index, copy=False)


def _numeric_summary(col: pd.Series, policy: str) -> pd.Series:
    """A mergeable summary of one chunk of a numeric column (see ``_set_numeric``)."""
    x = _as_float(col)
    if policy == "discretize":
        return pd.Series(x[np.isfinite(x)]).value_counts(sort=False).astype(np.float64)
    x = x[~np.isnan(x)]
    return pd.Series([float(x.size), float(x.sum()), float((x * x).sum())])


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


def _is_numeric(col: pd.Series) -> bool:
    return pd.api.types.is_numeric_dtype(col.dtype) and not pd.api.types.is_bool_dtype(col.dtype)


def _as_float(col: pd.Series) -> np.ndarray:
    return pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)


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


def _is_ours(names: np.ndarray) -> bool:
    """Names we gave a NumPy input ourselves (x0, x1, ...) need no warning."""
    return all(str(n) == f"x{i}" for i, n in enumerate(names))


def _first_unknown(df: pd.DataFrame, column: str, codes: np.ndarray) -> Any:
    i = int(np.flatnonzero(codes < 0)[0])
    return df[column].iloc[i]


def _memory_limit() -> float:
    """Bytes a fit may plan to use: ``CATEMBED_MAX_MEMORY`` (e.g. ``8G``) or half the RAM."""
    env = os.environ.get("CATEMBED_MAX_MEMORY", "").strip().upper()
    if env:
        scale = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(env[-1], 1)
        try:
            return float(env.rstrip("KMGTB") or "0") * scale
        except ValueError:
            raise CatEmbedError(
                f"CATEMBED_MAX_MEMORY={env!r} is not a size such as 8G or 500M."
            ) from None
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return 8.0 * 2**30


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
    warnings.warn(
        f"{type(est).__name__} pooled rare values into one 'infrequent' value per column "
        f"({rule}): {'; '.join(parts[:5])}{' ...' if len(parts) > 5 else ''}. "
        "Set max_categories=None and min_frequency=None to keep every "
        "value (the cost grows with the square of the number of values), or drop "
        "identifier-like columns (CLI: --drop).",
        CatEmbedWarning,
        stacklevel=5,
    )
    return stats.pool(masks), infrequent


def pooled_encoding(
    categories: list[np.ndarray], infrequent: list[np.ndarray | None] | None
) -> tuple[list[np.ndarray], dict[int, np.ndarray]]:
    """Categories to encode raw values against (each pooled value listed again in place of
    :data:`INFREQUENT`), and per pooled column the map from those codes to the fitted ones."""
    cats = list(categories)
    remap: dict[int, np.ndarray] = {}
    for j, inf in enumerate(infrequent or []):
        if inf is None or not len(inf):
            continue
        c = categories[j]
        where = next(i for i, v in enumerate(c) if v is INFREQUENT)
        has_nan = len(c) > where + 1
        cats[j] = np.concatenate([c[:where], inf, c[where + 1:]]).astype(object)
        r = np.arange(len(cats[j]))
        r[where : where + len(inf)] = where
        if has_nan:
            r[-1] = where + 1
        remap[j] = r
    return cats, remap


def check_fit_cost(
    est: Any, sizes: np.ndarray, *, n_rows: int | None = None,
    counted_sizes: np.ndarray | None = None,
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
    """
    sizes = np.asarray(sizes, dtype=np.float64)
    need = 8.0 * float(est._cost_cells(sizes))
    seconds = float(est._cost_seconds(sizes))
    if n_rows is not None and counted_sizes is not None:
        lc = float(np.sum(counted_sizes))
        m = float(len(counted_sizes))
        pairs = m * (m - 1) / 2
        need = max(need, 8.0 * lc * lc if lc <= DENSE_LIMIT else 48.0 * n_rows * pairs)
        seconds += pairs * 2e-5 + n_rows * pairs * 2e-8
    limit = _memory_limit()
    max_seconds = float(os.environ.get("CATEMBED_MAX_SECONDS", "") or 12 * 3600)
    name = type(est).__name__
    what = f"{name} on {int(sizes.sum())} distinct values in {len(sizes)} columns"
    hint = ("pool rare values (min_frequency=, max_categories=), drop identifier-like "
            "columns (CLI: --drop), or read numeric columns as numbers (CLI: --numeric)")
    if need > limit:
        raise CatEmbedError(
            f"{what} would need about {need / 2**30:.1f} GiB (limit {limit / 2**30:.1f} GiB, "
            f"CATEMBED_MAX_MEMORY); {hint}."
        )
    if seconds > max_seconds:
        raise CatEmbedError(
            f"{what} would take about {seconds / 3600:.0f} hours (limit "
            f"{max_seconds / 3600:.1f} hours, CATEMBED_MAX_SECONDS); {hint}."
        )
    if seconds > 120:
        warnings.warn(
            f"{what} may take {seconds / 60:.0f} minutes or more; to be faster, {hint}.",
            CatEmbedWarning,
            stacklevel=5,
        )


# keep the dense limit importable from here for estimators that expose it
__all__ += ["DENSE_LIMIT"]


# Dask: ``transform`` and ``fit_transform`` return a lazy Dask DataFrame for a Dask input,
# bypassing scikit-learn's set_output wrapper (which would build a pandas frame from it); the
# partitions are computed with the unwrapped transform and named as set_output would.
_RAW_TRANSFORM = ValueEmbedder.transform.__wrapped__
_WRAPPED_TRANSFORM = ValueEmbedder.transform
_WRAPPED_FIT_TRANSFORM = ValueEmbedder.fit_transform


def _dask_aware_transform(self: ValueEmbedder, X: Any) -> Any:
    if _is_dask_collection(X):
        return self._transform_dask(X)
    return _WRAPPED_TRANSFORM(self, X)


def _dask_aware_fit_transform(self: ValueEmbedder, X: Any, y: Any = None, **params: Any
                              ) -> Any:
    if _is_dask_collection(X):
        return self.fit(X, y, **params)._transform_dask(X)
    return _WRAPPED_FIT_TRANSFORM(self, X, y, **params)


_dask_aware_transform.__doc__ = _RAW_TRANSFORM.__doc__
_dask_aware_transform.__wrapped__ = _RAW_TRANSFORM  # type: ignore[attr-defined]
_dask_aware_fit_transform.__doc__ = _WRAPPED_FIT_TRANSFORM.__doc__
ValueEmbedder.transform = _dask_aware_transform  # type: ignore[method-assign]
ValueEmbedder.fit_transform = _dask_aware_fit_transform  # type: ignore[method-assign]
