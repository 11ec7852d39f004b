"""LCME: catembed's own embedder, latent classes + multiple correspondence (not a paper's).

Designed for issue 12 (item 5) from what the average-rank tables show
(``docs/reproducing.md``, "Our own method"): latent class analysis (LCA) ranks first on all
three tables, CDE (value couplings) second on ``cde-1``, MCA's chi-square axes second and third
on ``cdepp-3``. LCA is a clusterer that needs the number of classes and a pass over the rows
per EM step; MCA is a linear embedding fitted from the Burt matrix. LCME gives k-means both
views, both fitted from :class:`~catembed.stats.ValueStatistics` only (one counting pass, then
nothing depends on ``n``):

1. **Correspondence view** (MCA): the ``k`` first MCA axes of the Burt matrix, the row
   principal coordinates ``F = sum_j V[x_j] / (Q sqrt(c_v))`` (:class:`~catembed.embed.MCA`,
   Greenacre 2017 Eq. 18.4).
2. **Latent-class view**: a latent class model with ``K = k`` classes,
   ``P(x) = sum_c pi_c prod_j theta_{cj}(x_j)``, fitted by EM on the *pairwise composite
   likelihood* of the co-occurrence counts ``N[u, v] = cnt(u, v)`` of values of two different
   attributes (the off-diagonal blocks of the Burt matrix). Under the model
   ``P(u, v) = sum_c pi_c theta_{cu} theta_{cv}``, and EM on
   ``sum_{u, v} N[u, v] log P(u, v)`` is the multiplicative update (PLSA / symmetric KL-NMF
   on ``N``)::

       A = theta * ((N / P) theta) * pi          # (J x K), P = theta diag(pi) theta^T
       pi <- colsum(A) / sum(A),  theta[v, c] <- A[v, c] / sum_{u in attr(v)} A[u, c]

   ``O(K J^2)`` per step. The expected counts ``n pi_c theta_{cv}`` are smoothed with
   Jeffreys' prior (0.5 per value: ``theta~_{cv} = (n pi_c theta_{cv} + 0.5) /
   (n pi_c + 0.5 l_j)``) and each value's vector is its class log-likelihoods, centred over
   the classes: ``t_v[c] = log theta~_{cv} - mean_c' log theta~_{c'v}``. An object's vector,
   the sum over its values, is its log-likelihood under each class up to a constant per
   object: the quantity LCA's posterior is a softmax of (an attribute that does not
   separate the classes adds ~0).
3. Each view is centred on the training rows (``t_v - sum_{u in attr(v)} p_u t_u``) and
   scaled to unit mean squared norm, ``trace(T^T (C / n - p p^T) T) = 1`` (the object
   covariance from the statistics, as :func:`catembed.transform._projection.object_pca`), so that
   neither view dominates k-means; the output concatenates them (width ``2 k``).

Every choice needs no labels: ``k = 10`` (MCA's column in every table uses 10 axes, and the
latent-class view gets the same budget); three EM starts, the highest composite
log-likelihood kept; equal weight per view. The design was chosen on synthetic tables with
planted classes (``benchmarks/synthetic.py`` and latent-class-generated tables,
``studies/lcme_design.py``), never on the bench sets; there LCME was level with MCA
(mean ARI 0.734 vs 0.741) and above its latent-class view alone (0.703). The bench tables
and the ranks are in ``docs/reproducing.md``, "Our own method".
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils import check_random_state

from .._utils._params import check_int
from .._utils._validation import CatEmbedError
from ..base import ValueEmbedder
from ..stats._value_statistics import ValueStatistics
from .mca import MCA

__all__ = ["LCME", "pairwise_latent_classes"]


def _normalise_by_attribute(A: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """``A[v, c] / sum_{u in attr(v)} A[u, c]`` (each class' value distribution per attribute)."""
    sums = np.add.reduceat(A, offsets[:-1], axis=0)
    sizes = np.diff(offsets)
    return A / np.maximum(np.repeat(sums, sizes, axis=0), 1e-300)


def pairwise_latent_classes(
    stats: ValueStatistics,
    n_classes: int,
    *,
    n_init: int = 3,
    max_iter: int = 300,
    tol: float = 1e-7,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray, float, int]:
    """A latent class model fitted by EM on the pairwise composite likelihood of the
    co-occurrence counts (module docstring, step 2).

    Parameters
    ----------
    stats : ValueStatistics
    n_classes : int
        Number of latent classes ``K``.
    n_init : int, default=3
        Random starts; the one with the highest composite log-likelihood is kept.
    max_iter : int, default=300
    tol : float, default=1e-7
        Stop when the composite log-likelihood per value pair improves by less than this.
    random_state : int, RandomState or None
        Each start sets ``theta_{cv}`` proportional to ``p_v g_{cv}``, ``g`` drawn from an
        exponential times a log-normal (sigma 0.5) distribution, in the order of the values
        sorted by (column name, value position), so that the result does not depend on the
        order of the columns.

    Returns
    -------
    theta : ndarray of shape (J, K)
        ``theta_{cv}``, summing to 1 over each attribute's values for every class.
    pi : ndarray of shape (K,)
    loglik : float
        ``sum N[u, v] log P(u, v) / sum N`` over value pairs of different attributes.
    n_iter : int
        EM steps of the kept start.
    """
    offsets = stats.offsets.astype(np.int64)
    att = stats.attribute_of
    J = stats.n_values
    N = stats.cooc_dense().astype(np.float64)
    N[att[:, None] == att[None, :]] = 0.0
    total = N.sum()
    if total <= 0:
        raise CatEmbedError("LCME needs at least two columns with values to couple.")
    N /= total
    # the pairs that occur, as flat indices: the log-likelihood sums over them in this order;
    # Q = N / P is computed densely (N is 0 off the pairs, so Q is too)
    pairs = np.flatnonzero(N > 0)
    n_pairs = N.ravel()[pairs]
    p = stats.counts.astype(np.float64) / stats.n_rows
    # canonical value order (column name, then value position): column-order invariant draws
    order = np.lexsort((np.arange(J) - offsets[att],
                        np.asarray(stats.feature_names, dtype=object)[att].astype(str)))
    rs = check_random_state(random_state)
    best: tuple[np.ndarray, np.ndarray, float, int] | None = None
    for _ in range(int(n_init)):
        g = np.empty((J, n_classes))
        g[order] = rs.dirichlet(np.ones(J), size=n_classes).T * J
        g[order] *= np.exp(rs.normal(0.0, 0.5, size=(J, n_classes)))
        theta = _normalise_by_attribute(p[:, None] * g, offsets)
        pi = np.full(n_classes, 1.0 / n_classes)
        prev = -np.inf
        ll = -np.inf
        it = 0
        for step in range(1, int(max_iter) + 1):
            it = step
            P = (theta * pi) @ theta.T
            np.maximum(P, 1e-300, out=P)
            ll = float(n_pairs @ np.log(P.ravel()[pairs]))
            Q = np.divide(N, P, out=P)  # P is not needed any more
            A = theta * (Q @ theta) * pi
            pi = A.sum(axis=0)
            pi = pi / pi.sum()
            theta = _normalise_by_attribute(A, offsets)
            if ll - prev < tol:
                break
            prev = ll
        if best is None or ll > best[2]:
            best = (theta, pi, ll, it)
    assert best is not None
    return best


class LCME(ValueEmbedder):
    """Latent classes + multiple correspondence embedding: catembed's own method.

    Not a paper's method: designed for issue 12 (module docstring has the reasoning and the
    equations). The object vector concatenates two views, each centred and scaled to unit
    mean squared norm on the training rows:

    * the ``k`` first MCA principal coordinates (Burt matrix, chi-square metric), and
    * the object's centred log-likelihoods under ``k`` latent classes fitted by EM on the
      pairwise composite likelihood of the value co-occurrence counts.

    Both are sums of value vectors, so ``transform`` is a lookup, and the fit needs only
    :class:`~catembed.stats.ValueStatistics` (``fit_statistics``, chunked files, Dask).

    Parameters
    ----------
    n_components : int, default=10
        ``k``: MCA axes and latent classes; the output has ``2 k`` columns
        (``mca0..``, ``lc0..``). MCA keeps at most ``J - Q`` axes.
    random_state : int, RandomState or None, default=None
        Seeds the latent-class starts (the MCA view is deterministic).
    n_init : int, default=3
        Latent-class EM starts; the highest composite log-likelihood is kept.
    max_iter : int, default=300
        EM steps per start.
    handle_unknown : {"error", "ignore", "warn"}, default="error"
        A value not seen in fit adds nothing (its attribute's zero vector).
    handle_missing : {"category", "error"}, default="category"
    categorical_features : "auto", "all", list or mask, default="auto"
    numeric : {"drop", "discretize", "passthrough"}, default="drop"
    n_bins : int, default=5
    min_frequency : int, float or None, default=None
    max_categories : int or None, default=100
        As :class:`~catembed.embed.MCA` (the Burt matrix is ``J x J``).

    Attributes
    ----------
    mca_eigenvalues_ : ndarray of shape (a,)
        Principal inertias of the MCA axes kept.
    class_weights_ : ndarray of shape (k,)
        Latent class probabilities ``pi``.
    class_probabilities_ : ndarray of shape (J, k)
        ``theta_{cv}`` (unsmoothed), rows in the order of ``stats_.value_index()``.
    composite_loglik_ : float
        Composite log-likelihood per value pair of the kept start.
    n_iter_ : int
        EM steps of the kept start.
    view_scales_ : ndarray of shape (2,)
        Root mean squared norm of each view before scaling.
    n_components_ : int
        Output width ``a + k`` (``a`` MCA axes).
    """

    _combine = "sum"
    _own_n_components = True
    #: the view scaling holds the ``k x k`` product ``T^T C T`` (cost check, _pooling)
    _n_components_squares = 1.0
    _compact_dtype = np.float64
    _feature_prefix = "lcme"

    def __init__(
        self,
        n_components: int = 10,
        *,
        random_state: Any = None,
        n_init: int = 3,
        max_iter: int = 300,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
    ) -> None:
        self.n_components = n_components
        self.random_state = random_state
        self.n_init = n_init
        self.max_iter = max_iter
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.min_frequency = min_frequency
        self.max_categories = max_categories

    # The cost model of check_fit_cost, from benchmarks/bench_cde_values.py (planted tables of
    # 20,000 rows, one fit per child process, 2 cores, load average 3.6-5.0; 2026-11-24):
    # CPU seconds 1.04 / 3.3 / 38.5 / 100 and fit memory 17 / 42 / 160 / 552 MB at
    # l = 400 / 800 / 1600 / 3000 (3.5 s and 50 MB at l = 800 in 16 columns of 50).
    def _cost_cells(self, sizes: np.ndarray) -> float:
        """About eight ``l x l`` float64 matrices (the Burt matrix, the covariance, MCA's
        decomposition, the EM's ``N / P``): measured 7.8-8.2 ``l^2`` cells at l >= 800."""
        return 8.0 * float(np.sum(sizes)) ** 2

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        """The EM on the co-occurrence counts (``O(k l^2)`` a step) and MCA's eigensolver
        (``l^3``): ``l^2 / 1e5 + l^3 / 5e8`` seconds, within a factor of 2.2 of the
        measured CPU seconds from l = 400 to 3000 (above them but at l = 1600)."""
        l = float(np.sum(sizes))
        return l * l / 1e5 + l ** 3 / 5e8

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        k = check_int("n_components", self.n_components)
        for name in ("n_init", "max_iter"):
            check_int(name, getattr(self, name))
        if stats.n_features < 2:
            raise CatEmbedError(
                "LCME couples values of different columns: it needs at least 2 categorical "
                "columns with more than one value; got n_features = "
                f"{stats.n_features}. Use MCA or one-hot for a single column."
            )
        n, J = stats.n_rows, stats.n_values
        offsets = stats.offsets.astype(np.int64)
        sizes = np.diff(offsets)
        p = stats.counts.astype(np.float64) / n
        cov = stats.cooc_dense().astype(np.float64) / n - np.outer(p, p)

        mca = MCA(n_components=min(k, J - stats.n_features))
        t_mca = mca._fit_values(stats)
        self.mca_eigenvalues_ = mca.eigenvalues_

        theta, pi, ll, n_iter = pairwise_latent_classes(
            stats, k, n_init=int(self.n_init), max_iter=int(self.max_iter),
            random_state=self.random_state,
        )
        l_of = sizes[stats.attribute_of][:, None].astype(np.float64)
        smooth = (n * pi[None, :] * theta + 0.5) / (n * pi[None, :] + 0.5 * l_of)
        t_lc = np.log(smooth)
        t_lc -= t_lc.mean(axis=1, keepdims=True)
        self.class_weights_ = pi
        self.class_probabilities_ = theta
        self.composite_loglik_ = ll
        self.n_iter_ = n_iter

        views = []
        scales = []
        for T in (t_mca, t_lc):
            mean = np.add.reduceat(p[:, None] * T, offsets[:-1], axis=0)
            T = T - np.repeat(mean, sizes, axis=0)
            s = float(np.sqrt(max(np.trace(T.T @ cov @ T), 0.0)))
            scales.append(s)
            views.append(T / s if s > 0 else T)
        self.view_scales_ = np.asarray(scales)
        self.n_components_ = views[0].shape[1] + views[1].shape[1]
        self._n_mca = views[0].shape[1]
        return np.hstack(views)

    def _embedding_names(self) -> list[str]:
        a = getattr(self, "_n_mca", self.n_components_ // 2)
        return [f"mca{i}" for i in range(a)] + [f"lc{i}" for i in range(self.n_components_ - a)]

    def _extra_state(self):
        return ({"class_weights": self.class_weights_,
                 "class_probabilities": self.class_probabilities_,
                 "view_scales": self.view_scales_, "mca_eigenvalues": self.mca_eigenvalues_},
                {"composite_loglik": float(self.composite_loglik_), "n_mca": int(self._n_mca),
                 "n_iter": int(self.n_iter_)})

    def _restore_extra_state(self, arrays, meta):
        self.class_weights_ = arrays["class_weights"]
        self.class_probabilities_ = arrays["class_probabilities"]
        self.view_scales_ = arrays["view_scales"]
        self.mca_eigenvalues_ = arrays["mca_eigenvalues"]
        self.composite_loglik_ = float(meta["composite_loglik"])
        self._n_mca = int(meta["n_mca"])
        self.n_iter_ = int(meta["n_iter"])
        self.n_components_ = int(self._tables[0].shape[1])
