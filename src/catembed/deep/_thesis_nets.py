"""PyTorch modules of :class:`catembed.deep.ThesisClusterer`: the four networks of the
finished Fehling thesis (autoencoder with categorical embeddings, AE with attention,
Transformer N=6, FT-Transformer N=6), each an embedding front end followed by the same
symmetric autoencoder. Imported only when a model is fitted.

Every front end returns ``(x, target)``: ``x`` the vector the autoencoder encodes, ``target``
the vector it reconstructs, a detached copy of the embedded input concatenated with the
numbers (thesis, autoencoder chapter: the loss is the MSE to the embedded input, whose
gradient does not flow into the embeddings through the target).
"""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ._batches import count_labels, label_dtype

#: token width of the attention networks: 28 learned value dimensions + 4 dimensions of a
#: learned per-column "shared" embedding (thesis, attention chapter)
TOKEN_DIM, SHARED_DIM = 32, 4


def embedding_width(n_values: int) -> int:
    """``min(50, |values| + 1) // 2`` (at least 1), as the thesis' code computes it
    (``load_datasets.py``); the summary's ``min(50, ceil(|values| / 2))`` is the same up to
    49 values but caps at 50 instead of 25 (no column of the thesis' sets has more than 42
    values)."""
    return int(max(1, min(50, int(n_values) + 1) // 2))


def layer_widths(d_in: int, d_out: int) -> list[int]:
    """Encoder widths ``d_in -> ... -> latent``: latent ``max(1, min(round(d_in / 4),
    round(d_out / 4)))``, ``max(1, round(log2 d_in))`` layers, each shrinking by the same
    step (thesis, autoencoder architecture)."""
    latent = max(1, min(round(d_in / 4), round(d_out / 4)))
    n_layers = max(1, round(math.log2(max(d_in, 1))))
    step = (d_in - latent) / n_layers
    return [d_in] + [max(latent, round(d_in - i * step)) for i in range(1, n_layers)] + [latent]


def _stack(widths: list[int]) -> nn.Sequential:
    """Linear layers with LeakyReLU between them (none after the last)."""
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(widths[:-1], widths[1:], strict=True)):
        layers.append(nn.Linear(a, b))
        if i < len(widths) - 2:
            layers.append(nn.LeakyReLU())
    return nn.Sequential(*layers)


class _Values(nn.Module):
    """One learned embedding table per categorical column (one extra row each for a value
    unseen at fit time); ``codes`` are the column-local value ids."""

    def __init__(self, sizes: list[int], widths: list[int]) -> None:
        super().__init__()
        self.tables = nn.ModuleList(nn.Embedding(s + 1, w) for s, w in zip(sizes, widths,
                                                                            strict=True))

    def forward(self, codes: torch.Tensor) -> list[torch.Tensor]:
        return [t(codes[:, j]) for j, t in enumerate(self.tables)]


class EmbeddingFront(nn.Module):
    """"AE with categorical embeddings": each column's embedding of width
    :func:`embedding_width`, concatenated with the numbers."""

    def __init__(self, sizes: list[int], m_num: int) -> None:
        super().__init__()
        widths = [embedding_width(s) for s in sizes]
        self.values = _Values(sizes, widths)
        self.width = sum(widths) + m_num

    def forward(self, codes: torch.Tensor, nums: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.cat([*self.values(codes), nums], dim=1)
        return x, x.detach()


class _Tokens(nn.Module):
    """Column tokens of width 32: 28 learned value dimensions + the column's 4-dimensional
    shared embedding; with ``numeric_tokens`` a number is a token too (``x * w_j + b_j``
    to 28 dimensions + its shared embedding, FT-Transformer's tokenizer). The shared
    embedding and the tokenizer's ``w_j``, ``b_j`` start uniform on [-1, 1] as in the
    thesis' code (its numeric tokenizer is one ``Linear(1, 28)`` per number); the scale
    matters here, since the tokens are also the reconstruction target."""

    def __init__(self, sizes: list[int], m_num: int, numeric_tokens: bool) -> None:
        super().__init__()
        value_dim = TOKEN_DIM - SHARED_DIM
        self.values = _Values(sizes, [value_dim] * len(sizes))
        self.m_cat, self.m_num, self.numeric_tokens = len(sizes), m_num, numeric_tokens
        n_tok = len(sizes) + (m_num if numeric_tokens else 0)
        # uniform on [-1, 1]: the thesis' shared embedding, and its numeric tokenizer (a
        # ``Linear(1, 28)`` per number, whose default start is uniform on +-1/sqrt(fan_in)=1)
        self.shared = nn.Parameter(torch.empty(n_tok, SHARED_DIM).uniform_(-1.0, 1.0))
        if numeric_tokens and m_num:
            self.num_weight = nn.Parameter(torch.empty(m_num, value_dim).uniform_(-1.0, 1.0))
            self.num_bias = nn.Parameter(torch.empty(m_num, value_dim).uniform_(-1.0, 1.0))
        self.n_tokens = n_tok

    def forward(self, codes: torch.Tensor, nums: torch.Tensor) -> torch.Tensor:
        parts = [v.unsqueeze(1) for v in self.values(codes)]
        if self.numeric_tokens and self.m_num:
            parts.append(nums.unsqueeze(-1) * self.num_weight + self.num_bias)
        if not parts:
            return nums.new_zeros((len(nums), 0, TOKEN_DIM))
        vals = torch.cat(parts, dim=1)
        shared = self.shared.unsqueeze(0).expand(len(vals), -1, -1)
        return torch.cat([vals, shared], dim=2)


class _SelfAttention(nn.Module):
    """Scaled dot-product self-attention over the column tokens as the thesis builds it:
    bias-free linear maps to queries, keys and values (``n_heads`` heads of
    ``dim / n_heads`` dimensions), ``softmax(q k^T / sqrt(d_head)) v`` per head, then, with
    ``project=True`` (the Transformer block), a linear output map with bias; without it
    (the single-head "AE with Attention") the attended values are the output, with no
    output map and no residual (Vaswani et al. 2017, Eq. 1)."""

    def __init__(self, dim: int, n_heads: int, project: bool) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.queries = nn.Linear(dim, dim, bias=False)
        self.keys = nn.Linear(dim, dim, bias=False)
        self.values = nn.Linear(dim, dim, bias=False)
        self.out = nn.Linear(dim, dim) if project else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        h = self.n_heads

        def heads(y: torch.Tensor) -> torch.Tensor:
            return y.view(b, t, h, d // h).transpose(1, 2)

        y = F.scaled_dot_product_attention(heads(self.queries(x)), heads(self.keys(x)),
                                           heads(self.values(x)))
        y = y.transpose(1, 2).reshape(b, t, d)
        return self.out(y) if self.out is not None else y


class _Block(nn.Module):
    """One Transformer block of the thesis (TabTransformer's, post-norm): ``x =
    LayerNorm(attention(x) + x)``, then ``x = LayerNorm(FF(x) + x)`` with ``FF`` a
    ``dim -> 4 dim -> dim`` ReLU network; no dropout."""

    def __init__(self, dim: int, n_heads: int) -> None:
        super().__init__()
        self.attention = _SelfAttention(dim, n_heads, project=True)
        self.norm1 = nn.LayerNorm(dim)
        self.feed_forward = nn.Sequential(nn.Linear(dim, 4 * dim), nn.ReLU(),
                                          nn.Linear(4 * dim, dim))
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.norm1(self.attention(x) + x)
        return self.norm2(self.feed_forward(x) + x)


class AttentionFront(nn.Module):
    """"AE with Attention" (``n_blocks=0``): one single-head scaled dot-product
    self-attention over the categorical tokens. "Transformer N=6" (``n_blocks=6``):
    ``n_blocks`` blocks of multi-head attention (``n_heads`` heads of ``32 / n_heads``
    dimensions), residual + LayerNorm, feed-forward ``4 x 32`` with ReLU (TabTransformer's
    block) over the categorical tokens. "FT-Transformer" (``numeric_tokens``): the numbers
    are tokens too. The output is the flattened tokens, then the numbers that are not
    tokens; the target is the detached flattened input tokens (+ those numbers)."""

    def __init__(self, sizes: list[int], m_num: int, *, n_blocks: int, n_heads: int,
                 numeric_tokens: bool) -> None:
        super().__init__()
        self.tokens = _Tokens(sizes, m_num, numeric_tokens)
        self.tail = 0 if numeric_tokens else m_num
        self.width = self.tokens.n_tokens * TOKEN_DIM + self.tail
        if n_blocks == 0:
            self.blocks: nn.Module = _SelfAttention(TOKEN_DIM, 1, project=False)
        else:
            self.blocks = nn.Sequential(*(_Block(TOKEN_DIM, n_heads) for _ in range(n_blocks)))

    def forward(self, codes: torch.Tensor, nums: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor]:
        t = self.tokens(codes, nums)
        rest = nums if self.tail else nums[:, :0]
        target = torch.cat([t.flatten(1), rest], dim=1).detach()
        if t.shape[1]:
            t = self.blocks(t)
        return torch.cat([t.flatten(1), rest], dim=1), target


class ThesisAutoencoder(nn.Module):
    """A front end, the symmetric encoder / decoder stacks of :func:`layer_widths`, and the
    cluster centres."""

    def __init__(self, front: nn.Module, n_clusters: int, alpha: float) -> None:
        super().__init__()
        self.front = front
        widths = layer_widths(front.width, front.width)
        self.encoder = _stack(widths)
        self.decoder = _stack(widths[::-1])
        self.n_components = widths[-1]
        self.centers = nn.Parameter(torch.zeros(n_clusters, widths[-1]))
        self.alpha = float(alpha)

    def forward(self, codes: torch.Tensor, nums: torch.Tensor
                ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """Latent vectors, reconstruction and target of a batch."""
        x, target = self.front(codes, nums)
        z = self.encoder(x)
        return z, self.decoder(z), target

    def embed(self, codes: torch.Tensor, nums: torch.Tensor) -> torch.Tensor:
        return self.encoder(self.front(codes, nums)[0])

    def soft_assign(self, z: torch.Tensor) -> torch.Tensor:
        """Student-t kernel ``q_ij`` (DEC, Xie et al. 2016, Eq. 1)."""
        d2 = torch.cdist(z, self.centers).pow(2)
        q = (1.0 + d2 / self.alpha).pow(-(self.alpha + 1.0) / 2.0)
        return q / q.sum(dim=1, keepdim=True)


def dec_batch_loss(q: torch.Tensor) -> torch.Tensor:
    """DEC's loss as the thesis' code computes it (ClustPy's DEC): the target ``p`` of Xie
    et al. (2016) Eq. 3 from the batch's own soft assignments ``q`` (``f_j`` summed over the
    batch), detached, and the cross-entropy ``-mean_i sum_j p_ij log(q_ij + 1e-8)`` (equal
    to ``KL(P || Q)`` up to the entropy of ``P``, which has no gradient)."""
    w = q.pow(2) / q.sum(dim=0)
    p = (w / w.sum(dim=1, keepdim=True)).detach()
    return -(p * torch.log(q + 1e-8)).sum(dim=1).mean()


def dcn_centroid_step(centers: torch.Tensor, counts: torch.Tensor, rows: torch.Tensor,
                      near: torch.Tensor) -> torch.Tensor:
    """DCN's centroid update (Yang et al. 2017, Algorithm 1) for a batch, in place.

    Row by row, DCN raises the count ``c_k`` of the row's centroid ``k`` and moves it by
    ``(x - mu_k) / c_k``. For the ``m`` rows of a batch that go to ``k`` these steps compose
    to the running mean ``(c_k mu_k + sum x) / (c_k + m)`` (equal up to rounding), computed
    here at once instead of a Python loop over the rows. ``centers`` ``(k, d)`` is updated
    in place; returns the new counts ``(k,)``. A centroid with count 0 and no row stays.
    """
    m = torch.bincount(near, minlength=len(counts)).to(counts.dtype)
    sums = torch.zeros_like(centers).index_add_(0, near, rows.to(centers.dtype))
    new = counts + m
    mean = (counts[:, None] * centers + sums) / new.clamp(min=1)[:, None]
    centers.copy_(torch.where(new[:, None] > 0, mean, centers))
    return new


def start_values(model: nn.Module, enc: object, rows: object) -> None:
    """Value embeddings from CDE / UNTIE value vectors: column ``j``'s table takes its
    values' rows of ``rows`` (PCA components in order of variance, unit scale) cut to its
    width; the unseen-value row stays zero."""
    for module in model.modules():
        if isinstance(module, _Values):
            with torch.no_grad():
                for j, table in enumerate(module.tables):
                    off, size = int(enc.offsets[j]), int(enc.sizes[j])
                    w = table.weight.shape[1]
                    table.weight.copy_(torch.as_tensor(rows[off:off + size + 1, :w],
                                                       dtype=table.weight.dtype))


def _chunks(codes: torch.Tensor, nums: torch.Tensor, size: int = 4096):
    for s in range(0, len(codes), size):
        yield codes[s:s + size].long(), nums[s:s + size]


def nearest_centre(model: ThesisAutoencoder, codes: torch.Tensor, nums: torch.Tensor):
    """The nearest centre of every row's latent vector, streamed over chunks of rows (the
    latent vectors of all rows are never held at once); a NumPy array of the narrowest
    label type (:func:`~catembed.deep._batches.label_dtype`), written chunk by chunk."""
    model.eval()
    out = np.empty(len(codes), dtype=label_dtype(int(model.centers.shape[0])))
    with torch.no_grad():
        for s, (c, x) in enumerate(_chunks(codes, nums)):
            near = torch.cdist(model.embed(c, x), model.centers).argmin(dim=1)
            out[s * 4096:s * 4096 + len(near)] = near.cpu().numpy()
    return out


def latent_means(model: ThesisAutoencoder, codes: torch.Tensor, nums: torch.Tensor,
                 labels: object, k: int) -> torch.Tensor:
    """The mean latent vector of every cluster of ``labels`` (an empty cluster: zero),
    streamed over chunks of rows (the labels widened one chunk at a time)."""
    model.eval()
    labels = np.asarray(labels)
    sums = torch.zeros(k, int(model.n_components), dtype=torch.float64)
    with torch.no_grad():
        for s, (c, x) in enumerate(_chunks(codes, nums)):
            part = torch.as_tensor(labels[s * 4096:(s + 1) * 4096].astype(np.int64))
            sums.index_add_(0, part, model.embed(c, x).double().cpu())
    counts = torch.as_tensor(count_labels(labels, k)).clamp(min=1).double()[:, None]
    return (sums / counts).to(model.centers.dtype)
