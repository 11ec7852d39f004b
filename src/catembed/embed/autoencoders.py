"""CDE-AE and 1-HOT-AE: the autoencoder variants the CDE++ paper compares (Sec. 4.1.2).

**CDE-AE** (:class:`CDEAutoencoder`) is CDE with the CDE++ autoencoder in place of PCA;
**1-HOT-AE** (:class:`OneHotAutoencoder`) is the autoencoder on the one-hot value codes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import ValueEmbedder
from ..stats._value_statistics import ValueStatistics
from ._autoencoder_mixin import _AE_PARAMS_DOC, _AutoencoderMixin
from .cde import CDE

__all__ = ["CDEAutoencoder", "OneHotAutoencoder"]


class CDEAutoencoder(_AutoencoderMixin, CDE):
    """CDE-AE: CDE with the CDE++ autoencoder in place of PCA (Dong et al. 2020, Sec. 4.1.2).

    CDE's value clusters (k-means at several granularities on ``M_c`` and ``M_o``, ``alpha``
    stop rule; :class:`~catembed.embed.cde.CDE`), then the sparse autoencoder of
    :class:`~catembed.embed.cdepp.CDEPlusPlus` on the indicator matrix instead of PCA; the
    code of each value is its vector.

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
