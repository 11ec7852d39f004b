"""CDE++: hybrid value clustering and an autoencoder (Dong, Jian, Zuo, Entropy 22(4):391, 2020).

CDE++ starts from CDE's value influence matrices ``M_o`` and ``M_c``
(:func:`~catembed.embed.cde.cde_influence_matrices`), clusters the values of each with two
clusterers at several granularities (agglomerative clustering with CDE's stop rule, and
DBSCAN whose radius is read off the k-distance graph), concatenates the four indicator
matrices into ``C`` and learns the value vectors from ``C`` with a sparse autoencoder
(paper Sec. 3.4-3.5, Algorithm 1; method spec section 2, which settles what the paper leaves
open: Ward linkage, the knee detector, where the sparsity penalty acts).

The steps: the hybrid value clustering (:mod:`catembed.embed._value_clusters`), the
autoencoder (:mod:`catembed.embed._autoencoder_mixin`, trained by
:mod:`catembed.embed._sparse_autoencoder` or :mod:`catembed.embed._autoencoder`). Also here:
the ablation switches of the paper's Table 6 (``value_clustering`` and ``encoder`` of
:class:`CDEPlusPlus`). The variants the paper compares, **CDE-AE** and **1-HOT-AE**, are in
:mod:`catembed.embed.autoencoders`.
"""


from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from .._utils._params import check_option
from .._utils._validation import CatEmbedError, CatEmbedWarning
from ..base import ValueEmbedder
from ..stats._value_statistics import ValueStatistics
from ._autoencoder_mixin import _AE_PARAMS_DOC, _AutoencoderMixin
from ._indicator_pca import beta_pca
from ._value_clusters import LINKAGES, VALUE_CLUSTERINGS, hybrid_value_clusters
from .cde import _ValueClusterState, cde_influence_matrices, identity_fallback

__all__ = ["CDEPlusPlus"]

ENCODERS = ("autoencoder", "pca", "none")


class CDEPlusPlus(_AutoencoderMixin, _ValueClusterState, ValueEmbedder):
    """CDE++ categorical data embedding (Dong, Jian, Zuo, Entropy 2020).

    1. CDE's value influence matrices ``M_o`` and ``M_c`` (paper Sec. 3.2-3.3, Eq. 1-5;
       :func:`~catembed.embed.cde.cde_influence_matrices`, the authors' code version);
    2. hybrid value clustering (Sec. 3.4, Algorithm 1): for each matrix, agglomerative
       clustering for ``k = 2, 3, ...`` until more than ``ceil(k / epsilon)`` single-value
       clusters appear, and DBSCAN with ``MinPts = k`` and ``eps`` at the knee of the sorted
       k-distance graph over the same ``k``; noise and single-value clusters dropped; the four
       indicator matrices concatenated into ``C`` (``l x vc``), identical columns once
       (:func:`~catembed.embed._value_clusters.hybrid_value_clusters`);
    3. a sparse autoencoder ``vc -> 64 -> q -> 64 -> vc`` trained on ``C`` (Sec. 3.5, Table 4:
       MSE with L2 and sparsity regularisers, scaled conjugate gradient, 1000 epochs); the
       code of each value is its vector (``q = max(2, ceil(vc / lambda))``);
    4. an object concatenates its values' vectors (Eq. 7).

    Where the paper is silent the method spec (section 2) decides: Ward linkage on Euclidean
    rows (``linkage``), the knee as the point farthest from the chord of the k-distance graph
    (:func:`~catembed.embed._value_clusters.knee_point`). The autoencoder is trained the way the
    paper's MATLAB 2018b could train Table 4's network: ``trainAutoencoder`` trains one hidden
    layer, so the deep network is two of them stacked layer-wise (``training="stacked"``), each
    with MATLAB's objective scaled as MATLAB's code scales it, logistic units, inputs rescaled
    to ``[0, 1]``, MATLAB's ``randsmall`` initialisation and a port of ``trainscg``; the paper
    gives no regulariser weights, and ours (L2 1e-5, sparsity 0.3, not MATLAB's 0.001 and 0.05)
    are chosen by how well the codes reconstruct ``C``, a rule that needs no labels. Codes that
    reconstruct ``C`` no better than its column means (the collapse MATLAB's weights cause) are
    replaced by the rows of ``C`` (ablation iii) with a warning. The method spec's reading
    (sparsity on the code layer of one end-to-end network, L-BFGS or Adam) is
    ``training="joint"``. The stop rule is CDE's (``>`` rather than Algorithm 1's ``>=``, and
    counted on the hierarchical clustering; DBSCAN's clusters always have at least ``MinPts``
    members, so it reuses the hierarchical sweep's ``k``).

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

    # The cost model of check_fit_cost, from benchmarks/bench_cde_values.py (planted tables of
    # 20,000 rows, one fit per child process, 2 cores, load average 3.6-4.7; 2026-11-24):
    # CPU seconds 1.04 / 3.2 / 8.3 / 45 and fit memory 10 / 28 / 152 / 1172 MB at
    # l = 100 / 200 / 400 / 800 (11.8 s and 170 MB at l = 400 in 16 columns of 25).
    def _cost_cells(self, sizes: np.ndarray) -> float:
        """The dense value-cluster indicator ``C`` (``l`` rows, one column per cluster of
        every level of the DBSCAN and hierarchical sweeps, ``O(l^2)`` columns) and the
        autoencoder's copies of it: measured 0.29-0.3 ``l^3`` cells at l = 400 and 800."""
        return 0.3 * float(np.sum(sizes)) ** 3

    def _cost_seconds(self, sizes: np.ndarray) -> float:
        """The sweeps and the autoencoder on ``C``: ``1 + l^2 / 5e4 + l^3 / 1.2e7``
        seconds, within a factor of 1.3 of the measured CPU seconds from l = 100 to 800
        (an upper bound for ``encoder="pca"`` or ``"none"``)."""
        l = float(np.sum(sizes))
        return 1.0 + l * l / 5e4 + l ** 3 / 1.2e7

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        m_c, m_o = cde_influence_matrices(stats, self.coupling)
        methods = ("dbscan", "hc") if self.value_clustering == "hybrid" else (
            self.value_clustering,)
        hybrid = hybrid_value_clusters(
            {"M_o": m_o, "M_c": m_c}, epsilon=self.epsilon, linkage=self.linkage,
            methods=methods,
        )
        C, names = hybrid.indicator, hybrid.names
        C, names = identity_fallback(C, names, stats.n_values, "CDE++", stats.n_features)
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
