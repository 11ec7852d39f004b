"""What users pick instead: multiple correspondence analysis (MCA) and FAMD, from statistics.

MCA (Greenacre, *Correspondence Analysis in Practice*, 3rd ed. 2017, ch. 18-19; Le Roux &
Rouanet 2010) is correspondence analysis of the ``n x J`` indicator matrix ``Z`` of a table of
``Q`` categorical attributes and ``J`` values. With ``P = Z / (n Q)``, row masses
``r = 1/n`` and column (value) masses ``c_v = cnt(v) / (n Q)``, the standardised residuals are
``S = D_r^-1/2 (P - r c^T) D_c^-1/2`` and MCA is the SVD ``S = U Sigma V^T``. Everything after
``Z`` needs only the ``J x J`` matrix

    ``S^T S = D_c^-1/2 (B / (n Q^2) - c c^T) D_c^-1/2``,

where ``B = Z^T Z`` is the Burt matrix, which is exactly the co-occurrence table
:class:`~catembed.stats.ValueStatistics` counts (``B[u, v] = cnt(u, v)``, ``B[v, v] = cnt(v)``).
So MCA is fitted after one counting pass, at any ``n``, chunk by chunk or on Dask, from
``fit_statistics``; its eigenvalues are ``Sigma^2`` (the principal inertias).

Row (object) principal coordinates ``F = D_r^-1/2 U Sigma = (Z / Q - 1 c^T) D_c^-1/2 V``; the
``1 c^T`` term vanishes on every non-trivial axis (``sqrt(c)`` is the trivial eigenvector,
orthogonal to the others), so an object's coordinates are the sum over its ``Q`` values of

    ``t_v = V[v] / (Q sqrt(c_v))``         (the transition formula, Greenacre Eq. 18.4),

a value-level lookup: :class:`MCA` is a :class:`~catembed.base.ValueEmbedder` with
``_combine = "sum"``. The value (column) principal coordinates are
``G = D_c^-1/2 V Sigma`` (``value_coordinates_``). Both equal ``prince.MCA``'s
``row_coordinates`` and ``column_coordinates`` up to the sign of each axis (the tests use
prince as the oracle at 1e-6). Missing values are a value of their own
(``handle_missing="category"``), so every row has exactly ``Q`` values; ``prince`` instead
drops them from the indicator matrix.

FAMD (Pagès 2004, *Analyse factorielle de données mixtes*, Revue de statistique appliquée
52(4); prince.FAMD) is the PCA of ``[standardised numeric columns, (Z - p) / sqrt(p)]``
(``p_v = cnt(v) / n``): its covariance is assembled from the same co-occurrence counts plus
per-value sums of the standardised numeric columns, so :class:`FAMD` too needs one pass.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._utils._eigh import top_eigh
from .._utils._params import check_int, check_option, check_pooling
from .._utils._validation import (
    CatEmbedError,
    CatEmbedWarning,
    as_frame,
    categorical_input_tags,
    check_table,
    is_frame,
    select_categorical,
    user_stacklevel,
    validate_transform_input,
)
from ..base import ValueEmbedder
from ..stats._counting import DENSE_LIMIT
from ..stats._encoding import encode
from ..stats._gram import GramCounts
from ..stats._numeric import check_finite_numbers, read_numbers
from ..stats._pooling import pool_rare_values, pooled_encoding
from ..stats._value_statistics import ValueStatistics, count_table
from ._wide_axes import WideAxesMixin, famd_axes, leading_axes

__all__ = ["FAMD", "MCA", "famd_embedder"]


def _top_eigen(M: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest eigenpairs of the symmetric ``M``, largest first, signs fixed so that
    each axis' largest-magnitude entry is positive (as scikit-learn's ``svd_flip``)."""
    size = M.shape[0]
    k = max(1, min(k, size))
    evals, evecs = top_eigh(M, k)  # LAPACK's subset may come back short (issue 52)
    evals, evecs = evals[::-1], evecs[:, ::-1]
    big = np.argmax(np.abs(evecs), axis=0)
    evecs = evecs * np.where(evecs[big, np.arange(evecs.shape[1])] < 0, -1.0, 1.0)
    return evals, evecs


class MCA(WideAxesMixin, ValueEmbedder):
    """Multiple correspondence analysis, fitted from the Burt matrix (value co-occurrences).

    The eigen-decomposition of ``D_c^-1/2 (B / (n Q^2) - c c^T) D_c^-1/2`` (module docstring;
    Greenacre 2017, ch. 18-19), ``B`` the co-occurrence counts of
    :class:`~catembed.stats.ValueStatistics`; an object's coordinates are the sum of its
    values' rows ``V[v] / (Q sqrt(c_v))``, equal to ``prince.MCA().row_coordinates`` up to
    the sign of each axis.

    Parameters
    ----------
    n_components : int, default=10
        Number of axes; at most the number of non-zero principal inertias (the rank,
        at most ``J - Q``). A larger value keeps the axes there are, with a
        ``CatEmbedWarning``: ``n_components_`` (as in scikit-learn's ``PCA``) is the
        number kept, and no output column is a zero-inertia axis (whose coordinate would
        be a meaningless constant).
    handle_unknown : {"error", "ignore", "warn"}, default="error"
        A value not seen in fit: raise, or let it add nothing (the zero vector).
    handle_missing : {"category", "error"}, default="category"
    categorical_features : "auto", "all", list or mask, default="auto"
    numeric : {"drop", "discretize", "passthrough"}, default="drop"
    n_bins : int, default=5
    min_frequency : int, float or None, default=None
        Values seen fewer than ``min_frequency`` times (a float: a fraction of the rows)
        are pooled into one ``infrequent`` value per column, in the Burt matrix, with a
        warning (scikit-learn's ``OneHotEncoder`` meaning).
    max_categories : int or None, default=100
        At most this many values per column (the infrequent value included). Default 100:
        the Burt matrix is ``J x J``, so memory is quadratic in the number of values. With
        at most 100 values per column (every data set of the papers) nothing is pooled and
        the coordinates equal prince's; ``None`` keeps every value, as prince does.

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components_,)
        Principal inertias ``sigma_k^2`` (prince's ``eigenvalues_``).
    total_inertia_ : float
        ``(J - Q) / Q``, the sum of all principal inertias. A constant column (dropped by
        fit, ``dropped_features_``) counts in ``Q`` and ``J``, as in prince, so the
        eigenvalues and coordinates equal prince's on such a table too.
    explained_inertia_ : ndarray of shape (n_components_,)
        ``eigenvalues_ / total_inertia_`` (prince's ``percentage_of_variance_ / 100``).
    value_coordinates_ : DataFrame of shape (J, n_components_)
        Value (column) principal coordinates ``G = D_c^-1/2 V Sigma``, indexed by
        ``(column, value)`` (prince's ``column_coordinates``).
    components_ : ndarray of shape (J, n_components_)
        The right singular vectors ``V``.
    n_components_ : int
    """

    _combine = "sum"
    #: ``n_components`` is MCA's own number of axes (no PCA of the value table on top), and
    #: the coordinates stay float64: they equal prince's to 1e-6
    _own_n_components = True
    #: ``n_components`` beyond the rank is clipped (no cost in the cost guard's size check)
    _clips_n_components = True
    _compact_dtype = np.float64
    _feature_prefix = "mca"

    def __init__(
        self,
        n_components: int = 10,
        *,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
    ) -> None:
        self.n_components = n_components
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.min_frequency = min_frequency
        self.max_categories = max_categories

    def _check_params(self) -> None:
        super()._check_params()
        check_int("n_components", self.n_components)

    def _n_attributes(self, stats: ValueStatistics) -> int:
        """``Q``: the fitted columns plus the constant ones fit dropped. A constant column
        adds nothing to any axis but counts in ``Q``, as in prince's indicator matrix."""
        return stats.n_features + len(getattr(self, "dropped_features_", ()))

    def _fit_statistics(self, stats: ValueStatistics) -> None:
        self._cap_at_rank = True  # MCA's own fit; LCME's MCA view keeps J - Q axes
        try:
            super()._fit_statistics(stats)
        finally:
            del self._cap_at_rank

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        k = check_int("n_components", self.n_components)
        n, q, J = stats.n_rows, self._n_attributes(stats), stats.n_values
        c = stats.counts.astype(np.float64) / (n * q)
        sc = np.sqrt(c)
        bound = J - stats.n_features  # the non-trivial axes (constant columns add none)
        found = None  # many values: the axes without the l x l matrix (_wide_axes)
        if J > DENSE_LIMIT or isinstance(stats.cooc, GramCounts):
            found = leading_axes(stats, max(1, min(k, bound)), n * q * q, 1.0 / sc)
        if found is not None:
            evals, V = found
        else:
            M = stats.cooc_dense().astype(np.float64) / (n * q * q)
            M -= np.outer(c, c)
            M /= sc[:, None]
            M /= sc[None, :]
            evals, V = _top_eigen(M, min(k, bound))
        # axes of zero inertia (beyond the rank) are no axes: their coordinates would be a
        # constant (the trivial axis) or noise; keep only the positive principal inertias
        tol = max(float(evals[0]), 0.0) * J * np.finfo(np.float64).eps
        keep = evals > tol if getattr(self, "_cap_at_rank", False) else np.ones(len(evals), bool)
        if not keep.any():
            raise CatEmbedError("MCA found no axis with non-zero inertia in this table.")
        evals, V = evals[keep], V[:, keep]
        if V.shape[1] < k:
            warnings.warn(
                f"n_components={k} is more than the {V.shape[1]} non-trivial MCA axes (non-zero "
                f"principal inertia) of this table (at most J - Q = {J} values - "
                f"{stats.n_features} attributes); keeping {V.shape[1]}.",
                CatEmbedWarning, stacklevel=user_stacklevel(),
            )
        self.components_ = V
        self.eigenvalues_ = evals
        self.total_inertia_ = bound / q
        self.explained_inertia_ = evals / self.total_inertia_
        self.n_components_ = V.shape[1]
        return V / (q * sc[:, None])

    @property
    def value_coordinates_(self) -> pd.DataFrame:
        """Value principal coordinates ``G = D_c^-1/2 V Sigma`` (prince's
        ``column_coordinates``), one row per ``(column, value)``."""
        check_is_fitted(self, "components_")
        st = self.stats_
        c = st.counts.astype(np.float64) / (st.n_rows * self._n_attributes(st))
        G = self.components_ / np.sqrt(c)[:, None] * np.sqrt(self.eigenvalues_)[None, :]
        return pd.DataFrame(G, index=st.value_index(),
                            columns=[f"mca{k}" for k in range(G.shape[1])])

    def _extra_state(self):
        return ({"components": self.components_, "eigenvalues": self.eigenvalues_},
                {"total_inertia": float(self.total_inertia_)})

    def _restore_extra_state(self, arrays, meta):
        self.components_ = arrays["components"]
        self.eigenvalues_ = arrays["eigenvalues"]
        self.total_inertia_ = float(meta["total_inertia"])
        self.explained_inertia_ = self.eigenvalues_ / self.total_inertia_
        self.n_components_ = self.components_.shape[1]


class FAMD(TransformerMixin, BaseEstimator):
    """Factor analysis of mixed data (Pagès 2004), from one pass of statistics.

    The PCA of ``Z = [x_std, (o - p) / sqrt(p)]``: numeric columns standardised (population
    standard deviation), each categorical value's indicator ``o_v`` centred and divided by
    ``sqrt(p_v)``, ``p_v = cnt(v) / n``, as ``prince.FAMD`` does. Its covariance
    ``Z^T Z / n`` has three blocks, all sums over rows: the numeric correlation matrix, the
    per-value sums of the standardised numeric columns (``E[x_k o_v] / sqrt(p_v)``) and the
    co-occurrence counts (``(C_uv / n - p_u p_v) / sqrt(p_u p_v)``). Row coordinates
    ``Z V`` = the numeric part times its loadings plus a value-level lookup, equal to
    ``prince.FAMD().row_coordinates`` on the training table up to the sign of each axis.
    A table with no numeric column gives the MCA axes (eigenvalues ``Q`` times MCA's).

    Parameters
    ----------
    n_components : int, default=10
    categorical_features : "auto", "all", list or mask, default="auto"
        The categorical columns; every other column must be numeric.
    handle_unknown : {"error", "ignore"}, default="error"
        A value not seen in fit: raise, or let it add nothing.
    handle_missing : {"category", "error"}, default="category"
        Missing categorical values are a value of their own; missing numbers become the
        mean (0 after standardising).
    min_frequency : int, float or None, default=None
        Values seen fewer than ``min_frequency`` times (a float: a fraction of the rows)
        are pooled into one ``infrequent`` value per column before the axes are found, as
        in :class:`MCA` (scikit-learn's ``OneHotEncoder`` meaning, with a warning).
    max_categories : int or None, default=100
        At most this many values per column (the rarest pooled); ``None`` keeps every value.
        Up to 4,096 numbers and values the covariance ``(p + J) x (p + J)`` is formed
        and decomposed; above, its leading axes come from one thin SVD of ``Z`` (fewer rows
        than a quarter of ``p + J``) or by Lanczos on its blocks
        (:func:`catembed.embed._wide_axes.famd_axes`).

    Attributes
    ----------
    eigenvalues_ : ndarray of shape (n_components_,)
    explained_inertia_ : ndarray of shape (n_components_,)
    components_ : ndarray of shape (p + J, n_components_)
    numeric_features_, categorical_features_ : list of str
    mean_, scale_ : ndarray
        Of the numeric columns.
    stats_ : ValueStatistics
        Of the categorical columns, after pooling.
    infrequent_categories_ : list
        Per categorical column, the values pooled into ``infrequent`` (``None``: none).
    """

    def __init__(self, n_components: int = 10, *, categorical_features: Any = "auto",
                 handle_unknown: str = "error", handle_missing: str = "category",
                 min_frequency: int | float | None = None,
                 max_categories: int | None = 100) -> None:
        self.n_components = n_components
        self.categorical_features = categorical_features
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.min_frequency = min_frequency
        self.max_categories = max_categories

    # cost model of check_fit_cost: a few (p + J) x (p + J) matrices and one eigen-
    # decomposition up to the dense limit; above it the axes of famd_axes (a thin SVD or
    # Lanczos), whose counts of few rows are kept as their factor
    _prefers_factor = True

    def _cost_cells(self, sizes: np.ndarray) -> float:
        q, l_ = len(self.numeric_features_), float(np.sum(sizes))
        if q + l_ <= DENSE_LIMIT:
            return 4.0 * (q + l_) ** 2
        return 64.0 * (q + l_) + q * l_ + 2.0**26

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        size = len(self.numeric_features_) + float(np.sum(sizes))
        return size**3 / 2e8 if size <= DENSE_LIMIT else 2e-9 * size * size

    # the embedders' cost check before counting (it reads max_categories and the two above)
    _check_cost_before_counting = ValueEmbedder._check_cost_before_counting

    def _codes(self, df: pd.DataFrame) -> np.ndarray:
        """Codes of the categorical columns in the (pooled) fitted values; -1: unseen."""
        cats, remap = pooled_encoding(list(self.stats_.categories), self.infrequent_categories_)
        codes = encode(df, self.categorical_features_, cats, self.handle_missing)
        for j, r in remap.items():
            codes[:, j] = np.where(codes[:, j] >= 0, r[np.maximum(codes[:, j], 0)], -1)
        return codes

    def _numeric(self, df: pd.DataFrame) -> np.ndarray:
        cols = self.numeric_features_
        if not cols:
            return np.zeros((len(df), 0))
        x = read_numbers(df, cols, "FAMD")
        check_finite_numbers(x, cols, "transform")
        z = (x - self.mean_) / self.scale_
        return np.where(np.isnan(z), 0.0, z)

    def fit(self, X: Any, y: Any = None) -> FAMD:
        """Count the statistics of ``X`` and find the principal axes."""
        k = check_int("n_components", self.n_components)
        check_pooling(self.min_frequency, self.max_categories)
        df = as_frame(X)
        check_table(self, df, reset=True)
        cat, num = select_categorical(df, self.categorical_features)
        if self.categorical_features == "auto" and set(cat) == set(df.columns):
            num = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])
                   and not pd.api.types.is_bool_dtype(df[c])]
            cat = [c for c in df.columns if c not in set(num)]
        self.n_features_in_ = df.shape[1]
        if is_frame(X):
            self.feature_names_in_ = np.asarray(df.columns, dtype=object)
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_  # a refit on an array: no stale names
        self.numeric_features_ = [str(c) for c in num]
        self.categorical_features_ = [str(c) for c in cat]
        if num:
            x = df[num].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
            check_finite_numbers(x, num, "fit")  # issue 21 item 9: SciPy's error named none
            self.mean_ = np.nanmean(x, axis=0)
            sd = np.nanstd(x, axis=0)
            self.scale_ = np.where(np.isfinite(sd) & (sd > 0), sd, 1.0)
        else:
            self.mean_ = self.scale_ = np.zeros(0)
        z = self._numeric(df)
        n = len(df)
        blocks_num = z.T @ z / n
        wide = None
        if cat:
            check_option("handle_missing", self.handle_missing, ("category", "error"))
            stats = count_table(df, columns=cat, handle_missing=self.handle_missing,
                                before_count=self._check_cost_before_counting, factor=True)
            self.stats_, self.infrequent_categories_ = pool_rare_values(self, stats)
            st = self.stats_
            codes = self._codes(df)
            offs = st.offsets
            p = st.counts.astype(np.float64) / n
            sp_ = np.sqrt(p)
            nc = np.zeros((len(num), st.n_values))
            sizes = st.sizes  # a property that builds its list: read once, not per column
            for j in range(st.n_features):
                for a in range(len(num)):
                    nc[a, offs[j]:offs[j + 1]] = np.bincount(
                        codes[:, j], weights=z[:, a], minlength=int(sizes[j])) / n
            nc /= sp_[None, :]
            self._p = p
            if len(num) + st.n_values > DENSE_LIMIT or isinstance(st.cooc, GramCounts):
                rank = len(num) + st.n_values - st.n_features
                wide = famd_axes(z, codes, st, nc, min(k, max(rank, 1)))
            if wide is None:
                cc = st.cooc_dense() / n - np.outer(p, p)
                cc /= sp_[:, None] * sp_[None, :]
                cov = np.block([[blocks_num, nc], [nc.T, cc]])
        else:
            self.stats_ = None
            self.infrequent_categories_ = []
            cov = blocks_num
            self._p = np.zeros(0)
        rank = len(num) + (self.stats_.n_values - self.stats_.n_features if cat else 0)
        k = min(k, max(rank, 1))
        if wide is None:
            evals, V = _top_eigen(cov, k)
            total = float(np.trace(cov))
        else:  # the trace: numeric variances plus sum_v (1 - p_v)
            evals, V = wide
            total = float(np.trace(blocks_num)) + float(np.sum(1.0 - self._p))
        self.components_ = V
        self.eigenvalues_ = np.maximum(evals, 0.0)
        self.total_inertia_ = total
        self.explained_inertia_ = self.eigenvalues_ / self.total_inertia_
        self.n_components_ = V.shape[1]
        # value-level lookup of the categorical part: t_v = (1 - p_v)/sqrt(p_v) V_v minus the
        # other values' centring; an object's categorical part is
        # sum_v (o_v - p_v)/sqrt(p_v) V_v = sum_{v in row} V_v / sqrt(p_v) - sum_v sqrt(p_v) V_v
        if cat:
            Vc = V[len(num):]
            self._value_table = Vc / np.sqrt(self._p)[:, None]
            self._offset = -(np.sqrt(self._p) @ Vc)
        return self

    def transform(self, X: Any) -> np.ndarray:
        """Row principal coordinates ``Z V`` of ``X``."""
        check_is_fitted(self, "components_")
        df = validate_transform_input(  # the embedders' checks: names, width, warnings
            X, fitted_names=getattr(self, "feature_names_in_", None),
            n_features_in=self.n_features_in_, owner="FAMD")
        missing = [c for c in (*self.numeric_features_, *self.categorical_features_)
                   if c not in df.columns]
        if missing:  # a frame fitted with integer labels, read with other names
            raise CatEmbedError(f"input lacks the fitted column(s): {', '.join(missing)}.")
        z = self._numeric(df)
        out = z @ self.components_[: len(self.numeric_features_)]
        if self.categorical_features_:
            st = self.stats_
            codes = self._codes(df)
            if (codes < 0).any() and self.handle_unknown == "error":
                bad = [self.categorical_features_[j]
                       for j in np.flatnonzero((codes < 0).any(axis=0))]
                raise CatEmbedError(
                    f"values not seen during fit in column(s) {', '.join(bad)}; use "
                    "handle_unknown='ignore' to let them add nothing."
                )
            offs = st.offsets
            out = out + self._offset
            table = np.vstack([self._value_table, np.zeros((1, self.n_components_))])
            for j in range(st.n_features):
                c = codes[:, j].astype(np.int64)
                out = out + table[np.where(c < 0, len(table) - 1, offs[j] + c)]
        return out

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """``famd0, famd1, ...``."""
        check_is_fitted(self, "components_")
        return np.asarray([f"famd{k}" for k in range(self.n_components_)], dtype=object)

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())


def famd_embedder(random_state: Any = None, **params: Any) -> FAMD:
    """A :class:`FAMD` for the evaluation protocol: categorical columns found by dtype, so a
    mixed table keeps its numeric columns numeric (``random_state`` unused: FAMD is
    deterministic)."""
    return FAMD(**params)
