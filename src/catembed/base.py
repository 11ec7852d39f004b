"""The estimator base every value-level method shares: parameters, order of steps, state.

``fit``: validate the table once -> choose the columns and fit the numeric policy
(:mod:`catembed.stats._numeric`) -> :class:`~catembed.stats.ValueStatistics` (one pass over the
rows) -> prune and pool the value space, check the cost (:mod:`catembed.stats._pooling`) ->
:meth:`ValueEmbedder._fit_values`, which sees only the statistics and returns one value table per
attribute -> the output projection (:mod:`catembed.transform._projection`) -> the lookup
(:mod:`catembed.transform._lookup`). ``transform``: validate once -> encode each row's values ->
look their vectors up (concatenated over attributes, or summed for methods whose object vector is a
sum) -> append the numeric block. Nothing after the counting pass depends on the number of rows.
Dask inputs run the same steps as reductions (:mod:`catembed.transform._dask`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils.validation import check_is_fitted

from ._utils._params import (
    check_int,
    check_option,
    check_output_dtype,
    check_param_types,
    check_pooling,
    check_random_state_param,
)
from ._utils._threads import small_problem_threads
from ._utils._validation import (
    HANDLE_MISSING,
    HANDLE_UNKNOWN,
    NUMERIC_POLICIES,
    CatEmbedError,
    CatEmbedTypeError,
    ValidatedTable,
    categorical_input_tags,
    is_dask_collection,
    validate_training_table,
    validate_transform_input,
    warnings_at_caller,
)
from .stats._numeric import (
    NumericState,
    apply_numeric,
    fit_numeric,
    numeric_block,
    numeric_from_summaries,
    select_columns,
)
from .stats._pooling import check_cost_before_counting, check_fit_cost, prune_statistics
from .stats._value_statistics import ValueStatistics, count_table, require_statistics
from .transform._chunks import fit_chunks
from .transform._dask import DaskAwareTransformer, fit_dask
from .transform._lookup import LookupPlan, encode_values, keep_fit_codes, lookup_tables, table_codes
from .transform._names import (
    embedding_names,
    output_names,
    value_coordinates_frame,
    value_table_frame,
)
from .transform._projection import fit_output_projection

__all__ = ["ValueEmbedder"]


class ValueEmbedder(DaskAwareTransformer):
    """Base class: statistics in, one value table per attribute out, lookup at transform.

    Subclasses implement :meth:`_fit_values` and declare ``_combine`` (``"concat"``: the
    object vector concatenates its values' vectors; ``"sum"``: it adds them) and
    ``_feature_prefix`` (used in :meth:`get_feature_names_out`).

    Shared parameters (see ``docs/design.md``): ``handle_unknown`` in ``{"error", "ignore",
    "warn"}`` (an unseen value embeds as the zero vector), ``handle_missing`` in ``{"category",
    "error"}``, ``categorical_features`` (``"auto"``, ``"all"``, names, indices or a mask).
    Columns that are not categorical are dropped with a warning.

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

    ``transform`` gathers value vectors with a fused lookup
    (:class:`catembed.transform._lookup.LookupPlan`) into a preallocated block of that dtype; of a
    Dask DataFrame it returns a lazy one (:class:`catembed.transform._dask.DaskAwareTransformer`).
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
    # Every entry point runs the one sequence of steps of the module docstring.
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
        if is_dask_collection(X):
            return fit_dask(self, X)
        table = self._start_fit(X)
        self._set_numeric(fit_numeric(table.frame, table.numeric, self._numeric_policy(),
                                      self._n_bins()))
        stats = count_table(
            apply_numeric(table.frame, self.numeric_bins_), columns=table.categorical,
            handle_missing=self.handle_missing, before_count=self._check_cost_before_counting,
            on_codes=keep_fit_codes(self, X, table.categorical),  # within fit_transform
            factor=getattr(self, "_prefers_factor", False))  # see keeps_factor
        self._fit_statistics(stats)
        return self

    def fit_chunks(self, make_chunks: Any, *, verbose: bool = False) -> ValueEmbedder:
        """Fit on a table read chunk by chunk (a file larger than memory).

        Parameters
        ----------
        make_chunks : callable
            Returns a fresh iterable of DataFrame chunks of the table (e.g.
            ``lambda: catembed.io.iter_chunks(path, 1_000_000)``). Called once, or twice
            when a numeric policy (``"discretize"``, ``"passthrough"``) needs its exact
            mergeable summaries first (value counts, sums) before the counting pass.
        verbose : bool
            Show the rows counted so far, per pass, on a line of stderr (default: silent).

        Returns
        -------
        self
        """
        self._check_params()
        return fit_chunks(self, make_chunks, verbose)

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
        require_statistics(stats, "fit_statistics")
        names = list(feature_names_in) if feature_names_in is not None else list(
            stats.feature_names
        )
        self.n_features_in_ = len(names)
        self.feature_names_in_ = np.asarray(names, dtype=object)
        self.numeric_features_ = np.asarray([], dtype=object)
        self.numeric_bins_ = {}
        self._fit_statistics(stats)
        return self

    def _start_fit(self, X: Any, *, sample: bool = False) -> ValidatedTable:
        """Validate the input once, record its names, choose the columns to count.

        ``sample``: ``X`` is a sample of the table (its first chunk, or a Dask frame's
        ``_meta``), which may have no rows.
        """
        df = self._record_input(X, sample=sample)
        cat_cols, numeric = select_columns(df, self.categorical_features,
                                           self._numeric_policy(), type(self).__name__)
        self.numeric_features_ = np.asarray(numeric, dtype=object)
        return ValidatedTable(df, cat_cols, numeric)

    def _record_input(self, X: Any, *, sample: bool = False) -> pd.DataFrame:
        """Validate a training table (or a sample of one) and record its input names."""
        df, names = validate_training_table(X, sample=sample)
        self.n_features_in_ = df.shape[1]
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        return df

    def _set_numeric(self, state: NumericState) -> None:
        """Keep the fitted numeric policy as the estimator's ``numeric_*`` attributes."""
        self.numeric_bins_ = state.bins
        if state.mean is not None:
            self.numeric_mean_ = state.mean
            self.numeric_scale_ = state.scale

    def _set_numeric_from_summaries(self, summaries: Sequence[Any]) -> None:
        """The numeric policy from per-column mergeable summaries (chunks, partitions)."""
        self._set_numeric(numeric_from_summaries(
            [str(c) for c in self.numeric_features_], self._numeric_policy(),
            self._n_bins(), summaries))

    def _fit_statistics(self, stats: ValueStatistics) -> None:
        """The steps after counting: prune and pool the value space, check the cost, fit
        the value model, the output projection and the lookup."""
        stats, infrequent, constant = prune_statistics(self, stats)
        self.infrequent_categories_ = infrequent
        self.stats_ = stats
        self.feature_names_ = np.asarray(stats.feature_names, dtype=object)
        self.categories_ = [np.asarray(c, dtype=object) for c in stats.categories]
        self.dropped_features_ = np.asarray(constant, dtype=object)
        check_fit_cost(self, stats.sizes, n_output_rows=stats.n_rows)
        # every warning of the value model (scikit-learn's, or catembed's with a fixed
        # stacklevel) names the user's line (issue 21 item 15)
        with small_problem_threads(int(np.sum(stats.sizes))), warnings_at_caller():
            tables = self._fit_values(stats)
            self._set_tables(tables)
            self._fit_output_projection()

    def _check_cost_before_counting(self, sizes: np.ndarray, n_rows: int) -> None:
        """:func:`catembed.stats._pooling.check_cost_before_counting` of this estimator."""
        check_cost_before_counting(self, sizes, n_rows)

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray] | np.ndarray:
        """Learn the value tables from the statistics: override in subclasses.

        Return either an ``l x r`` array (every attribute gets its rows, ``r`` columns each) or
        a list of ``m`` arrays of shape ``(l_j, r_j)``.
        """
        raise NotImplementedError(
            f"{type(self).__name__} must implement _fit_values; use a subclass such as "
            "catembed.CDE."
        )

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
        if not self._own_n_components and k is not None:
            self._projection = fit_output_projection(self.stats_, self._tables, k,
                                                     self._combine)
        self._get_plan()

    # ------------------------------------------------------------------ parameters
    def _check_params(self) -> None:
        if type(self)._fit_values is ValueEmbedder._fit_values:  # issue 21 item 13
            raise CatEmbedTypeError(
                f"{type(self).__name__} is an abstract base class with no value model; fit a "
                "subclass such as catembed.CDE, catembed.OneHotEmbedder or catembed.MCA."
            )
        check_param_types(self)
        if "random_state" in self.get_params(deep=False):
            check_random_state_param(self.random_state)
        check_option("handle_unknown", self.handle_unknown, HANDLE_UNKNOWN)
        check_option("handle_missing", self.handle_missing, HANDLE_MISSING)
        check_option("numeric", self._numeric_policy(), NUMERIC_POLICIES)
        check_pooling(getattr(self, "min_frequency", None), getattr(self, "max_categories", None))
        check_int("n_bins", getattr(self, "n_bins", 5), minimum=2)
        self._output_dtype()
        if not self._own_n_components:
            check_int("n_components", getattr(self, "n_components", None), allow_none=True)

    def _output_dtype(self) -> np.dtype:
        """The output dtype: ``dtype``, or float32 in compact mode and float64 otherwise."""
        return check_output_dtype(getattr(self, "dtype", None),
                                  getattr(self, "n_components", None), self._compact_dtype)

    def _numeric_policy(self) -> str:
        return getattr(self, "numeric", "drop")

    def _n_bins(self) -> int:
        return int(getattr(self, "n_bins", 5))

    # ------------------------------------------------------------------ fitted state
    def _projection_part(self, name: str, index: int) -> np.ndarray:
        proj = getattr(self, "_projection", None)
        if proj is None:
            raise AttributeError(f"{name} exists only with n_components set.")
        return proj[index]

    @property
    def output_components_(self) -> np.ndarray:
        """The ``n_components`` principal axes in the object-vector space, shape ``(k, D)``.

        Only for an int ``n_components`` (otherwise an AttributeError).
        """
        return self._projection_part("output_components_", 0).T

    @property
    def output_explained_variance_(self) -> np.ndarray:
        """Variance of each output component over the training rows (``n - 1`` divisor)."""
        return self._projection_part("output_explained_variance_", 2)

    def _get_plan(self) -> LookupPlan:
        """The fused lookup of the fitted tables, built in ``fit`` (or once after loading)."""
        dtype = self._output_dtype()
        plan = getattr(self, "_plan_cache", None)
        if plan is None or plan.dtype != dtype:
            tables, combine = lookup_tables(self._tables, self._combine,
                                            getattr(self, "_projection", None))
            new = LookupPlan(tables, combine, dtype)
            if plan is None:  # not after set_params(dtype=...): transform keeps __dict__
                self._plan_cache = new
            return new
        return plan

    # ------------------------------------------------------------------ transform
    def _transform_array(self, X: Any, out: np.ndarray | None = None) -> np.ndarray:
        """The embedding of a table as an array: validate once, encode the values, look
        their vectors up, append the numeric block. ``out``: a preallocated block
        (``n x n_features_out``, the output dtype, any memory order) written in place."""
        check_is_fitted(self, "_tables")
        df = apply_numeric(self._validate_input(X, reset=False), self.numeric_bins_)
        own = type(self)._transform_codes is not ValueEmbedder._transform_codes
        looked_up = getattr(self, "_projection", None) is not None or not own
        codes = table_codes(self, df, X, narrow=looked_up)  # the fit's own in fit_transform
        extra = self._numeric_block(df)
        dtype = self._output_dtype()
        plan = self._get_plan()
        if not looked_up:
            z = self._transform_codes(codes, df)
            z = z if extra is None else np.hstack([z, extra])
            if out is None:
                return np.asarray(z, dtype=dtype)
            out[...] = z
            return out
        width = plan.width
        if out is None:
            out = LookupPlan.empty((codes.shape[0], width + (0 if extra is None else
                                                             extra.shape[1])), dtype)
        plan.in_memory(codes, out[:, :width] if extra is not None else out)
        if extra is not None:
            out[:, width:] = extra
        return out

    def _validate_input(self, X: Any, *, reset: bool) -> pd.DataFrame:
        """``X`` as a frame with the fitted column names, checked against the fitted input
        (``reset=True``: a training table, whose names are recorded)."""
        if reset:
            return self._record_input(X)
        return validate_transform_input(
            X, fitted_names=getattr(self, "feature_names_in_", None),
            n_features_in=self.n_features_in_, owner=type(self).__name__,
            unnamed_names=getattr(self, "feature_names_", None),
        )

    def _apply_numeric(self, df: pd.DataFrame) -> pd.DataFrame:
        """Replace numeric columns by their bin labels (``numeric="discretize"``)."""
        return apply_numeric(df, getattr(self, "numeric_bins_", {}))

    def _numeric_block(self, df: pd.DataFrame) -> np.ndarray | None:
        """Standardised numeric columns (``numeric="passthrough"``); NaN becomes 0."""
        features = getattr(self, "numeric_features_", [])
        if self._numeric_policy() != "passthrough" or not len(features):
            return None
        return numeric_block(df, features, self.numeric_mean_, self.numeric_scale_)

    def _transform_codes(self, codes: np.ndarray, df: pd.DataFrame) -> np.ndarray:
        """The embedding of encoded rows; the default looks up the value tables."""
        return self._lookup(codes)

    def _encode_values(self, X: Any) -> np.ndarray:
        """Codes of the fitted columns of ``X`` in ``categories_`` (``-1``: not seen in fit).

        Pooled rare values get the code of the infrequent value; no ``handle_unknown``
        policy is applied.
        """
        return encode_values(X, self.feature_names_, self.categories_,
                             getattr(self, "infrequent_categories_", None),
                             self.handle_missing)

    def _encode(self, df: pd.DataFrame) -> np.ndarray:
        """Codes of a validated frame, with the ``handle_unknown`` policy applied."""
        return table_codes(self, df)

    def _lookup(self, codes: np.ndarray) -> np.ndarray:
        """Gather and combine the value vectors of encoded rows (unknown code -1 -> 0)."""
        return self._get_plan()(codes)

    # ------------------------------------------------------------------ output
    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """Output feature names: ``{column}__{prefix}{k}`` per attribute and component.

        Methods whose object vector is a sum over attributes name components
        ``{prefix}{k}``.
        """
        check_is_fitted(self, "_tables")
        return output_names(self)

    def _embedding_names(self) -> list[str]:
        """Names of the embedding columns (before any passed-through numeric column)."""
        return embedding_names(self._tables, self._combine, self._feature_prefix,
                               self.feature_names_)

    @property
    def value_embedding_(self) -> pd.DataFrame:
        """The learned value table: one row per ``(column, value)``.

        For methods with one common width (CDE, CDE++, UNTIE...) the columns are the
        components; otherwise each attribute's block is padded with zeros to a common width.
        """
        check_is_fitted(self, "_tables")
        return value_table_frame(self._tables, self.stats_.value_index(), self._feature_prefix)

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
        return value_coordinates_frame(self._tables, self._combine, self._embedding_names(),
                                       self.stats_.value_index())

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
