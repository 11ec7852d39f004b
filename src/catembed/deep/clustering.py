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

``n_init`` restarts (default 1) train from seeds drawn from ``random_state``. A guard
(:mod:`catembed.deep._guard`) diagnoses every restart against a reference partition: k-means
of the categories one-hot beside the numbers' normal scores of their ranks (the rank
reference, :mod:`catembed.deep._reference`, issue 42; before, the vote of three z-scored
spaces, which ``ThesisClusterer`` keeps): a
partition that collapsed (effective number of clusters under half the reference's), that
lost the input's structure (adjusted Rand index to the reference under 0.05) or whose loss
diverged is not kept; when every restart is degenerate, the fit falls back to the reference
partition with a :class:`~catembed.CatEmbedWarning` (``fallback_``). Among the healthy
restarts the one agreeing most with the others and the reference is kept
(``restart_criterion="agreement"``, mean pairwise ARI); the lowest final IDEC loss
``L_rec + gamma * KL(P || Q)`` (``restart_criterion="objective"``) was the rule before, and
on planted tables it did not follow the agreement with the planted groups (docs/deep.md).

Every choice is label-free: a budget of optimiser steps (``pretrain_steps``,
``cluster_steps``: large tables are bounded in time), each at most ``max_epochs=200`` passes
over the rows (IDEC pretrains for 200 epochs; before issue 55 a table of 650 rows got 394
passes per stage), Adam at ``1e-3``, the IDEC defaults ``gamma=0.1`` and ``tol=0.001``.
The number of clusters is the caller's.

Memory does not grow with ``n`` beyond the table itself: the fit encodes the table once,
compactly (one byte per categorical cell when the table has at most 256 values, ``float32``
numbers; the codes of the counting pass are reused), shuffles an ``int32`` row order in
place every epoch, trains on mini-batches, runs k-means on the latent vectors of at most
:data:`~catembed.deep._objectives.KMEANS_SAMPLE` rows, and streams every full pass (cluster
assignment, the column sums
of ``q`` that the target distribution needs, the attention per cluster) over chunks of rows;
no ``n x k`` or ``n x n_components`` array is held during the fit. Deterministic on CPU for
an integer ``random_state`` (a private torch RNG, a fixed thread count, deterministic
algorithms); ``device="cuda"`` trains on a GPU.

Where each part lives: the estimators and their ``labels`` hooks here; the shared estimator
(parameters, ``fit``, inference) in :mod:`catembed.deep._estimator`; the training loop
(value-embedding start, pretraining, clustering phase, restarts) in
:mod:`catembed.deep._training`; the objectives (k-means start, soft assignment, IDEC loss,
final objective) in :mod:`catembed.deep._objectives`; the networks in
:mod:`catembed.deep._nets`; the encoded table and its batches in :mod:`catembed.deep._data`
and :mod:`catembed.deep._batches`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._utils._params import check_int, check_option
from .._utils._torch import _deterministic, float64_copy, require_torch
from .._utils._validation import CatEmbedError
from ._batches import _Rows, forward_chunks
from ._data import MixedEncoding
from ._estimator import _DeepClusterer

__all__ = [
    "AttentionClusterer",
    "AutoencoderKMeans",
    "IDEC",
    "attention_labels",
    "autoencoder_kmeans_labels",
    "idec_labels",
]


class AutoencoderKMeans(_DeepClusterer):
    """Mixed-type autoencoder followed by k-means in its latent space.

    Numeric columns are standardised, categorical columns looked up in a learned value
    embedding (``embedding_dim`` per value); the encoder is an MLP
    ``m_cat * embedding_dim + m_num -> hidden_sizes -> n_components`` (ReLU), the decoder
    mirrors it and outputs one number per numeric column and one logit block per categorical
    column. The loss is the mean over columns of the squared error (numeric) and the
    cross-entropy (categorical). After ``pretrain_steps`` Adam steps on mini-batches,
    scikit-learn's ``KMeans`` (``n_init=10``) clusters the latent vectors (of a uniform
    sample of :data:`~catembed.deep._objectives.KMEANS_SAMPLE` rows when the table is
    larger; every row then goes to its nearest centre). Design from the
    plan of the Fehling thesis draft (Ch. 3, empty), the autoencoder stage of DEC / IDEC.

    On public mixed tables this clusterer with its defaults does not match a classical
    label-free clusterer: on the check half of issue 42's pool (docs/deep.md, "Issue 42") 11
    of its 25 fits on the five tables where k-means of the rank space or k-modes of the
    binned table reaches NMI > .10 scored more than .03 below that baseline (Hdma 4 of 5,
    Salaries 5 of 5: 0.020 against 0.298). The guard warns on such fits (``guard_check_``),
    and on most others too; compare with :class:`~catembed.cluster.KPrototypes` or
    :class:`~catembed.cluster.Consensus`.

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
    max_epochs : int or None, default=200
        At most this many passes over the rows in each stage: ``pretrain_steps`` and
        ``cluster_steps`` are cut to ``ceil(max_epochs * n / batch)`` (``batch =
        min(batch_size, n)``), which changes only tables under 1,280 rows with the defaults
        (650 rows: 508 steps a stage, 2.4x less time; docs/deep.md, "Steps on small
        tables"). ``None``: the step budgets alone (the rule before issue 55).
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
        batch order, masking noise and k-means), and the fit keeps one by
        ``restart_criterion`` among those the guard finds healthy. No labels enter the
        choice. Default ``1``, because every restart costs a full fit. Restarts run one
        after the other; their networks are kept until the choice is made.
    restart_criterion : {"agreement", "objective"}, default="agreement"
        ``"agreement"``: the restart whose partition has the highest mean adjusted Rand index
        to the other restarts and to the reference partition (a consensus choice);
        ``"objective"``: the lowest final objective (see :attr:`objective_`).
    guard : bool, default=True
        Diagnose every restart (collapse, lost structure, divergence) against the rank
        reference partition (:func:`~catembed.deep._reference.rank_reference`: k-means of the
        categories one-hot beside the numbers' normal scores of their ranks) and fall back
        to that partition, with a
        :class:`~catembed.CatEmbedWarning`, when every restart is degenerate
        (:mod:`catembed.deep._guard`; thresholds chosen on planted synthetic tables); then
        warn when the partition kept explains less than
        :data:`~catembed.deep._reference.CHECK_RATIO` of the variance the reference explains
        in its space (:func:`~catembed.deep._reference.check_partition`, issue 42).
    device : str, default="cpu"
        ``"cpu"`` or ``"cuda"`` (``"cuda:N"``).
    random_state : int, RandomState or None
    n_threads : int or None, default=1
        Torch CPU threads while fitting; a fixed count keeps results identical. More than one
        pays only for large batches: at the default batch of 256 rows each step is a few
        small kernels, and on a busy machine threads that wait for each other make it slower
        (Adult, 100 steps, load 3-4 on 2 cores: 2.6 s with 1 thread, 46 s with 2).

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
        Index of the kept initialisation (after a fallback: the network ``transform`` uses).
    degenerate_ : ndarray of bool
        The guard's verdict on every restart.
    fallback_ : bool
        True when every restart was degenerate: ``labels_`` is then the reference partition,
        ``predict`` assigns new rows to the reference k-means centres, and the model's
        centres are the latent means of the reference clusters.
    fallback_reason_ : str or None
        Why (every restart's diagnosis) when ``fallback_``; ``None`` otherwise. The warning is
        a :class:`~catembed._utils._errors.FallbackWarning`, which ``catembed evaluate``
        marks ``status: fallback``.
    restart_diagnoses_ : list of dict
        :func:`catembed.deep._guard.diagnose` of every restart (``effective``,
        ``reference_effective``, ``ari_reference``, ``reasons``).
    restart_agreement_ : ndarray
        Mean ARI of every restart to the other restarts and the reference.
    reference_ : catembed.deep._reference.RankReference or None
        The reference k-means partition (``reference_.space`` is ``"rank"``; ``None`` when
        ``guard=False``). Before issue 42 (27 November 2026) the vote of three spaces
        (:func:`~catembed.deep._guard.reference_partition`), which ``ThesisClusterer``
        keeps.
    guard_check_ : dict or None
        :func:`~catembed.deep._reference.check_partition` of ``labels_``: ``explained``,
        ``reference_explained``, ``ratio``, ``warned`` (``None`` when ``guard=False``).
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

    On public mixed tables this clusterer with its defaults does not match a classical
    label-free clusterer: on the check half of issue 42's pool (docs/deep.md, "Issue 42") 11
    of its 25 fits on the five tables where k-means of the rank space or k-modes of the
    binned table reaches NMI > .10 scored more than .03 below that baseline (Hdma 4 of 5,
    Salaries 5 of 5: 0.020 against 0.298). The guard warns on such fits (``guard_check_``),
    and on most others too; compare with :class:`~catembed.cluster.KPrototypes` or
    :class:`~catembed.cluster.Consensus`.

    Parameters are those of :class:`AutoencoderKMeans`; in addition:

    cluster_steps : int, default=1000
        At most this many joint steps (and at most ``max_epochs`` passes over the rows).
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

    On public mixed tables this clusterer with its defaults does not match a classical
    label-free clusterer: on the check half of issue 42's pool (docs/deep.md, "Issue 42") 9
    of its 25 fits on the five tables where k-means of the rank space or k-modes of the
    binned table reaches NMI > .10 scored more than .03 below that baseline (Hdma 3 of 5,
    Salaries 5 of 5: 0.090 against 0.298). The guard warns on such fits (``guard_check_``),
    and on most others too; compare with :class:`~catembed.cluster.KPrototypes` or
    :class:`~catembed.cluster.Consensus`.

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
        super().__init__(
            n_clusters, n_components=n_components, embedding_dim=embedding_dim,
            hidden_sizes=hidden_sizes, value_init=value_init, corruption=corruption,
            pretrain_steps=pretrain_steps,
            cluster_steps=cluster_steps, max_epochs=max_epochs,
            update_interval=update_interval, tol=tol,
            gamma=gamma, alpha=alpha, batch_size=batch_size, learning_rate=learning_rate,
            categorical_features=categorical_features, n_init=n_init,
            restart_criterion=restart_criterion, guard=guard, device=device,
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
        check_int("n_heads", self.n_heads)
        check_int("n_layers", self.n_layers)
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
            for w in forward_chunks(self.model_, data.chunks(), torch,
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
            parts = forward_chunks(float64_copy(self.model_), pairs, torch,
                                   lambda m, c, x: m.encoder(c, x)[1].numpy())
        return pd.DataFrame(np.concatenate(list(parts)).astype(np.float64),
                            columns=self.encoding_.columns)


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

