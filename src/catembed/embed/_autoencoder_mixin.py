"""The autoencoder step CDE++, CDE-AE and 1-HOT-AE share: parameters, training call, state.

The networks are trained by :mod:`catembed.embed._sparse_autoencoder` (``training="stacked"``,
the default) or :mod:`catembed.embed._autoencoder` (``training="joint"``, PyTorch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._utils._params import check_nonnegative, check_option
from .._utils._validation import CatEmbedError
from ._autoencoder import (
    AutoencoderResult,
    check_training_params,
    code_size,
    train_autoencoder,
    warn_if_constant,
    warn_if_no_better_than_constant,
)
from ._sparse_autoencoder import (
    MSE_NORMALIZATIONS,
    stacked_reconstruction,
    train_stacked_autoencoder,
)

TRAININGS = ("stacked", "joint")
COLLAPSE_RATIO = 0.9  # codes no better than the column means: see warn_if_no_better_than_constant


class _AutoencoderMixin:
    """The autoencoder parameters CDE++, CDE-AE and 1-HOT-AE share, and the training call."""

    _falls_back = False  # CDE++ replaces collapsed codes by C itself (and warns there)
    _collapsed = False

    def _check_autoencoder_params(self) -> None:
        code_size(1, self.hidden_factor)
        check_training_params(self.hidden_size, self.max_epochs, self.sparsity_proportion)
        check_nonnegative("l2_weight", self.l2_weight)  # a negative weight rewards large
        check_nonnegative("sparsity_weight", self.sparsity_weight)  # weights / no sparsity
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
        (:func:`~catembed.embed._sparse_autoencoder.train_stacked_autoencoder`). ``"joint"``: the
        whole ``vc-64-q-64-vc`` network trained end to end in PyTorch, the sparsity penalty
        on the code layer (needs the ``deep`` extra; runs on a GPU with ``device``).
    mse_normalization : {"matlab", "samples", "elements"}, default="matlab"
        ``"stacked"`` only: how the objective scales its terms
        (:func:`~catembed.embed._sparse_autoencoder.sparse_autoencoder_objective`). ``"matlab"``
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
