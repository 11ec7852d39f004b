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

from .._validation import CatEmbedError, CatEmbedWarning, as_frame
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

    Parameters
    ----------
    n_clusters : int, default=8
    gamma : float or None, default=None
        Weight of the categorical part; ``None``: half the mean standard deviation of the
        numeric columns (Huang's suggestion, also the ``kmodes`` package's default), with a
        ``CatEmbedWarning`` when a numeric column's standard deviation is outside [0.1, 10]
        (not standardised: its squared distance then swamps the categorical part).
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
        The categorical columns; every other column must be numeric.

    Attributes
    ----------
    labels_, cost_, n_iter_, distance_ : as in :class:`KModes`
    cluster_centroids_ : ndarray of object, shape (n_clusters, n_numeric + n_categorical)
        Numeric means followed by categorical modes.
    centers_ : ndarray of shape (n_clusters, n_numeric)
    modes_ : ndarray of int, shape (n_clusters, n_categorical)
    numeric_features_, categorical_features_ : list of str
    gamma_ : float
    """

    def __init__(
        self,
        *,
        n_clusters: int = 8,
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

    def _split(self, X: Any) -> tuple[pd.DataFrame, list[str], list[str]]:
        from .._validation import select_categorical

        df = as_frame(X)
        cat, num = select_categorical(df, self.categorical_features)
        if not num:
            raise CatEmbedError(
                "KPrototypes found no numeric column; use KModes for categorical data."
            )
        if set(cat) == set(df.columns):
            raise CatEmbedError("KPrototypes found no categorical column; use k-means.")
        return df, cat, num

    def _numeric(self, df: pd.DataFrame) -> np.ndarray:
        try:
            arr = df[self.numeric_features_].apply(pd.to_numeric).to_numpy(dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise CatEmbedError(
                "KPrototypes numeric columns must hold numbers; list text columns in "
                "categorical_features."
            ) from exc
        if np.isnan(arr).any():
            raise CatEmbedError(
                "KPrototypes numeric columns have missing values; impute or drop those rows."
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
        df, cat, num = self._split(X)
        self.n_features_in_ = df.shape[1]
        if isinstance(X, pd.DataFrame):
            self.feature_names_in_ = np.asarray(df.columns, dtype=object)
        self.numeric_features_ = num
        self.categorical_features_ = cat
        numeric = self._numeric(df)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CatEmbedWarning)
            self.distance_ = self._distance(cat).fit(df[cat])
        codes = self.distance_.encode(df[cat]).astype(np.int64)
        if codes.shape[0] < self.n_clusters:
            raise CatEmbedError(
                f"n_samples={codes.shape[0]} should be >= n_clusters={self.n_clusters}."
            )
        self.gamma_ = (0.5 * float(numeric.std(axis=0).mean()) if self.gamma is None
                       else float(self.gamma))
        _warn_unscaled(numeric, num, self.gamma)
        ptabs = _padded_tables(self.distance_.tables_)
        rough = self._rough_counts()
        rs = check_random_state(self.random_state)
        seeds = rs.randint(np.iinfo(np.int32).max, size=self.n_init)
        best = None
        for seed in seeds:
            if isinstance(self.init, str):
                rows = self._init_rows(codes, ptabs, int(seed), numeric, self.gamma_)
            else:
                raise CatEmbedError("KPrototypes init must be 'cao', 'huang' or 'random'.")
            res = kmodes_lloyd(codes, codes[rows], ptabs, numeric=numeric,
                               init_centers=numeric[rows], gamma=self.gamma_,
                               max_iter=self.max_iter, rough_counts=rough)
            if best is None or res[3] < best[3]:
                best = res
            if self.init == "cao":
                break
        labels, modes, centers, cost, n_iter = best
        self.modes_ = modes
        self.centers_ = centers
        self.cluster_centroids_ = np.hstack(
            [centers.astype(object), self._decode_modes(modes)]
        )
        self.n_iter_ = n_iter
        self._final_hist = _histograms(codes, labels, self.n_clusters,
                                       [t.shape[0] for t in ptabs])
        dist = self._proto_dist(codes, numeric)  # as predict computes it: labels_ == predict(X)
        self.labels_ = np.argmin(dist, axis=1)
        self.cost_ = float(dist[np.arange(len(codes)), self.labels_].sum())
        return self

    def _proto_dist(self, codes: np.ndarray, numeric: np.ndarray) -> np.ndarray:
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
        df = as_frame(X, columns=list(getattr(self, "feature_names_in_", [])) or None)
        numeric = self._numeric(df)
        codes = self.distance_.encode(df[self.categorical_features_]).astype(np.int64)
        return np.argmin(self._proto_dist(codes, numeric), axis=1)


KPrototypes.__doc__ = KPrototypes.__doc__.replace("{shared}", _SHARED.strip("\n"))


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
