"""The transform's inner loop: gather value vectors into a preallocated output block.

An object vector is a function of the codes of its ``m`` values only: the concatenation
(CDE, UNTIE, ...) or the sum (one-hot PCA, any ``n_components`` projection) of one row per
value. :class:`LookupPlan` turns the fitted value tables into a few *joint tables*: runs of
consecutive attributes whose Cartesian product of values is small (at most ``max_joint_bytes``,
by default 256 KiB, so the table stays in the CPU cache) are fused into one table indexed by a
mixed-radix key, so that 8 attributes of 10 values become 2 or 4 lookups instead of 8. Each
joint table is gathered with one :func:`numpy.take` (``mode="clip"`` once the codes are
checked: ``mode="raise"`` buffers the output) per block of rows straight into the output,
the next tables' rows added in place from one small scratch block reused across blocks, in
the output dtype (float32 by default in compact mode). With numba installed
(``catembed[fast]``) one compiled loop does the same additions in the same order
(:mod:`catembed.transform._lookup_kernel`; bit-identical), writing each output cell once; on outputs
of 4 MiB and more its rows are split over :func:`~catembed._utils._threads.own_threads` threads
(``CATEMBED_NUM_THREADS``, else ``OMP_NUM_THREADS``, else the CPUs), and from 8 MiB written
with streaming stores. The output may be row- or column-major (a column-major block gives
Arrow its columns); :func:`empty_aligned` allocates one on a 64-byte boundary, which the
compiled loop writes fastest.

Unknown values (code ``-1``) read an extra last row of each table: zeros, or whatever the
caller puts there (the ``n_components`` projection stores minus its centring there).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import numpy as np
import pandas as pd

from .._utils._threads import own_threads, run_parts
from .._utils._validation import CatEmbedError, CatEmbedWarning, user_stacklevel
from ..stats._encoding import code_dtype, encode, encode_frame, pooled_encoding
from ._lookup_kernel import huge_page_copy, loaded
from ._lookup_kernel import kernel as _kernel

__all__ = ["LookupPlan", "check_unknown", "compiled_lookup", "compiled_lookup_pays",
           "empty_aligned", "encode_values", "keep_fit_codes", "lookup_tables", "table_codes"]

#: output bytes written per block of rows of the NumPy path (its scratch blocks stay in a
#: 1-2 MB L2 cache): 1 MiB spends 10-20% less CPU than 256 KiB on every shape measured
#: (fewer NumPy calls per row; 10M x 32 float32 column-major, 0.70 -> 0.58 s), which is what
#: the wall time of a transform on a busy machine follows (docs/benchmarks.md, issue 40)
_BLOCK_BYTES = 1 << 20
_TILE_BYTES = 1 << 15  # output bytes per block of rows of the compiled gather (its tile in L1)
_KEY_ROWS = 512  # rows whose keys the compiled gather forms at once (7 tables: 28 KiB)
_KERNEL_MIN_CELLS = 1 << 16  # smaller outputs take the NumPy path (no numba import)
_STREAM_BYTES = 1 << 23  # larger outputs are written with streaming stores, past the caches
_THREAD_BYTES = 1 << 22  # larger outputs are split over threads
_PARTS_PER_THREAD = 4  # parts of the rows per thread (a busy core delays a quarter)
#: a job of at least this many output cells loads the compiled gather when this process has
#: not yet: loading it (numba's import, its registries, the cached machine code) costs about
#: 0.5 s of CPU, and it saves about 0.6 ns a cell over the NumPy path (float32, 32 columns,
#: column-major, measured in ``transform_file``), so from 2^31 cells it saves over 1 s
_COMPILED_MIN_CELLS = 1 << 31
_COMPILED: ContextVar[bool] = ContextVar("catembed_compiled_lookup", default=True)


def compiled_lookup_pays(cells: int | None) -> bool:
    """Whether a job that looks up ``cells`` output cells in all (``None``: not known)
    should use the compiled gather: it is already loaded in this process, or the job is
    large enough to pay for loading it (``_COMPILED_MIN_CELLS``)."""
    return loaded() or (cells is not None and cells >= _COMPILED_MIN_CELLS)


@contextmanager
def compiled_lookup(allowed: bool) -> Iterator[None]:
    """Within the block (this thread or task), :class:`LookupPlan` uses the compiled gather
    only if ``allowed`` (and numba is there); the NumPy path gives the same bytes."""
    token = _COMPILED.set(allowed)
    try:
        yield
    finally:
        _COMPILED.reset(token)


def empty_aligned(shape: tuple[int, int], dtype: Any, order: str = "C") -> np.ndarray:
    """``np.empty`` starting on a 64-byte boundary (NumPy's own start 16 bytes past one), so
    that the compiled gather writes whole vectors of a row-major output with streaming
    stores, without a tile in between (measured 1.2-1.4x faster at 1M rows)."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    buf = np.empty(nbytes + 64, dtype=np.uint8)
    start = (-buf.ctypes.data) % 64
    flat = buf[start : start + nbytes].view(dtype)
    return flat.reshape(shape, order=order)


def _kernel_layout(groups: list[list[int]], sizes: list[int], joint: list[np.ndarray],
                   columns: list[tuple[int, int]]) -> tuple[np.ndarray, ...]:
    """The plan as flat arrays for the compiled gather
    (:mod:`catembed.transform._lookup_kernel`)."""
    members = np.asarray([i for g in groups for i in g], dtype=np.int64)
    radix = np.asarray([sizes[i] for g in groups for i in g], dtype=np.int64)
    gstart = np.concatenate([[0], np.cumsum([len(g) for g in groups])]).astype(np.int64)
    widths = np.asarray([j.shape[1] for j in joint], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum([j.size for j in joint])[:-1]]).astype(np.int64)
    col0 = np.asarray([a for a, _ in columns], dtype=np.int64)
    flat = (np.concatenate([j.ravel() for j in joint]) if joint
            else np.zeros(0, dtype=np.float64))
    return members, radix, gstart, offsets, widths, col0, flat


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
    max_total_bytes : int
        Largest size of all fused tables together: beyond it, the remaining attributes keep
        their own tables (a wide table, 20,000 columns of four values, fused 256 KiB at a
        time, took 0.4-0.8 GiB of tables for 1.6 MB of values).
    """

    def __init__(
        self,
        tables: Sequence[np.ndarray],
        combine: str,
        dtype: np.dtype | type = np.float32,
        max_joint_bytes: int = 1 << 18,
        max_total_bytes: int = 1 << 26,
    ) -> None:
        self.dtype = np.dtype(dtype)
        self.combine = combine
        self.n_features = len(tables)
        self.sizes = [int(t.shape[0]) for t in tables]  # including the unknown row
        widths = [int(t.shape[1]) for t in tables]
        self.width = (widths[0] if widths else 0) if combine == "sum" else int(sum(widths))
        item = self.dtype.itemsize
        groups: list[list[int]] = []
        done = 0  # bytes of the joint tables before the last group

        def shape(g: list[int]) -> tuple[int, int]:  # rows and bytes of a joint table
            rows = int(np.prod([self.sizes[i] for i in g]))
            w = widths[g[-1]] if combine == "sum" else sum(widths[i] for i in g)
            return rows, rows * w * item

        for j in range(len(tables)):
            if groups:
                g = groups[-1]
                rows, size = shape(g + [j])
                if (size <= max_joint_bytes and rows < 2**31
                        and done + size <= max_total_bytes):
                    g.append(j)
                    continue
                done += shape(g)[1]
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
        self._kernel_args = _kernel_layout(self.groups, self.sizes, self.joint, self.columns)
        self._kernel_huge = False

    empty = staticmethod(empty_aligned)

    def keys(self, codes: np.ndarray) -> list[np.ndarray]:
        """Mixed-radix row index into each joint table (unknown code -1 -> the last row)."""
        codes = np.asarray(codes)
        if codes.size and codes.min() < 0:
            codes = np.where(codes < 0, np.asarray(self.sizes) - 1, codes)
        out = []
        for members, radix in zip(self.groups, self.radix, strict=True):
            key = codes[:, members[0]].astype(np.intp)
            for i, size in zip(members[1:], radix[1:], strict=True):
                key *= size
                key += codes[:, i]
            out.append(key)
        return out

    def __call__(self, codes: np.ndarray, out: np.ndarray | None = None, *,
                 order: str = "C") -> np.ndarray:
        """The embedding of an ``n x m`` code matrix (``-1`` = unknown) as ``n x width``.

        ``out``: a preallocated ``n x width`` array of the plan's dtype, row- or
        column-major (a column-major block gives Arrow its columns without a copy); written
        in place. ``order``: the memory order of a new output. Codes outside
        ``-1 .. l_j - 1`` raise :class:`~catembed._utils._validation.CatEmbedError`.
        """
        codes = np.asarray(codes)
        n = codes.shape[0]
        if out is None:
            out = empty_aligned((n, self.width), self.dtype, order)
        elif out.shape != (n, self.width) or out.dtype != self.dtype:
            raise CatEmbedError(f"lookup output must be {(n, self.width)} {self.dtype}, not "
                                f"{out.shape} {out.dtype}.")
        if n == 0 or self.width == 0:
            return out
        if codes.ndim != 2 or codes.shape[1] != self.n_features:
            raise CatEmbedError(f"codes must have {self.n_features} columns.")
        if codes.dtype.kind not in "iu":
            codes = codes.astype(np.int64)
        kernel = (_kernel() if n * self.width >= _KERNEL_MIN_CELLS and _COMPILED.get()
                  else None)
        if kernel is not None:
            return self._kernel_lookup(kernel, codes, out)
        return self._numpy_lookup(codes, out)

    def in_memory(self, codes: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``self(codes, out=out)`` for an in-memory ``transform``: the compiled gather only
        where it pays (:func:`compiled_lookup_pays`: loaded already, or a job large enough to
        pay for loading it), the NumPy path otherwise (the same bytes). At 50,000 rows x 32
        float32 columns loading numba cost 0.5-0.9 s CPU for a lookup of about 10 ms, most of a
        first ``OneHotPCA(32).fit_transform`` (docs/benchmarks.md, issue 55)."""
        if compiled_lookup_pays(codes.shape[0] * self.width):
            return self(codes, out=out)
        with compiled_lookup(False):
            return self(codes, out=out)

    def _kernel_lookup(self, kernel: Any, codes: np.ndarray, out: np.ndarray) -> np.ndarray:
        """The compiled gather (:mod:`catembed.transform._lookup_kernel`), its rows split into parts
        over :func:`~catembed._utils._threads.own_threads` threads when the output is large."""
        n = codes.shape[0]
        item = self.dtype.itemsize
        layout = 0 if out.flags.c_contiguous else 1
        out1 = out.reshape(-1) if layout == 0 else out[0]  # the flat row-major view
        block = max(64, min(1024, _TILE_BYTES // (self.width * item)))
        address = out1.ctypes.data
        phase = (address % 64) // item if (
            layout == 0 and out.nbytes >= _STREAM_BYTES and address % item == 0) else -1
        rows = block * max(1, _KEY_ROWS // block)
        if not self._kernel_huge:  # the fused tables in huge pages, made at first use
            self._kernel_args = (*self._kernel_args[:-1], huge_page_copy(self._kernel_args[-1]))
            self._kernel_huge = True
        args = (codes, *self._kernel_args, out, out1, self.combine == "sum", layout, block,
                rows)
        threads = own_threads() if out.nbytes >= _THREAD_BYTES else 1
        if threads == 1:
            bad = kernel(*args, 0, n, phase)
        else:
            step = -(-n // (threads * _PARTS_PER_THREAD))
            step = -(-step // rows) * rows  # whole parts: a bad code's part stays whole
            parts = [(s, min(s + step, n)) for s in range(0, n, step)]
            found = run_parts(lambda s, e: kernel(*args, s, e, phase), parts, threads)
            bad = min([b for b in found if b >= 0], default=-1)
        if bad >= 0:  # the NumPy path names the bad row
            self._numpy_lookup(codes[bad : bad + rows], out[bad : bad + rows])
        return out

    def _numpy_lookup(self, codes: np.ndarray, out: np.ndarray) -> np.ndarray:
        """The NumPy path: per block of rows, each fused table gathered with
        ``np.take(..., mode="clip")`` (codes checked first; ``mode="raise"`` would buffer the
        output) straight into the output block, the next tables' rows added in place from
        one small scratch block reused across blocks."""
        n = codes.shape[0]
        item = self.dtype.itemsize
        block = max(256, _BLOCK_BYTES // max(self.width * item, 1))
        block = min(block, n)
        direct = out.flags.c_contiguous
        dst_buf = None if direct else np.empty((block, self.width), dtype=self.dtype)
        total = self.combine == "sum"
        widest = max(j.shape[1] for j in self.joint)
        tmp = np.empty((block, widest), dtype=self.dtype) if len(self.joint) > 1 else None
        keybuf = np.empty(block, dtype=np.intp)
        last = np.asarray(self.sizes, dtype=np.int64) - 1
        for s in range(0, n, block):
            e = min(s + block, n)
            b = e - s
            cb = codes[s:e]
            lo = cb.min()
            if lo < -1 or (cb.max(axis=0) >= last).any():
                _bad_codes(cb[np.flatnonzero(((cb < -1) | (cb >= last)).any(axis=1))[0]],
                           self.sizes)
            if lo < 0:
                cb = np.where(cb < 0, last, cb)
            dst = out[s:e] if direct else dst_buf[:b]
            for g, (members, radix) in enumerate(zip(self.groups, self.radix, strict=True)):
                key = keybuf[:b]
                np.copyto(key, cb[:, members[0]], casting="unsafe")
                for i, size in zip(members[1:], radix[1:], strict=True):
                    key *= size
                    key += cb[:, i]
                joint = self.joint[g]
                if len(self.joint) == 1 or (total and g == 0):
                    np.take(joint, key, axis=0, out=dst, mode="clip")
                    continue
                t = tmp[:b, : joint.shape[1]]
                np.take(joint, key, axis=0, out=t, mode="clip")
                if total:
                    np.add(dst, t, out=dst)
                else:
                    a, c = self.columns[g]
                    dst[:, a:c] = t
            if not direct:
                out[s:e] = dst
        return out


def _bad_codes(row: np.ndarray, sizes: Sequence[int]) -> None:
    raise CatEmbedError(
        f"value codes out of range: row {row.tolist()} for attributes of "
        f"{[int(k) - 1 for k in sizes]} values (codes run from -1, unknown, to l_j - 1)."
    )


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
    dtype: Any = np.int32,
) -> np.ndarray:
    """Codes of the columns ``feature_names`` of ``X`` in ``categories`` (``-1``: not seen
    in fit); pooled rare values get the code of the infrequent value. ``checked``: ``X`` is
    a frame already validated by the public call. ``dtype``: of the codes (signed)."""
    cats, remap = pooled_encoding(categories, infrequent)
    names = list(feature_names)
    if checked:
        codes = encode_frame(X, names, cats, handle_missing, dtype)
    else:
        codes = encode(X, names, cats, handle_missing, dtype)
    for j, r in remap.items():  # pooled values -> the infrequent value's code
        codes[:, j] = np.where(codes[:, j] >= 0, r[np.maximum(codes[:, j], 0)], -1)
    return codes


def check_unknown(df: pd.DataFrame, codes: np.ndarray, feature_names: np.ndarray,
                  handle_unknown: str) -> None:
    """Apply ``handle_unknown`` to the values not seen in fit (code -1): raise, warn or
    let them embed as the zero vector."""
    if not codes.size or codes.min() >= 0:  # the common case, without a mask
        return
    unknown = codes < 0
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


def keep_fit_codes(est: Any, X: Any, counted: Sequence[str]) -> Any:
    """Within ``fit_transform`` (``est._kept_fit_codes`` is None): the ``on_codes`` callback of
    the fit's counting, which keeps its factorisation of ``X`` for :func:`table_codes`."""
    if "_kept_fit_codes" not in est.__dict__ or est._kept_fit_codes is not None:
        return None

    def keep(codes: np.ndarray, cats: list[np.ndarray]) -> None:
        est._kept_fit_codes = (X, [str(c) for c in counted], codes, cats)

    return keep


def table_codes(est: Any, df: pd.DataFrame, X: Any = None, *, narrow: bool = False
                ) -> np.ndarray:
    """Codes of a validated frame in ``est``'s fitted categories, ``handle_unknown``
    applied. Within ``fit_transform`` (``X`` the table the fit kept codes of, see
    :func:`keep_fit_codes`) the fit's factorisation is reused: each attribute's distinct
    values are encoded as a transform would encode them (``est._encode_values``: the same
    matching, pooling and missing-value rules), then gathered by the fit's codes, instead
    of factorising the strings a second time. ``narrow``: codes in the narrowest signed
    dtype the value counts allow (:func:`~catembed.stats._encoding.code_dtype`; a quarter of the
    bytes for the lookup to read at up to 127 values), else ``int32``."""
    infrequent = getattr(est, "infrequent_categories_", None)
    # pooled rare values are encoded in the listed values first, then mapped to their code
    dtype = code_dtype(pooled_encoding(est.categories_, infrequent)[0]) if narrow else np.int32
    kept = est.__dict__.get("_kept_fit_codes") if X is not None else None
    names = [str(c) for c in est.feature_names_]
    where = {c: j for j, c in enumerate(kept[1])} if kept else {}
    if kept and kept[0] is X and all(c in where for c in names):  # a dict: m, not m^2
        del est._kept_fit_codes
        fit_cats = [kept[3][where[c]] for c in names]
        n = max([len(c) for c in fit_cats] + [0]) + 1
        cells = np.full((n, len(names)), np.nan, dtype=object)
        for j, c in enumerate(fit_cats):
            cells[: len(c), j] = c
        # each attribute's fitted values, then a missing value (one block, not a Series
        # per column: 1.3 s on 20,000 columns)
        values = pd.DataFrame(cells, columns=names, dtype=object)
        value_codes = est._encode_values(values)
        codes = np.empty((len(df), len(names)), dtype=dtype, order="F")
        for j, c in enumerate(names):
            # code -1 (a missing value the fit did not count) reads the missing value's row
            table = np.append(value_codes[: len(fit_cats[j]), j],
                              value_codes[-1, j]).astype(dtype)
            np.take(table, kept[2][:, where[c]], out=codes[:, j], mode="wrap")
    else:
        codes = encode_values(df, est.feature_names_, est.categories_, infrequent,
                              est.handle_missing, checked=True, dtype=dtype)
    check_unknown(df, codes, est.feature_names_, est.handle_unknown)
    return codes


def _first_unknown(df: pd.DataFrame, column: str, codes: np.ndarray) -> Any:
    i = int(np.flatnonzero(codes < 0)[0])
    return df[column].iloc[i]
