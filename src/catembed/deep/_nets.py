"""PyTorch modules of the deep mixed-type clusterers (imported only when a model is fitted).

The networks take the two blocks of :func:`catembed.deep._data.apply_encoding`: global value
ids ``codes (n, m_cat)`` and standardised numbers ``nums (n, m_num)``.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

#: above this many categorical columns the decoder's loss takes one step per distinct column
#: size, not per column (the same terms summed in another order: equal up to rounding)
WIDE_COLUMNS = 256


def mlp(sizes: list[int], *, last_activation: bool = False) -> nn.Sequential:
    """Linear layers with ReLU between them (and after the last one if asked)."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        layers.append(nn.Linear(a, b))
        if i < len(sizes) - 2 or last_activation:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class MLPEncoder(nn.Module):
    """Value embeddings of the categorical columns concatenated with the numbers, then an MLP
    to the latent vector (the autoencoder / IDEC encoder)."""

    def __init__(self, n_embeddings: int, m_cat: int, m_num: int, dim: int,
                 hidden: list[int], n_components: int) -> None:
        super().__init__()
        self.values = nn.Embedding(max(n_embeddings, 1), dim)
        self.net = mlp([m_cat * dim + m_num, *hidden, n_components])

    def forward(self, codes: torch.Tensor, nums: torch.Tensor) -> tuple[torch.Tensor, None]:
        emb = self.values(codes).flatten(1)
        return self.net(torch.cat([emb, nums], dim=1)), None


class AttentionEncoder(nn.Module):
    """Column tokens, a transformer encoder across columns, attention pooling.

    Token of a categorical column: its value embedding; of a numeric column ``j``: ``x *
    w_j + b_j``; a learned column embedding is added to every token. The pooling is one
    learned query attending over the encoded tokens (one head); its softmax weights say how
    much each column contributes to the latent vector of a row.
    """

    def __init__(self, n_embeddings: int, m_cat: int, m_num: int, dim: int, n_heads: int,
                 n_layers: int, n_components: int) -> None:
        super().__init__()
        self.values = nn.Embedding(max(n_embeddings, 1), dim)
        self.num_weight = nn.Parameter(torch.randn(m_num, dim) / math.sqrt(dim))
        self.num_bias = nn.Parameter(torch.zeros(m_num, dim))
        self.column = nn.Parameter(torch.randn(m_cat + m_num, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, n_heads, dim_feedforward=2 * dim, dropout=0.0,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(dim)
        self.query = nn.Parameter(torch.randn(dim) / math.sqrt(dim))
        self.key = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, n_components)
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, codes: torch.Tensor, nums: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        tokens = [self.values(codes)]
        if nums.shape[1]:
            tokens.append(nums.unsqueeze(-1) * self.num_weight + self.num_bias)
        h = torch.cat(tokens, dim=1) + self.column
        h = self.norm(self.encoder(h))
        weights = torch.softmax((self.key(h) @ self.query) * self.scale, dim=1)
        pooled = (weights.unsqueeze(-1) * h).sum(dim=1)
        return self.out(pooled), weights


class WideDeep(nn.Module):
    """``wide(one-hot) + deep(embeddings)`` (Cheng et al. 2016, Eq. 3, without the output
    sigmoid): the encoder of :class:`catembed.deep.VAEWD` and :class:`catembed.deep.BiGANWD`.
    ``wide`` is a linear map of the one-hot row (a sum of per-value weight rows, plus a
    linear map of the numbers), ``deep`` an MLP on the value embeddings and the numbers."""

    def __init__(self, n_embeddings: int, m_cat: int, m_num: int, dim: int,
                 hidden: list[int], out: int) -> None:
        super().__init__()
        self.wide = nn.Embedding(max(n_embeddings, 1), out)
        nn.init.zeros_(self.wide.weight)
        self.wide_num = nn.Linear(m_num, out) if m_num else None
        self.values = nn.Embedding(max(n_embeddings, 1), dim)
        self.deep = mlp([m_cat * dim + m_num, *hidden, out])

    def forward(self, codes: torch.Tensor, nums: torch.Tensor) -> torch.Tensor:
        w = self.wide(codes).sum(dim=1)
        if self.wide_num is not None:
            w = w + self.wide_num(nums)
        d = self.deep(torch.cat([self.values(codes).flatten(1), nums], dim=1))
        return w + d


class MixedDecoder(nn.Module):
    """Latent vector -> numbers (MSE) and one logit block per categorical column (CE)."""

    def __init__(self, n_components: int, hidden: list[int], m_num: int,
                 sizes: list[int]) -> None:
        super().__init__()
        self.sizes = [int(s) for s in sizes]
        self.m_num = m_num
        self.net = mlp([n_components, *hidden], last_activation=True)
        self.head = nn.Linear(hidden[-1] if hidden else n_components, m_num + sum(self.sizes))
        self._groups: list[tuple[int, torch.Tensor, torch.Tensor]] | None = None

    def loss(self, z: torch.Tensor, targets: torch.Tensor, nums: torch.Tensor) -> torch.Tensor:
        """Mean over columns of the per-column losses: MSE of each number, cross-entropy of
        each categorical column (``targets`` are the local value codes; an unseen value,
        code ``size``, is ignored)."""
        out = self.head(self.net(z))
        total = z.new_zeros(())
        if self.m_num:
            total = total + F.mse_loss(out[:, : self.m_num], nums, reduction="sum") / len(z)
        if len(self.sizes) > WIDE_COLUMNS:
            return (total + self._grouped_loss(out, targets)) / (self.m_num + len(self.sizes))
        start = self.m_num
        for j, s in enumerate(self.sizes):
            tgt = targets[:, j]
            logits = out[:, start:start + s]
            start += s
            keep = tgt < s
            if bool(keep.all()):
                total = total + F.cross_entropy(logits, tgt)
            elif bool(keep.any()):
                total = total + F.cross_entropy(logits[keep], tgt[keep])
        return total / max(self.m_num + len(self.sizes), 1)

    def _grouped_loss(self, out: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        """The sum over categorical columns of their mean cross-entropies (over the rows
        whose value was seen), one step per distinct column size rather than per column
        (a table of 2,000 columns took 4,000 small autograd steps per batch)."""
        if self._groups is None:
            starts = self.m_num + np.concatenate([[0], np.cumsum(self.sizes)[:-1]])
            groups = {}
            for j, s in enumerate(self.sizes):
                groups.setdefault(s, []).append(j)
            self._groups = [(s, torch.as_tensor(np.asarray(cols)), torch.as_tensor(
                (starts[cols][:, None] + np.arange(s)).ravel())) for s, cols in groups.items()]
        total = out.new_zeros(())
        for s, cols, where in self._groups:
            cols, where = cols.to(out.device), where.to(out.device)
            logits = out[:, where].reshape(len(out), len(cols), s)
            tgt = targets[:, cols]
            keep = tgt < s
            ce = F.cross_entropy(logits.transpose(1, 2), torch.where(keep, tgt, 0),
                                 reduction="none")  # (rows, columns)
            n_keep = keep.sum(dim=0)
            per_col = (ce * keep).sum(dim=0) / n_keep.clamp(min=1)
            total = total + per_col.sum()
        return total


class ClusteringModel(nn.Module):
    """Encoder + decoder + cluster centres (the IDEC parameters)."""

    def __init__(self, encoder: nn.Module, decoder: MixedDecoder, offsets: torch.Tensor,
                 sizes: torch.Tensor, n_clusters: int, n_components: int, alpha: float) -> None:
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.register_buffer("offsets", offsets)
        self.register_buffer("unseen", (offsets + sizes).unsqueeze(0))
        self.centers = nn.Parameter(torch.zeros(n_clusters, n_components))
        self.alpha = float(alpha)

    def soft_assign(self, z: torch.Tensor) -> torch.Tensor:
        """Student-t kernel ``q_ij`` (DEC, Xie et al. 2016, Eq. 1)."""
        d2 = torch.cdist(z, self.centers).pow(2)
        q = (1.0 + d2 / self.alpha).pow(-(self.alpha + 1.0) / 2.0)
        return q / q.sum(dim=1, keepdim=True)

    def recon_loss(self, codes: torch.Tensor, nums: torch.Tensor, corruption: float = 0.0,
                   generator: torch.Generator | None = None
                   ) -> tuple[torch.Tensor, torch.Tensor]:
        """Latent vectors of the (masked) batch and the reconstruction loss of the clean one.

        With ``corruption > 0`` every cell is masked with that probability (denoising
        autoencoder, Vincent et al. 2008, as in DEC's pretraining): a categorical cell
        becomes its column's unseen-value token, a number becomes 0 (the column mean).
        """
        c_in, x_in = codes, nums
        if corruption > 0:
            mc = torch.rand(codes.shape, generator=generator, device=codes.device) < corruption
            c_in = torch.where(mc, self.unseen.expand_as(codes), codes)
            if nums.shape[1]:
                mx = torch.rand(nums.shape, generator=generator, device=nums.device) < corruption
                x_in = nums.masked_fill(mx, 0.0)
        z, _ = self.encoder(c_in, x_in)
        return z, self.decoder.loss(z, codes - self.offsets, nums)


def target_distribution(q: torch.Tensor, colsum: torch.Tensor | None = None) -> torch.Tensor:
    """DEC's sharpened target ``p_ij = (q_ij^2 / f_j) / sum_j'(...)``, ``f_j = sum_i q_ij``
    (Xie et al. 2016, Eq. 3).

    ``q`` may be a batch of the rows when ``colsum`` gives ``f`` over all of them.
    """
    w = q.pow(2) / (q.sum(dim=0) if colsum is None else colsum)
    return w / w.sum(dim=1, keepdim=True)
