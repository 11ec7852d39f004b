"""Deep clustering of mixed numeric + categorical tables (issue 13, part 1).

The Fehling thesis draft ("Attention in Mixed-Type Clustering", LMU Munich) plans chapters
on autoencoders, deep clustering and attention but leaves them empty; the models here are
designed from the literature it points to:

* **Autoencoder + k-means** (:class:`AutoencoderKMeans`): numeric columns standardised,
  categorical columns as learned value embeddings, an MLP encoder to ``n_components``
  latent units and an MLP decoder; the reconstruction loss is the mean over columns of the
  squared error of each number and the cross-entropy of each categorical column. k-means
  (scikit-learn, ``n_init=10``) on the latent vectors gives the clusters.
* **IDEC** (:class:`IDEC`; Guo et al., IJCAI 2017, after DEC, Xie et al., ICML 2016): the
  pretrained autoencoder, cluster centres initialised by k-means, then joint training of
  ``L = L_rec + gamma * KL(P || Q)`` with the Student-t soft assignment ``q_ij`` (DEC Eq. 1)
  and the sharpened target ``p_ij`` (DEC Eq. 3) recomputed every ``update_interval`` steps;
  training stops when fewer than ``tol`` of the rows change cluster between two target
  updates (IDEC's stopping rule).
* **Attention** (:class:`AttentionClusterer`): every column is a token (the value
  embedding of a categorical column, ``x * w_j + b_j`` for a numeric one, plus a learned
  column embedding), a small pre-norm transformer encoder attends across the columns, and
  one learned query pools the tokens into the latent vector; trained with the same
  reconstruction + clustering objectives. ``cluster_attention_`` is the mean pooling
  weight of every column over the rows of each cluster: which columns a cluster relies on.

Value embeddings can start from catembed's CDE or UNTIE value vectors (``value_init``),
projected by PCA to ``embedding_dim`` and scaled to unit variance.

``n_init`` restarts (default 1) train from seeds drawn from ``random_state`` and keep the
one with the lowest final IDEC loss ``L_rec + gamma * KL(P || Q)`` over all rows
(``objective_``): a label-free choice, as scikit-learn's ``KMeans`` keeps the lowest
inertia.

Every choice is label-free: a fixed budget of optimiser steps (``pretrain_steps``,
``cluster_steps``: the number of epochs is ``ceil(steps / (n / batch_size))``, so small
tables get more epochs and large ones are bounded in time), Adam at ``1e-3``, the IDEC
defaults ``gamma=0.1`` and ``tol=0.001``. The number of clusters is the caller's.

Memory does not grow with ``n`` beyond the table itself: the fit encodes the table once,
compactly (one byte per categorical cell when the table has at most 256 values, ``float32``
numbers; the codes of the counting pass are reused), shuffles an ``int32`` row order in
place every epoch, trains on mini-batches, runs k-means on the latent vectors of at most
:data:`KMEANS_SAMPLE` rows, and streams every full pass (cluster assignment, the column sums
of ``q`` that the target distribution needs, the attention per cluster) over chunks of rows;
no ``n x k`` or ``n x n_components`` array is held during the fit. Deterministic on CPU for
an integer ``random_state`` (a private torch RNG, a fixed thread count, deterministic
algorithms); ``device="cuda"`` trains on a GPU.
"""

from __future__ import annotations

import copy
import time
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClusterMixin, TransformerMixin
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state
from sklearn.utils.random import sample_without_replacement
from sklearn.utils.validation import check_is_fitted

from .._params import check_option
from .._validation import CatEmbedError
from ..embed._autoencoder import _deterministic, _device, require_torch
from . import _data
from ._data import (
    MixedEncoding,
    apply_encoding,
    chunks,
    fit_encode_compact,
    split_columns,
)

__all__ = [
    "AttentionClusterer",
    "AutoencoderKMeans",
    "IDEC",
    "attention_labels",
    "autoencoder_kmeans_labels",
    "idec_labels",
    "initial_value_vectors",
]

VALUE_INITS = ("random", "cde", "untie")
#: k-means after pretraining runs on the latent vectors of at most this many rows (a uniform
#: sample of larger tables; every row then goes to its nearest centre)
KMEANS_SAMPLE = 50_000


def _check_positive_int(name: str, v: Any, minimum: int = 1) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise CatEmbedError(f"{name} must be an integer >= {minimum}; got {v!r}.")
    return int(v)


def _check_positive(name: str, v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.number)) or not v > 0:
        raise CatEmbedError(f"{name} must be a positive number; got {v!r}.")
    return float(v)


def _check_hidden(hs: Any) -> None:
    if not isinstance(hs, (tuple, list)) or not hs or not all(
        isinstance(h, (int, np.integer)) and h >= 1 for h in hs
    ):
        raise CatEmbedError(
            f"hidden_sizes must be a non-empty tuple of positive integers; got {hs!r}."
        )


def initial_value_vectors(enc: MixedEncoding, method: Any, dim: int,
                          random_state: Any = None) -> np.ndarray:
    """Value-embedding rows ``(enc.n_embeddings, dim)`` from CDE or UNTIE value vectors.

    ``method`` is ``"cde"`` (:class:`catembed.CDE`), ``"untie"`` (:class:`catembed.UNTIE`)
    or an unfitted :class:`catembed.ValueEmbedder`; it is fitted on the categorical
    statistics ``enc.stats`` (the same value order as the embedding rows). The value table is
    reduced by PCA to ``dim`` columns (zero-padded when narrower) and scaled to unit standard
    deviation, the scale of ``torch.nn.Embedding``'s default initialisation; the unseen-value
    row of every column is zero.
    """
    from sklearn.decomposition import PCA

    from ..embed import CDE, UNTIE

    if enc.stats is None:
        return np.zeros((0, dim))
    if isinstance(method, str):
        check_option("value_init", method, VALUE_INITS)
        est = CDE(random_state=random_state) if method == "cde" else UNTIE()
    else:
        est = method
    est.fit_statistics(enc.stats)
    table = np.asarray(est.value_embedding_, dtype=np.float64)
    table = table - table.mean(axis=0)
    if table.shape[1] > dim:
        n_comp = min(dim, table.shape[0])
        table = PCA(n_comp, random_state=0).fit_transform(table)
    if table.shape[1] < dim:
        table = np.hstack([table, np.zeros((table.shape[0], dim - table.shape[1]))])
    sd = table.std()
    table = table / sd if sd > 0 else table
    rows = np.zeros((enc.n_embeddings, dim))
    start = 0
    for off, size in zip(enc.offsets, enc.sizes, strict=True):
        rows[off:off + size] = table[start:start + size]
        start += size
    return rows


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
        update_interval: int = 100,
        tol: float = 1e-3,
        gamma: float = 0.1,
        alpha: float = 1.0,
        batch_size: int = 256,
        learning_rate: float = 1e-3,
        categorical_features: Any = "auto",
        n_init: int = 1,
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
        self.update_interval = update_interval
        self.tol = tol
        self.gamma = gamma
        self.alpha = alpha
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.categorical_features = categorical_features
        self.n_init = n_init
        self.device = device
        self.random_state = random_state
        self.n_threads = n_threads

    # ------------------------------------------------------------------ set-up
    def _objective_name(self) -> str:
        return self._objective

    def _check_params(self) -> None:
        _check_positive_int("n_clusters", self.n_clusters)
        _check_positive_int("n_components", self.n_components)
        _check_positive_int("embedding_dim", self.embedding_dim)
        _check_positive_int("pretrain_steps", self.pretrain_steps, 0)
        _check_positive_int("cluster_steps", self.cluster_steps, 0)
        _check_positive_int("update_interval", self.update_interval)
        _check_positive_int("batch_size", self.batch_size)
        _check_positive_int("n_init", self.n_init)
        _check_positive("learning_rate", self.learning_rate)
        _check_positive("alpha", self.alpha)
        _check_positive("tol", self.tol)
        if isinstance(self.corruption, bool) or not 0 <= self.corruption < 1:
            raise CatEmbedError(f"corruption must lie in [0, 1); got {self.corruption!r}.")
        if isinstance(self.gamma, bool) or not self.gamma >= 0:
            raise CatEmbedError(f"gamma must be >= 0; got {self.gamma!r}.")
        _check_hidden(self.hidden_sizes)
        if isinstance(self.value_init, str):
            check_option("value_init", self.value_init, VALUE_INITS)
        elif not hasattr(self.value_init, "fit_statistics"):
            raise CatEmbedError(
                "value_init must be 'random', 'cde', 'untie' or an unfitted catembed "
                f"ValueEmbedder; got {self.value_init!r}."
            )

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
        df, cat, num = split_columns(X, self.categorical_features)
        n = len(df)
        if n < self.n_clusters:
            raise CatEmbedError(
                f"n_clusters={self.n_clusters} is more than the {n} rows of the input; "
                "lower n_clusters."
            )
        self.feature_names_in_ = np.asarray([str(c) for c in df.columns], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        enc, codes_np, nums_np = fit_encode_compact(df, cat, num)
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
        best: dict[str, Any] | None = None
        self.init_objectives_: list[float] = []
        self.init_n_iter_: list[int] = []
        with _deterministic(torch, self.n_threads, dev.type == "cuda"), \
                torch.random.fork_rng(devices=[]):
            for r, seed in enumerate(seeds):
                run = self._fit_one(seed, enc, data, init_rows, objective, dev, torch)
                self.init_objectives_.append(run["objective"])
                self.init_n_iter_.append(run["n_iter"])
                value = run["objective"] if np.isfinite(run["objective"]) else np.inf
                if best is None or value < best["value"]:  # ties keep the earlier restart
                    best = {**run, "value": value, "index": r}  # frees the previous best
                del run
        assert best is not None
        self.best_init_ = best["index"]
        self.objective_ = best["objective"]
        self.n_iter_ = best["n_iter"]
        self.delta_label_ = best["delta_label"]
        self.pretrain_loss_ = best["pretrain_loss"]
        self.cluster_loss_ = best["cluster_loss"]
        self.loss_history_ = best["pretrain_loss"] + best["cluster_loss"]
        self.model_ = best["model"].eval().cpu()
        self._torch_device = dev
        self.labels_ = best["labels"].astype(np.int32)
        del best
        self.cluster_centers_ = self.model_.centers.detach().numpy().astype(np.float64)
        self.fit_seconds_ = time.perf_counter() - t_start
        self._after_fit(_Rows(codes_np, nums_np, torch.device("cpu"), torch))
        return self

    def _fit_one(self, seed: int, enc: MixedEncoding, data: _Rows, init_rows: Any,
                 objective: str, dev: Any, torch: Any) -> dict[str, Any]:
        """One initialisation: pretraining, k-means, (IDEC) joint training, then the final
        objective (:meth:`_final_objective`); the random streams come from ``seed`` only."""
        from ._nets import ClusteringModel, MixedDecoder, target_distribution

        n = data.n
        rng = np.random.RandomState(seed)
        torch.manual_seed(seed)
        history: list[float] = []
        encoder = self._build_encoder(enc)
        if init_rows is not None and len(init_rows):
            with torch.no_grad():
                encoder.values.weight.copy_(torch.as_tensor(init_rows, dtype=torch.float32))
        decoder = MixedDecoder(int(self.n_components),
                               [int(h) for h in reversed(self.hidden_sizes)],
                               len(enc.numeric), list(enc.sizes))
        model = ClusteringModel(encoder, decoder,
                                torch.as_tensor(enc.offsets, dtype=torch.int64),
                                torch.as_tensor(enc.sizes, dtype=torch.int64),
                                int(self.n_clusters), int(self.n_components),
                                float(self.alpha)).to(dev)
        gen = torch.Generator(device=dev).manual_seed(seed)
        corruption = float(self.corruption)
        batches = _Batches(n, min(int(self.batch_size), n), rng)
        opt = torch.optim.Adam(model.parameters(), lr=float(self.learning_rate))

        # 1) pretraining: reconstruction only
        model.train()
        for _ in range(int(self.pretrain_steps)):
            _, loss = model.recon_loss(*data.take(batches.next()), corruption, gen)
            opt.zero_grad()
            loss.backward()
            opt.step()
            history.append(float(loss.detach()))

        # 2) k-means on the latent vectors of (at most KMEANS_SAMPLE) rows; the sample is
        # drawn without a permutation of all n rows (O(KMEANS_SAMPLE) memory)
        if n <= KMEANS_SAMPLE:
            sample = None
        else:
            sample = np.sort(sample_without_replacement(n, KMEANS_SAMPLE, random_state=rng))
        Z = self._latent(model, data.chunks(sample), torch)
        km = KMeans(int(self.n_clusters), n_init=10,
                    random_state=int(rng.randint(np.iinfo(np.int32).max))).fit(Z)
        del Z
        with torch.no_grad():
            model.centers.copy_(torch.as_tensor(km.cluster_centers_, dtype=torch.float32))
        # the nearest centre of every row (argmax of the Student-t q); for a sample, the
        # final objective's first pass gives it
        labels = km.labels_.astype(_label_dtype(self.n_clusters)) if sample is None else None
        del km
        n_iter = 0
        delta_label: list[float] = []
        cluster_hist: list[float] = []
        # 3) IDEC: joint reconstruction + KL(P || Q)
        if objective == "idec" and int(self.cluster_steps) > 0:
            opt = torch.optim.Adam(model.parameters(), lr=float(self.learning_rate))
            frozen = colsum = None
            for step in range(int(self.cluster_steps)):
                if step % int(self.update_interval) == 0:
                    # the target P of DEC Eq. 3, fixed until the next update: the column
                    # sums f_j of q over all rows (one streaming pass) and a frozen copy
                    # of the network give p for any batch, so no n x k array is kept
                    new, colsum = self._assign(model, data, torch)
                    if labels is None:
                        labels = new
                    delta = float(np.mean(new != labels))
                    labels = new
                    delta_label.append(delta)
                    if step > 0 and delta < float(self.tol):
                        break
                    frozen = copy.deepcopy(model).eval()
                model.train()
                codes_b, nums_b = data.take(batches.next())
                with torch.no_grad():
                    p = target_distribution(
                        frozen.soft_assign(frozen.encoder(codes_b, nums_b)[0]), colsum)
                z, rec = model.recon_loss(codes_b, nums_b, corruption, gen)
                qb = model.soft_assign(z)
                kl = torch.nn.functional.kl_div(qb.log(), p, reduction="batchmean")
                loss = rec + float(self.gamma) * kl
                opt.zero_grad()
                loss.backward()
                opt.step()
                cluster_hist.append(float(loss.detach()))
                n_iter = step + 1
            del frozen
            labels = None  # the final assignment comes with the objective's first pass
        model.eval()
        value, final = self._final_objective(model, data, torch)
        return {"model": model, "labels": final if labels is None else labels,
                "objective": value, "n_iter": n_iter, "delta_label": delta_label,
                "pretrain_loss": history, "cluster_loss": cluster_hist}

    def _final_objective(self, model: Any, data: _Rows, torch: Any) -> tuple[float, np.ndarray]:
        """The restart criterion and the most probable cluster of every row.

        ``L = L_rec + gamma * KL(P || Q)`` over all rows: the IDEC loss (Guo et al. 2017;
        DEC Eqs. 1-3) of the trained network and its centres, evaluated
        without masking noise (the training loss' expectation over the noise is not
        computable; the clean loss is deterministic). ``P`` is DEC's target built from the
        final ``Q``. Two streaming passes: the column sums of ``q``, then the loss.
        """
        labels, colsum = self._assign(model, data, torch)
        from ._nets import target_distribution

        rec_sum = kl_sum = 0.0
        for c, x in data.chunks():
            with torch.no_grad():
                z, rec = model.recon_loss(c, x)
                q = model.soft_assign(z)
                p = target_distribution(q, colsum)
                kl = torch.nn.functional.kl_div(q.log(), p, reduction="sum")
            rec_sum += float(rec) * len(c)
            kl_sum += float(kl)
        return (rec_sum + float(self.gamma) * kl_sum) / data.n, labels

    def _after_fit(self, data: _Rows) -> None:
        pass

    # ------------------------------------------------------------------ inference
    def _forward_batches(self, model: Any, pairs: Any, torch: Any, fn: Any) -> Any:
        """``fn(model, codes, nums)`` of every ``(codes, nums)`` chunk of ``pairs``, one chunk
        at a time (a generator: the caller keeps only what it needs)."""
        model.eval()
        for c, x in pairs:
            with torch.no_grad():
                out = fn(model, c, x)
            yield out

    def _latent(self, model: Any, pairs: Any, torch: Any) -> np.ndarray:
        parts = self._forward_batches(model, pairs, torch,
                                      lambda m, c, x: m.encoder(c, x)[0].cpu().numpy())
        return np.concatenate(list(parts)).astype(np.float64)

    def _assign(self, model: Any, data: _Rows, torch: Any) -> tuple[np.ndarray, Any]:
        """One streaming pass: the most probable cluster of every row and the column sums
        ``f_j = sum_i q_ij`` of the soft assignment (as a tensor on the model's device)."""
        labels = np.empty(data.n, dtype=_label_dtype(self.n_clusters))
        colsum = np.zeros(int(self.n_clusters))
        start = 0
        for q in self._forward_batches(model, data.chunks(), torch,
                                       lambda m, c, x: m.soft_assign(m.encoder(c, x)[0])):
            labels[start:start + len(q)] = q.argmax(dim=1).cpu().numpy()
            colsum += q.sum(dim=0).cpu().numpy()
            start += len(q)
        return labels, torch.as_tensor(colsum, dtype=torch.float32, device=data.device)

    def _input_chunks(self, X: Any) -> tuple[Any, Any]:
        """Torch and the ``(codes, nums)`` tensors of ``X``, encoded one chunk at a time."""
        check_is_fitted(self, "model_")
        torch = require_torch()
        df = X if isinstance(X, pd.DataFrame) else pd.DataFrame(
            np.asarray(X, dtype=object), columns=list(self.feature_names_in_))
        df = df.rename(columns=str)
        apply_encoding(self.encoding_, df.iloc[:0])  # names a missing column before any work

        def pairs() -> Any:
            for part in chunks(df):
                c, x = apply_encoding(self.encoding_, part)
                yield torch.from_numpy(c), torch.from_numpy(x)

        return torch, pairs()

    def transform(self, X: Any) -> np.ndarray:
        """The latent vectors ``(n_samples, n_components)`` of the rows of ``X``."""
        torch, pairs = self._input_chunks(X)
        with _deterministic(torch, self.n_threads, False):
            return self._latent(self.model_, pairs, torch)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Student-t soft assignment ``q_ij`` of every row to every cluster centre."""
        torch, pairs = self._input_chunks(X)
        with _deterministic(torch, self.n_threads, False):
            parts = self._forward_batches(
                self.model_, pairs, torch,
                lambda m, c, x: m.soft_assign(m.encoder(c, x)[0]).numpy())
        return np.concatenate(list(parts)).astype(np.float64)

    def predict(self, X: Any) -> np.ndarray:
        """The cluster of every row: the most probable centre (for k-means: the nearest)."""
        return self.predict_proba(X).argmax(axis=1)

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """``latent0, latent1, ...``."""
        check_is_fitted(self, "model_")
        return np.asarray([f"latent{i}" for i in range(int(self.n_components))], dtype=object)


class AutoencoderKMeans(_DeepClusterer):
    """Mixed-type autoencoder followed by k-means in its latent space.

    Numeric columns are standardised, categorical columns looked up in a learned value
    embedding (``embedding_dim`` per value); the encoder is an MLP
    ``m_cat * embedding_dim + m_num -> hidden_sizes -> n_components`` (ReLU), the decoder
    mirrors it and outputs one number per numeric column and one logit block per categorical
    column. The loss is the mean over columns of the squared error (numeric) and the
    cross-entropy (categorical). After ``pretrain_steps`` Adam steps on mini-batches,
    scikit-learn's ``KMeans`` (``n_init=10``) clusters the latent vectors (of a uniform
    sample of :data:`KMEANS_SAMPLE` rows when the table is larger; every row then goes to
    its nearest centre). Design from the
    plan of the Fehling thesis draft (Ch. 3, empty), the autoencoder stage of DEC / IDEC.

    Parameters
    ----------
    n_clusters : int, default=8
    n_components : int, default=10
        Latent dimension (DEC's 10).
    embedding_dim : int, default=8
        Width of a value embedding.
    hidden_sizes : tuple of int, default=(64,)
        Encoder layers (the decoder uses them reversed).
    value_init : {"random", "cde", "untie"} or ValueEmbedder, default="random"
        Start the value embeddings from CDE / UNTIE value vectors (PCA to
        ``embedding_dim``, unit variance) instead of ``N(0, 1)``.
    corruption : float, default=0.2
        Masking noise of the denoising training: every cell of a training batch is replaced
        by its column's unseen-value token (categorical) or by 0, the mean (numeric), with
        this probability (DEC pretrains a denoising autoencoder with 20% input dropout).
    pretrain_steps : int, default=1000
        Adam steps of the reconstruction training (epochs = steps * batch_size / n).
    cluster_steps, update_interval, tol, alpha
        Used by :class:`IDEC` and :class:`AttentionClusterer`; ignored here.
    gamma : float, default=0.1
        Weight of the clustering term of :attr:`objective_` (the restart criterion).
    batch_size : int, default=256
    learning_rate : float, default=1e-3
    categorical_features : "auto", "all", list or mask, default="auto"
    n_init : int, default=1
        Initialisations (scikit-learn's ``KMeans`` convention): ``n_init`` seeds are drawn
        from ``random_state`` up front, each trains a network from scratch (its own weights,
        batch order, masking noise and k-means), and the fit keeps the one with the lowest
        final objective ``L = L_rec + gamma * KL(P || Q)`` over all rows (see
        :attr:`objective_`). No labels enter the choice. The rule and the default were fixed
        before any evaluation run: ``1``, because every restart costs a full fit (the
        ``thesis-deep-*`` bench tables use 3). Restarts run one after the other and each
        streams its passes the same way; only the best network and its labels are kept.
    device : str, default="cpu"
        ``"cpu"`` or ``"cuda"`` (``"cuda:N"``).
    random_state : int, RandomState or None
    n_threads : int or None, default=1
        Torch CPU threads while fitting; a fixed count keeps results identical.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,), int32
    cluster_centers_ : ndarray of shape (n_clusters, n_components)
    loss_history_ : list of float
        Training loss of every step (of the kept initialisation).
    objective_ : float
        Final objective of the kept initialisation: the IDEC loss (Guo et al. 2017)
        ``mean_i L_rec(x_i) + gamma * KL(P || Q) / n`` of the trained network and its
        centres, with DEC's ``q`` (Eq. 1) and the target ``p`` built from it (Eq. 3),
        evaluated on all rows without masking noise. It is comparable across restarts
        because every restart is scored on the same rows, in the same data space
        (standardised numbers, value ids: the reconstruction term does not depend on the
        scale of a restart's latent space) and with the same ``gamma``; k-means' inertia
        would not be, as each restart has its own latent space. For
        :class:`AutoencoderKMeans` the same loss scores the autoencoder with its k-means
        centres (the loss IDEC would start from), so ``gamma`` is used here only for that.
    init_objectives_ : list of float
        ``objective_`` of every initialisation, in the order run.
    init_n_iter_ : list of int
        Joint (IDEC) steps run by every initialisation (0 for k-means).
    best_init_ : int
        Index of the kept initialisation: ``argmin(init_objectives_)``.
    model_ : torch.nn.Module
    encoding_ : MixedEncoding
    categorical_features_, numeric_features_ : list of str
    fit_seconds_ : float
        Seconds of all initialisations together.
    """

    _objective = "kmeans"

    def predict_proba(self, X: Any) -> np.ndarray:
        """Student-t soft assignment to the k-means centres."""
        return super().predict_proba(X)


class IDEC(_DeepClusterer):
    """Improved Deep Embedded Clustering on mixed data (Guo, Gao, Liu, Yin, IJCAI 2017).

    The :class:`AutoencoderKMeans` network and its k-means centres, then ``cluster_steps``
    Adam steps on ``L_rec + gamma * KL(P || Q)``: ``q_ij = (1 + |z_i - mu_j|^2 / alpha)^(-(
    alpha + 1) / 2)`` normalised over ``j`` (DEC Eq. 1), ``p_ij ∝ q_ij^2 / sum_i q_ij``
    (DEC Eq. 3) fixed for ``update_interval`` steps, then renewed; stops when
    the fraction of rows that changed cluster since the last update is below ``tol`` (IDEC
    Sec. 3.3). ``gamma=0.1`` and ``tol=0.001`` are IDEC's defaults. An update makes one
    streaming pass over the rows for the assignments and the column sums ``f_j`` of ``q``
    and freezes a copy of the network; the target of a batch is then computed from the
    frozen copy and ``f``, exactly DEC's ``P`` without storing it for all rows.

    Parameters are those of :class:`AutoencoderKMeans`; in addition:

    cluster_steps : int, default=1000
        At most this many joint steps.
    update_interval : int, default=100
        Steps between target updates (and stopping checks).
    tol : float, default=1e-3
    gamma : float, default=0.1
        Weight of the clustering loss.
    alpha : float, default=1.0
        Degrees of freedom of the Student-t kernel.

    Attributes
    ----------
    labels_, cluster_centers_, loss_history_, model_, objective_, init_objectives_,
    init_n_iter_, best_init_ : see :class:`AutoencoderKMeans`
    delta_label_ : list of float
        Fraction of rows that changed cluster at each target update.
    n_iter_ : int
        Joint steps run (by the kept initialisation).
    """

    _objective = "idec"


class AttentionClusterer(_DeepClusterer):
    """Self-attention across columns for mixed-type clustering (the thesis' title method).

    Every column is a token of width ``embedding_dim``: the value embedding of a categorical
    column, ``x * w_j + b_j`` for a standardised number, plus a learned column embedding.
    A pre-norm transformer encoder (``n_layers`` layers, ``n_heads`` heads, feed-forward
    ``2 * embedding_dim``, no dropout) attends across the columns of a row; one learned
    query pools the tokens (softmax attention, weights ``a_i`` over the columns) and a linear
    layer maps the pooled token to ``n_components`` latent units. The decoder and the
    objectives are those of :class:`IDEC` (``objective="idec"``) or of
    :class:`AutoencoderKMeans` (``objective="kmeans"``). The thesis draft (Fehling, LMU)
    leaves Ch. 5 empty; the tokenisation follows FT-Transformer (Gorishniy et al. 2021),
    the pooling attention-based pooling (Lee et al., Set Transformer, PMA with one seed).

    Parameters
    ----------
    n_clusters : int, default=8
    objective : {"idec", "kmeans"}, default="idec"
    embedding_dim : int, default=16
        Token width.
    n_heads : int, default=2
    n_layers : int, default=1
    hidden_sizes : tuple of int, default=(64,)
        Decoder layers.
    Other parameters as :class:`IDEC`.

    Attributes
    ----------
    labels_, cluster_centers_, loss_history_, model_, delta_label_, n_iter_, objective_,
    init_objectives_, init_n_iter_, best_init_
        As :class:`IDEC`.
    cluster_attention_ : DataFrame of shape (n_clusters, n_columns)
        Mean pooling weight of every column over the rows of each cluster (rows sum to 1).
    column_attention_ : Series
        The same over all rows.
    """

    def __init__(
        self,
        n_clusters: int = 8,
        *,
        objective: str = "idec",
        n_components: int = 10,
        embedding_dim: int = 16,
        n_heads: int = 2,
        n_layers: int = 1,
        hidden_sizes: tuple[int, ...] = (64,),
        value_init: Any = "random",
        corruption: float = 0.2,
        pretrain_steps: int = 1000,
        cluster_steps: int = 1000,
        update_interval: int = 100,
        tol: float = 1e-3,
        gamma: float = 0.1,
        alpha: float = 1.0,
        batch_size: int = 256,
        learning_rate: float = 1e-3,
        categorical_features: Any = "auto",
        n_init: int = 1,
        device: str = "cpu",
        random_state: Any = None,
        n_threads: int | None = 1,
    ) -> None:
        super().__init__(
            n_clusters, n_components=n_components, embedding_dim=embedding_dim,
            hidden_sizes=hidden_sizes, value_init=value_init, corruption=corruption,
            pretrain_steps=pretrain_steps,
            cluster_steps=cluster_steps, update_interval=update_interval, tol=tol,
            gamma=gamma, alpha=alpha, batch_size=batch_size, learning_rate=learning_rate,
            categorical_features=categorical_features, n_init=n_init, device=device,
            random_state=random_state, n_threads=n_threads,
        )
        self.objective = objective
        self.n_heads = n_heads
        self.n_layers = n_layers

    def _objective_name(self) -> str:
        check_option("objective", self.objective, ("idec", "kmeans"))
        return self.objective

    def _check_params(self) -> None:
        super()._check_params()
        _check_positive_int("n_heads", self.n_heads)
        _check_positive_int("n_layers", self.n_layers)
        if self.embedding_dim % self.n_heads:
            raise CatEmbedError(
                f"embedding_dim ({self.embedding_dim}) must be a multiple of n_heads "
                f"({self.n_heads})."
            )

    def _build_encoder(self, enc: MixedEncoding) -> Any:
        from ._nets import AttentionEncoder

        return AttentionEncoder(enc.n_embeddings, len(enc.categorical), len(enc.numeric),
                                int(self.embedding_dim), int(self.n_heads),
                                int(self.n_layers), int(self.n_components))

    def _after_fit(self, data: _Rows) -> None:
        torch = require_torch()
        k, m = int(self.n_clusters), len(self.encoding_.columns)
        sums = np.zeros((k, m))
        start = 0
        with _deterministic(torch, self.n_threads, False):
            for w in self._forward_batches(self.model_, data.chunks(), torch,
                                           lambda mod, c, x: mod.encoder(c, x)[1].numpy()):
                lab = self.labels_[start:start + len(w)]
                np.add.at(sums, lab, w.astype(np.float64))
                start += len(w)
        cols = self.encoding_.columns
        counts = np.bincount(self.labels_, minlength=k)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        self.cluster_attention_ = pd.DataFrame(mean, columns=cols)
        self.cluster_attention_.index.name = "cluster"
        self.column_attention_ = pd.Series(sums.sum(axis=0) / max(data.n, 1), index=cols,
                                           name="attention")

    def attention_weights(self, X: Any) -> pd.DataFrame:
        """Pooling attention of every row over the columns ``(n_samples, n_columns)``."""
        torch, pairs = self._input_chunks(X)
        with _deterministic(torch, self.n_threads, False):
            parts = self._forward_batches(self.model_, pairs, torch,
                                          lambda m, c, x: m.encoder(c, x)[1].numpy())
        return pd.DataFrame(np.concatenate(list(parts)).astype(np.float64),
                            columns=self.encoding_.columns)


def _label_dtype(k: int) -> type:
    return np.int16 if k < 2**15 else np.int32


class _Rows:
    """The compactly encoded training table: mini-batches and chunks as torch tensors on
    the training device (value ids widened to ``int64`` one batch at a time)."""

    def __init__(self, codes: np.ndarray, nums: np.ndarray, device: Any, torch: Any) -> None:
        self.codes, self.nums, self.device, self.torch = codes, nums, device, torch
        self.n = len(codes)

    def take(self, idx: Any) -> tuple[Any, Any]:
        t = self.torch
        c = t.from_numpy(self.codes[idx].astype(np.int64)).to(self.device)
        return c, t.from_numpy(np.ascontiguousarray(self.nums[idx])).to(self.device)

    def chunks(self, rows: np.ndarray | None = None) -> Any:
        """``(codes, nums)`` of consecutive chunks of all rows, or of the rows ``rows``."""
        n = self.n if rows is None else len(rows)
        size = _data.CHUNK
        for s in range(0, n, size):
            yield self.take(slice(s, s + size) if rows is None else rows[s:s + size])


class _Batches:
    """Shuffled mini-batch indices, reshuffled every epoch (NumPy RNG: reproducible)."""

    def __init__(self, n: int, batch_size: int, rng: np.random.RandomState) -> None:
        self.n, self.bs, self.rng = n, batch_size, rng
        # one int32 array (4 bytes a row), shuffled in place every epoch
        self.perm = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
        rng.shuffle(self.perm)
        self.pos = 0

    def next(self) -> np.ndarray:
        if self.pos + self.bs > self.n:
            self.rng.shuffle(self.perm)
            self.pos = 0
        out = self.perm[self.pos:self.pos + self.bs]
        self.pos += self.bs
        return out


# ---------------------------------------------------------------------- protocol hooks
def _labels(cls: type, X: Any, n_clusters: int, random_state: Any, params: dict) -> np.ndarray:
    return cls(n_clusters=n_clusters, random_state=random_state, **params).fit(X).labels_


def autoencoder_kmeans_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                              **params: Any) -> np.ndarray:
    """Labels of :class:`AutoencoderKMeans` (evaluation protocol ``labels`` hook)."""
    return _labels(AutoencoderKMeans, X, n_clusters, random_state, params)


def idec_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                **params: Any) -> np.ndarray:
    """Labels of :class:`IDEC` (evaluation protocol ``labels`` hook)."""
    return _labels(IDEC, X, n_clusters, random_state, params)


def attention_labels(X: Any, n_clusters: int, *, random_state: Any = None,
                     **params: Any) -> np.ndarray:
    """Labels of :class:`AttentionClusterer` (evaluation protocol ``labels`` hook)."""
    return _labels(AttentionClusterer, X, n_clusters, random_state, params)

