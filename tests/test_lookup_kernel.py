"""The compiled lookup's large-output paths (issue 22): rows split over threads, streaming
stores straight from the registers (aligned output) or through a tile (any other start),
the fused tables in huge pages; every one gives the bits of one thread and of NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from catembed._utils import _threads
from catembed._utils._validation import CatEmbedError
from catembed.transform import _lookup
from catembed.transform._lookup import LookupPlan, empty_aligned


def _case(combine, dtype, width=32, n=1000, seed=0):
    rng = np.random.default_rng(seed)
    sizes = [3, 5, 2, 4, 6, 3]
    widths = [width] * 6 if combine == "sum" else [1, 17, 2, 5, 9, 30]
    tables = [rng.normal(size=(s + 1, w)) for s, w in zip(sizes, widths, strict=True)]
    codes = np.column_stack([rng.integers(-1, s, n) for s in sizes]).astype(np.int32)
    return LookupPlan(tables, combine, dtype, max_joint_bytes=2000), np.asfortranarray(codes)


def _numpy(plan, codes, monkeypatch):
    with monkeypatch.context() as m:
        m.setenv("CATEMBED_NUMBA", "0")
        return plan(codes)


@pytest.fixture
def small_parts(monkeypatch):
    """The compiled gather on any size, every output split into parts of 64 rows over 3
    threads and written with streaming stores."""
    pytest.importorskip("numba")
    monkeypatch.setattr(_lookup, "_KERNEL_MIN_CELLS", 0)
    monkeypatch.setattr(_lookup, "_TILE_BYTES", 1)  # blocks of 64 rows
    monkeypatch.setattr(_lookup, "_KEY_ROWS", 64)
    monkeypatch.setattr(_lookup, "_THREAD_BYTES", 0)
    monkeypatch.setattr(_lookup, "_STREAM_BYTES", 0)
    monkeypatch.setattr(_lookup, "own_threads", lambda: 3)


@pytest.mark.parametrize("n", [0, 1, 63, 64, 65, 1000, 3001])
@pytest.mark.parametrize("combine", ["sum", "concat"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_threaded_parts_equal_one_thread(small_parts, monkeypatch, n, combine, dtype):
    plan, codes = _case(combine, dtype, n=n)
    ref = _numpy(plan, codes, monkeypatch)
    assert plan.joint and len(plan.joint) > 1
    for threads in (3, 1):
        monkeypatch.setattr(_lookup, "own_threads", lambda t=threads: t)
        aligned = empty_aligned(ref.shape, dtype)
        shifted = np.empty(ref.size + 1, dtype)[1:].reshape(ref.shape)  # off a 64-byte line
        column = np.empty(ref.shape, dtype, order="F")
        for out in (aligned, shifted, column):
            out[...] = 7
            assert plan(codes, out=out) is out
            np.testing.assert_array_equal(out, ref)
        np.testing.assert_array_equal(plan(codes), ref)


@pytest.mark.parametrize("width", [16, 40, 64, 128])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_pairs_give_the_bits_of_numpy_at_any_width(small_parts, monkeypatch, width, dtype):
    """Rows are summed two at a time where a row is whole vectors (16, 64, 128 float32
    columns; 16 and 40 float64 have a partial one): an odd last row and every output
    layout give NumPy's bits."""
    plan, codes = _case("sum", dtype, width=width, n=131)
    ref = _numpy(plan, codes, monkeypatch)
    for out in (empty_aligned(ref.shape, dtype), np.empty(ref.size + 1, dtype)[1:]
                .reshape(ref.shape), np.empty(ref.shape, dtype, order="F")):
        np.testing.assert_array_equal(plan(codes, out=out), ref)


def test_threaded_bad_code_names_the_first_bad_row(small_parts):
    plan, codes = _case("sum", np.float32, n=3001)
    codes[2500, 1] = 9  # attribute 1 has 5 values
    codes[700, 0] = -2
    with pytest.raises(CatEmbedError, match=r"row \[-2, "):
        plan(codes)


def test_empty_aligned_starts_on_a_line():
    for order in "CF":
        for n in (0, 1, 1001):
            a = empty_aligned((n, 7), np.float32, order)
            assert a.shape == (n, 7) and a.dtype == np.float32
            assert n == 0 or a.ctypes.data % 64 == 0  # an empty array has no start
            assert a.flags.c_contiguous if order == "C" else a.flags.f_contiguous


def test_huge_page_copy_is_a_copy():
    pytest.importorskip("numba")
    from catembed.transform._lookup_kernel import huge_page_copy

    a = np.arange(1 << 17, dtype=np.float32)  # 512 KiB
    b = huge_page_copy(a)
    np.testing.assert_array_equal(a, b)
    assert b.ctypes.data % 64 == 0
    small = np.arange(10.0)
    assert huge_page_copy(small) is small


@pytest.mark.parametrize(("env", "expected"), [
    ({}, 2), ({"CATEMBED_NUM_THREADS": "1"}, 1), ({"OMP_NUM_THREADS": "1"}, 1),
    ({"CATEMBED_NUM_THREADS": "64"}, 2), ({"CATEMBED_NUM_THREADS": "0"}, 1),
    ({"CATEMBED_NUM_THREADS": "2", "OMP_NUM_THREADS": "1"}, 2),
    ({"OMP_NUM_THREADS": "1,2"}, 1), ({"OMP_NUM_THREADS": "x"}, 2),
])
def test_own_threads_limits(monkeypatch, env, expected):
    monkeypatch.setattr(_threads.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    for name in ("CATEMBED_NUM_THREADS", "OMP_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert _threads.own_threads() == expected


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int64])
@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_narrow_codes_give_the_same_bits(small_parts, monkeypatch, dtype, engine):
    if engine == "numpy":
        monkeypatch.setenv("CATEMBED_NUMBA", "0")
    plan, codes = _case("sum", np.float32, n=2000)
    ref = plan(codes)
    np.testing.assert_array_equal(plan(np.asfortranarray(codes.astype(dtype))), ref)
    codes[5, 2] = 2  # attribute 2 has 2 values: code 2 is out of range in any dtype
    with pytest.raises(CatEmbedError, match=r"row \[.*2.*\]"):
        plan(codes.astype(dtype))


def test_code_dtype_and_transform_codes():
    import pandas as pd

    from catembed import CDE
    from catembed.stats._encoding import code_dtype
    from catembed.transform._lookup import table_codes

    assert code_dtype([np.arange(127), np.arange(3)]) == np.int8
    assert code_dtype([np.arange(128)]) == np.int16
    assert code_dtype([np.arange(40000)]) == np.int32
    assert code_dtype([]) == np.int8
    rng = np.random.default_rng(0)
    a = rng.integers(0, 3, 2000)
    X = pd.DataFrame({"a": a.astype(str), "c": (a + rng.integers(0, 2, 2000)).astype(str),
                      "b": (a * 70 + rng.integers(0, 70, 2000)).astype(str)})
    est = CDE(random_state=0, n_components=3).fit(X)
    df = est._validate_input(X, reset=False)
    wide, narrow = table_codes(est, df), table_codes(est, df, narrow=True)
    # b: 210 values, 111 pooled (max_categories=100), encoded among all 210 first: int16
    assert wide.dtype == np.int32 and narrow.dtype == np.int16
    np.testing.assert_array_equal(wide, narrow)
    z = est.transform(X)
    assert z.ctypes.data % 64 == 0
    np.testing.assert_array_equal(z, est.fit_transform(X))


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_run_parts_in_order_and_raises(threads):
    parts = [(s, s + 3) for s in range(0, 30, 3)]
    assert _threads.run_parts(lambda s, e: s * e, parts, threads) == [s * e for s, e in parts]
    assert _threads.run_parts(lambda s, e: 1, [], threads) == []

    def bad(s, e):
        if s == 9:
            raise ValueError("part 9")
        return s

    with pytest.raises(ValueError, match="part 9"):
        _threads.run_parts(bad, parts, threads)


def test_a_pool_is_never_shut_down_under_a_concurrent_call():
    """Pools per helper count: asking for another count leaves the first one usable."""
    from catembed._utils._threads import _pool, run_parts

    first = _pool(1)
    _pool(2)
    assert _pool(1) is first
    assert run_parts(lambda s, e: e - s, [(0, 3), (3, 5), (5, 9)], 2) == [3, 2, 4]
    assert run_parts(lambda s, e: e - s, [(0, 3), (3, 5), (5, 9)], 3) == [3, 2, 4]
