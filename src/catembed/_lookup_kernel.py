"""The compiled gather of :class:`catembed._lookup.LookupPlan` (optional: ``catembed[fast]``).

With numba installed (``pip install "catembed[fast]"``) the lookup runs as one compiled loop
that reads each row's codes, forms its keys into the fused tables and writes (or adds) their
rows straight into the output, in the output's own memory order: no temporary, one write of
every output cell. The additions are the NumPy path's, in the same order and dtype (one
``+`` per fused table after the first), so both paths give bit-identical outputs.

Without numba (or with ``CATEMBED_NUMBA=0`` in the environment) :func:`kernel` returns None
and the NumPy path of :mod:`catembed._lookup` runs.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["kernel"]

_KERNEL: Any = None
_TRIED = False


def kernel() -> Any:
    """The compiled gather, or None when numba is missing or disabled."""
    global _KERNEL, _TRIED, _rows
    if os.environ.get("CATEMBED_NUMBA", "1") == "0":
        return None
    if not _TRIED:
        _TRIED = True
        try:
            import numba
        except ImportError:
            return None
        jit = numba.njit(cache=True, nogil=True)
        _rows = jit(_rows)
        _KERNEL = jit(_gather)
    return _KERNEL


def _gather(codes, members, radix, gstart, offsets, widths, col0, flat, out, out1, is_sum,
            layout, block):  # pragma: no cover - compiled by numba
    """Fill ``out`` (n x width) from ``codes`` (n x m); return -1, or a block with a bad code.

    Group ``g`` reads attributes ``members[gstart[g]:gstart[g + 1]]`` (sizes ``radix``,
    the unknown row last), its table starts at ``flat[offsets[g]]`` with ``widths[g]``
    columns and writes output columns ``col0[g]:col0[g] + widths[g]`` (or adds into all of
    them when ``is_sum``). ``layout``: 0, the output is C-contiguous and ``out1`` is its flat
    view, written row by row; otherwise (column-major, or other strides) each block of rows
    is made in a small row-major tile, then copied column by column into ``out``. Indices
    are unsigned so that the copy loops vectorise.
    """
    n = codes.shape[0]
    n_groups = offsets.shape[0]
    bases = np.empty((n_groups, block), dtype=np.uint64)
    keys = np.empty((n_groups, block), dtype=np.int64)
    tile = np.empty((block if layout else 1, out.shape[1]), dtype=out.dtype)
    tile1 = tile.reshape(-1)
    width = np.uint64(out.shape[1])
    for s in range(0, n, block):
        e = min(s + block, n)
        b = e - s
        bad = False
        for g in range(n_groups):
            kb = keys[g]
            kb[:b] = 0
            for p in range(gstart[g], gstart[g + 1]):
                col = codes[s:e, members[p]]
                size = np.int64(radix[p])
                lo = np.int64(0)
                hi = np.int64(0)
                for i in range(b):
                    c = np.int64(col[i])
                    lo = min(lo, c)
                    hi = max(hi, c)
                    kb[i] = kb[i] * size + c + (size & (c >> 63))  # -1 -> size - 1
                bad |= (lo < -1) | (hi >= size - 1)
            w = np.int64(widths[g])
            off = np.int64(offsets[g])
            bg = bases[g]
            for i in range(b):
                bg[i] = np.uint64(off + kb[i] * w)
        if bad:
            return s
        if layout == 0:
            _rows(bases, b, flat, widths, col0, is_sum, out1, np.uint64(s) * width, width)
        else:
            _rows(bases, b, flat, widths, col0, is_sum, tile1, np.uint64(0), width)
            for c in range(out.shape[1]):  # the tile's columns into the output's
                for i in range(b):
                    out[s + i, c] = tile[i, c]
    return -1


def _rows(bases, b, flat, widths, col0, is_sum, out1, start, width):  # pragma: no cover
    """Rows ``0..b-1`` of a block into the flat row-major ``out1`` from position ``start``:
    each row's fused-table rows copied (the first) or added (the next ones, when summing)."""
    for i in range(b):
        o = start + np.uint64(i) * width
        for g in range(bases.shape[0]):
            w = np.uint64(widths[g])
            k = bases[g, i]
            dst = o + np.uint64(col0[g])
            if is_sum and g > 0:
                for c in range(w):
                    out1[dst + c] += flat[k + c]
            else:
                for c in range(w):
                    out1[dst + c] = flat[k + c]
