"""UNTIE's deep baselines: VAE_WD and BiGAN_WD (issue 13, part 2).

Zhu, Cao, Yin, "Unsupervised Heterogeneous Coupling Learning for Categorical
Representation" (TPAMI), Sec. 6.1.2 and Table IV compare UNTIE with "two unsupervised deep
representation methods BiGAN [Donahue et al. 2016] and VAE [Kingma & Welling 2013] based on
the wide-and-deep network [Cheng et al. 2016]". The paper gives no architecture or
settings beyond that sentence ("for the parameters of the baseline methods, we take their
recommended settings"), so the choices here are ours and stated:

* input: every categorical value one-hot (the "wide" part) and as a learned
  ``embedding_dim``-wide embedding (the "deep" part); numeric columns, if any, standardised;
* encoder (wide and deep): ``wide(x) + deep(x)``, where ``wide`` is a linear map of the
  one-hot vector (a sum of per-value weight rows) and ``deep`` an MLP on the concatenated
  value embeddings (``hidden_sizes``, ReLU), as Cheng et al.'s joint wide & deep model;
* VAE_WD: the encoder outputs the mean and log-variance of ``q(z | x)``; the decoder (MLP)
  outputs one softmax per attribute (and a number per numeric column); the loss is the
  negative ELBO ``sum_j CE_j + KL(q(z|x) || N(0, I))`` (Kingma & Welling Eq. 10); Adam
  ``1e-3``. The representation is the posterior mean.
* BiGAN_WD: encoder ``E`` (wide and deep), generator ``G`` (MLP from ``z ~ N(0, I)`` to
  one softmax per attribute), discriminator ``D`` on the pair ``(x, z)`` (MLP, leaky ReLU);
  ``D`` separates ``(x, E(x))`` from ``(G(z), z)``, ``E`` and ``G`` are trained with the
  flipped labels (Donahue et al. Sec. 3, the non-saturating form), Adam ``2e-4``, ``beta1
  = 0.5`` (DCGAN / BiGAN settings). The representation is ``E(x)``.

Both are scikit-learn transformers (``fit``, ``transform``, ``get_feature_names_out``,
``set_output``), deterministic on CPU for an integer ``random_state``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from .._utils._params import check_int, check_positive
from .._utils._torch import _deterministic, _device, float64_copy, require_torch
from .._utils._validation import categorical_input_tags
from ._batches import _Batches
from ._cost import check_deep_cost
from ._data import apply_encoding, check_inference_input, fit_encoding, split_columns
from ._estimator import check_common, check_hidden

__all__ = ["BiGANWD", "VAEWD"]


class _WideDeepEmbedder(TransformerMixin, BaseEstimator):
    _prefix = "z"

    def __init__(
        self,
        n_components: int = 10,
        *,
        embedding_dim: int = 8,
        hidden_sizes: tuple[int, ...] = (64,),
        max_steps: int = 2000,
        batch_size: int = 64,
        learning_rate: float | None = None,
        categorical_features: Any = "all",
        device: str = "cpu",
        random_state: Any = None,
        n_threads: int | None = 1,
    ) -> None:
        self.n_components = n_components
        self.embedding_dim = embedding_dim
        self.hidden_sizes = hidden_sizes
        self.max_steps = max_steps
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.categorical_features = categorical_features
        self.device = device
        self.random_state = random_state
        self.n_threads = n_threads

    def __sklearn_tags__(self):  # noqa: D105
        return categorical_input_tags(super().__sklearn_tags__())

    def _check_params(self) -> None:
        check_int("n_components", self.n_components)
        check_int("embedding_dim", self.embedding_dim)
        check_int("max_steps", self.max_steps, minimum=0)
        check_int("batch_size", self.batch_size)
        if self.learning_rate is not None:
            check_positive("learning_rate", self.learning_rate)
        check_hidden(self.hidden_sizes)
        check_common(self)

    def fit(self, X: Any, y: Any = None) -> _WideDeepEmbedder:
        """Train the model on the rows of ``X`` (a categorical or mixed table).

        Parameters
        ----------
        X : DataFrame of shape (n_samples, n_features)
        y : None
            Ignored.

        Returns
        -------
        self
        """
        torch = require_torch()
        self._check_params()
        shape = getattr(X, "shape", ())
        if len(shape) == 2:  # a lower bound of the cost from the shape alone (issue 52)
            check_deep_cost(self, int(shape[0]), 0, int(shape[1]), 0, exact=False)
        df, cat, num = split_columns(X, self.categorical_features)
        self.feature_names_in_ = np.asarray([str(c) for c in df.columns], dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        enc = fit_encoding(df, cat, num)
        self.encoding_ = enc
        check_deep_cost(self, len(df), len(cat), len(num), int(np.sum(enc.sizes)))
        codes_np, nums_np = apply_encoding(enc, df)
        dev = _device(torch, self.device)
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(np.iinfo(np.int32).max))
        with _deterministic(torch, self.n_threads, dev.type == "cuda"), \
                torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            gen = torch.Generator(device=dev).manual_seed(seed)
            codes = torch.as_tensor(codes_np, device=dev)
            nums = torch.as_tensor(nums_np, device=dev)
            batches = _Batches(len(df), min(int(self.batch_size), len(df)), rng)
            self.loss_history_ = self._train(torch, enc, codes, nums, batches, gen, dev)
        self.encoder_ = self.encoder_.cpu().eval()
        return self

    def _new_encoder(self, torch: Any, enc: Any, out: int) -> Any:
        from ._nets import WideDeep

        return WideDeep(enc.n_embeddings, len(enc.categorical), len(enc.numeric),
                        int(self.embedding_dim), [int(h) for h in self.hidden_sizes], out)

    def transform(self, X: Any) -> np.ndarray:
        """The representation ``(n_samples, n_components)`` of the rows of ``X``."""
        check_is_fitted(self, "encoder_")
        torch = require_torch()
        codes, nums = apply_encoding(self.encoding_, check_inference_input(self, X))
        out = []
        encoder = float64_copy(self.encoder_)  # batch- and CPU-independent outputs
        with _deterministic(torch, self.n_threads, False), torch.no_grad():
            for s in range(0, len(codes), 4096):
                z = encoder(torch.as_tensor(codes[s:s + 4096]),
                            torch.as_tensor(nums[s:s + 4096]).double())
                out.append(z[:, : int(self.n_components)])
        return torch.cat(out).numpy()

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """``{prefix}0, {prefix}1, ...``."""
        check_is_fitted(self, "encoder_")
        return np.asarray([f"{self._prefix}{i}" for i in range(int(self.n_components))],
                          dtype=object)


class VAEWD(_WideDeepEmbedder):
    """VAE_WD: a variational autoencoder on a wide-and-deep encoder (UNTIE Table IV).

    UNTIE (Zhu, Cao, Yin, TPAMI) Sec. 6.1.2 names the baseline; the design (module
    docstring) is ours: ``q(z | x) = N(mu(x), diag(exp(logvar(x))))`` from the wide & deep
    encoder, a decoder MLP with one softmax per attribute, loss ``sum_j CE_j + KL`` (the
    negative ELBO of Kingma & Welling 2013, Eq. 10, one sample per row), Adam at ``1e-3``.
    ``transform`` returns the posterior mean ``mu(x)``.

    Parameters
    ----------
    n_components : int, default=10
        Latent dimension.
    embedding_dim : int, default=8
        Width of the deep part's value embeddings.
    hidden_sizes : tuple of int, default=(64,)
        Deep-part and decoder layers.
    max_steps : int, default=2000
        Adam steps (mini-batches).
    batch_size : int, default=64
    learning_rate : float, optional
        Default ``1e-3``.
    categorical_features : "all", "auto", list or mask, default="all"
        Columns read as categories; others are standardised numbers.
    device : str, default="cpu"
    random_state : int, RandomState or None
    n_threads : int or None, default=1

    Attributes
    ----------
    encoder_ : torch.nn.Module
        Outputs ``[mu, logvar]``.
    loss_history_ : list of float
    encoding_ : MixedEncoding
    """

    _prefix = "vae"

    def _train(self, torch: Any, enc: Any, codes: Any, nums: Any, batches: Any, gen: Any,
               dev: Any) -> list[float]:
        from ._nets import MixedDecoder

        q = int(self.n_components)
        encoder = self._new_encoder(torch, enc, 2 * q).to(dev)
        decoder = MixedDecoder(q, [int(h) for h in reversed(self.hidden_sizes)],
                               len(enc.numeric), list(enc.sizes)).to(dev)
        n_cols = max(len(enc.columns), 1)
        offsets = torch.as_tensor(enc.offsets, device=dev)
        params = list(encoder.parameters()) + list(decoder.parameters())
        opt = torch.optim.Adam(params, lr=float(self.learning_rate or 1e-3))
        history = []
        for _ in range(int(self.max_steps)):
            idx = torch.as_tensor(batches.next(), device=dev)
            c, x = codes[idx], nums[idx]
            h = encoder(c, x)
            mu, logvar = h[:, :q], h[:, q:].clamp(-10, 10)
            eps = torch.randn(mu.shape, generator=gen, device=dev)
            z = mu + eps * torch.exp(0.5 * logvar)
            rec = decoder.loss(z, c - offsets, x) * n_cols
            kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(dim=1).mean()
            loss = rec + kl
            opt.zero_grad()
            loss.backward()
            opt.step()
            history.append(float(loss.detach()))
        self.encoder_ = encoder
        self.decoder_ = decoder.cpu().eval()
        return history


class BiGANWD(_WideDeepEmbedder):
    """BiGAN_WD: a bidirectional GAN with a wide-and-deep encoder (UNTIE Table IV).

    UNTIE (Zhu, Cao, Yin, TPAMI) Sec. 6.1.2 names the baseline; the design (module
    docstring) is ours, following Donahue, Krähenbühl, Darrell 2016 (BiGAN): encoder ``E``
    (wide & deep), generator ``G: z -> one softmax per attribute`` (MLP), discriminator
    ``D(x, z)`` (MLP with leaky ReLU on the one-hot row and the code). ``D`` minimises
    ``BCE(D(x, E(x)), 1) + BCE(D(G(z), z), 0)``, ``E`` and ``G`` the same with the labels
    flipped; Adam at ``2e-4`` with ``betas=(0.5, 0.999)``. ``transform`` returns ``E(x)``.

    Parameters
    ----------
    Those of :class:`VAEWD`; ``learning_rate`` defaults to ``2e-4``.

    Attributes
    ----------
    encoder_, generator_, discriminator_ : torch.nn.Module
    loss_history_ : list of float
        The discriminator loss of every step.
    encoder_loss_ : list of float
        The encoder + generator loss of every step.
    """

    _prefix = "bigan"

    def _train(self, torch: Any, enc: Any, codes: Any, nums: Any, batches: Any, gen: Any,
               dev: Any) -> list[float]:
        from ._nets import mlp

        nn = torch.nn
        F = torch.nn.functional  # noqa: N806
        q = int(self.n_components)
        hidden = [int(h) for h in self.hidden_sizes]
        sizes = [int(s) for s in enc.sizes]
        width = sum(sizes) + len(enc.numeric)
        encoder = self._new_encoder(torch, enc, q).to(dev)
        generator = mlp([q, *reversed(hidden), width]).to(dev)
        layers: list[Any] = []
        for a, b in zip([width + q, *hidden[:-1]], hidden, strict=True):
            layers += [nn.Linear(a, b), nn.LeakyReLU(0.2)]
        discriminator = nn.Sequential(*layers, nn.Linear(hidden[-1], 1)).to(dev)
        # one-hot of the local codes (an unseen value: an all-zero block)
        onehot_index = torch.full((enc.n_embeddings,), -1, dtype=torch.int64)
        start = 0
        for off, s in zip(enc.offsets, sizes, strict=True):
            onehot_index[int(off):int(off) + s] = torch.arange(start, start + s)
            start += s
        onehot_index = onehot_index.to(dev)
        m_num = len(enc.numeric)

        def real_x(c: Any, x: Any) -> Any:
            pos = onehot_index[c]
            oh = torch.zeros(len(c), sum(sizes) + 1, device=dev)
            oh.scatter_(1, torch.where(pos < 0, sum(sizes), pos), 1.0)
            return torch.cat([oh[:, : sum(sizes)], x], dim=1)

        def fake_x(z: Any) -> Any:
            out = generator(z)
            parts, s0 = [], 0
            for s in sizes:
                parts.append(torch.softmax(out[:, s0:s0 + s], dim=1))
                s0 += s
            if m_num:
                parts.append(out[:, s0:])
            return torch.cat(parts, dim=1)

        lr = float(self.learning_rate or 2e-4)
        opt_d = torch.optim.Adam(discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
        opt_eg = torch.optim.Adam(list(encoder.parameters()) + list(generator.parameters()),
                                  lr=lr, betas=(0.5, 0.999))
        d_hist, eg_hist = [], []
        for _ in range(int(self.max_steps)):
            idx = torch.as_tensor(batches.next(), device=dev)
            c, x = codes[idx], nums[idx]
            xr = real_x(c, x)
            zr = encoder(c, x)
            zf = torch.randn(len(idx), q, generator=gen, device=dev)
            xf = fake_x(zf)
            ones = torch.ones(len(idx), 1, device=dev)
            zeros = torch.zeros(len(idx), 1, device=dev)
            d_loss = (F.binary_cross_entropy_with_logits(
                discriminator(torch.cat([xr, zr.detach()], 1)), ones)
                + F.binary_cross_entropy_with_logits(
                discriminator(torch.cat([xf.detach(), zf], 1)), zeros))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            eg_loss = (F.binary_cross_entropy_with_logits(
                discriminator(torch.cat([xr, zr], 1)), zeros)
                + F.binary_cross_entropy_with_logits(
                discriminator(torch.cat([xf, zf], 1)), ones))
            opt_eg.zero_grad()
            eg_loss.backward()
            opt_eg.step()
            d_hist.append(float(d_loss.detach()))
            eg_hist.append(float(eg_loss.detach()))
        self.encoder_ = encoder
        self.generator_ = generator.cpu().eval()
        self.discriminator_ = discriminator.cpu().eval()
        self.encoder_loss_ = eg_hist
        return d_hist
