"""CDE++: hybrid value clustering and an autoencoder (Dong, Jian, Zuo, Entropy 22(4):391, 2020).

CDE++ starts from CDE's value influence matrices ``M_o`` and ``M_c``
(:func:`~catembed.embed.cde.cde_influence_matrices`), clusters the values of each with two
clusterers at several granularities (agglomerative clustering with CDE's stop rule, and
DBSCAN whose radius is read off the k-distance graph), concatenates the four indicator
matrices into ``C`` and learns the value vectors from ``C`` with a sparse autoencoder
(paper Sec. 3.4-3.5, Algorithm 1; method spec section 2, which settles what the paper leaves
open: Ward linkage, the knee detector, where the sparsity penalty acts).

Also here: the variants the paper compares, **CDE-AE** (:class:`CDEAutoencoder`, CDE with the
autoencoder in place of PCA) and **1-HOT-AE** (:class:`OneHotAutoencoder`), and the ablation
switches of the paper's Table 6 (``value_clustering`` and ``encoder`` of
:class:`CDEPlusPlus`).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.cluster.hierarchy import cut_tree
from scipy.cluster.hierarchy import linkage as scipy_linkage
from sklearn.cluster import DBSCAN
from sklearn.metrics import pairwise_distances

from .._params import check_option
from .._validation import CatEmbedError, CatEmbedWarning
from ..base import ValueEmbedder
from ..stats import ValueStatistics
from ._autoencoder import (
    MSE_NORMALIZATIONS,
    AutoencoderResult,
    code_size,
    stacked_reconstruction,
    train_autoencoder,
    train_stacked_autoencoder,
    warn_if_constant,
    warn_if_no_better_than_constant,
)
from .cde import (
    CDE,
    GranularityStep,
    _ValueClusterState,
    beta_pca,
    cde_influence_matrices,
    identity_fallback,
    multi_granularity_clustering,
)

__all__ = [
    "CDEAutoencoder",
    "CDEPlusPlus",
    "HybridClusters",
    "OneHotAutoencoder",
    "dbscan_sweep",
    "hierarchical_sweep",
    "hybrid_value_clusters",
    "k_distance_eps",
    "knee_point",
]

LINKAGES = ("ward", "complete", "average", "single", "weighted")
VALUE_CLUSTERINGS = ("hybrid", "dbscan", "hc")
ENCODERS = ("autoencoder", "pca", "none")
TRAININGS = ("stacked", "joint")
COLLAPSE_RATIO = 0.9  # codes no better than the column means: see warn_if_no_better_than_constant


# --------------------------------------------------------------------------- knee detector
def knee_point(curve: Any) -> int:
    """Index of the knee of a k-distance graph: the point farthest from its chord.

    The curve (sorted descending, as in Ester et al. 1996, the DBSCAN paper CDE++ cites for
    its parameter choice) is scaled to the unit square; the knee is the first point whose
    distance to the straight line through the first and last points is largest, i.e. the
    point of maximum curvature, the "first valley" of CDE++ Sec. 3.4 (method spec 2).

    Parameters
    ----------
    curve : array-like of shape (n,)

    Returns
    -------
    int
        The knee's index; 0 for a flat curve or fewer than three points.
    """
    y = np.asarray(curve, dtype=np.float64).ravel()
    n = len(y)
    if n < 3:
        return 0
    span = y.max() - y.min()
    if not span > 0:
        return 0
    x = np.linspace(0.0, 1.0, n)
    yn = (y - y.min()) / span
    chord = yn[0] + (yn[-1] - yn[0]) * x
    return int(np.argmax(np.abs(chord - yn)))


def k_distance_eps(sorted_distances: np.ndarray, k: int) -> float:
    """DBSCAN's ``eps`` for ``MinPts = k``: the k-distance at the knee of the sorted graph.

    ``sorted_distances`` holds each row's distances to all rows in ascending order (column 0
    is the row itself), so column ``k`` is the distance to the k-th nearest neighbour.
    """
    kdist = np.sort(sorted_distances[:, k])[::-1]
    return float(kdist[knee_point(kdist)])


# --------------------------------------------------------------------------- value clustering
def hierarchical_sweep(
    M: np.ndarray, epsilon: float = 8, linkage: str = "ward"
) -> tuple[np.ndarray, list[GranularityStep]]:
    """Agglomerative value clusters of the rows of ``M`` for ``k = 2, 3, ...`` (CDE++ Alg. 1).

    One tree (:func:`scipy.cluster.hierarchy.linkage`, ``linkage`` on Euclidean rows) cut
    into ``k`` clusters for each ``k``; single-value clusters dropped; CDE's stop rule with
    ``epsilon`` in the place of ``alpha`` (:func:`~catembed.embed.cde.
    multi_granularity_clustering`).
    """
    check_option("linkage", linkage, LINKAGES)
    n = M.shape[0]
    if n < 3:
        return np.zeros((n, 0)), []
    Z = scipy_linkage(M, method=linkage, metric="euclidean")
    cache: dict[int, np.ndarray] = {}

    def cut(k: int) -> np.ndarray:
        if k not in cache:
            ks = list(range(k, min(k + 32, n) + 1))
            cuts = cut_tree(Z, n_clusters=ks)
            cache.update({kk: cuts[:, i] for i, kk in enumerate(ks)})
        return cache.pop(k)

    return multi_granularity_clustering(M, cut, epsilon, param_name="epsilon")


def dbscan_sweep(
    M: np.ndarray, k_values: list[int], *, distances: np.ndarray | None = None
) -> tuple[np.ndarray, list[GranularityStep], dict[int, float]]:
    """DBSCAN value clusters of the rows of ``M``, ``MinPts = k`` for each ``k`` given.

    ``eps`` is the knee of the sorted k-distance graph (:func:`k_distance_eps`); noise points
    belong to no cluster; clusters of one value (or holding all values but one) are dropped.
    scikit-learn's ``min_samples`` counts the point itself, as Ester et al.'s ``MinPts`` does.

    Returns
    -------
    indicator : ndarray of shape (l, q)
    steps : list of GranularityStep
    eps : dict
        The radius used at each ``k``.
    """
    n = M.shape[0]
    ks = [int(k) for k in k_values if 1 <= k < n]
    if not ks:
        return np.zeros((n, 0)), [], {}
    D = pairwise_distances(M) if distances is None else distances
    D = np.maximum(D, D.T)
    np.fill_diagonal(D, 0.0)
    Ds = np.sort(D, axis=1)
    tiny = np.finfo(np.float64).eps * max(float(Ds[:, -1].max()), 1.0)
    eps: dict[int, float] = {}

    def run(k: int) -> np.ndarray:
        eps[k] = max(k_distance_eps(Ds, k), tiny)
        return DBSCAN(eps=eps[k], min_samples=k, metric="precomputed").fit(D).labels_

    indicator, steps = multi_granularity_clustering(M, run, 1.0, k_values=ks)
    return indicator, steps, eps


@dataclass
class HybridClusters:
    """The value-cluster indicator matrix ``C`` of CDE++ and how it was built.

    Attributes
    ----------
    indicator : ndarray of shape (l, vc)
        Distinct cluster indicator columns, in the order ``M_o``/DBSCAN, ``M_o``/HC,
        ``M_c``/DBSCAN, ``M_c``/HC (paper Algorithm 1).
    names : list of str
        ``{M}_{method}_k{k}_{i}`` for every column.
    steps : dict
        ``"M_o/dbscan"`` etc. -> list of :class:`~catembed.embed.cde.GranularityStep`.
    eps : dict
        ``"M_o"``/``"M_c"`` -> the DBSCAN radius at each ``k``.
    n_duplicates : int
        Columns removed because an earlier column was identical.
    """

    indicator: np.ndarray
    names: list[str]
    steps: dict[str, list[GranularityStep]] = field(default_factory=dict)
    eps: dict[str, dict[int, float]] = field(default_factory=dict)
    n_duplicates: int = 0


def hybrid_value_clusters(
    matrices: dict[str, np.ndarray],
    *,
    epsilon: float = 8,
    linkage: str = "ward",
    methods: tuple[str, ...] = ("dbscan", "hc"),
) -> HybridClusters:
    """CDE++'s hybrid value clustering (Sec. 3.4, Algorithm 1 steps 3-12; spec 2).

    For each matrix (``{"M_o": M_o, "M_c": M_c}``): agglomerative clustering over
    ``k = 2, 3, ...`` with the ``epsilon`` stop rule (:func:`hierarchical_sweep`), and DBSCAN
    with ``MinPts = k`` over the same ``k`` (:func:`dbscan_sweep`). The indicator matrices are
    concatenated and identical columns kept once. With ``methods=("dbscan",)`` the sweep's
    ``k`` still come from the hierarchical stop rule (the paper ties DBSCAN's ``k`` to HC's).
    """
    for m in methods:
        check_option("methods", m, ("dbscan", "hc"))
    blocks: list[np.ndarray] = []
    names: list[str] = []
    steps: dict[str, list[GranularityStep]] = {}
    eps: dict[str, dict[int, float]] = {}
    for key, M in matrices.items():
        ind_h, steps_h = hierarchical_sweep(M, epsilon, linkage)
        ks = [s.k for s in steps_h]
        if "dbscan" in methods:
            ind_d, steps_d, eps_d = dbscan_sweep(M, ks)
            blocks.append(ind_d)
            names += _names(f"{key}_dbscan", steps_d)
            steps[f"{key}/dbscan"] = steps_d
            eps[key] = eps_d
        if "hc" in methods:
            blocks.append(ind_h)
            names += _names(f"{key}_hc", steps_h)
            steps[f"{key}/hc"] = steps_h
    n = next(iter(matrices.values())).shape[0]
    C = np.hstack(blocks) if blocks else np.zeros((n, 0))
    keep = _first_distinct_columns(C)
    return HybridClusters(
        C[:, keep], [names[i] for i in keep], steps, eps, int(C.shape[1] - len(keep))
    )


def _first_distinct_columns(C: np.ndarray) -> np.ndarray:
    """Indices of the first occurrence of each distinct 0/1 column of ``C``, in order."""
    packed = np.ascontiguousarray(np.packbits(C.astype(bool), axis=0).T)
    first: dict[bytes, int] = {}
    for i, col in enumerate(packed):
        first.setdefault(col.tobytes(), i)
    return np.fromiter(first.values(), dtype=np.intp, count=len(first))


def _names(prefix: str, steps: list[GranularityStep]) -> list[str]:
    return [f"{prefix}_k{s.k}_{i}" for s in steps for i in range(s.n_kept)]


# --------------------------------------------------------------------------- estimators
class _AutoencoderMixin:
    """The autoencoder parameters CDE++, CDE-AE and 1-HOT-AE share, and the training call."""

    _falls_back = False  # CDE++ replaces collapsed codes by C itself (and warns there)
    _collapsed = False

    def _check_autoencoder_params(self) -> None:
        code_size(1, self.hidden_factor)
        check_option("training", self.training, TRAININGS)
        check_option("mse_normalization", self.mse_normalization, MSE_NORMALIZATIONS)
        opts = ("scg", "lbfgs") if self.training == "stacked" else ("scg", "lbfgs", "adam")
        check_option("optimizer", self.optimizer, opts)
        if self.training == "stacked" and str(self.device) != "cpu":
            raise CatEmbedError(
                f"device={self.device!r}: training='stacked' runs in NumPy on the CPU; "
                "use training='joint' to train on a GPU."
            )

    def _autoencode(self, C: np.ndarray) -> np.ndarray:
        q = code_size(C.shape[1], self.hidden_factor)
        l2, rho = self.l2_weight, self.sparsity_proportion
        self._collapsed = False
        if self.training == "stacked":
            codes, layers = train_stacked_autoencoder(
                C, (self.hidden_size, q), l2_weight=l2, sparsity_weight=self.sparsity_weight,
                sparsity_proportion=rho, max_epochs=self.max_epochs,
                optimizer=self.optimizer, mse_normalization=self.mse_normalization,
                random_state=self.random_state,
            )
            self.n_epochs_ = sum(layer.n_epochs for layer in layers)
            before = float(((C - C.mean(axis=0)) ** 2).mean())
            after = float(((stacked_reconstruction(layers, C) - C) ** 2).mean())
            self.reconstruction_error_ = (before, after)
            self.loss_ = layers[-1].loss_history[-1]
            self._collapsed = bool(before > 0 and after >= COLLAPSE_RATIO * before)
            if not self._falls_back:
                warn_if_constant(codes)
                warn_if_no_better_than_constant(after, before)
            return codes
        res: AutoencoderResult = train_autoencoder(
            C, q, hidden_size=self.hidden_size, max_epochs=self.max_epochs,
            l2_weight=l2, sparsity_weight=self.sparsity_weight,
            sparsity_proportion=rho, optimizer=self.optimizer,
            device=self.device, random_state=self.random_state,
        )
        self.n_epochs_ = res.n_epochs
        self.reconstruction_error_ = res.reconstruction_error
        self.loss_ = res.loss_history[-1] if res.loss_history else float("nan")
        return res.codes

    def _autoencoder_meta(self) -> dict[str, Any]:
        return {
            "n_epochs": int(getattr(self, "n_epochs_", 0)),
            "reconstruction_error": [float(v) for v in getattr(
                self, "reconstruction_error_", (float("nan"), float("nan")))],
            "loss": float(getattr(self, "loss_", float("nan"))),
        }

    def _restore_autoencoder_meta(self, meta: dict[str, Any]) -> None:
        if "n_epochs" in meta:
            self.n_epochs_ = int(meta["n_epochs"])
            self.reconstruction_error_ = tuple(meta["reconstruction_error"])
            self.loss_ = float(meta["loss"])


_AE_PARAMS_DOC = """
    hidden_factor : float, default=10
        The paper's ``lambda``: the code has ``q = max(2, ceil(vc / hidden_factor))`` units.
    hidden_size : int, default=64
        Width of the two hidden layers (paper Table 4: ``vc-64-q-64-vc``).
    max_epochs : int, default=1000
        Training epochs at most, per autoencoder (paper Table 4).
    training : {"stacked", "joint"}, default="stacked"
        ``"stacked"``: the way MATLAB builds a deep autoencoder from ``trainAutoencoder``,
        which trains one hidden layer: ``vc -> 64 -> vc`` on the input, then
        ``64 -> q -> 64`` on its codes (greedy, layer-wise), each with MATLAB's objective,
        ``ScaleData`` rescaling and initialisation, in NumPy on the CPU
        (:func:`~catembed.embed._autoencoder.train_stacked_autoencoder`). ``"joint"``: the
        whole ``vc-64-q-64-vc`` network trained end to end in PyTorch, the sparsity penalty
        on the code layer (needs the ``deep`` extra; runs on a GPU with ``device``).
    mse_normalization : {"matlab", "samples", "elements"}, default="matlab"
        ``"stacked"`` only: how the objective scales its terms
        (:func:`~catembed.embed._autoencoder.sparse_autoencoder_objective`). ``"matlab"``
        is what MATLAB's code computes (errors in the input's units averaged over all
        entries, L2 ``l2_weight / K * sum W**2``, sparsity ``2 * sparsity_weight / K * sum
        KL``, ``K`` the layer's width); ``"samples"`` the formula the ``trainAutoencoder``
        page prints (error summed over features, averaged over samples, ``l2_weight / 2``,
        ``sparsity_weight``); ``"elements"`` that formula with the error averaged over all
        entries. The layers start from MATLAB's ``randsmall`` weights and biases
        (uniform in ``[-0.1, 0.1]``).
    l2_weight, sparsity_weight, sparsity_proportion : float, default=1e-5, 1.0, 0.3
        The L2 weight penalty, the KL sparsity penalty's weight and the target mean
        activation of the hidden units. The paper does not give them (Table 4: "MSE with L2
        and Sparsity Regularizers"). With MATLAB's defaults (0.001, 1, 0.05) and MATLAB's
        scaling the second autoencoder, trained on the first one's sparse codes (mean
        activation 0.05, errors measured in those small units), leaves the reconstruction
        error of ``C`` at 0.94-1.01 times the column means' on all 12 sets of Table 3, with
        constant codes on 11 (``docs/reproducing.md``, one fit per set); CDE++ then falls
        back to ``C`` itself (``encoder_used_``). With ``1e-5`` and 0.3 the codes keep
        88-99.6 % of ``C``'s variance on 7 of them, 68-85 % on the other 5. The defaults are
        chosen by that label-free rule: how much of ``C`` the codes keep.
    optimizer : {"scg", "lbfgs", "adam"}, default="scg"
        Full-batch scaled conjugate gradient (a port of MATLAB's ``trainscg``, the paper's
        Table 4), L-BFGS, or Adam (``"joint"`` only).
    device : str, default="cpu"
        ``"cuda"`` trains on the GPU (``training="joint"`` only; an error when PyTorch sees
        none).
    random_state : int, RandomState instance or None, default=None
        Seeds the autoencoder's weights; the same seed gives the same embedding on the CPU."""


class CDEPlusPlus(_AutoencoderMixin, _ValueClusterState, ValueEmbedder):
    """CDE++ categorical data embedding (Dong, Jian, Zuo, Entropy 2020).

    1. CDE's value influence matrices ``M_o`` and ``M_c`` (paper Sec. 3.2-3.3, Eq. 1-5;
       :func:`~catembed.embed.cde.cde_influence_matrices`, the authors' code version);
    2. hybrid value clustering (Sec. 3.4, Algorithm 1): for each matrix, agglomerative
       clustering for ``k = 2, 3, ...`` until more than ``ceil(k / epsilon)`` single-value
       clusters appear, and DBSCAN with ``MinPts = k`` and ``eps`` at the knee of the sorted
       k-distance graph over the same ``k``; noise and single-value clusters dropped; the four
       indicator matrices concatenated into ``C`` (``l x vc``), identical columns once
       (:func:`hybrid_value_clusters`);
    3. a sparse autoencoder ``vc -> 64 -> q -> 64 -> vc`` trained on ``C`` (Sec. 3.5, Table 4:
       MSE with L2 and sparsity regularisers, scaled conjugate gradient, 1000 epochs); the
       code of each value is its vector (``q = max(2, ceil(vc / lambda))``);
    4. an object concatenates its values' vectors (Eq. 7).

    Where the paper is silent the method spec (section 2) decides: Ward linkage on Euclidean
    rows (``linkage``), the knee as the point farthest from the chord of the k-distance graph
    (:func:`knee_point`). The autoencoder is trained the way the paper's MATLAB 2018b could
    train Table 4's network: ``trainAutoencoder`` trains one hidden layer, so the deep network
    is two of them stacked layer-wise (``training="stacked"``), each with MATLAB's objective
    scaled as MATLAB's code scales it, logistic units, inputs rescaled to ``[0, 1]``,
    MATLAB's ``randsmall`` initialisation and a port of ``trainscg``; the paper gives no
    regulariser weights, and ours (L2 1e-5, sparsity 0.3, not MATLAB's 0.001 and 0.05) are
    chosen by how well the codes reconstruct ``C``, a rule that needs no labels. Codes that
    reconstruct ``C`` no better than its column means (the collapse MATLAB's weights cause)
    are replaced by the rows of ``C`` (ablation iii) with a warning. The method
    spec's reading (sparsity on the code layer of one end-to-end
    network, L-BFGS or Adam) is ``training="joint"``. The stop rule is CDE's (``>`` rather
    than Algorithm 1's ``>=``, and counted on the hierarchical clustering; DBSCAN's clusters
    always have at least ``MinPts`` members, so it reuses the hierarchical sweep's ``k``).

    Parameters
    ----------
    epsilon : float, default=8
        The paper's ``epsilon``: the sweep stops once more than ``ceil(k / epsilon)`` clusters
        at one ``k`` are dropped.
    linkage : {"ward", "complete", "average", "single", "weighted"}, default="ward"
    value_clustering : {"hybrid", "dbscan", "hc"}, default="hybrid"
        Table 6 ablation switch: both clusterers, DBSCAN only (i), hierarchical only (ii).
    encoder : {"autoencoder", "pca", "none"}, default="autoencoder"
        How value vectors come from ``C``: the autoencoder (iv, CDE++), PCA as in CDE with the
        ``beta`` rule, or ``"none"``: the rows of ``C`` themselves (ablations i-iii).
    beta : float, default=1e-10
        Only for ``encoder="pca"``: components with a smaller range are dropped.
    coupling : {"code", "paper"}, default="code"
        ``M_o`` as in the CDE authors' code, or as CDE's Definition 1 prints it.
    """ + _AE_PARAMS_DOC + """
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
    handle_missing : {"category", "error"}, default="category"
    categorical_features : "auto", "all", list or mask, default="auto"
    numeric : {"drop", "discretize", "passthrough"}, default="drop"
        Numeric columns: dropped with a warning, cut into ``n_bins`` quantile bins embedded as
        values, or standardised and appended (see :class:`catembed.base.ValueEmbedder`).
    n_bins : int, default=5
    n_components, dtype :
        Compact output (a bounded width, float32): see :class:`catembed.ValueEmbedder`.

    Attributes
    ----------
    value_embedding_ : DataFrame of shape (l, q)
        The value vectors, indexed by ``(column, value)``.
    value_clusters_ : DataFrame of shape (l, vc)
        The indicator matrix ``C``.
    granularity_steps_ : dict
        ``"M_o/dbscan"``, ``"M_o/hc"``, ``"M_c/dbscan"``, ``"M_c/hc"`` -> steps of the sweep.
    dbscan_eps_ : dict
        ``"M_o"``/``"M_c"`` -> {k: eps}.
    n_components_ : int
        Width of the value vectors.
    encoder_used_ : str
        ``encoder``, or ``"none"`` when the autoencoder's codes collapsed (``training=
        "stacked"``: reconstruction error at least 0.9 times the column means', a label-free
        test) and the rows of ``C`` were used instead, with a
        :class:`~catembed.CatEmbedWarning`.
    n_epochs_, reconstruction_error_, loss_
        The autoencoder's epochs (both layers for ``"stacked"``), mean squared reconstruction
        error (baseline, after) and final loss (``encoder="autoencoder"`` only). The baseline
        is the error of the constant code (column means) for ``"stacked"``, of the untrained
        network for ``"joint"``.

    Examples
    --------
    >>> import pandas as pd
    >>> from catembed import CDEPlusPlus
    >>> X = pd.DataFrame({"color": list("rrggbbrg"), "shape": list("ssccttsc")})
    >>> emb = CDEPlusPlus(encoder="none").fit(X)
    >>> emb.transform(X).shape[0]
    8
    """

    _feature_prefix = "cdepp"
    _falls_back = True

    def __init__(
        self,
        *,
        epsilon: float = 8,
        linkage: str = "ward",
        value_clustering: str = "hybrid",
        encoder: str = "autoencoder",
        beta: float = 1e-10,
        coupling: str = "code",
        hidden_factor: float = 10,
        hidden_size: int = 64,
        max_epochs: int = 1000,
        training: str = "stacked",
        mse_normalization: str = "matlab",
        l2_weight: float = 1e-5,
        sparsity_weight: float = 1.0,
        sparsity_proportion: float = 0.3,
        optimizer: str = "scg",
        device: str = "cpu",
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
        self.epsilon = epsilon
        self.linkage = linkage
        self.value_clustering = value_clustering
        self.encoder = encoder
        self.beta = beta
        self.coupling = coupling
        self.hidden_factor = hidden_factor
        self.hidden_size = hidden_size
        self.max_epochs = max_epochs
        self.training = training
        self.mse_normalization = mse_normalization
        self.l2_weight = l2_weight
        self.sparsity_weight = sparsity_weight
        self.sparsity_proportion = sparsity_proportion
        self.optimizer = optimizer
        self.device = device
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

    def _check_params(self) -> None:
        super()._check_params()
        check_option("linkage", self.linkage, LINKAGES)
        check_option("value_clustering", self.value_clustering, VALUE_CLUSTERINGS)
        check_option("encoder", self.encoder, ENCODERS)
        check_option("coupling", self.coupling, ("code", "paper"))
        if not self.epsilon > 0:
            raise CatEmbedError(f"epsilon must be positive; got {self.epsilon!r}.")
        if self.encoder == "autoencoder":
            self._check_autoencoder_params()

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        m_c, m_o = cde_influence_matrices(stats, self.coupling)
        methods = ("dbscan", "hc") if self.value_clustering == "hybrid" else (
            self.value_clustering,)
        hybrid = hybrid_value_clusters(
            {"M_o": m_o, "M_c": m_c}, epsilon=self.epsilon, linkage=self.linkage,
            methods=methods,
        )
        C, names = hybrid.indicator, hybrid.names
        C, names = identity_fallback(C, names, stats.n_values, "CDE++")
        self.encoder_used_ = self.encoder
        if self.encoder == "autoencoder":
            embedding = self._autoencode(C)
            if self._collapsed and self.training == "stacked":
                before, after = self.reconstruction_error_
                warnings.warn(
                    f"CDE++: the autoencoder's codes reconstruct the value clusters no better "
                    f"than their column means (mean squared error {after:.4g} vs {before:.4g}),"
                    " so they carry (almost) nothing; the value vectors are the rows of the "
                    "cluster indicator matrix C instead (the encoder='none' ablation). Lower "
                    "l2_weight or sparsity_weight to keep the autoencoder.",
                    CatEmbedWarning,
                    stacklevel=3,
                )
                embedding = C.copy()
                self.encoder_used_ = "none"
        elif self.encoder == "pca":
            embedding = beta_pca(C, self.beta)
            if embedding.shape[1] == 0:
                raise CatEmbedError("CDE++ kept no principal component; lower beta.")
        else:
            embedding = C.copy()
        self.M_c_ = m_c
        self.M_o_ = m_o
        self._indicator = C
        self._indicator_names = names
        self.granularity_steps_ = hybrid.steps
        self.dbscan_eps_ = hybrid.eps
        self.n_components_ = embedding.shape[1]
        return embedding

    def _extra_state(self):
        arrays, meta = self._cluster_state()
        meta["eps"] = {key: {str(k): float(v) for k, v in val.items()}
                       for key, val in self.dbscan_eps_.items()}
        if self.encoder == "autoencoder":
            meta["autoencoder"] = self._autoencoder_meta()
        meta["encoder_used"] = self.encoder_used_
        return arrays, meta

    def _restore_extra_state(self, arrays, meta):
        self._restore_cluster_state(arrays, meta)
        self.dbscan_eps_ = {key: {int(k): float(v) for k, v in val.items()}
                            for key, val in meta["eps"].items()}
        self._restore_autoencoder_meta(meta.get("autoencoder", {}))
        self.encoder_used_ = meta.get("encoder_used", self.encoder)
        self.M_c_, self.M_o_ = cde_influence_matrices(self.stats_, self.coupling)


class CDEAutoencoder(_AutoencoderMixin, CDE):
    """CDE-AE: CDE with the CDE++ autoencoder in place of PCA (Dong et al. 2020, Sec. 4.1.2).

    CDE's value clusters (k-means at several granularities on ``M_c`` and ``M_o``, ``alpha``
    stop rule; :class:`~catembed.embed.cde.CDE`), then the sparse autoencoder of
    :class:`CDEPlusPlus` on the indicator matrix instead of PCA; the code of each value is
    its vector.

    Parameters
    ----------
    alpha : float, default=10
    coupling : {"code", "paper"}, default="code"
    max_iter : int, default=100
        CDE's parameters (see :class:`~catembed.embed.cde.CDE`).
    """ + _AE_PARAMS_DOC + """
        It also seeds CDE's value k-means.
    min_frequency, max_categories, handle_unknown, handle_missing, categorical_features, \
numeric, n_bins
        As for every catembed embedder (rare values pooled: default ``max_categories=100``,
        the cost is quadratic in the number of values).

    Attributes
    ----------
    value_embedding_, value_clusters_, granularity_steps_, M_c_, M_o_, n_iter_
        As for CDE.
    n_components_ : int
        The code size ``q``.
    n_epochs_, reconstruction_error_, loss_
        The autoencoder's training record.
    """

    _feature_prefix = "cdeae"

    def __init__(
        self,
        *,
        alpha: float = 10,
        coupling: str = "code",
        max_iter: int = 100,
        hidden_factor: float = 10,
        hidden_size: int = 64,
        max_epochs: int = 1000,
        training: str = "stacked",
        mse_normalization: str = "matlab",
        l2_weight: float = 1e-5,
        sparsity_weight: float = 1.0,
        sparsity_proportion: float = 0.3,
        optimizer: str = "scg",
        device: str = "cpu",
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
        self.coupling = coupling
        self.max_iter = max_iter
        self.hidden_factor = hidden_factor
        self.hidden_size = hidden_size
        self.max_epochs = max_epochs
        self.training = training
        self.mse_normalization = mse_normalization
        self.l2_weight = l2_weight
        self.sparsity_weight = sparsity_weight
        self.sparsity_proportion = sparsity_proportion
        self.optimizer = optimizer
        self.device = device
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

    beta = 1e-10  # CDE's PCA rule, unused here but read by CDE._fit_values

    def _check_params(self) -> None:
        super()._check_params()
        self._check_autoencoder_params()

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        super()._fit_values(stats)  # CDE: matrices and value clusters (its PCA is unused)
        embedding = self._autoencode(self._indicator)
        self.n_components_ = embedding.shape[1]
        return embedding

    def _extra_state(self):
        arrays, meta = super()._extra_state()
        meta = dict(meta, autoencoder=self._autoencoder_meta())
        return arrays, meta

    def _restore_extra_state(self, arrays, meta):
        super()._restore_extra_state(arrays, meta)
        self.n_components_ = int(meta["n_components"])
        self._restore_autoencoder_meta(meta.get("autoencoder", {}))


class OneHotAutoencoder(_AutoencoderMixin, ValueEmbedder):
    """1-HOT-AE: the CDE++ autoencoder on the one-hot value codes (Dong et al. 2020, 4.1.2).

    The input is the ``l x l`` identity (each value's one-hot code); the code of each value
    (``q = max(2, ceil(l / lambda))`` units) is its vector; an object concatenates its values'
    vectors.

    Parameters
    ----------""" + _AE_PARAMS_DOC + """
    min_frequency, max_categories, handle_unknown, handle_missing, categorical_features, \
numeric, n_bins
        As for every catembed embedder (rare values pooled: default ``max_categories=100``,
        the cost is quadratic in the number of values).

    Attributes
    ----------
    value_embedding_ : DataFrame of shape (l, q)
    n_components_ : int
    n_epochs_, reconstruction_error_, loss_
        The autoencoder's training record.
    """

    _feature_prefix = "ohae"

    def __init__(
        self,
        *,
        hidden_factor: float = 10,
        hidden_size: int = 64,
        max_epochs: int = 1000,
        training: str = "stacked",
        mse_normalization: str = "matlab",
        l2_weight: float = 1e-5,
        sparsity_weight: float = 1.0,
        sparsity_proportion: float = 0.3,
        optimizer: str = "scg",
        device: str = "cpu",
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
        self.hidden_factor = hidden_factor
        self.hidden_size = hidden_size
        self.max_epochs = max_epochs
        self.training = training
        self.mse_normalization = mse_normalization
        self.l2_weight = l2_weight
        self.sparsity_weight = sparsity_weight
        self.sparsity_proportion = sparsity_proportion
        self.optimizer = optimizer
        self.device = device
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

    def _check_params(self) -> None:
        super()._check_params()
        self._check_autoencoder_params()

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        embedding = self._autoencode(np.eye(stats.n_values))
        self.n_components_ = embedding.shape[1]
        return embedding

    def _extra_state(self):
        return {}, {"n_components": int(self.n_components_),
                    "autoencoder": self._autoencoder_meta()}

    def _restore_extra_state(self, arrays, meta):
        self.n_components_ = int(meta["n_components"])
        self._restore_autoencoder_meta(meta.get("autoencoder", {}))
