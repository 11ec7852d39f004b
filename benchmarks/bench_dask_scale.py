"""Dask at scale (issue 22 item 5): fit and transform an N x 8 Parquet data set on a
``LocalCluster`` of two worker processes, with the peak memory of every worker and the
scheduler's task-stream overhead.

The data set is a planted table (``synthetic.py``'s model: 5 hidden groups, 8 string columns
of 10 values each, purity 0.7) written as ``--files`` Parquet files of dictionary-encoded
strings, each cut into row groups of ``--row-group`` rows, under ``--data`` (never the
repository). It is written once per ``N`` and reused; ``--cleanup`` deletes the data and the
outputs at the end.

For each method of ``--methods`` the fit reads ``dd.read_parquet(data)`` (the value
statistics are counted partition by partition on the workers and merged by a tree
reduction); the first method then transforms the frame and writes the embedding with
``to_parquet`` (a lazy ``map_partitions``: read, look up, write, partition by partition).
Reported per phase:

* wall: seconds on the client, graph building and result gathering included;
* peak RSS per worker: the worker process's ``VmHWM`` (``/proc/self/status``), reset at the
  start of each phase by writing ``5`` to ``/proc/self/clear_refs``; the client process
  (which also runs the scheduler of a ``LocalCluster``) is reported the same way;
* task stream (``distributed.get_task_stream``): the number of tasks, the compute seconds
  summed over them, and the overhead: ``threads x wall - compute`` seconds, as a share of
  ``threads x wall`` and per task. It counts everything that is not a task computing
  (scheduling, transfers, serialisation, idle workers waiting on the client).

``--compare K`` (issue 40) instead runs ``K`` interleaved pairs on the one cluster: the
in-memory path in the client process (``pd.read_parquet`` of the whole table, ``fit``,
``transform``, ``pq.write_table``), then the Dask path (``dd.read_parquet``, ``fit``,
``transform(ddf).to_parquet``), the first method only, after one untimed pair (imports,
first calls). Per pair: the wall of each, their ratio (Dask / in-memory), the CPU seconds of
the whole process tree (client with its scheduler, nannies, workers) during each, the peak
RSS of the in-memory process and of each worker, and the 1-minute load average.

Usage: ``python benchmarks/bench_dask_scale.py --rows 10_000_000 [--files 20]
[--row-group 250_000] [--methods CDE MCA] [--n-components 8] [--memory-limit 3GiB]
[--data /work/runs/s2-dask/dask_scale] [--compare 3 [--no-warm-up]] [--cleanup]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import sys
import time
from pathlib import Path

N_FEATURES, N_VALUES, N_GROUPS, PURITY = 8, 10, 5, 0.7


def write_dataset(folder: Path, n_rows: int, n_files: int, row_group: int) -> None:
    """The planted table as ``n_files`` Parquet files of dictionary-encoded strings."""
    import pyarrow.parquet as pq

    from synthetic import planted_arrow_part

    marker = folder / "_rows.json"
    if marker.exists() and json.loads(marker.read_text()) == [n_rows, n_files, row_group]:
        return
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    per_file = -(-n_rows // n_files)
    for i in range(n_files):
        n = min(per_file, n_rows - i * per_file)
        table, _ = planted_arrow_part(i, n, N_FEATURES, N_VALUES, N_GROUPS, PURITY)
        pq.write_table(table, folder / f"part-{i:04d}.parquet", row_group_size=row_group)
    marker.write_text(json.dumps([n_rows, n_files, row_group]))


def _reset_peak() -> int:
    """Reset this process's peak RSS (``VmHWM``); returns 1 if the kernel allowed it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return 1
    except OSError:
        return 0


def _warm_up() -> None:
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import catembed  # noqa: F401


def _peak_mb() -> float:
    """This process's peak RSS since the last reset (``VmHWM``), or ``ru_maxrss``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def phase(client, name: str, work) -> dict:
    """Run ``work()`` with peaks reset and the task stream recorded; returns the figures."""
    from distributed import get_task_stream

    client.run(_reset_peak)
    _reset_peak()
    n_threads = sum(client.nthreads().values())
    with get_task_stream(client) as ts:
        t0 = time.perf_counter()
        result = work()
        wall = time.perf_counter() - t0
    workers = client.run(_peak_mb)
    compute = sum(s["stop"] - s["start"] for task in ts.data
                  for s in task.get("startstops", ()) if s.get("action") == "compute")
    n_tasks = len(ts.data)
    overhead = n_threads * wall - compute
    row = {
        "phase": name, "wall_s": wall, "worker_peak_mb": sorted(workers.values()),
        "client_peak_mb": _peak_mb(), "n_tasks": n_tasks, "compute_s": compute,
        "overhead_share": overhead / (n_threads * wall),
        "overhead_ms_per_task": 1000 * overhead / max(n_tasks, 1),
    }
    print(f"  {name:14s} wall {wall:7.1f} s | worker peak RSS "
          + ", ".join(f"{v:.0f}" for v in row["worker_peak_mb"])
          + f" MB | client {row['client_peak_mb']:.0f} MB | {n_tasks} tasks, compute "
          f"{compute:.1f} s, overhead {100 * row['overhead_share']:.0f}% of {n_threads} x wall "
          f"({row['overhead_ms_per_task']:.0f} ms/task)  (load {os.getloadavg()[0]:.1f})",
          flush=True)
    row["result"] = result
    return row


def in_memory(data: Path, root: Path, args) -> list[dict]:
    """The same fit and transform in one process from pandas (no Dask): the baseline."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    import catembed

    out = []
    first = args.methods[0]
    _reset_peak()
    t0 = time.perf_counter()
    frame = pd.read_parquet(data)
    est = getattr(catembed, first)(n_components=args.n_components,
                                   **({"random_state": 0} if first == "CDE" else {})).fit(frame)
    out.append({"phase": f"in-memory fit {first}", "wall_s": time.perf_counter() - t0,
                "client_peak_mb": _peak_mb()})
    t0 = time.perf_counter()
    z = est.transform(frame)
    names = [str(n) for n in est.get_feature_names_out()]
    pq.write_table(pa.table({n: z[:, i] for i, n in enumerate(names)}),
                   root / f"inmem_{first}_{args.rows}.parquet")
    out.append({"phase": f"in-memory transform {first}", "wall_s": time.perf_counter() - t0,
                "client_peak_mb": _peak_mb()})
    (root / f"inmem_{first}_{args.rows}.parquet").unlink()
    for row in out:
        print(f"  {row['phase']:24s} wall {row['wall_s']:7.1f} s | peak RSS "
              f"{row['client_peak_mb']:.0f} MB (read included)  (load {os.getloadavg()[0]:.1f})",
              flush=True)
    return out


def _tree_cpu() -> float:
    """CPU seconds (user + system) of this process and all its descendants alive now."""
    import psutil

    total = 0.0
    procs = [psutil.Process()]
    procs += procs[0].children(recursive=True)
    for proc in procs:
        try:
            t = proc.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


def _make(method: str, args):
    import catembed

    return getattr(catembed, method)(n_components=args.n_components,
                                     **({"random_state": 0} if method == "CDE" else {}))


def compare(client, data: Path, root: Path, args) -> list[dict]:
    """``--compare``: interleaved in-memory / Dask pairs of fit + transform + write."""
    import dask.dataframe as dd
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    method = args.methods[0]
    out_mem, out_dask = root / "cmp_inmem.parquet", root / "cmp_dask"

    def in_memory_pair() -> None:
        frame = pd.read_parquet(data)
        est = _make(method, args).fit(frame)
        z = est.transform(frame)
        names = [str(n) for n in est.get_feature_names_out()]
        pq.write_table(pa.table({n: z[:, i] for i, n in enumerate(names)}), out_mem)

    def dask_pair() -> None:
        ddf = dd.read_parquet(str(data))
        est = _make(method, args).fit(ddf)
        est.transform(ddf).to_parquet(str(out_dask), write_index=False)

    def timed(work, workers: bool) -> tuple[float, float, list[float]]:
        out_mem.unlink(missing_ok=True)
        shutil.rmtree(out_dask, ignore_errors=True)
        os.sync()
        client.run(_reset_peak)
        _reset_peak()
        cpu0 = _tree_cpu()
        t0 = time.perf_counter()
        work()
        wall = time.perf_counter() - t0
        cpu = _tree_cpu() - cpu0
        peaks = sorted(client.run(_peak_mb).values()) if workers else [_peak_mb()]
        return wall, cpu, peaks

    if not args.no_warm_up:
        timed(in_memory_pair, False)  # untimed: first calls on the client
        timed(dask_pair, True)  # and on the workers
    rows = []
    for i in range(args.compare):
        load_m = os.getloadavg()[0]
        wm, cm, pm = timed(in_memory_pair, False)
        load_d = os.getloadavg()[0]
        wd, cd, pd_ = timed(dask_pair, True)
        n_out = sum(dd.read_parquet(str(out_dask)).map_partitions(len).compute())
        assert n_out == args.rows, (n_out, args.rows)
        row = {"pair": i, "in_memory_wall_s": wm, "in_memory_cpu_s": cm,
               "in_memory_peak_mb": pm[0], "in_memory_load": load_m, "dask_wall_s": wd,
               "dask_cpu_s": cd, "worker_peak_mb": pd_, "dask_load": load_d,
               "wall_ratio": wd / wm, "cpu_ratio": cd / cm}
        print(f"  pair {i}: in-memory {wm:6.1f} s, CPU {cm:6.1f} s, peak {pm[0]:5.0f} MB "
              f"(load {load_m:4.1f}) | Dask {wd:6.1f} s, CPU {cd:6.1f} s, worker peak "
              + ", ".join(f"{v:.0f}" for v in pd_) + f" MB (load {load_d:4.1f}) | ratio wall "
              f"{wd / wm:.2f}x, CPU {cd / cm:.2f}x", flush=True)
        rows.append(row)
    ratios = sorted(r["wall_ratio"] for r in rows)
    cpus = sorted(r["cpu_ratio"] for r in rows)
    print(f"  median ratio: wall {ratios[len(ratios) // 2]:.2f}x (range {ratios[0]:.2f}-"
          f"{ratios[-1]:.2f}), CPU {cpus[len(cpus) // 2]:.2f}x; max worker peak "
          f"{max(max(r['worker_peak_mb']) for r in rows):.0f} MB", flush=True)
    out_mem.unlink(missing_ok=True)
    shutil.rmtree(out_dask, ignore_errors=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=10_000_000)
    ap.add_argument("--files", type=int, default=None, help="default: one per million rows")
    ap.add_argument("--row-group", type=lambda s: int(s.replace("_", "")), default=250_000)
    ap.add_argument("--methods", nargs="+", default=["CDE", "MCA"])
    ap.add_argument("--n-components", type=int, default=8)
    ap.add_argument("--memory-limit", default="3GiB")
    ap.add_argument("--data", default="/work/runs/s2-dask/dask_scale")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    ap.add_argument("--in-memory", action="store_true",
                    help="also fit and transform in this process, from pandas (the baseline)")
    ap.add_argument("--compare", type=int, default=0, metavar="K",
                    help="run K interleaved in-memory / Dask pairs instead (issue 40)")
    ap.add_argument("--no-warm-up", action="store_true",
                    help="--compare without the untimed first pair (large tables)")
    ap.add_argument("--cleanup", action="store_true", help="delete data and outputs at the end")
    args = ap.parse_args()

    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    # a shared, busy machine can starve a worker's heartbeat; do not let the scheduler drop it
    dask.config.set({"distributed.scheduler.worker-ttl": "30 minutes",
                     "distributed.comm.timeouts.connect": "120s",
                     "distributed.comm.timeouts.tcp": "600s"})

    import catembed

    root = Path(args.data)
    data = root / f"planted_{args.rows}"
    n_files = args.files or max(args.rows // 1_000_000, 1)
    t0 = time.perf_counter()
    write_dataset(data, args.rows, n_files, args.row_group)
    size = sum(f.stat().st_size for f in data.glob("*.parquet")) / 2**20
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}; data "
          f"{args.rows:,} x {N_FEATURES} in {n_files} files ({size:.0f} MB, written or "
          f"checked in {time.perf_counter() - t0:.0f} s)", flush=True)
    rows = []
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      memory_limit=args.memory_limit, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(_warm_up)  # imports on the workers, outside the measured phases
        if args.compare:
            rows = compare(client, data, root, args)
            if args.json:
                Path(args.json).write_text(json.dumps({"rows": args.rows, "files": n_files,
                                                       "pairs": rows}, indent=1))
            if args.cleanup:
                shutil.rmtree(data, ignore_errors=True)
            return
        ddf = dd.read_parquet(str(data))
        print(f"  {ddf.npartitions} partitions; workers: 2 processes x 1 thread, memory "
              f"limit {args.memory_limit}", flush=True)
        models = {}
        for method in args.methods:
            est = getattr(catembed, method)(n_components=args.n_components,
                                            **({"random_state": 0} if method == "CDE" else {}))
            row = phase(client, f"fit {method}", lambda est=est: est.fit(ddf))
            models[method] = row.pop("result")
            assert models[method].stats_.n_rows == args.rows
            rows.append(row)
        first = args.methods[0]
        out = root / f"out_{first}_{args.rows}"
        shutil.rmtree(out, ignore_errors=True)
        row = phase(client, f"transform {first}",
                    lambda: models[first].transform(ddf).to_parquet(str(out), write_index=False))
        row.pop("result")
        written = sum(f.stat().st_size for f in out.glob("*.parquet")) / 2**20
        row["output_mb"] = written
        n_out = sum(dd.read_parquet(str(out)).map_partitions(len).compute())
        assert n_out == args.rows, (n_out, args.rows)
        print(f"  output: {n_out:,} rows x {args.n_components} float32, {written:.0f} MB",
              flush=True)
        rows.append(row)
    if args.in_memory:
        rows.extend(in_memory(data, root, args))
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": args.rows, "files": n_files,
                                               "phases": rows}, indent=1))
    if args.cleanup:
        shutil.rmtree(data, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
