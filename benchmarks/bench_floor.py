"""Each hot path beside its floor (issue 22): the lookup, the streamed transform, counting.

usage:
    python benchmarks/bench_floor.py [--rows 1000000] [--file-rows 10000000] [--skip-file]
        [--only lookup|counting|fit_transform|file] [--clock cpu|wall] [--workdir DIR]
        [--threads N] [--codes narrow|int32] [--file-floors fixed,filled]

* lookup: ``LookupPlan`` of 8 or 20 attributes (10 values each; codes in the narrowest dtype,
  int8, as ``transform`` makes them, or ``--codes int32``) into 32 or 128 float32
  columns (compact mode: the projected tables summed), 1M rows, against filling the same
  output: warm (``out.fill`` of a preallocated block, 64-byte aligned as ``transform``
  allocates it; the lookup writes into it too) and fresh (``np.full`` of a new array; the
  lookup returns a new array). The NumPy path and, when numba is installed
  (``catembed[fast]``), the compiled gather with one thread and with ``--threads`` (its
  default: ``CATEMBED_NUM_THREADS``, ``OMP_NUM_THREADS`` or the CPUs), and with one thread
  into a plain ``np.empty`` block (16 bytes past a cache line: no streaming stores straight
  from the registers). The fills are one thread.
* transform_file: a planted ``N x 8`` Parquet file (string columns, 10 values each, row
  groups of 1M) embedded by ``CDE(n_components=32)`` into a float32 Parquet file, against
  two I/O floors, pyarrow reading the same columns in the same batches and writing an
  output of the same size with the same writer options: "fixed", whose output arrays are
  built once (one random block made before the loop; every batch writes its rows as they
  are, Arrow's columns zero-copy views of it), and "filled" (``--file-floors``), which
  also writes every output cell of every batch once, as a transform must (the batch's rows
  copied into one reused column-major block from a random block of the same size: a read
  and a write of 128 bytes a row, where the lookup reads 8 codes and cached tables). Each
  run writes a new file (the old one removed and the disk synced before the clock starts).
* counting: ``ValueStatistics.from_codes`` of 1M x 20 int32 codes against the bincounts
  it must do (one per column, one per pair of columns, on contiguous columns).

Timings are best of ``--repeat`` runs, the two sides interleaved; the load average is
printed beside them. The development machine has 2 cores shared by several jobs (load 10
and more), where wall time measures the scheduler: the lookup and counting are timed in CPU
time of the calling thread (``--clock cpu``, the default; both sides single-threaded, the
compiled lookup's ``--threads`` columns too), the
file transform in wall time and in CPU time of the process (pyarrow's threads included).

* fit_transform: ``CDE(n_components=32).fit_transform`` of 1M x 8 strings against
  ``fit`` then ``transform`` (which factorises the strings twice), with the number of
  whole-column factorisations and encodings each makes.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))


CLOCK = time.thread_time  # --clock wall: time.perf_counter


def _best(fns: dict, repeat: int, clock=None) -> dict:
    clock = clock or CLOCK
    times = {k: [] for k in fns}
    for _ in range(repeat):
        for k, f in fns.items():
            t = clock()
            f()
            times[k].append(clock() - t)
    return {k: min(v) for k, v in times.items()}


def _threads(count: int | None, fn):
    """``fn`` run with the compiled lookup limited to ``count`` threads (None: its default)."""

    def run() -> None:
        old = os.environ.pop("CATEMBED_NUM_THREADS", None)
        if count is not None:
            os.environ["CATEMBED_NUM_THREADS"] = str(count)
        try:
            fn()
        finally:
            os.environ.pop("CATEMBED_NUM_THREADS", None)
            if old is not None:
                os.environ["CATEMBED_NUM_THREADS"] = old

    return run


def _lookup_cases(plan, codes: np.ndarray, out: np.ndarray, has_numba: bool,
                  threads: int | None) -> dict:
    """The timed calls of one lookup case, each side of the ratio."""

    def numpy_path() -> None:
        os.environ["CATEMBED_NUMBA"] = "0"
        plan(codes, out=out)
        os.environ["CATEMBED_NUMBA"] = "1"

    def numpy_fresh() -> None:
        os.environ["CATEMBED_NUMBA"] = "0"
        plan(codes)
        os.environ["CATEMBED_NUMBA"] = "1"

    fns = {"fill": lambda: out.fill(0.5), "numpy": numpy_path,
           "fresh_fill": lambda: np.full(out.shape, 0.5, np.float32),
           "numpy_fresh": numpy_fresh}
    if has_numba:
        out_f = np.empty(out.shape, out.dtype, order="F")
        out_u = np.empty(out.shape, out.dtype)  # NumPy's start: 16 bytes past a line
        fns["numba_1"] = _threads(1, lambda: plan(codes, out=out))
        fns["numba"] = _threads(threads, lambda: plan(codes, out=out))
        fns["numba_u"] = _threads(1, lambda: plan(codes, out=out_u))
        fns["numba_fresh"] = _threads(threads, lambda: plan(codes))
        fns["numba_f"] = _threads(threads, lambda: plan(codes, out=out_f))
    return fns


def bench_lookup(n: int, repeat: int, threads: int | None = None,
                 codes_as: str = "narrow") -> None:
    from catembed._utils._threads import own_threads
    from catembed.stats._encoding import code_dtype as narrowest
    from catembed.transform import _lookup_kernel
    from catembed.transform._lookup import LookupPlan, empty_aligned

    code_dtype = narrowest([range(10)]) if codes_as == "narrow" else np.int32

    rng = np.random.default_rng(0)
    has_numba = _lookup_kernel.kernel() is not None
    if threads is None:
        os.environ.pop("CATEMBED_NUM_THREADS", None)
    if CLOCK is time.thread_time:  # only the calling thread's CPU time is counted
        threads = 1
    default = threads or own_threads()
    print(f"\n## lookup, {n:,} rows, {np.dtype(code_dtype).name} codes (load "
          f"{os.getloadavg()[0]:.1f}; fills: one thread; numba: 1 or {default} threads)")
    print("| attributes | float32 columns | fused tables | fill (warm) | NumPy / fill | "
          f"numba 1 thread / fill | numba {default} threads / fill | "
          "numba 1 thread, np.empty block / fill | "
          f"numba column-major, {default} threads / fill | fresh fill | NumPy fresh / fill | "
          f"numba fresh, {default} threads / fill |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for m in (8, 20):
        for w in (32, 128):
            tables = [rng.standard_normal((11, w)) for _ in range(m)]
            codes = np.asfortranarray(rng.integers(-1, 10, (n, m)).astype(code_dtype))
            plan = LookupPlan(tables, "sum", np.float32)
            out = empty_aligned((n, w), np.float32)  # as transform allocates its output

            fns = _lookup_cases(plan, codes, out, has_numba, threads)
            t = _best(fns, repeat)
            f, ff = t["fill"], t["fresh_fill"]

            r = {k: f"{v / (ff if 'fresh' in k else f):.2f}x" for k, v in t.items()}
            r = {k: r.get(k, "-") for k in ("numpy", "numba_1", "numba", "numba_u", "numba_f",
                                             "numpy_fresh", "numba_fresh")}
            print(f"| {m} | {w} | {len(plan.joint)} | {f * 1e3:.1f} ms | {r['numpy']} "
                  f"| {r['numba_1']} | {r['numba']} | {r['numba_u']} | {r['numba_f']} "
                  f"| {ff * 1e3:.1f} ms | {r['numpy_fresh']} | {r['numba_fresh']} |", flush=True)


def _make_parquet(path: Path, n: int, m: int = 8) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    from synthetic import planted_codes

    step = 1_000_000
    labels = [pa.array([f"a{j}_v{v}" for v in range(10)]) for j in range(m)]
    with pq.ParquetWriter(path, pa.schema([(f"a{j}", pa.string()) for j in range(m)])) as w:
        for s in range(0, n, step):
            codes, _ = planted_codes(min(step, n - s), n_features=m, seed=s)
            cols = [pa.DictionaryArray.from_arrays(pa.array(codes[:, j]), labels[j])
                    .cast(pa.string()) for j in range(m)]
            w.write_table(pa.table(cols, names=[f"a{j}" for j in range(m)]))


def _io_floor(src: Path, dst: Path, chunk: int, width: int, filled: bool = False) -> None:
    """pyarrow reading the columns in batches and writing a float32 output of the same size.

    The block holds random normal values, incompressible like an embedding: a constant
    block would make Snappy write a twentieth of the bytes (61 MB instead of 1.28 GB at
    10M x 32), a floor no embedding can reach. ``filled``: every batch's rows are first
    copied into one reused column-major output block (every output cell written once per
    batch, as a transform writes its lookup's output); else the random block is written as
    it is (the output arrays built once, before the loop)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    pf = pq.ParquetFile(src, read_dictionary=pf_cols(src), pre_buffer=False)
    rng = np.random.default_rng(0)
    block = np.asfortranarray(rng.standard_normal((chunk, width), dtype=np.float32))
    out = np.empty((chunk, width), dtype=np.float32, order="F") if filled else None
    names = [f"emb{i}" for i in range(width)]
    writer = None
    for batch in pf.iter_batches(batch_size=chunk):
        z = block[: batch.num_rows]
        if out is not None:
            z = out[: batch.num_rows]
            np.copyto(z, block[: batch.num_rows])
        table = pa.table([pa.array(z[:, j]) for j in range(width)], names=names)
        if writer is None:
            writer = pq.ParquetWriter(dst, table.schema, use_dictionary=[])
        writer.write_table(table)
    writer.close()


def pf_cols(path: Path) -> list[str]:
    import pyarrow.parquet as pq

    return list(pq.read_schema(path).names)


def bench_file(n: int, repeat: int, workdir: str | None, floors: str = "fixed,filled") -> None:
    import pandas as pd
    import pyarrow.parquet as pq

    import catembed
    from catembed import CDE
    from catembed.transform.streaming import _block_rows

    tmp = Path(tempfile.mkdtemp(prefix="bench_floor_", dir=workdir))
    src = tmp / "in.parquet"
    _make_parquet(src, n)
    sample = pq.ParquetFile(src).read_row_group(0).to_pandas().iloc[:200_000]
    est = CDE(random_state=0, n_components=32).fit(sample)
    model = tmp / "model.npz"
    est.save(model)
    chunk = _block_rows(est, catembed.transform.streaming.MAX_BLOCK_BYTES)
    print(f"\n## transform_file, {n:,} x 8 Parquet -> {n:,} x 32 float32 Parquet "
          f"(chunks of {chunk:,} rows; load {os.getloadavg()[0]:.1f})")
    kinds = [f for f in floors.split(",") if f]
    fns = {f"floor_{kind}": (lambda kind=kind: _io_floor(
        src, tmp / "floor.parquet", chunk, 32, filled=kind == "filled")) for kind in kinds}
    fns["ours"] = lambda: catembed.transform_file(est, src, tmp / "out.parquet",
                                                  progress=False)
    wall = {k: [] for k in fns}
    cpu = {k: [] for k in fns}
    for _ in range(repeat):
        for k, f in fns.items():
            # each run writes a new file, its dirty pages of earlier runs flushed first: on
            # ext4 overwriting a file (truncation, or a rename over it) makes the kernel flush
            # the new one when it is closed (auto_da_alloc), a cost that falls on whichever
            # side overwrote, and background writeback of earlier runs steals the 2 cores
            for out in (tmp / "floor.parquet", tmp / "out.parquet"):
                out.unlink(missing_ok=True)
            os.sync()
            t, c = time.perf_counter(), time.process_time()
            f()
            wall[k].append(time.perf_counter() - t)
            cpu[k].append(time.process_time() - c)
    w = {k: min(v) for k, v in wall.items()}
    c = {k: min(v) for k, v in cpu.items()}
    a = pd.read_parquet(tmp / "out.parquet").iloc[:1000].to_numpy()
    assert np.array_equal(a, est.transform(sample.iloc[:1000])), "output differs"
    print(f"(load {os.getloadavg()[0]:.1f} after)")
    print("| clock | I/O floor | transform_file | ratio |\n|---|---|---|---|")
    for clock, t in (("wall", w), ("CPU (process)", c)):
        for kind in kinds:
            f = t[f"floor_{kind}"]
            print(f"| {clock} | {kind}: {f:.2f} s | {t['ours']:.2f} s | "
                  f"{t['ours'] / f:.2f}x |")
    print(f"(files in {tmp}; peak RSS: /usr/bin/time -v catembed transform {model} {src} "
          f"-o {tmp / 'cli.parquet'})")


def bench_counting(n: int, repeat: int) -> None:
    from catembed.stats import ValueStatistics
    from synthetic import planted_codes

    codes, _ = planted_codes(n, 20)
    codes = np.asfortranarray(codes)
    cats = [np.arange(10, dtype=object)] * 20
    names = [f"a{j}" for j in range(20)]
    cols = codes.T

    def floor() -> None:
        for j in range(20):
            np.bincount(cols[j], minlength=10)
        for a in range(19):
            for b in range(a + 1, 20):
                np.bincount(cols[a] * np.int32(10) + cols[b], minlength=100)

    t = _best({"floor": floor,
               "ours": lambda: ValueStatistics.from_codes(codes, cats, names)}, repeat)
    print(f"\n## counting, {n:,} x 20 int32 codes (load {os.getloadavg()[0]:.1f})")
    print("| bincount floor | from_codes | ratio |\n|---|---|---|")
    print(f"| {t['floor']:.3f} s | {t['ours']:.3f} s | {t['ours'] / t['floor']:.2f}x |")


def bench_fit_transform(n: int, repeat: int) -> None:
    import pandas as pd

    from catembed import CDE
    from catembed.stats import _encoding, _value_statistics
    from synthetic import planted_codes

    codes, _ = planted_codes(n, 8)
    X = pd.DataFrame({f"a{j}": pd.Series(np.char.add(f"a{j}_v", codes[:, j].astype(str)),
                                         dtype=object) for j in range(8)})
    calls = {"factorize": 0, "encode_column": 0}

    def counted(module, name):
        f = getattr(module, name)

        def g(col, *a, **k):
            calls[name] += len(col) == n
            return f(col, *a, **k)

        setattr(module, name, g)

    counted(_value_statistics, "factorize")
    counted(_encoding, "encode_column")
    made = {}

    def twice() -> None:
        calls.update(factorize=0, encode_column=0)
        CDE(random_state=0, n_components=32).fit(X).transform(X)
        made["twice"] = dict(calls)

    def once() -> None:
        calls.update(factorize=0, encode_column=0)
        CDE(random_state=0, n_components=32).fit_transform(X)
        made["once"] = dict(calls)

    t = _best({"twice": twice, "once": once}, repeat, time.process_time)
    print(f"\n## fit_transform, {n:,} x 8 strings (CPU time; load {os.getloadavg()[0]:.1f})")
    print("| call | time | column factorisations | column encodings |\n|---|---|---|---|")
    for k, label in (("twice", "fit(X).transform(X)"), ("once", "fit_transform(X)")):
        print(f"| {label} | {t[k]:.2f} s | {made[k]['factorize']} | "
              f"{made[k]['encode_column']} |")
    print(f"ratio fit_transform / (fit + transform): {t['once'] / t['twice']:.2f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--file-rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-file", action="store_true")
    ap.add_argument("--only", choices=["lookup", "file", "counting", "fit_transform"])
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu")
    ap.add_argument("--workdir", help="where the Parquet files go (default: the temp dir)")
    ap.add_argument("--codes", choices=["narrow", "int32"], default="narrow",
                    help="lookup codes: the narrowest dtype, as transform makes them (int8 for "
                    "10 values), or int32")
    ap.add_argument("--threads", type=int, help="threads of the compiled lookup's default "
                    "columns (default: CATEMBED_NUM_THREADS, OMP_NUM_THREADS or the CPUs)")
    ap.add_argument("--file-floors", default="fixed,filled",
                    help="the file part's floors, comma-separated: fixed (the output arrays "
                    "built once), filled (every batch's output cells written once)")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.thread_time if args.clock == "cpu" else time.perf_counter
    if args.only in (None, "lookup"):
        bench_lookup(args.rows, args.repeat, args.threads, args.codes)
    if args.only in (None, "counting"):
        bench_counting(args.rows, args.repeat)
    if args.only in (None, "fit_transform"):
        bench_fit_transform(args.rows, max(2, args.repeat // 2))
    if args.only in (None, "file") and not args.skip_file:
        bench_file(args.file_rows, max(2, args.repeat // 2), args.workdir, args.file_floors)


if __name__ == "__main__":
    main()
