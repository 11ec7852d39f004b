"""The encoded table during training: mini-batches and chunks as torch tensors.

:class:`_Rows` hands out the compactly encoded rows (:mod:`catembed.deep._data`) as tensors
on the training device, :class:`_Batches` the shuffled mini-batch order, and
:func:`forward_chunks` runs a network over chunks of rows without gradients. Torch is
passed in by the caller (imported only when a model is fitted).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _data

__all__ = ["_Batches", "_FixedBatches", "_Rows", "count_labels", "forward_chunks", "label_dtype"]


def label_dtype(k: int) -> type:
    """The smallest integer type that holds ``k`` cluster labels."""
    return np.int16 if k < 2**15 else np.int32


def count_labels(labels: np.ndarray, minlength: int = 0, chunk: int = 1 << 16) -> np.ndarray:
    """``np.bincount(labels, minlength=minlength)`` counted ``chunk`` labels at a time
    (``np.bincount`` widens its whole input to ``intp`` first: 8 bytes a row)."""
    labels = np.asarray(labels)
    size = max(int(minlength), int(labels.max()) + 1 if len(labels) else 0)
    counts = np.zeros(size, dtype=np.int64)
    for s in range(0, len(labels), chunk):
        part = np.bincount(labels[s:s + chunk])
        counts[:len(part)] += part
    return counts


class _Rows:
    """The compactly encoded training table: mini-batches and chunks as torch tensors on
    the training device (value ids widened to ``int64`` one batch at a time).

    On a GPU the compact table (value ids in their narrow type, coded numbers as codes) is
    copied to the device once, here, and every batch is gathered there: no host-to-device
    copy of rows per step. On the CPU the NumPy arrays are indexed as before."""

    def __init__(self, codes: np.ndarray, nums: np.ndarray, device: Any, torch: Any) -> None:
        self.codes, self.nums, self.device, self.torch = codes, nums, device, torch
        self.n = len(codes)
        self._on_device = None
        if getattr(device, "type", "cpu") != "cpu":
            numbers = (nums.to_torch(torch, device) if isinstance(nums, _data.CodedNumbers)
                       else torch.as_tensor(np.ascontiguousarray(nums), device=device))
            self._on_device = (torch.as_tensor(codes, device=device), numbers)

    def take(self, idx: Any) -> tuple[Any, Any]:
        t = self.torch
        if self._on_device is not None:
            codes, nums = self._on_device
            if not isinstance(idx, slice):
                idx = t.as_tensor(np.asarray(idx, dtype=np.int64), device=self.device)
            return codes[idx].long(), nums[idx]
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


class _FixedBatches:
    """One shuffle up front, then the same consecutive mini-batches every epoch, the last
    one short when ``batch_size`` does not divide ``n``: what a PyTorch ``DataLoader`` with
    ``shuffle=False`` (its default) and ``drop_last=False`` gives over a table shuffled
    once, as the finished thesis' code trains (its ``load_datasets.py`` shuffles each table
    once with ``random_state=0`` and builds ``DataLoader(dataset, batch_size=32)``)."""

    def __init__(self, n: int, batch_size: int, rng: np.random.RandomState) -> None:
        self.n, self.bs = n, batch_size
        self.perm = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
        rng.shuffle(self.perm)
        self.pos = 0

    def next(self) -> np.ndarray:
        if self.pos >= self.n:
            self.pos = 0
        out = self.perm[self.pos:self.pos + self.bs]
        self.pos += self.bs
        return out


def forward_chunks(model: Any, pairs: Any, torch: Any, fn: Any) -> Any:
    """``fn(model, codes, nums)`` of every ``(codes, nums)`` chunk of ``pairs``, one chunk
    at a time (a generator: the caller keeps only what it needs)."""
    model.eval()
    for c, x in pairs:
        with torch.no_grad():
            out = fn(model, c, x)
        yield out
