"""The compiled gather of :class:`catembed.transform._lookup.LookupPlan` (optional:
``catembed[fast]``).

With numba installed (``pip install "catembed[fast]"``) the lookup runs as one compiled loop
that reads each row's codes, forms its keys into the fused tables and writes (or adds) their
rows straight into the output: no temporary, one write of every output cell. The rows are
moved 64 bytes at a time (16 float32 or 8 float64) by tiny LLVM vector operations
(:func:`_vector_ops`), which the compiler lowers to one AVX-512 register, two AVX2 or four
SSE registers: numba leaves LLVM's SLP vectoriser off, and its own loops over a 32-wide row
spend more on loop set-up (alias checks, remainders) than on the additions. The additions
are the NumPy path's, in the same order and dtype (one ``+`` per fused table after the
first, lane by lane), so both paths give bit-identical outputs. Two rows are summed side by
side where the row is a whole number of vectors (two independent chains of additions, whose
table reads the processor overlaps).

For large outputs (:mod:`catembed.transform._lookup` decides) the rows are written with streaming
(non-temporal) stores, which skip the read-for-ownership of every output line and leave the
caches to the tables: straight from the registers when a summed row-major output starts on a
64-byte boundary (as :func:`catembed.transform._lookup.empty_aligned` allocates it), else through a
small tile. The keys are formed for 4096 rows at a time, down each code column (any integer
dtype: ``transform`` passes ``int8`` codes up to 127 values), and the fused tables are copied
once into huge pages (:func:`huge_page_copy`). The caller splits the rows over threads: the
loop holds no GIL.

Without numba (or with ``CATEMBED_NUMBA=0`` in the environment) :func:`kernel` returns None
and the NumPy path of :mod:`catembed.transform._lookup` runs.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

__all__ = ["huge_page_copy", "kernel", "loaded"]

_KERNEL: Any = None
_TRIED = False
_VSUM: Any = None
_VSUM_NT: Any = None
_VSUM2: Any = None
_VSUM2_NT: Any = None
_VSUM4: Any = None
_VSUM4_NT: Any = None
_VSUM2R_NT: Any = None
_VSUM4R_NT: Any = None
_VSUM2R: Any = None
_VSUM4R: Any = None
_VCOPY: Any = None
_VSTREAM: Any = None
_FENCE: Any = None
_ROW_BYTES = 64  # bytes moved by one vector operation


def kernel() -> Any:
    """The compiled gather, or None when numba is missing or disabled."""
    global _KERNEL, _TRIED
    if os.environ.get("CATEMBED_NUMBA", "1") == "0":
        return None
    if not _TRIED:
        _TRIED = True
        try:
            import numba
        except ImportError:
            return None
        globals().update(_vector_ops())  # numba reads them as constants when compiling
        _KERNEL = numba.njit(nogil=True, cache=True)(_gather)
    return _KERNEL


def loaded() -> bool:
    """Whether this process has the compiled gather ready (compiled or read from numba's
    cache for at least one type signature), so that using it costs no start-up."""
    return _KERNEL is not None and bool(_KERNEL.signatures) and kernel() is not None


def huge_page_copy(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` (1-d) in memory backed by 2 MiB pages where the system grants them.

    The fused tables are read at random rows: at 1.2 MB (20 attributes x 32 float32 columns)
    they span 300 pages of 4 KiB, more than the first-level TLB holds, and one or two huge
    pages cover them (measured 12-25% off the compiled gather, 1M rows). An anonymous
    mapping advised ``MADV_HUGEPAGE`` (Linux; elsewhere, or when refused, ``a`` itself).
    """
    import mmap

    huge = 2 << 20
    if not hasattr(mmap, "MADV_HUGEPAGE") or a.nbytes < huge // 8:
        return a
    try:
        buf = mmap.mmap(-1, -(-a.nbytes // huge) * huge + huge,  # private: anonymous THP
                        flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        buf.madvise(mmap.MADV_HUGEPAGE)
    except (OSError, ValueError):
        return a
    start = (-np.frombuffer(buf, np.uint8, 1).ctypes.data) % huge  # the first 2 MiB boundary
    out = np.frombuffer(buf, a.dtype, a.size, start)
    out[:] = a
    return out


def _vector_ops() -> dict[str, Any]:
    """Operations on ``L`` elements (64 bytes) at a time, raw pointer arithmetic (the
    caller keeps in bounds), by name.

    ``_VCOPY(dst, i, src, j)``: ``dst[i:i + L] = src[j:j + L]``.
    ``_VSUM(dst, i, src, keys, r, j)``: ``dst[i:i + L] = src[keys[0, r] + j : ... + L] +
    src[keys[1, r] + j : ...] + ...`` (``keys`` C-contiguous), added left to right in a
    register, stored once; ``_VSUM2`` and ``_VSUM4`` do 2 or 4 neighbouring vectors
    (``L * c`` elements) with one register each, reading each key once (measured 1.3x
    faster at 32 float32 columns); the ``_NT`` forms store with streaming (non-temporal)
    stores to a 64-byte-aligned ``dst[i]``, past the caches.
    ``_VSUM2R(dst, i, w, src, keys, r, j)`` and ``_VSUM4R`` (and their ``_NT`` forms): rows
    ``r`` and ``r + 1`` together, into ``dst[i]`` and ``dst[i + w]``, their two chains of
    additions side by side so that the processor overlaps the table reads of both (each
    row's additions in the same order: the same bytes; issue 55, 20 attributes -> 32
    float32 on 2 threads 2.25x -> 1.89x the fill).
    ``_VSTREAM(dst, i, src, j)``: ``_VCOPY`` with a streaming store to an aligned ``dst[i]``.
    ``_FENCE()``: a full memory fence (streaming stores are weakly ordered).
    """
    from llvmlite import ir
    from numba import types
    from numba.core import cgutils
    from numba.extending import intrinsic

    def vector(context: Any, ty: Any) -> Any:
        return ir.VectorType(context.get_value_type(ty.dtype), _ROW_BYTES * 8 // ty.dtype.bitwidth)

    def at(builder: Any, data: Any, index: Any, vec: Any) -> Any:
        return builder.bitcast(builder.gep(data, [index]), vec.as_pointer())

    @intrinsic
    def vcopy(typingctx, dst, i, src, j):  # noqa: ARG001 - numba's signature
        def codegen(context, builder, sig, args):
            d, di, s, sj = args
            vec = vector(context, sig.args[0])
            dp = context.make_array(sig.args[0])(context, builder, d).data
            sp = context.make_array(sig.args[2])(context, builder, s).data
            builder.store(builder.load(at(builder, sp, sj, vec), align=1),
                          at(builder, dp, di, vec), align=1)
            return context.get_dummy_value()

        return types.void(dst, i, src, j), codegen

    def make_vsum(streaming: bool, count: int) -> Any:
        @intrinsic
        def vsum(typingctx, dst, i, src, keys, r, j):  # noqa: ARG001 - numba's signature
            def codegen(context, builder, sig, args):
                d, di, s, k, row, sj = args
                return sum_rows(context, builder, sig.args[0], d, [di], sig.args[2], s,
                                sig.args[3], k, row, sj, streaming, count)

            return types.void(dst, i, src, keys, r, j), codegen

        return vsum

    def make_vsum_rows(streaming: bool, count: int, nrows: int) -> Any:
        @intrinsic
        def vsum_rows(typingctx, dst, i, w, src, keys, r, j):  # noqa: ARG001 - numba's
            def codegen(context, builder, sig, args):
                d, di, dw, s, k, row, sj = args
                dis = [builder.add(di, builder.mul(dw, ir.Constant(dw.type, h)))
                       for h in range(nrows)]
                return sum_rows(context, builder, sig.args[0], d, dis, sig.args[3], s,
                                sig.args[4], k, row, sj, streaming, count)

            return types.void(dst, i, w, src, keys, r, j), codegen

        return vsum_rows

    def sum_rows(context, builder, dty, d, dis, sty, s, kty, k, row, sj, streaming, count):
        """Rows ``row``, ``row + 1``, ... (one per start in ``dis``), ``count`` vectors each,
        one accumulator per vector, each key read once; the rows' chains of additions
        side by side (independent: the processor overlaps their table reads)."""
        vec = vector(context, dty)
        lanes = ir.Constant(sj.type, vec.count)
        dp = context.make_array(dty)(context, builder, d).data
        sp = context.make_array(sty)(context, builder, s).data
        karr = context.make_array(kty)(context, builder, k)
        groups = builder.extract_value(karr.shape, 0)
        stride = builder.extract_value(karr.shape, 1)
        kps = [builder.gep(karr.data, [builder.add(row, ir.Constant(row.type, h))])
               for h in range(len(dis))]
        accs = [[cgutils.alloca_once(builder, vec) for _ in range(count)] for _ in kps]

        def read(key: Any, t: int) -> Any:
            at_t = builder.add(key, builder.mul(lanes, ir.Constant(sj.type, t)))
            return builder.load(at(builder, sp, at_t, vec), align=1)

        for kp, acc_r in zip(kps, accs, strict=True):
            base = builder.add(builder.load(kp), sj)
            for t, acc in enumerate(acc_r):
                builder.store(read(base, t), acc)
        one = ir.Constant(groups.type, 1)
        with cgutils.for_range_slice(builder, one, groups, one) as (g, _):
            for kp, acc_r in zip(kps, accs, strict=True):
                key = builder.add(builder.load(builder.gep(kp, [builder.mul(g, stride)])), sj)
                for t, acc in enumerate(acc_r):
                    builder.store(builder.fadd(builder.load(acc), read(key, t)), acc)
        for di, acc_r in zip(dis, accs, strict=True):
            for t, acc in enumerate(acc_r):
                dt = builder.add(di, builder.mul(lanes, ir.Constant(di.type, t)))
                store = builder.store(builder.load(acc), at(builder, dp, dt, vec),
                                      align=_ROW_BYTES if streaming else 1)
                if streaming:
                    store.set_metadata("nontemporal", nontemporal(builder))
        return context.get_dummy_value()

    def nontemporal(builder: Any) -> Any:
        return builder.module.add_metadata([ir.Constant(ir.IntType(32), 1)])

    @intrinsic
    def vstream(typingctx, dst, i, src, j):  # noqa: ARG001 - numba's signature
        def codegen(context, builder, sig, args):
            d, di, s, sj = args
            vec = vector(context, sig.args[0])
            dp = context.make_array(sig.args[0])(context, builder, d).data
            sp = context.make_array(sig.args[2])(context, builder, s).data
            store = builder.store(builder.load(at(builder, sp, sj, vec), align=1),
                                  at(builder, dp, di, vec), align=_ROW_BYTES)
            store.set_metadata("nontemporal", nontemporal(builder))
            return context.get_dummy_value()

        return types.void(dst, i, src, j), codegen

    @intrinsic
    def fence(typingctx):  # noqa: ARG001 - numba's signature
        def codegen(context, builder, sig, args):
            builder.fence("seq_cst")
            return context.get_dummy_value()

        return types.void(), codegen

    return {"_VCOPY": vcopy, "_VSTREAM": vstream, "_FENCE": fence,
            "_VSUM": make_vsum(False, 1), "_VSUM_NT": make_vsum(True, 1),
            "_VSUM2": make_vsum(False, 2), "_VSUM2_NT": make_vsum(True, 2),
            "_VSUM4": make_vsum(False, 4), "_VSUM4_NT": make_vsum(True, 4),
            "_VSUM2R_NT": make_vsum_rows(True, 2, 2), "_VSUM4R_NT": make_vsum_rows(True, 4, 2),
            "_VSUM2R": make_vsum_rows(False, 2, 2), "_VSUM4R": make_vsum_rows(False, 4, 2)}


def _gather(codes, members, radix, gstart, offsets, widths, col0, flat, out, out1, is_sum,
            layout, block, rows, start, stop, phase):  # pragma: no cover - compiled by numba
    """Fill rows ``start:stop`` of ``out`` (n x width) from ``codes`` (n x m); return -1, or
    the first row of a part of ``rows`` rows with a bad code.

    Group ``g`` reads attributes ``members[gstart[g]:gstart[g + 1]]`` (sizes ``radix``,
    the unknown row last), its row-major table starts at ``flat[offsets[g]]`` with
    ``widths[g]`` columns, and it writes output columns ``col0[g]:col0[g] + widths[g]`` (or
    adds into all of them when ``is_sum``). The keys are formed for ``rows`` rows at a time
    (long runs down each code column), the output written ``block`` rows at a time.
    ``layout``: 0, the output is C-contiguous and ``out1`` is its flat view, written row by
    row, 64 bytes at a time, straight into ``out1`` (``phase < 0``) or through a small
    row-major tile streamed into it with non-temporal stores (``phase``: the first
    element's offset from a 64-byte boundary, in elements); 1 (column-major, or other
    strides), each block is made in the tile, then copied column by column into ``out``
    (gathering straight into the columns, one scalar per table and cell, measured slower).
    """
    vcopy = _VCOPY
    vsum = _VSUM
    vsum_nt = _VSUM_NT
    vsum2 = _VSUM2
    vsum2_nt = _VSUM2_NT
    vsum4 = _VSUM4
    vsum4_nt = _VSUM4_NT
    vsum2r_nt = _VSUM2R_NT
    vsum4r_nt = _VSUM4R_NT
    vsum2r = _VSUM2R
    vsum4r = _VSUM4R
    vstream = _VSTREAM
    fence = _FENCE
    n_groups = offsets.shape[0]
    width = out.shape[1]
    keys = np.empty((n_groups, rows), dtype=np.int64)
    stream = layout == 0 and phase >= 0
    lanes = _ROW_BYTES // flat.itemsize
    direct = stream and is_sum and phase == 0 and width % lanes == 0  # whole aligned vectors
    tile = np.empty((block if layout or stream else 1, width), dtype=out.dtype)
    tile1 = tile.reshape(-1)
    for r in range(start, stop, rows):
        re = min(r + rows, stop)
        nr = re - r
        worst = np.uint64(0)  # any code outside -1 .. size - 2 makes code + 1 >= size
        for g in range(n_groups):  # keys: one vectorised pass per attribute
            kb = keys[g]
            p0 = gstart[g]
            p1 = gstart[g + 1]
            for p in range(p0, p1):
                col = codes[r:re, members[p]]
                size = np.int64(radix[p])
                mul = size if p > p0 else np.int64(0)  # the first attribute starts the key
                # the last one makes it the row's first element in flat
                scale = np.int64(widths[g]) if p == p1 - 1 else np.int64(1)
                off = np.int64(offsets[g]) if p == p1 - 1 else np.int64(0)
                top = np.uint64(0)
                for i in range(nr):
                    c = np.int64(col[i])
                    top = max(top, np.uint64(c + 1))
                    # -1 -> size - 1, the unknown row
                    kb[i] = off + (kb[i] * mul + c + (size & (c >> 63))) * scale
                worst = max(worst, top - np.uint64(size) + np.uint64(1)
                            if top >= np.uint64(size) else np.uint64(0))
        if worst > 0:
            if stream:
                fence()
            return r
        for s in range(r, re, block):
            e = min(s + block, re)
            b = e - s
            k0 = s - r  # the block's first row in keys
            if (layout == 0 and not stream) or direct:
                dst = out1
                o = np.int64(s) * width
            else:
                dst = tile1
                o = np.int64(0)
            if is_sum:  # row by row: every fused table's row added in a register
                n_vec = width // lanes
                full = n_vec * lanes
                i0 = 0
                if direct and n_vec == 2 and full == width:
                    while i0 + 2 <= b:
                        d = o + i0 * width
                        vsum2r_nt(dst, d, width, flat, keys, k0 + i0, 0)
                        i0 += 2
                elif direct and n_vec % 4 == 0 and full == width:
                    while i0 + 2 <= b:
                        d = o + i0 * width
                        for q in range(0, n_vec, 4):
                            vsum4r_nt(dst, d + q * lanes, width, flat, keys, k0 + i0, q * lanes)
                        i0 += 2
                elif n_vec == 2 and full == width:
                    while i0 + 2 <= b:
                        d = o + i0 * width
                        vsum2r(dst, d, width, flat, keys, k0 + i0, 0)
                        i0 += 2
                elif n_vec % 4 == 0 and full == width:
                    while i0 + 2 <= b:
                        d = o + i0 * width
                        for q in range(0, n_vec, 4):
                            vsum4r(dst, d + q * lanes, width, flat, keys, k0 + i0, q * lanes)
                        i0 += 2
                for i in range(i0, b):
                    d = o + i * width
                    q = 0
                    if direct:
                        while q + 4 <= n_vec:
                            vsum4_nt(dst, d + q * lanes, flat, keys, k0 + i, q * lanes)
                            q += 4
                        while q + 2 <= n_vec:  # two vectors at a time: each key read once
                            vsum2_nt(dst, d + q * lanes, flat, keys, k0 + i, q * lanes)
                            q += 2
                        if q < n_vec:
                            vsum_nt(dst, d + q * lanes, flat, keys, k0 + i, q * lanes)
                    else:
                        while q + 4 <= n_vec:
                            vsum4(dst, d + q * lanes, flat, keys, k0 + i, q * lanes)
                            q += 4
                        while q + 2 <= n_vec:
                            vsum2(dst, d + q * lanes, flat, keys, k0 + i, q * lanes)
                            q += 2
                        if q < n_vec:
                            vsum(dst, d + q * lanes, flat, keys, k0 + i, q * lanes)
                    for c in range(full, width):
                        v = flat[keys[0, k0 + i] + c]
                        for g in range(1, n_groups):
                            v += flat[keys[g, k0 + i] + c]
                        dst[d + c] = v
            else:
                for g in range(n_groups):  # table by table: one table's rows stay in cache
                    w = np.int64(widths[g])
                    n_vec = w // lanes
                    full = n_vec * lanes
                    d = o + col0[g]
                    kb = keys[g]
                    for i in range(k0, k0 + b):
                        k = kb[i]
                        for q in range(n_vec):
                            vcopy(dst, d + q * lanes, flat, k + q * lanes)
                        for c in range(full, w):
                            dst[d + c] = flat[k + c]
                        d += width
            if stream and not direct:  # the tile into out1[s * width:e * width], streamed
                o = np.int64(s) * width
                count = np.int64(b) * width
                c = min((lanes - (phase + o) % lanes) % lanes, count)
                for h in range(c):
                    out1[o + h] = tile1[h]
                while c + lanes <= count:
                    vstream(out1, o + c, tile1, c)
                    c += lanes
                for h in range(c, count):
                    out1[o + h] = tile1[h]
            elif layout:
                for c in range(width):  # the tile's columns into the output's
                    for i in range(b):
                        out[s + i, c] = tile[i, c]
    if stream:
        fence()  # the streaming stores seen by every thread before the kernel returns
    return -1
