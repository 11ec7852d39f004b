"""The k-prototypes estimator (Huang 1998) for mixed numeric and categorical data.

Shares k-modes' checks, initial rows and iterations (:mod:`catembed.cluster.kmodes`,
:mod:`catembed.cluster._kmodes_core`); adds the squared Euclidean part of the numeric
columns, weighted against the categorical part by ``gamma``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._utils._validation import (
    CatEmbedError,
    CatEmbedWarning,
    _is_categorical_dtype,
    as_frame,
    categorical_input_tags,
    is_frame,
    select_categorical,
    warnings_at_caller,
)
from ..stats._numeric import read_numbers
from ._kmodes_core import _cat_distances, _histograms, _padded_tables, _sq_dist, kmodes_lloyd
from .kmodes import _SHARED, _Base

__all__ = ["KPrototypes"]

# Largest numeric magnitude KPrototypes accepts: squared Euclidean distances between such
# numbers (and their sums over columns) stay finite in float64 (max ~1.8e308).
_MAX_NUMERIC = 1e150


class KPrototypes(_Base):
    """k-prototypes (Huang 1998) for mixed numeric and categorical data.

    Cost ``sum_i ||x_i^num - mu_c||^2 + gamma * sum_j T_j[x_ij, z_cj]`` (Huang 1998, Eq. 9,
    with any value distance table in place of the mismatch). Numeric columns are used as
    given: standardise them first if their scales differ (the thesis does).

    A table with one kind of column only is the cost with the other part empty, so ``gamma``
    plays no part (``gamma_`` is 1.0): with no categorical column (an all-numeric table under
    ``categorical_features="auto"``) it is k-means (Lloyd's iterations from the chosen
    initial rows; ``"cao"`` is then the farthest-first traversal from the first row), with
    no numeric column it is :class:`KModes` with the same parameters (same labels and cost).

    Parameters
    ----------
    n_clusters : int, default=8
        As in :class:`KModes` (at most ``n_samples``; fewer distinct rows: a warning).
    gamma : float >= 0 or None, default=None
        Weight of the categorical part (finite, not negative); ``None``: half the mean
        standard deviation of the numeric columns (Huang's suggestion, also the ``kmodes``
        package's default), with a ``CatEmbedWarning`` when a numeric column's standard
        deviation is outside [0.1, 10] (not standardised: its squared distance then swamps
        the categorical part).
    metric, init, n_init, max_iter, sigma, random_state : as in :class:`KModes`
        Initial prototypes are distinct rows of the table (numeric and categorical values);
        the initialisations use the k-prototypes distance (Cao's density stays categorical).
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
    categorical_features : "auto", "all", list or mask, default="auto"
        The categorical columns; every other column must be numeric. ``"auto"``: the
        object, string, category and bool columns (a table with none has no categorical
        column here, unlike the embedders' ``"auto"``).

    Attributes
    ----------
    labels_, cost_, n_iter_ : as in :class:`KModes`
    distance_ : CategoricalDistance or None
        As in :class:`KModes`; ``None`` when no categorical column varies.
    cluster_centroids_ : ndarray of object, shape (n_clusters, n_features_in_)
        Numeric means followed by categorical modes (``numeric_features_`` then
        ``categorical_features_``; a constant categorical column holds its single value).
    centers_ : ndarray of shape (n_clusters, n_numeric)
    modes_ : ndarray of int, shape (n_clusters, len(distance_.feature_names_))
        Value codes of the non-constant categorical columns.
    numeric_features_, categorical_features_ : list of str
    gamma_ : float
    """

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        gamma: float | None = None,
        metric: str = "hamming",
        init: Any = "cao",
        n_init: int = 1,
        max_iter: int = 100,
        sigma: float = 1.0,
        random_state: Any = None,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
    ) -> None:
        self.n_clusters = n_clusters
        self.gamma = gamma
        self.metric = metric
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.sigma = sigma
        self.random_state = random_state
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features

    def _check(self) -> None:
        super()._check()
        g = self.gamma
        if g is not None and not (np.isfinite(g) and g >= 0):
            raise CatEmbedError(
                f"KPrototypes parameter gamma must be None or a finite number >= 0 (the "
                f"weight of the categorical part); got {g!r}."
            )

    def _split(self, X: Any) -> tuple[pd.DataFrame, list[str], list[str]]:
        df = as_frame(X)
        if not isinstance(X, (pd.DataFrame, pd.Series, np.ndarray)):
            df = df.infer_objects()  # lists have no dtype: a column of numbers is numeric
        if isinstance(self.categorical_features, str) and self.categorical_features == "auto":
            cat = [c for c in df.columns if _is_categorical_dtype(df[c].dtype)]
        else:
            cat, _ = select_categorical(df, self.categorical_features)
        num = [c for c in df.columns if c not in set(cat)]
        return df, cat, num

    def _numeric(self, df: pd.DataFrame) -> np.ndarray:
        arr = read_numbers(df, self.numeric_features_, "KPrototypes")
        if np.isnan(arr).any():
            col = self.numeric_features_[int(np.flatnonzero(np.isnan(arr).any(axis=0))[0])]
            raise CatEmbedError(
                f"KPrototypes numeric column {col!r} has missing values (NaN); impute or "
                "drop those rows, or list the column in categorical_features."
            )
        big = ~(np.abs(arr) <= _MAX_NUMERIC)
        if big.any():
            col = self.numeric_features_[int(np.flatnonzero(big.any(axis=0))[0])]
            raise CatEmbedError(
                f"KPrototypes numeric column {col!r} has infinite values or values beyond "
                f"+-{_MAX_NUMERIC:.0e}, whose squared distances overflow float64; drop those "
                "rows or rescale the column (e.g. standardise it or take its logarithm)."
            )
        return arr

    def fit(self, X: Any, y: Any = None) -> KPrototypes:
        """Cluster the rows of ``X``."""
        self._check()
        with warnings_at_caller(type(self).__name__):  # warnings name the user's line
            return self._fit(X)

    def _fit(self, X: Any) -> KPrototypes:
        df, cat, num = self._split(X)
        self._check_table(df, fit=True)
        self._set_input_names(X, df)
        self.numeric_features_ = num
        self.categorical_features_ = cat
        numeric = self._numeric(df)
        try:
            varies = [c for c in cat if df[c].nunique(dropna=False) > 1]
        except TypeError:  # unhashable values (lists, dicts): the distance's fit refuses them
            varies = list(cat)
        if varies:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", CatEmbedWarning)
                self.distance_ = self._distance(cat).fit(df[cat])
            codes = self.distance_.fit_codes_.astype(np.int64)
        else:  # no categorical column, or only constant ones: the k-means part alone
            self.distance_ = None
            codes = np.zeros((df.shape[0], 0), dtype=np.int64)
        self._set_centroid_columns(df, cat)
        if num and codes.shape[1]:
            self.gamma_ = (0.5 * float(numeric.std(axis=0).mean()) if self.gamma is None
                           else float(self.gamma))
            _warn_unscaled(numeric, num, self.gamma)
        else:
            self.gamma_ = 1.0  # one part is empty: the weight plays no part
        num_arg = numeric if num else None  # no numeric column: exactly KModes
        ptabs = [] if self.distance_ is None else _padded_tables(self.distance_.tables_)
        rough = self._rough_counts()
        rs = check_random_state(self.random_state)
        seeds = rs.randint(np.iinfo(np.int32).max, size=self.n_init)
        if not isinstance(self.init, str):
            raise CatEmbedError("KPrototypes init must be 'cao', 'huang' or 'random'.")
        k = self._n_starts(codes, num_arg)
        best = None
        for seed in seeds:
            rows = self._init_rows(codes, ptabs, int(seed), num_arg, self.gamma_, k=k)
            res = kmodes_lloyd(codes, codes[rows], ptabs, numeric=num_arg,
                               init_centers=None if num_arg is None else numeric[rows],
                               gamma=self.gamma_, max_iter=self.max_iter,
                               rough_counts=rough)
            if best is None or res[3] < best[3]:
                best = res
            if self.init == "cao":
                break
        labels, modes, centers, cost, n_iter = best
        modes = self._pad(modes)
        centers = self._pad(centers) if centers is not None else np.zeros(
            (self.n_clusters, 0))
        self.modes_ = modes
        self.centers_ = centers
        self.cluster_centroids_ = np.hstack(
            [centers.astype(object), self._centroids(modes)]
        )
        self.n_iter_ = n_iter
        self._final_hist = _histograms(codes, labels, self.n_clusters,
                                       [t.shape[0] for t in ptabs])
        dist = self._proto_dist(codes, numeric)  # as predict computes it: labels_ == predict(X)
        self.labels_ = np.argmin(dist, axis=1)
        self.cost_ = float(dist[np.arange(len(codes)), self.labels_].sum())
        return self

    def _proto_dist(self, codes: np.ndarray, numeric: np.ndarray) -> np.ndarray:
        if self.distance_ is None:
            return _sq_dist(numeric, self.centers_)
        ptabs = _padded_tables(self.distance_.tables_)
        sizes = np.array([t.shape[0] - 1 for t in ptabs])
        codes = np.where(codes < 0, sizes[None, :], codes)
        rough = self._rough_counts()
        r = None if rough is None else (self._final_hist, rough)
        return self.gamma_ * _cat_distances(codes, self.modes_, ptabs, r) + _sq_dist(
            numeric, self.centers_)

    def predict(self, X: Any) -> np.ndarray:
        """The nearest prototype of each row of ``X``."""
        check_is_fitted(self, "modes_")
        names = getattr(self, "feature_names_in_", None)
        df = as_frame(X, columns=None if names is None else list(names))
        self._check_table(df, fit=False)
        if names is not None and is_frame(X) and list(df.columns) != list(
                names):
            raise CatEmbedError(
                "The feature names should match those that were passed during fit: "
                f"{list(names)[:10]}{' ...' if len(names) > 10 else ''}; got "
                f"{list(df.columns)[:10]}."
            )
        if names is None:  # fitted without names: the fitted columns, by position, but
            # a frame with the fit's integer labels by name (as the embedders read it)
            own = [str(c) for c in df.columns]
            by_name = is_frame(X) and sorted(own) == sorted(self._input_columns)
            df = df.set_axis(own if by_name else self._input_columns, axis=1)
        numeric = self._numeric(df)
        if self.distance_ is None:
            codes = np.zeros((df.shape[0], 0), dtype=np.int64)
        else:
            with warnings_at_caller(type(self).__name__):
                codes = self.distance_.encode(df[self.categorical_features_]).astype(
                    np.int64)
        return np.argmin(self._proto_dist(codes, numeric), axis=1)

    def __sklearn_tags__(self):  # noqa: D105
        tags = categorical_input_tags(super().__sklearn_tags__())
        tags.input_tags.allow_nan = False  # the numeric columns must be complete
        return tags


KPrototypes.__doc__ = KPrototypes.__doc__.replace("{shared}", _SHARED.strip("\n").lstrip())


def _warn_unscaled(numeric: np.ndarray, names: Any, gamma: float | None) -> None:
    """Warn when the automatic ``gamma`` meets numeric columns that are not standardised: the
    squared numeric distance (scale ``std**2``) then swamps the categorical term (scale
    ``gamma``, about ``std / 2``), and the clusters follow the numeric columns alone."""
    if gamma is not None or numeric.size == 0:
        return
    std = numeric.std(axis=0)
    bad = [str(n) for n, s in zip(names, std, strict=False) if s > 0 and not 0.1 <= s <= 10]
    if bad:
        warnings.warn(
            f"KPrototypes: numeric column(s) {', '.join(bad[:5])}{' ...' if len(bad) > 5 else ''}"
            f" are not standardised (standard deviation {std.min():.3g} to {std.max():.3g}); "
            "with the automatic gamma their squared distance outweighs the categorical "
            "columns. Standardise them first (sklearn StandardScaler) or set gamma.",
            CatEmbedWarning, stacklevel=3,
        )
