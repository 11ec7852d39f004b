"""The shared estimator of the deep mixed-type clusterers: parameters and their checks,
``fit`` (encode the table, draw the restarts' seeds, train, keep the best restart) and the
inference methods (``transform``, ``predict_proba``, ``predict``).

The public classes (:class:`~catembed.deep.clustering.AutoencoderKMeans`,
:class:`~catembed.deep.clustering.IDEC`, :class:`~catembed.deep.clustering.AttentionClusterer`)
choose the encoder and the objective; the training loop is :mod:`catembed.deep._training`,
the objectives :mod:`catembed.deep._objectives`, the networks :mod:`catembed.deep._nets`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._utils._params import (
    check_int,
    check_option,
    check_param_types,
    check_positive,
    check_random_state_param,
    is_real,
)
from .._utils._spelling import k_asked
from .._utils._torch import _deterministic, _device, float64_copy, require_torch
from .._utils._validation import CatEmbedError, categorical_input_tags
from ._batches import _Rows, forward_chunks
from ._cost import check_deep_cost
from ._data import (
    MixedEncoding,
    apply_encoding,
    check_inference_input,
    chunks,
    fit_encode_compact,
    shift_codes,
    split_columns,
)
from ._guard import RESTART_CRITERIA, choose_restart, fallback_reason
from ._objectives import final_objective, latent
from ._reference import check_partition, rank_reference
from ._training import VALUE_INITS, fit_one, fit_restarts, initial_value_vectors

__all__ = ["_DeepClusterer", "check_common", "check_hidden"]


def check_hidden(hs: Any) -> None:
    """``hidden_sizes``: a non-empty tuple (or list) of positive integers (not bools)."""
    if not isinstance(hs, (tuple, list)) or not hs or not all(
        isinstance(h, (int, np.integer)) and not isinstance(h, (bool, np.bool_)) and h >= 1
        for h in hs
    ):
        raise CatEmbedError(
            f"hidden_sizes must be a non-empty tuple of positive integers; got {hs!r}."
        )


def check_common(estimator: Any) -> None:
    """The checks every deep estimator shares, after its own: each parameter's annotated
    type (:func:`~catembed._utils._params.check_param_types`: ``gamma='x'``, ``guard='yes'``),
    ``random_state`` (NumPy's seeds) and ``n_threads`` (None or a positive integer), each
    refused with a :class:`~catembed.CatEmbedError` naming it, never NumPy's or PyTorch's
    own error."""
    check_param_types(estimator)
    check_random_state_param(estimator.random_state)
    check_int("n_threads", estimator.n_threads, allow_none=True)


class _DeepClusterer(ClusterMixin, TransformerMixin, BaseEstimator):
    """Shared fit / predict / transform of the deep mixed-type clusterers."""

    _encoder_kind = "mlp"
    _objective = "kmeans"

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        n_components: int = 10,
        embedding_dim: int = 8,
        hidden_sizes: tuple[int, ...] = (64,),
        value_init: Any = "random",
        corruption: float = 0.2,
        pretrain_steps: int = 1000,
        cluster_steps: int = 1000,
        max_epochs: int | None = 200,
        update_interval: int = 100,
        tol: float = 1e-3,
        gamma: float = 0.1,
        alpha: float = 1.0,
        batch_size: int = 256,
        learning_rate: float = 1e-3,
        categorical_features: Any = "auto",
        n_init: int = 1,
        restart_criterion: str = "agreement",
        guard: bool = True,
        device: str = "cpu",
        random_state: Any = None,
        n_threads: int | None = 1,
    ) -> None:
        self.n_clusters = n_clusters
        self.n_components = n_components
        self.embedding_dim = embedding_dim
        self.hidden_sizes = hidden_sizes
        self.value_init = value_init
        self.corruption = corruption
        self.pretrain_steps = pretrain_steps
        self.cluster_steps = cluster_steps
        self.max_epochs = max_epochs
        self.update_interval = update_interval
        self.tol = tol
        self.gamma = gamma
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.categorical_features = categorical_features
        self.n_init = n_init
        self.restart_criterion = restart_criterion
        self.guard = guard
        self.device = device
        self.random_state = random_state
        self.n_threads = n_threads

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())

    # ------------------------------------------------------------------ set-up
    def _objective_name(self) -> str:
        return self._objective

    def _check_params(self) -> None:
        check_int("n_clusters", self.n_clusters)
        check_int("n_components", self.n_components)
        check_int("embedding_dim", self.embedding_dim)
        check_int("pretrain_steps", self.pretrain_steps, minimum=0)
        check_int("cluster_steps", self.cluster_steps, minimum=0)
        check_int("max_epochs", self.max_epochs, allow_none=True)
        check_int("update_interval", self.update_interval)
        check_int("batch_size", self.batch_size)
        check_int("n_init", self.n_init)
        check_option("restart_criterion", self.restart_criterion, RESTART_CRITERIA)
        if not isinstance(self.guard, (bool, np.bool_)):
            raise CatEmbedError(f"guard must be True or False; got {self.guard!r}.")
        check_positive("learning_rate", self.learning_rate)
        check_positive("alpha", self.alpha)
        check_positive("tol", self.tol)
        if not is_real(self.corruption) or not 0 <= self.corruption < 1:
            raise CatEmbedError(f"corruption must lie in [0, 1); got {self.corruption!r}.")
        if not is_real(self.gamma) or not self.gamma >= 0:
            raise CatEmbedError(f"gamma must be >= 0; got {self.gamma!r}.")
        check_hidden(self.hidden_sizes)
        if isinstance(self.value_init, str):
            check_option("value_init", self.value_init, VALUE_INITS)
        elif not hasattr(self.value_init, "fit_statistics"):
            raise CatEmbedError(
                "value_init must be 'random', 'cde', 'untie' or an unfitted catembed "
                f"ValueEmbedder; got {self.value_init!r}."
            )
        check_common(self)

    def _build_encoder(self, enc: MixedEncoding) -> Any:
        from ._nets import MLPEncoder

        return MLPEncoder(enc.n_embeddings, len(enc.categorical), len(enc.numeric),
                          int(self.embedding_dim), [int(h) for h in self.hidden_sizes],
                          int(self.n_components))

    # ------------------------------------------------------------------ fitting
    def fit(self, X: Any, y: Any = None) -> _DeepClusterer:
        """Train the network on the rows of ``X`` and cluster them (``n_init`` restarts).

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)
            Mixed table: object / string / category / bool columns are categorical (or
            those named by ``categorical_features``), the others numeric.
        y : None
            Ignored.

        Returns
        -------
        self
        """
        torch = require_torch()
        self._check_params()
        objective = self._objective_name()
        shape = getattr(X, "shape", ())
        if len(shape) == 2:  # a lower bound of the cost from the shape alone, before any work
            check_deep_cost(self, int(shape[0]), 0, int(shape[1]), 0, exact=False)
        df, cat, num = split_columns(X, self.categorical_features)
        n = len(df)
        if n < self.n_clusters:
            raise CatEmbedError(
                f"{k_asked(self.n_clusters)} is more than the {n} rows of the input; "
                "ask for fewer clusters."
            )
        self.feature_names_in_ = np.asarray([str(c) for c in df.columns], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        enc, codes_np, nums_np = fit_encode_compact(df, cat, num)
        check_deep_cost(self, n, len(cat), len(num), int(np.sum(enc.sizes)))
        self.encoding_ = enc
        self.categorical_features_ = list(cat)
        self.numeric_features_ = list(num)
        del df
        dev = _device(torch, self.device)
        rng = check_random_state(self.random_state)
        # one seed per restart, drawn up front (KMeans' convention): restart r depends only
        # on seeds[r], so n_init=1 and the first restart of n_init=3 are the same fit
        seeds = [int(s) for s in rng.randint(np.iinfo(np.int32).max, size=int(self.n_init))]
        init_rows = None
        if not (isinstance(self.value_init, str) and self.value_init == "random"):
            init_rows = initial_value_vectors(enc, self.value_init, int(self.embedding_dim),
                                              random_state=seeds[0])
        t_start = time.perf_counter()
        data = _Rows(codes_np, nums_np, dev, torch)
        runs = fit_restarts(self, seeds, enc, data, init_rows, objective, dev, torch)
        self.fit_seconds_ = time.perf_counter() - t_start
        # the guard reads column-local ids: the table is shifted in place and back, not copied
        best = self._choose(runs, shift_codes(enc, codes_np, "local"), nums_np, seeds[0])
        shift_codes(enc, codes_np, "global")
        self.init_objectives_ = [r["objective"] for r in runs]
        self.init_n_iter_ = [r["n_iter"] for r in runs]
        self.objective_ = best["objective"]
        self.n_iter_ = best["n_iter"]
        self.delta_label_ = best["delta_label"]
        self.pretrain_loss_ = best["pretrain_loss"]
        self.cluster_loss_ = best["cluster_loss"]
        self.loss_history_ = best["pretrain_loss"] + best["cluster_loss"]
        self.model_ = best["model"].eval().cpu()
        self._torch_device = dev
        del best, runs
        cpu_rows = _Rows(codes_np, nums_np, torch.device("cpu"), torch)
        if self.fallback_:
            self.labels_ = self.reference_.labels.astype(np.int32)
            self._centres_of_labels(cpu_rows, torch)
        else:
            self.labels_ = self.labels_.astype(np.int32)
        self.cluster_centers_ = self.model_.centers.detach().numpy().astype(np.float64)
        self._after_fit(cpu_rows)
        return self

    def _choose(self, runs: list[dict[str, Any]], codes: np.ndarray, nums: np.ndarray,
                seed: int) -> dict[str, Any]:
        """The guard (:mod:`catembed.deep._guard`): diagnose every restart against the
        rank reference partition (:func:`~catembed.deep._reference.rank_reference`), keep
        one by ``restart_criterion`` or fall back; then check the partition kept against
        the reference (:func:`~catembed.deep._reference.check_partition`)."""
        parts = [r["labels"] for r in runs]
        self.reference_ = (rank_reference(codes, nums, self.n_clusters, seed)
                           if self.guard else None)
        index, diagnoses, agreement = choose_restart(
            parts, [r["objective"] for r in runs],
            None if self.reference_ is None else self.reference_.labels,
            self.restart_criterion, type(self).__name__)
        self.restart_diagnoses_ = diagnoses
        self.restart_agreement_ = agreement
        self.degenerate_ = np.asarray([bool(d["reasons"]) for d in diagnoses])
        self.fallback_ = index is None
        self.fallback_reason_ = fallback_reason(diagnoses) if self.fallback_ else None
        if index is None:  # keep the network the criterion would pick, for transform
            index = int(np.argmax(agreement)) if self.restart_criterion == "agreement" else \
                int(np.argmin([r["objective"] if np.isfinite(r["objective"]) else np.inf
                               for r in runs]))
        self.best_init_ = index
        self.labels_ = runs[index]["labels"]
        self.guard_check_ = None
        if self.reference_ is not None:
            self.guard_check_ = check_partition(
                self.reference_.labels if self.fallback_ else self.labels_, codes, nums,
                self.reference_, type(self).__name__)
        return runs[index]

    def _centres_of_labels(self, data: _Rows, torch: Any) -> None:
        """After a fallback: the model's centres become the latent means of the reference
        clusters (streamed), so ``predict_proba`` follows ``labels_``."""
        k = int(self.n_clusters)
        sums = np.zeros((k, int(self.n_components)))
        start = 0
        with _deterministic(torch, self.n_threads, False):
            for z in forward_chunks(self.model_, data.chunks(), torch,
                                    lambda m, c, x: m.encoder(c, x)[0].numpy()):
                np.add.at(sums, self.labels_[start:start + len(z)], z.astype(np.float64))
                start += len(z)
        counts = np.bincount(self.labels_, minlength=k)[:, None]
        with torch.no_grad():
            self.model_.centers.copy_(torch.as_tensor(sums / np.maximum(counts, 1),
                                                      dtype=self.model_.centers.dtype))

    def _fit_one(self, seed: int, enc: MixedEncoding, data: _Rows, init_rows: Any,
                 objective: str, dev: Any, torch: Any) -> dict[str, Any]:
        """One initialisation (:func:`catembed.deep._training.fit_one`)."""
        return fit_one(self, seed, enc, data, init_rows, objective, dev, torch)

    def _final_objective(self, model: Any, data: _Rows, torch: Any) -> tuple[float, np.ndarray]:
        """The restart criterion and the most probable cluster of every row
        (:func:`catembed.deep._objectives.final_objective`)."""
        return final_objective(model, data, self.n_clusters, self.gamma, torch)

    def _after_fit(self, data: _Rows) -> None:
        pass

    # ------------------------------------------------------------------ inference
    def _input_chunks(self, X: Any) -> tuple[Any, Any]:
        """Torch and the ``(codes, nums)`` tensors of ``X``, encoded one chunk at a time."""
        check_is_fitted(self, "model_")
        torch = require_torch()
        df = check_inference_input(self, X)
        apply_encoding(self.encoding_, df.iloc[:0])  # names a missing column before any work

        def pairs() -> Any:  # numbers in float64, for the float64 network (float64_copy)
            for part in chunks(df):
                c, x = apply_encoding(self.encoding_, part)
                yield torch.from_numpy(c), torch.from_numpy(x).double()

        return torch, pairs()

    def transform(self, X: Any) -> np.ndarray:
        """The latent vectors ``(n_samples, n_components)`` of the rows of ``X`` (computed in
        float64: the same for a row whatever the rows beside it, see
        :func:`catembed._utils._torch.float64_copy`)."""
        torch, pairs = self._input_chunks(X)
        with _deterministic(torch, self.n_threads, False):
            return latent(float64_copy(self.model_), pairs, torch)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Student-t soft assignment ``q_ij`` of every row to every cluster centre (in
        float64, as :meth:`transform`)."""
        torch, pairs = self._input_chunks(X)
        with _deterministic(torch, self.n_threads, False):
            parts = forward_chunks(
                float64_copy(self.model_), pairs, torch,
                lambda m, c, x: m.soft_assign(m.encoder(c, x)[0]).numpy())
        return np.concatenate(list(parts)).astype(np.float64)

    def predict(self, X: Any) -> np.ndarray:
        """The cluster of every row: the most probable centre (for k-means: the nearest);
        after a fallback (``fallback_``) the nearest centre of the reference k-means, the
        partition ``labels_`` holds."""
        if getattr(self, "fallback_", False):
            check_is_fitted(self, "model_")
            df = check_inference_input(self, X)
            enc = self.encoding_
            parts = [apply_encoding(enc, part) for part in chunks(df)]
            return np.concatenate(
                [self.reference_.predict(c - enc.offsets[None, :], x) for c, x in parts]
            ) if parts else np.zeros(0, dtype=np.int64)
        return self.predict_proba(X).argmax(axis=1)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """``latent0, latent1, ...``."""
        check_is_fitted(self, "model_")
        return np.asarray([f"latent{i}" for i in range(int(self.n_components))], dtype=object)
