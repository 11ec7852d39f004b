"""The encoding baselines of CDE Table 1: one-hot (0-1), one-hot + PCA (0-1P) and IDF.

All three are fitted from the shared value statistics, so they stream like every other
method. One-hot gives the columns and names of
scikit-learn's :class:`~sklearn.preprocessing.OneHotEncoder` for the categories the statistics
found.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._validation import CatEmbedError
from ..base import ValueEmbedder
from ..stats._counting import DENSE_LIMIT
from ..stats._gram import GramCounts
from ..stats._value_statistics import ValueStatistics
from ._wide_axes import WideAxesMixin, leading_axes

__all__ = ["OneHotEmbedder", "OneHotPCA", "IDFEmbedder"]

_SHARED_DOC = """
    handle_unknown : {"error", "ignore", "warn"}, default="error"
        A value not seen in fit: raise, or embed as the zero vector (with a warning for
        ``"warn"``).
    handle_missing : {"category", "error"}, default="category"
        NaN, None and empty strings are a value of their own, or an error.
    categorical_features : "auto", "all", list or mask, default="auto"
        Columns to embed; other columns are dropped with a warning.
    numeric : {"drop", "discretize", "passthrough"}, default="drop"
        Numeric columns not selected as categorical: dropped with a warning; cut into
        ``n_bins`` quantile bins embedded as values (bins learned in ``fit``, NaN missing); or
        standardised and appended after the embedding (NaN becomes 0, the fitted mean).
    n_bins : int, default=5
        Quantile bins per numeric column for ``numeric="discretize"``.
    n_components, dtype :
        Compact output (a bounded width, float32): see :class:`catembed.ValueEmbedder`.
"""


class OneHotEmbedder(ValueEmbedder):
    """One-hot (0-1) encoding, the "0-1" column of CDE Table 1.

    Each attribute's value table is the identity, so a row's vector is the concatenation of
    its values' indicator vectors: what scikit-learn's ``OneHotEncoder`` gives (same columns,
    same names ``{column}_{value}``), with catembed's vocabulary (missing values, unseen
    values, column selection, streaming fit from statistics). The lookup is catembed's own,
    so any column the statistics accept (mixed ints and strings, bytes, dates with NaT) is
    encoded, where ``OneHotEncoder`` refuses mixed types.

    Parameters
    ----------
    min_frequency : int, float or None, default=None
        Values seen fewer than ``min_frequency`` times (a float: a fraction of the rows)
        are pooled into one ``infrequent`` value per column (scikit-learn's
        ``OneHotEncoder`` meaning), in the statistics, with a warning; at transform the
        pooled values get the infrequent value's vector.
    max_categories : int or None, default=None
        At most this many values per column (the infrequent value included); the least
        frequent are pooled.
        Default None (the cost is linear in the number of values).
    {shared}
    Attributes
    ----------
    categories_ : list of ndarray
    feature_names_ : ndarray of str
    n_features_in_ : int
    """

    _feature_prefix = "onehot"
    _table_shape = "square"

    def __init__(
        self,
        *,
        min_frequency: int | float | None = None,
        max_categories: int | None = None,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        n_components: int | None = None,
        dtype: Any = None,
    ) -> None:
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.n_components = n_components
        self.dtype = dtype

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray]:
        return [np.eye(len(c)) for c in self.categories_]

    # reads the value counts only: a table of few rows and many values keeps its
    # co-occurrences as their factor (n m ids), not as up to n m^2 / 2 stored pairs
    _prefers_factor = True

    def _cost_cells(self, sizes: np.ndarray) -> float:
        return float(np.sum(np.square(sizes)))  # the identity tables

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        return 0.0

    def _embedding_names(self) -> list[str]:
        """scikit-learn's ``OneHotEncoder`` names: ``{column}_{value}``."""
        return [f"{f}_{v}" for f, cats in zip(self.feature_names_, self.categories_, strict=True)
                for v in cats]


class OneHotPCA(WideAxesMixin, ValueEmbedder):
    """One-hot + PCA (0-1P), CDE Table 1, computed from the value statistics.

    The covariance of the one-hot matrix is ``C / n - p p^T`` (``C`` the co-occurrence counts),
    so the principal axes come from an ``l x l`` eigendecomposition and no ``n x l`` matrix is
    built. An object's score is ``(o - p) V``, a sum over its attributes of per-value rows, so
    ``transform`` adds value vectors instead of concatenating them.

    The beta rule (CDE spec: drop components whose range is below ``beta``) is applied to the
    components' standard deviation: a component is kept when its variance exceeds the
    numerical rank tolerance (``l * eps * largest eigenvalue``) and its standard deviation is at
    least ``beta``. (The range of a component over the objects is never smaller than its
    standard deviation, and a component with no variance has no range; the per-object range
    itself would need a second pass over the rows.)

    Parameters
    ----------
    n_components : int or None, default=None
        Keep at most this many components (after the beta rule); the first parameter, as
        in scikit-learn's ``PCA`` and in ``MCA`` and ``FAMD`` (``OneHotPCA(10)``).
    beta : float, default=1e-10
    min_frequency : int, float or None, default=None
        Values seen fewer than ``min_frequency`` times (a float: a fraction of the rows)
        are pooled into one ``infrequent`` value per column (scikit-learn's
        ``OneHotEncoder`` meaning), in the statistics, with a warning; at transform the
        pooled values get the infrequent value's vector.
    max_categories : int or None, default=100
        At most this many values per column (the infrequent value included); the least
        frequent are pooled.
        Default 100 (cost quadratic in the number of values: ``l x l`` matrices or per
        column tables); every data set of the papers has at most 41 values per column, so
        their results are unchanged.
    {shared}
    Attributes
    ----------
    components_ : ndarray of shape (l, r)
        Principal axes in value space.
    explained_variance_ : ndarray of shape (r,)
    eigenvalues_ : ndarray of shape (r,)
        The kept components' variances (as prince's ``eigenvalues_``).
    explained_inertia_ : ndarray of shape (r,)
        Their share of the one-hot table's total variance ``sum_v p_v (1 - p_v)``.
    n_components_ : int
    """

    _combine = "sum"
    _feature_prefix = "onehotpca"
    _table_shape = "common"
    _own_n_components = True
    #: ``n_components`` beyond the rank is clipped (no cost in the cost guard's size check)
    _clips_n_components = True

    def __init__(
        self,
        n_components: int | None = None,
        *,
        beta: float = 1e-10,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        dtype: Any = None,
    ) -> None:
        self.beta = beta
        self.n_components = n_components
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.dtype = dtype

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray]:
        n = stats.n_rows
        p = stats.probabilities()
        l_ = stats.n_values
        if self.n_components is not None and int(self.n_components) < 1:
            raise CatEmbedError("n_components must be at least 1.")
        found = None  # many values: the axes without the l x l matrix (_wide_axes)
        if isinstance(stats.cooc, GramCounts) or (l_ > DENSE_LIMIT
                                                  and self.n_components is not None):
            want = n - 1 if self.n_components is None else int(self.n_components)
            found = leading_axes(stats, max(1, min(want, l_)), float(n), np.ones(l_))
        if found is not None:
            evals, evecs = found
        else:
            cov = stats.cooc_dense() / n - np.outer(p, p)
            evals, evecs = np.linalg.eigh(cov)
            order = np.argsort(evals)[::-1]
            evals, evecs = evals[order], evecs[:, order]
        tol = max(evals[0], 0.0) * l_ * np.finfo(float).eps
        keep = (evals > tol) & (np.sqrt(np.maximum(evals, 0)) >= self.beta)
        evals, evecs = evals[keep], evecs[:, keep]
        if evecs.shape[1] == 0:
            raise CatEmbedError("0-1P kept no principal component; lower beta.")
        if self.n_components is not None:
            evals, evecs = evals[: self.n_components], evecs[:, : self.n_components]
        # deterministic signs: largest |entry| of each axis positive (as svd_flip does)
        big = np.argmax(np.abs(evecs), axis=0)
        evecs = evecs * np.sign(evecs[big, np.arange(evecs.shape[1])])
        self.components_ = evecs
        self.explained_variance_ = evals * n / max(n - 1, 1)
        self.n_components_ = evecs.shape[1]
        offs = stats.offsets
        tables = []
        for j in range(stats.n_features):
            block = evecs[offs[j] : offs[j + 1]]
            tables.append(block - p[offs[j] : offs[j + 1]] @ block)
        return tables

    @property
    def eigenvalues_(self) -> np.ndarray:
        """The kept components' variances (``explained_variance_``)."""
        return self.explained_variance_

    @property
    def explained_inertia_(self) -> np.ndarray:
        """Share of the total variance of the one-hot table carried by each component."""
        n = self.stats_.n_rows
        p = self.stats_.probabilities()
        total = float((p * (1 - p)).sum()) * n / max(n - 1, 1)
        return self.explained_variance_ / total

    def _extra_state(self):
        return {"components": self.components_, "explained_variance": self.explained_variance_}, {}

    def _restore_extra_state(self, arrays, meta):
        self.components_ = arrays["components"]
        self.explained_variance_ = arrays["explained_variance"]
        self.n_components_ = self.components_.shape[1]


class IDFEmbedder(ValueEmbedder):
    """Inverse document frequency encoding (IDF), CDE Table 1.

    The value ``v`` of attribute ``j`` is encoded as ``log(n / cnt(v))``: one column per
    attribute. An unseen value (``handle_unknown="ignore"``) gets 0.

    Parameters
    ----------
    min_frequency : int, float or None, default=None
        Values seen fewer than ``min_frequency`` times (a float: a fraction of the rows)
        are pooled into one ``infrequent`` value per column (scikit-learn's
        ``OneHotEncoder`` meaning), in the statistics, with a warning; at transform the
        pooled values get the infrequent value's vector.
    max_categories : int or None, default=None
        At most this many values per column (the infrequent value included); the least
        frequent are pooled.
        Default None (the cost is linear in the number of values).
    {shared}
    """

    _feature_prefix = "idf"
    _table_shape = "common"

    def __init__(
        self,
        *,
        min_frequency: int | float | None = None,
        max_categories: int | None = None,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        n_components: int | None = None,
        dtype: Any = None,
    ) -> None:
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.n_components = n_components
        self.dtype = dtype

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        return np.log(stats.n_rows / stats.counts.astype(float))[:, None]

    # reads the value counts only: a table of few rows and many values keeps its
    # co-occurrences as their factor (n m ids), not as up to n m^2 / 2 stored pairs
    _prefers_factor = True

    def _cost_cells(self, sizes: np.ndarray) -> float:
        return float(np.sum(sizes))

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        return 0.0

    def _embedding_names(self) -> list[str]:
        """``{column}__idf`` for each embedded column."""
        return [f"{f}__idf" for f in self.feature_names_]


for _cls in (OneHotEmbedder, OneHotPCA, IDFEmbedder):
    _cls.__doc__ = _cls.__doc__.replace("{shared}", _SHARED_DOC.strip("\n").lstrip())
