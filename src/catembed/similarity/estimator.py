"""One estimator for every value distance measure: fit the tables, then compare rows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .._utils._params import check_int, check_option
from .._utils._validation import CatEmbedError, warnings_at_caller
from ..base import ValueEmbedder
from ..stats._value_statistics import ValueStatistics
from .objects import (
    dm_distances,
    kneighbors_from_codes,
    kneighbors_graph_from_codes,
    pairwise_chunks_from_codes,
    pairwise_from_codes,
)
from .tables import METRICS, ValueTables, value_tables

__all__ = ["CategoricalDistance"]


class CategoricalDistance(ValueEmbedder):
    """Value distance tables of a similarity measure, and object distances from them.

    Fitting counts the shared value statistics (one pass over the rows) and derives one
    ``l_j x l_j`` table per attribute (:func:`catembed.similarity.value_tables`; method spec
    section 4). Object distances, nearest neighbours and kNN graphs are computed from the
    tables in blocks of rows, memory ``O(chunk x n)``; the full matrix only from
    :meth:`pairwise`.

    ``transform`` gives each row's *distance profile*: for each attribute the row of its
    table for the row's value (``sum_j l_j`` columns). The object distance of ``a`` and ``b``
    is the profile of ``a`` read at ``b``'s values.

    Parameters
    ----------
    metric : {"hamming", "ahmad", "algo", "dilca", "cos", "dm", "rough"}, default="hamming"
        Hamming overlap; Ahmad & Dey (ALGO); DILCA_M (Ienco et al. 2012); COS (Wang et al.
        2015) as ``1 - similarity``; DM (Jia et al. 2016); Rough (Cao et al. 2012: its
        static tables are Hamming, the cluster-dependent part is in
        :class:`catembed.cluster.KModes`).
    sigma : float, default=1.0
        DILCA context threshold.
    dm_full : bool, default=True
        For ``metric="dm"``, :meth:`pairwise` uses the paper's object-level metric
        (interdependent attributes and dynamic weights, :func:`dm_distances`); ``False``
        uses the value tables alone. Neighbour searches always use the tables.
    chunk_size : int, optional
        Rows per block for object distances; default keeps a block near 64 MiB.
    n_neighbors : int, default=5
        Neighbours returned by :meth:`kneighbors` and :meth:`kneighbors_graph` by default.
    verbose : bool, optional
        Progress bar on stderr for neighbour searches; ``None`` (default): only for searches
        of more than ``10**8`` pairs when stderr is a terminal.
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
    handle_unknown : {"error", "ignore", "warn"}, default="error"
        An unseen value: raise, or treat it as matching nothing (the table's largest
        distance to every value).
    handle_missing : {"category", "error"}, default="category"
    categorical_features : "auto", "all", list or mask, default="auto"

    Attributes
    ----------
    tables_ : ValueTables
        The fitted tables (``tables_.tables[j]`` is attribute ``j``'s table).
    stats_ : ValueStatistics
    categories_ : list of ndarray
    fit_codes_ : ndarray of shape (n_samples, n_features)
        Value codes of the rows given to :meth:`fit`: the rows :meth:`kneighbors` searches
        (absent after :meth:`fit_statistics`).

    Examples
    --------
    >>> import pandas as pd
    >>> from catembed.similarity import CategoricalDistance
    >>> df = pd.DataFrame({"a": ["x", "x", "y"], "b": ["u", "v", "v"]})
    >>> CategoricalDistance(metric="hamming").fit(df).pairwise(df)
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    """

    _feature_prefix = "dist"
    _table_shape = "square"
    _combine = "concat"

    def __init__(
        self,
        *,
        metric: str = "hamming",
        sigma: float = 1.0,
        dm_full: bool = True,
        chunk_size: int | None = None,
        n_neighbors: int = 5,
        verbose: bool | None = None,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
    ) -> None:
        self.metric = metric
        self.n_neighbors = n_neighbors
        self.verbose = verbose
        self.sigma = sigma
        self.dm_full = dm_full
        self.chunk_size = chunk_size
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features

    def _check_params(self) -> None:
        super()._check_params()
        check_option("metric", self.metric, tuple(METRICS))

    def fit(self, X: Any, y: Any = None) -> CategoricalDistance:
        """Count the statistics, derive the tables, and keep the rows' value codes (``n x m``
        integers) for :meth:`kneighbors`.

        Parameters
        ----------
        X : table of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self
        """
        with warnings_at_caller():  # at the user's line, however deep the call (issue 21)
            super().fit(X, y)
            self.fit_codes_ = self._encode(self._validate_input(X, reset=False)).astype(
                np.int32)
        return self

    def transform(self, X: Any) -> Any:
        """Each row's distance profile (see the class docstring); unseen values follow
        ``handle_unknown``."""
        with warnings_at_caller():  # the unknown-value warning names the user's line
            return super().transform(X)

    def _extra_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        codes = getattr(self, "fit_codes_", None)
        return ({"fit_codes": codes} if codes is not None else {}), {}

    def _restore_extra_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        if "fit_codes" in arrays:
            self.fit_codes_ = np.asarray(arrays["fit_codes"], dtype=np.int32)

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray]:
        return value_tables(stats, self.metric, sigma=self.sigma).tables

    @property
    def _prefers_factor(self) -> bool:
        """Hamming's and Rough's tables read the value counts only: a table of few rows and
        many values keeps its co-occurrences as their factor (``n m`` ids), not as up to
        ``n m^2 / 2`` stored pairs (read by ``fit``'s counting and the cost check)."""
        return self.metric in ("hamming", "rough", "rough-cluster")

    def _cost_cells(self, sizes: np.ndarray) -> float:
        per_column = 2.0 * float(np.sum(np.square(sizes)))  # the tables
        if self.metric in ("hamming", "dm", "rough"):
            return per_column
        return per_column + 2.0 * float(np.sum(sizes)) ** 2  # conditional probabilities

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        return float(np.sum(sizes)) ** 2 * len(sizes) / 1e8

    @property
    def tables_(self) -> ValueTables:
        """The fitted value distance tables."""
        check_is_fitted(self, "_tables")
        return ValueTables(self.metric, list(self._tables), METRICS[self.metric])

    # ------------------------------------------------------------------ object level
    def encode(self, X: Any) -> np.ndarray:
        """Value codes of the rows of ``X`` (``n x m``, ``-1`` = unseen), unknown policy
        applied."""
        check_is_fitted(self, "_tables")
        with warnings_at_caller():
            return self._encode(self._validate_input(X, reset=False))

    def pairwise_chunks(self, X: Any, Y: Any = None) -> Iterator[tuple[int, np.ndarray]]:
        """Yield ``(start, block)``: distances of rows ``start:start+c`` of X to all rows of
        Y (default X)."""
        a = self.encode(X)
        b = a if Y is None else self.encode(Y)
        yield from pairwise_chunks_from_codes(a, b, self.tables_, chunk_size=self.chunk_size)

    def pairwise(self, X: Any, Y: Any = None) -> np.ndarray:
        """The full object distance matrix (``n_X x n_Y`` memory: only when you need it)."""
        a = self.encode(X)
        b = a if Y is None else self.encode(Y)
        if self.metric == "dm" and self.dm_full:
            return dm_distances(self.stats_, a, b, chunk_size=self.chunk_size)
        return pairwise_from_codes(a, b, self.tables_, chunk_size=self.chunk_size)

    def _search_codes(self) -> np.ndarray:
        check_is_fitted(self, "_tables")
        codes = getattr(self, "fit_codes_", None)
        if codes is None:
            raise CatEmbedError(
                "kneighbors searches the rows given to fit, and this model has none (it was "
                "fitted with fit_statistics); call fit(X) on the rows to search."
            )
        return codes

    def _n_neighbors(self, n_neighbors: int | None) -> int:
        k = self.n_neighbors if n_neighbors is None else n_neighbors
        return check_int("n_neighbors", k)

    def kneighbors(self, X: Any = None, n_neighbors: int | None = None,
                   return_distance: bool = True) -> Any:
        """The ``n_neighbors`` nearest *fitted* rows, as scikit-learn's ``NearestNeighbors``.

        Parameters
        ----------
        X : table, optional
            Query rows, searched among the rows given to :meth:`fit` (a query row that is
            also a fitted row finds itself at distance 0). ``None``: the fitted rows' own
            neighbours, a row not being its own neighbour.
        n_neighbors : int, optional
            Default: the ``n_neighbors`` parameter.
        return_distance : bool, default=True

        Returns
        -------
        dist : ndarray of shape (n_queries, n_neighbors)
            Only with ``return_distance=True``; nearest first.
        ind : ndarray of shape (n_queries, n_neighbors)
            Row positions in the fitted table.

        The search runs in blocks of rows (memory ``O(chunk x n_fit)``) and shows a progress
        bar on stderr for long searches (``verbose``).
        """
        fitted = self._search_codes()
        k = self._n_neighbors(n_neighbors)
        a = fitted if X is None else self.encode(X)
        dist, ind = kneighbors_from_codes(a, None if X is None else fitted, self.tables_, k,
                                          chunk_size=self.chunk_size, progress=self.verbose)
        return (dist, ind) if return_distance else ind

    def kneighbors_graph(self, X: Any = None, n_neighbors: int | None = None,
                         mode: str = "connectivity") -> sp.csr_array:
        """Sparse kNN graph towards the fitted rows, as scikit-learn's ``NearestNeighbors``.

        ``X=None``: ``n_fit x n_fit`` graph of the fitted rows (self excluded); else
        ``n_X x n_fit``. ``mode="connectivity"`` stores ones, ``"distance"`` distances.
        """
        check_option("mode", mode, ("distance", "connectivity"))
        fitted = self._search_codes()
        k = self._n_neighbors(n_neighbors)
        a = fitted if X is None else self.encode(X)
        return kneighbors_graph_from_codes(a, self.tables_, k, mode=mode,
                                           chunk_size=self.chunk_size,
                                           codes_b=None if X is None else fitted,
                                           progress=self.verbose)
