"""The transform's inner loop: gather value vectors into a preallocated output block.

An object vector is a function of the codes of its ``m`` values only: the concatenation
(CDE, UNTIE, ...) or the sum (one-hot PCA, any ``n_components`` projection) of one row per
value. :class:`LookupPlan` turns the fitted value tables into a few *joint tables*: runs of
consecutive attributes whose Cartesian product of values is small (at most ``max_joint_bytes``,
by default 256 KiB, so the table stays in the CPU cache) are fused into one table indexed by a
mixed-radix key, so that 8 attributes of 10 values become 2 or 4 lookups instead of 8. Each
joint table is gathered with one :func:`numpy.take` per block of rows straight into the output
(``out=``), in the output dtype (float32 by default in compact mode).

Unknown values (code ``-1``) read an extra last row of each table: zeros, or whatever the
caller puts there (the ``n_components`` projection stores minus its centring there).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._encoding import encode, encode_frame
from ._pooling import pooled_encoding
from ._validation import CatEmbedError, CatEmbedWarning, user_stacklevel

__all__ = ["LookupPlan", "check_unknown", "encode_values", "lookup_tables"]

_BLOCK_BYTES = 1 << 20  # output bytes written per block of rows (cache-sized)


class LookupPlan:
    """Gather-and-combine of per-attribute value tables, fused for speed.

    Parameters
    ----------
    tables : list of ndarray of shape (l_j + 1, w_j)
        One table per attribute, the last row used for unknown values (code -1).
    combine : {"concat", "sum"}
        Concatenate the attributes' rows (``sum w_j`` columns) or add them (``w`` columns,
        every ``w_j`` equal).
    dtype : numpy dtype
        Output dtype; the tables are cast once.
    max_joint_bytes : int
        Largest fused table, in bytes.
    """

    def __init__(
        self,
        tables: Sequence[np.ndarray],
        combine: str,
        dtype: np.dtype | type = np.float32,
        max_joint_bytes: int = 1 << 18,
    ) -> None:
        self.dtype = np.dtype(dtype)
        self.combine = combine
        self.n_features = len(tables)
        self.sizes = [int(t.shape[0]) for t in tables]  # including the unknown row
        widths = [int(t.shape[1]) for t in tables]
        self.width = (widths[0] if widths else 0) if combine == "sum" else int(sum(widths))
        item = self.dtype.itemsize
        groups: list[list[int]] = []
        for j in range(len(tables)):
            if groups:
                g = groups[-1]
                rows = int(np.prod([self.sizes[i] for i in g])) * self.sizes[j]
                w = widths[j] if combine == "sum" else sum(widths[i] for i in g + [j])
                if rows * w * item <= max_joint_bytes and rows < 2**31:
                    g.append(j)
                    continue
            groups.append([j])
        self.groups = groups
        self.joint: list[np.ndarray] = []
        self.radix: list[list[int]] = []
        self.columns: list[tuple[int, int]] = []
        start = 0
        for g in groups:
            joint = np.asarray(tables[g[0]], dtype=np.float64)
            for i in g[1:]:
                t = np.asarray(tables[i], dtype=np.float64)
                if combine == "sum":
                    joint = (joint[:, None, :] + t[None, :, :]).reshape(-1, t.shape[1])
                else:
                    a = np.repeat(joint, t.shape[0], axis=0)
                    b = np.tile(t, (joint.shape[0], 1))
                    joint = np.hstack([a, b])
            self.joint.append(np.ascontiguousarray(joint, dtype=self.dtype))
            self.radix.append([self.sizes[i] for i in g])
            if combine == "sum":
                self.columns.append((0, self.width))
            else:
                self.columns.append((start, start + joint.shape[1]))
                start += joint.shape[1]

    def keys(self, codes: np.ndarray) -> list[np.ndarray]:
        """Mixed-radix row index into each joint table (unknown code -1 -> the last row)."""
        unknown = bool((codes < 0).any())
        out = []
        for members, radix in zip(self.groups, self.radix, strict=True):
            key = None
            for i, size in zip(members, radix, strict=True):
                c = codes[:, i]
                if unknown:
                    c = np.where(c < 0, size - 1, c)
                if key is None:
                    key = c.astype(np.intp)
                else:
                    key *= size
                    key += c
            out.append(key)
        return out

    def __call__(self, codes: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The embedding of an ``n x m`` code matrix (``-1`` = unknown) as ``n x width``."""
        n = codes.shape[0]
        if out is None:
            out = np.empty((n, self.width), dtype=self.dtype)
        if n == 0 or self.width == 0:
            return out
        keys = self.keys(np.asarray(codes))
        row_bytes = max(self.width * self.dtype.itemsize, 1)
        block = max(1024, _BLOCK_BYTES // row_bytes)
        if self.combine != "sum" and len(self.joint) == 1:
            np.take(self.joint[0], keys[0], axis=0, out=out)
            return out
        if self.combine != "sum":
            for s in range(0, n, block):
                e = min(s + block, n)
                for (a, b), joint, key in zip(self.columns, self.joint, keys, strict=True):
                    out[s:e, a:b] = joint[key[s:e]]
            return out
        tmp = np.empty((min(block, n), self.width), dtype=self.dtype)
        for s in range(0, n, block):
            e = min(s + block, n)
            np.take(self.joint[0], keys[0][s:e], axis=0, out=out[s:e])
            t = tmp[: e - s]
            for joint, key in zip(self.joint[1:], keys[1:], strict=True):
                np.take(joint, key[s:e], axis=0, out=t)
                out[s:e] += t
        return out


def lookup_tables(
    tables: Sequence[np.ndarray], combine: str,
    projection: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
) -> tuple[list[np.ndarray], str]:
    """Per-attribute tables with an unknown-value row last, and how they combine.

    Without a projection: the value tables with a zero row. With the ``n_components``
    projection ``(components, mean, variance)``: each table projected onto the components
    (its block of them when vectors are concatenated), summed over attributes, the
    projected mean subtracted once per row (from the first attribute's table).
    """
    if projection is None:
        return [np.vstack([t, np.zeros((1, t.shape[1]))]) for t in tables], combine
    components, mean, _ = projection
    out = []
    start = 0
    for j, t in enumerate(tables):
        if combine == "sum":
            block = t @ components
        else:
            block = t @ components[start : start + t.shape[1]]
            start += t.shape[1]
        block = np.vstack([block, np.zeros((1, block.shape[1]))])
        if j == 0:  # centring: subtract the projected mean once per row
            block = block - mean @ components
        out.append(block)
    return out, "sum"


def encode_values(
    X: Any, feature_names: Sequence[str], categories: list[np.ndarray],
    infrequent: list[np.ndarray | None] | None, handle_missing: str, *, checked: bool = False,
) -> np.ndarray:
    """Codes of the columns ``feature_names`` of ``X`` in ``categories`` (``-1``: not seen
    in fit); pooled rare values get the code of the infrequent value. ``checked``: ``X`` is
    a frame already validated by the public call."""
    cats, remap = pooled_encoding(categories, infrequent)
    names = list(feature_names)
    if checked:
        codes = encode_frame(X, names, cats, handle_missing)
    else:
        codes = encode(X, names, cats, handle_missing)
    for j, r in remap.items():  # pooled values -> the infrequent value's code
        codes[:, j] = np.where(codes[:, j] >= 0, r[np.maximum(codes[:, j], 0)], -1)
    return codes


def check_unknown(df: pd.DataFrame, codes: np.ndarray, feature_names: np.ndarray,
                  handle_unknown: str) -> None:
    """Apply ``handle_unknown`` to the values not seen in fit (code -1): raise, warn or
    let them embed as the zero vector."""
    unknown = codes < 0
    if not unknown.any():
        return
    bad = np.flatnonzero(unknown.any(axis=0))
    names = feature_names
    detail = "; ".join(
        f"{names[j]!s}: {_first_unknown(df, names[j], codes[:, j])!r}" for j in bad[:5]
    )
    msg = (
        f"{int(unknown.sum())} value(s) not seen during fit in column(s) "
        f"{', '.join(map(str, names[bad]))} (e.g. {detail})"
    )
    if handle_unknown == "error":
        raise CatEmbedError(
            msg + "; use handle_unknown='ignore' to embed them as the zero vector."
        )
    if handle_unknown == "warn":
        warnings.warn(msg + "; embedded as the zero vector.", CatEmbedWarning,
                      stacklevel=user_stacklevel())


def _first_unknown(df: pd.DataFrame, column: str, codes: np.ndarray) -> Any:
    i = int(np.flatnonzero(codes < 0)[0])
    return df[column].iloc[i]
