"""Throughput of the one counting pass (value counts + co-occurrence counts).

Prints, for synthetic tables with planted value clusters (20 attributes, 10 values each):

* 1M x 20 counted from integer codes, from a string DataFrame, and in 4 chunks (checked equal);
* 10M x 20 (or ``--rows``) written to Parquet, then streamed back in chunks of 1M rows in a
  fresh process, with its peak resident memory.

Usage: ``python benchmarks/bench_stats.py [--rows 10000000] [--skip-stream]``
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from catembed.stats import ValueStatistics, compute_statistics
from synthetic import planted_codes, planted_frame

M, L = 20, 10


def best_of(fn, repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def in_memory(n: int) -> None:
    codes, _ = planted_codes(n, M, L)
    cats = [np.arange(L)] * M
    names = [f"a{j}" for j in range(M)]
    t = best_of(lambda: ValueStatistics.from_codes(codes, cats, names))
    print(f"count {n:,} x {M} from int codes:          {t:6.2f} s  ({n / t / 1e6:.1f} M rows/s)")
    df = planted_frame(n, M, L)
    t = best_of(lambda: ValueStatistics.from_frame(df), repeat=2)
    print(f"count {n:,} x {M} from a string DataFrame: {t:6.2f} s  ({n / t / 1e6:.1f} M rows/s)")
    whole = ValueStatistics.from_frame(df)
    chunks = [df.iloc[i : i + n // 4] for i in range(0, n, n // 4)]
    t0 = time.perf_counter()
    parts = compute_statistics(iter(chunks))
    t = time.perf_counter() - t0
    same = np.array_equal(parts.cooc, whole.cooc) and np.array_equal(parts.counts, whole.counts)
    print(f"count {n:,} x {M} in 4 chunks:             {t:6.2f} s  (equal to whole: {same})")


def write_parquet(path: Path, n: int, chunk: int = 1_000_000) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    for i, start in enumerate(range(0, n, chunk)):
        df = planted_frame(min(chunk, n - start), M, L, seed=i)
        table = pa.Table.from_pandas(df, preserve_index=False)
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table, row_group_size=chunk)
    writer.close()


def peak_rss_mb() -> float:
    """Peak resident memory of this process (VmHWM: unlike ``ru_maxrss`` it does not carry
    over the parent's peak into a child started with fork + exec)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def stream_child(path: str, chunk: int) -> None:
    from catembed import io

    t0 = time.perf_counter()
    stats = compute_statistics(io.iter_chunks(path, chunk))
    t = time.perf_counter() - t0
    peak_mb = peak_rss_mb()
    print(f"streamed {stats.n_rows:,} x {stats.n_features} from Parquet in chunks of {chunk:,}: "
          f"{t:6.2f} s, peak RSS {peak_mb:,.0f} MB, |V| = {stats.n_values}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000, help="rows of the streamed table")
    ap.add_argument("--chunk", type=int, default=1_000_000)
    ap.add_argument("--in-memory-rows", type=int, default=1_000_000)
    ap.add_argument("--skip-stream", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        stream_child(args.child, args.chunk)
        return
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    in_memory(args.in_memory_rows)
    if args.skip_stream:
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "planted.parquet"
        t = time.perf_counter()
        write_parquet(path, args.rows)
        size = path.stat().st_size / 1e6
        print(f"wrote {args.rows:,} x {M} Parquet ({size:,.0f} MB) in "
              f"{time.perf_counter() - t:.1f} s")
        subprocess.run([sys.executable, __file__, "--child", str(path), "--chunk",
                        str(args.chunk)], check=True)


if __name__ == "__main__":
    main()
