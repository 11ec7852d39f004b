"""CDE: coupled data embedding (Jian, Cao, Pang, Lu, Gao, IJCAI 2017).

Value influence matrices from occurrence and co-occurrence statistics, k-means value
clusters at several granularities, PCA on the cluster indicator matrix (method spec,
section 1). The default follows the authors' MATLAB code (``CDE.m``), which produced the
published tables; ``coupling="paper"`` gives the paper's Definition 1 instead.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.utils import check_random_state

from .._utils._params import check_int, check_option
from .._utils._threads import one_thread
from .._utils._validation import CatEmbedError, CatEmbedWarning, user_stacklevel
from ..base import ValueEmbedder
from ..stats._value_statistics import ValueStatistics
from ._gram_kmeans import GramKMeans
from ._granularity import (
    LARGE_VALUE_SET,
    MAX_COMPONENTS,
    GranularityStep,
    matlab_kmeans,
    multi_granularity_clustering,
    sketched_granularity_kmeans,
)
from ._indicator_pca import beta_pca

__all__ = [
    "CDE",
    "beta_pca",
    "cde_influence_matrices",
    "multi_granularity_clustering",
    "multi_granularity_kmeans",
    "matlab_kmeans",
]


def cde_influence_matrices(
    stats: ValueStatistics, coupling: str = "code"
) -> tuple[np.ndarray, np.ndarray]:
    """The co-occurrence and occurrence value influence matrices ``(M_c, M_o)``.

    CDE paper Definitions 1-2, as the authors' code computes them (spec section 1):

    * ``M_c[i, j] = p(v_j | v_i) = cnt(v_i, v_j) / cnt(v_i)``; 1 on the diagonal, 0 for two
      values of one attribute.
    * ``M_o[i, j] = psi(f^i, f^j) cnt(v_i) / cnt(v_j)`` where ``cnt(v_i, v_j) > 0``, else
      ``cnt(v_i) / cnt(v_j)``; 1 on the diagonal (``coupling="code"``).
      ``coupling="paper"`` uses Definition 1 as printed: ``psi * cnt(v_j) / cnt(v_i)``
      everywhere.

    Parameters
    ----------
    stats : ValueStatistics
    coupling : {"code", "paper"}

    Returns
    -------
    M_c, M_o : ndarray of shape (l, l)
    """
    check_option("coupling", coupling, ("code", "paper"))
    cnt = stats.counts.astype(np.float64)
    cooc = stats.cooc_dense()
    m_c = cooc / cnt[:, None]
    psi = stats.normalized_mutual_information()
    sizes = stats.sizes
    # psi of the attributes of values i and j; computed in place (issue 40: a few l x l
    # passes fewer, the same numbers)
    psi_v = np.repeat(np.repeat(psi, sizes, axis=0), sizes, axis=1)
    ratio = cnt[:, None] / cnt[None, :]
    m_o = psi_v
    if coupling == "code":
        m_o *= ratio
        np.copyto(m_o, ratio, where=cooc == 0)  # the counts are never negative
    else:
        m_o *= ratio.T
    del ratio
    np.fill_diagonal(m_o, 1.0)
    return m_c, m_o


def multi_granularity_kmeans(
    M: np.ndarray,
    alpha: float = 10,
    random_state: Any = None,
    max_iter: int = 100,
    *,
    engine: str = "gram",
    sparse_output: bool = False,
) -> tuple[np.ndarray, list[GranularityStep]]:
    """Value clusters of the rows of ``M`` at increasing ``k`` (CDE Algorithm 1, spec 1.3).

    For ``k = 2, 3, ...``: k-means on the rows; one indicator column per non-empty cluster;
    a column is dropped when its cluster, or its complement, has at most one member; the
    surviving columns are appended. The sweep stops after the first ``k`` at which the number
    of dropped columns exceeds ``ceil(#non-empty clusters / alpha)`` (its survivors are kept),
    or when ``k`` reaches the number of distinct rows of ``M``
    (:func:`multi_granularity_clustering` with MATLAB-style k-means).

    ``sparse_output=True`` returns the indicator as a CSR matrix.
    ``engine="gram"`` (default) runs the k-means on the centred Gram matrix of the rows,
    computed once for the whole sweep (``catembed.embed._gram_kmeans``): the same seeding
    draws and Lloyd steps as :func:`matlab_kmeans`, ``O(l^2)`` per ``k`` instead of
    ``O(k l^2)`` per iteration; ``engine="sklearn"`` calls :func:`matlab_kmeans` per ``k``.
    The two agree up to floating-point rounding, which can resolve an exact tie between two
    centres differently.

    Returns
    -------
    indicator : ndarray of shape (l, q), float
    steps : list of GranularityStep
    """
    if alpha <= 0:
        raise CatEmbedError(f"alpha must be positive; got {alpha!r}.")
    check_option("engine", engine, ("gram", "sklearn"))
    rs = check_random_state(random_state)
    if engine == "gram":
        gram = GramKMeans(M, max_iter=max_iter)

        def kmeans(k: int) -> tuple[np.ndarray, int]:
            return gram.fit(k, check_random_state(rs.randint(np.iinfo(np.int32).max)))

        return multi_granularity_clustering(
            M, kmeans, alpha, sparse_output=sparse_output, n_distinct=gram.n_distinct
        )

    def kmeans_sklearn(k: int) -> tuple[np.ndarray, int]:
        return matlab_kmeans(
            M, k, random_state=rs.randint(np.iinfo(np.int32).max), max_iter=max_iter,
            return_n_iter=True,
        )

    return multi_granularity_clustering(M, kmeans_sklearn, alpha, sparse_output=sparse_output)


def identity_fallback(
    indicator: np.ndarray, names: list[str], n_values: int, method: str,
    n_features: int | None = None,
) -> tuple[np.ndarray, list[str]]:
    """The one-hot value codes, with a warning naming the cause, when the sweep kept no value
    cluster: the value clusters group values, not rows (R's Titanic: 1,316 rows, 7 values)."""
    if indicator.shape[1] > 0:
        return indicator, names
    where = f" in {n_features} column(s)" if n_features else ""
    cause = (f"{n_values} distinct values are too few to group (the value clusters group "
             "values, not rows: more rows do not help)" if n_values < 20 else
             "no two values are coupled alike enough to group")
    warnings.warn(
        f"{method} kept no value cluster: its sweep over the table's {n_values} distinct "
        f"values{where} found no group of two or more values that leaves two or more out; "
        f"{cause}. Falling back to the one-hot value codes.",
        CatEmbedWarning,
        stacklevel=user_stacklevel(),
    )
    return np.eye(n_values), [f"value{i}" for i in range(n_values)]


class _ValueClusterState:
    """The value-cluster indicator matrix and its sweep, shared by CDE and CDE++.

    Expects ``_indicator``, ``_indicator_names``, ``granularity_steps_`` and
    ``n_components_`` after fitting; saves and restores them. ``_indicator`` may be set to a
    sparse matrix (CDE keeps it sparse: ``l`` entries per granularity where the dense matrix
    has ``l`` per cluster); reading it gives the dense array.
    """

    @property
    def _indicator(self) -> np.ndarray:
        ind = self._indicator_store
        return ind.toarray() if sparse.issparse(ind) else ind

    @_indicator.setter
    def _indicator(self, value: Any) -> None:
        self._indicator_store = value

    @property
    def value_clusters_(self):
        """The kept value-cluster indicator matrix as a DataFrame (one row per value)."""
        import pandas as pd

        return pd.DataFrame(
            self._indicator, index=self.stats_.value_index(), columns=self._indicator_names
        )

    def _cluster_state(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        steps = {
            key: [[s.k, s.n_nonempty, s.n_dropped, s.n_kept, s.n_iter] for s in val]
            for key, val in self.granularity_steps_.items()
        }
        return (
            {"indicator": self._indicator},
            {"indicator_names": self._indicator_names, "steps": steps,
             "n_components": int(self.n_components_)},
        )

    def _restore_cluster_state(self, arrays: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
        self._indicator = arrays["indicator"]
        self._indicator_names = list(meta["indicator_names"])
        self.granularity_steps_ = {
            key: [GranularityStep(*s) for s in val] for key, val in meta["steps"].items()
        }
        self.n_components_ = int(meta["n_components"])


class CDE(_ValueClusterState, ValueEmbedder):
    """Coupled data embedding of categorical values (Jian et al., IJCAI 2017).

    Learns one vector per value from the value statistics; an object's embedding
    concatenates the vectors of its ``m`` values (``m * r`` columns).

    1. value influence matrices ``M_c`` and ``M_o`` (CDE Def. 1-2; see
       :func:`cde_influence_matrices`);
    2. k-means value clusters of the rows of ``M_c``, then of ``M_o``, at increasing
       granularity with the ``alpha`` stop rule (Algorithm 1; :func:`multi_granularity_kmeans`);
    3. PCA of the concatenated indicator matrix, components with range below ``beta`` dropped
       (:func:`beta_pca`).

    The default reproduces the authors' MATLAB code rather than the paper's text where they
    differ (``M_o`` orientation and where ``psi`` applies; method spec section 1).

    Above 1,024 values (issue 40) the fit is bounded by the number of values whatever their
    distribution: the k-means of step 2 run on a 64-dimensional Gaussian random projection
    of the rows and stop at ``k = 64`` at the latest, and step 3 keeps the 128 leading
    components (randomised; ``catembed.embed._granularity``). Up to 1,024 values the fit
    is the exact algorithm.

    Parameters
    ----------
    alpha : float, default=10
        Stop rule of the granularity sweep: stop once more than ``ceil(k' / alpha)`` clusters
        at one ``k`` are dropped (``k'`` non-empty clusters).
    beta : float, default=1e-10
        Principal components whose range over the values is below ``beta`` are removed.
    coupling : {"code", "paper"}, default="code"
        ``M_o`` as in the authors' code or as in the paper's Definition 1.
    max_iter : int, default=100
        Lloyd iterations of each value k-means (MATLAB's default).
    random_state : int, RandomState instance or None, default=None
        Seeds the value k-means. The same seed gives the same embedding.
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
        A value not seen in fit: raise, or embed as the zero vector (the mean of the centred
        value space), with a warning for ``"warn"``.
    handle_missing : {"category", "error"}, default="category"
        NaN, None and empty strings are a value of their own, or an error.
    categorical_features : "auto", "all", list or mask, default="auto"
        Columns to embed; other columns are dropped with a warning.
    numeric : {"drop", "discretize", "passthrough"}, default="drop"
        Numeric columns not selected as categorical: dropped with a warning; cut into
        ``n_bins`` quantile bins embedded as values (CDE then couples them with the
        categorical values; bins learned in ``fit``, NaN missing); or standardised and
        appended after the embedding (NaN becomes 0, the fitted mean).
    n_bins : int, default=5
        Quantile bins per numeric column for ``numeric="discretize"``.
    n_components : int or None, default=None
        ``None``: the paper's concatenation (``m r`` columns, ``r`` depending on the data and
        the seed). An int: that many principal components of the object vectors, computed
        from the statistics (see :class:`catembed.ValueEmbedder`).
    dtype : {None, numpy.float32, numpy.float64}, default=None
        Output dtype; ``None``: float32 with ``n_components``, float64 otherwise.

    Attributes
    ----------
    value_embedding_ : DataFrame of shape (l, r)
        The value vectors ``N``, indexed by ``(column, value)``.
    value_clusters_ : DataFrame of shape (l, q)
        The indicator matrix ``I`` of the kept value clusters; columns ``Mc_k{k}_{i}`` and
        ``Mo_k{k}_{i}``.
    M_c_, M_o_ : ndarray of shape (l, l)
        The co-occurrence and occurrence value influence matrices.
    n_components_ : int
        ``r``, the number of kept principal components.
    granularity_steps_ : dict
        For ``"M_c"`` and ``"M_o"``, what each ``k`` of the sweep kept and dropped.
    n_iter_ : int
        The most Lloyd iterations any of the value k-means runs took (at most ``max_iter``).
    categories_ : list of ndarray
        The values of each embedded column (``nan`` last for missing).
    feature_names_ : ndarray of str
        The embedded columns.
    stats_ : ValueStatistics
        The counts the model was fitted on.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Defined when the input had string column names.

    Examples
    --------
    >>> import pandas as pd
    >>> from catembed import CDE
    >>> X = pd.DataFrame({"color": list("rrggbbrg"), "shape": list("ssccttsc")})
    >>> emb = CDE(random_state=0).fit(X)
    >>> emb.transform(X).shape[0]
    8
    """

    _feature_prefix = "cde"
    _table_shape = "common"

    def __init__(
        self,
        *,
        alpha: float = 10,
        beta: float = 1e-10,
        coupling: str = "code",
        max_iter: int = 100,
        random_state: Any = None,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        n_components: int | None = None,
        dtype: Any = None,
    ) -> None:
        self.alpha = alpha
        self.beta = beta
        self.coupling = coupling
        self.max_iter = max_iter
        self.random_state = random_state
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.n_components = n_components
        self.dtype = dtype

    # The pre-issue-22 fit (scikit-learn k-means per granularity, SVD of the indicator
    # matrix), kept reachable for benchmarks/bench_cde_values.py and the equality tests.
    _legacy_fit = False
    # Above this many values the bounded fit (issue 40; catembed.embed._granularity);
    # None: the exact fit at every size (benchmarks and the equality tests).
    _large_value_set: int | None = LARGE_VALUE_SET

    def _check_params(self) -> None:
        super()._check_params()
        check_int("max_iter", self.max_iter)  # 0 ran no Lloyd step (the seeds were kept)

    def _cost_cells(self, sizes: np.ndarray) -> float:
        """About ten ``l x l`` float64 matrices at once (``M_c``, ``M_o``, their Gram
        matrices, distances): measured 9-10 ``l^2`` cells of fit memory at l = 3000 and
        6000 (``benchmarks/bench_cde_values.py``)."""
        return 10.0 * float(np.sum(sizes)) ** 2

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        """``l^2 / 2e6`` seconds: the exact fit up to 1,024 values (at most ``0.5`` s by
        this rule) and the bounded fit above it (issue 40: no ``l^3`` step left), from CPU
        seconds of ``benchmarks/bench_cde_values.py`` at 20,000 rows (the whole fit,
        counting included: 3,000 values 2.6-5.9 s over four splits, 10,000 values 23-37 s;
        2 cores)."""
        l = float(np.sum(sizes))
        return l * l / 2e6

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        m_c, m_o = cde_influence_matrices(stats, self.coupling)
        rs = check_random_state(self.random_state)
        legacy = self._legacy_fit
        large = self._large_value_set
        if not legacy and large is not None and stats.n_values > large:
            # issue 40: bounded by l whatever the data; one BLAS / OpenMP thread, as for
            # small value sets (two spin-waiting threads on a busy machine cost 10-30x)
            with one_thread():
                ind_c, steps_c = sketched_granularity_kmeans(m_c, self.alpha, rs, self.max_iter)
                ind_o, steps_o = sketched_granularity_kmeans(m_o, self.alpha, rs, self.max_iter)
                indicator = sparse.hstack([ind_c, ind_o]).tocsr()
                names = _cluster_names("Mc", steps_c) + _cluster_names("Mo", steps_o)
                indicator, names = identity_fallback(indicator, names, stats.n_values, "CDE",
                                                     stats.n_features)
                embedding = beta_pca(indicator, self.beta, solver="randomized",
                                     n_components=MAX_COMPONENTS, random_state=rs)
        else:
            kw = {"engine": "sklearn" if legacy else "gram", "sparse_output": not legacy}
            ind_c, steps_c = multi_granularity_kmeans(m_c, self.alpha, rs, self.max_iter, **kw)
            ind_o, steps_o = multi_granularity_kmeans(m_o, self.alpha, rs, self.max_iter, **kw)
            indicator = (np.hstack([ind_c, ind_o]) if legacy
                         else sparse.hstack([ind_c, ind_o]).tocsr())
            names = _cluster_names("Mc", steps_c) + _cluster_names("Mo", steps_o)
            indicator, names = identity_fallback(indicator, names, stats.n_values, "CDE",
                                                 stats.n_features)
            embedding = beta_pca(indicator, self.beta, solver="svd" if legacy else "auto")
        if embedding.shape[1] == 0:
            raise CatEmbedError("CDE kept no principal component; lower beta.")
        self.M_c_ = m_c
        self.M_o_ = m_o
        self._indicator = indicator
        self._indicator_names = names
        self.granularity_steps_ = {"M_c": steps_c, "M_o": steps_o}
        self.n_components_ = embedding.shape[1]
        self.n_iter_ = max((s.n_iter for s in steps_c + steps_o), default=0)
        return embedding

    def _extra_state(self):
        return self._cluster_state()

    def _restore_extra_state(self, arrays, meta):
        self._restore_cluster_state(arrays, meta)
        self.n_iter_ = max(
            (s.n_iter for val in self.granularity_steps_.values() for s in val), default=0
        )
        self.M_c_, self.M_o_ = cde_influence_matrices(self.stats_, self.coupling)


def _cluster_names(prefix: str, steps: list[GranularityStep]) -> list[str]:
    return [f"{prefix}_k{s.k}_{i}" for s in steps for i in range(s.n_kept)]
