"""KModes, LCA and Consensus on Dask without gathering the rows (issue 56), against the
in-memory fits, on a planted table written as Parquet files.

The table: ``--rows`` rows x 8 string columns of 10 values, 5 planted groups, purity 0.7
(``bench_dask_scale.py``'s model), ``--files`` Parquet files of dictionary-encoded strings
under ``--data`` (never the repository), each with its planted groups beside it
(``groups-*.npy``, not a column). Written once per size and reused.

Each case runs in its own process (so that its peak RSS is its own):

* ``mem-<method>``: ``pd.read_parquet`` of the whole table, ``fit``, the labels written
  to Parquet; wall and peak RSS (``ru_maxrss``) of the process;
* ``dask-<method>``: a ``LocalCluster`` of ``--workers`` worker processes (one thread,
  ``--memory-limit`` each), ``dd.read_parquet``, ``fit``, ``labels_.to_frame().to_parquet``
  partition by partition; wall and the client's peak RSS (the client process also runs the
  scheduler; the workers are other processes).

Reported per case: seconds, microseconds per row, peak RSS (MiB), the ARI of the labels with
the planted groups and, for the Dask cases, with the in-memory labels of the same method.

Usage: ``python benchmarks/bench_dask_cluster.py --rows 2_000_000 [--files 20]
[--methods kmodes lca consensus] [--k 5] [--data /tmp/bench_dask_cluster] [--cleanup]``
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

N_FEATURES, N_VALUES, N_GROUPS, PURITY = 8, 10, 5, 0.7


def write_dataset(folder: Path, n_rows: int, n_files: int) -> None:
    """The planted table as ``n_files`` Parquet files, the groups as ``.npy`` beside."""
    import pyarrow.parquet as pq

    from synthetic import planted_arrow_part

    marker = folder / "_rows.json"
    if marker.exists() and json.loads(marker.read_text()) == [n_rows, n_files]:
        return
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "data").mkdir(parents=True)
    per_file = -(-n_rows // n_files)
    for i in range(n_files):
        n = min(per_file, n_rows - i * per_file)
        table, groups = planted_arrow_part(i, n, N_FEATURES, N_VALUES, N_GROUPS, PURITY)
        pq.write_table(table, folder / "data" / f"part-{i:04d}.parquet")
        np.save(folder / f"groups-{i:04d}.npy", groups)
    marker.write_text(json.dumps([n_rows, n_files]))


def _model(method: str, k: int):
    from catembed.cluster import LCA, Consensus, KModes

    if method == "kmodes":
        return KModes(k, random_state=0)
    if method == "lca":
        return LCA(k, n_init=1, max_iter=50, random_state=0)
    return Consensus(k, random_state=0)


def run_case(case: str, folder: Path, k: int, workers: int, memory_limit: str) -> dict:
    """One case in this process: fit, labels written to Parquet; timings and peak RSS."""
    import pandas as pd

    mode, method = case.split("-", 1)
    out = folder / f"labels-{case}"
    shutil.rmtree(out, ignore_errors=True)
    t0 = time.perf_counter()
    if mode == "mem":
        df = pd.read_parquet(folder / "data")
        model = _model(method, k).fit(df)
        n = len(df)
        out.mkdir()
        pd.DataFrame({"cluster": np.asarray(model.labels_)}).to_parquet(out / "part.parquet")
    else:
        import dask.dataframe as dd
        import distributed

        cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                           processes=True, memory_limit=memory_limit,
                                           dashboard_address=None)
        client = distributed.Client(cluster)
        t0 = time.perf_counter()  # the cluster's start is not the fit's
        ddf = dd.read_parquet(folder / "data")
        model = _model(method, k).fit(ddf)
        model.labels_.to_frame("cluster").to_parquet(
            out, name_function=lambda i: f"part-{i:05d}.parquet")
        n = None
        client.close()
        cluster.close()
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"case": case, "seconds": wall, "n": n, "peak_rss_mib": peak}


def _labels(folder: Path, case: str) -> np.ndarray:
    import pandas as pd

    files = sorted((folder / f"labels-{case}").glob("*.parquet"),
                   key=lambda p: int("".join(ch for ch in p.stem if ch.isdigit()) or 0))
    return np.concatenate([pd.read_parquet(f)["cluster"].to_numpy() for f in files])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=lambda s: int(s.replace("_", "")), default=2_000_000)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--methods", nargs="+", default=["kmodes", "lca", "consensus"])
    ap.add_argument("--k", type=int, default=N_GROUPS)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--memory-limit", default="2GiB")
    ap.add_argument("--data", type=Path, default=Path("/tmp/bench_dask_cluster"))
    ap.add_argument("--case", help=argparse.SUPPRESS)
    ap.add_argument("--cleanup", action="store_true")
    args = ap.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.data, args.k, args.workers,
                                  args.memory_limit)))
        return
    from catembed.metrics import ari_codes

    write_dataset(args.data, args.rows, args.files)
    groups = np.concatenate([np.load(p) for p in sorted(args.data.glob("groups-*.npy"))])
    print(f"{args.rows} rows x {N_FEATURES} columns, {args.files} files, k={args.k}, "
          f"LocalCluster {args.workers} x 1 thread, {args.memory_limit}")
    for method in args.methods:
        res = {}
        for mode in ("mem", "dask"):  # interleaved per method
            case = f"{mode}-{method}"
            proc = subprocess.run([sys.executable, __file__, "--case", case, "--data",
                                   str(args.data), "--k", str(args.k), "--workers",
                                   str(args.workers), "--memory-limit", args.memory_limit],
                                  capture_output=True, text=True, check=False)
            if proc.returncode:
                print(f"{case}: failed\n{proc.stderr[-2000:]}")
                continue
            r = json.loads(proc.stdout.strip().splitlines()[-1])
            res[mode] = r
            lab = _labels(args.data, case)
            line = (f"{case:16s} {r['seconds']:8.1f} s  {1e6 * r['seconds'] / len(groups):6.2f}"
                    f" us/row  peak RSS {r['peak_rss_mib']:7.0f} MiB  ARI planted "
                    f"{ari_codes(groups, lab):.4f}")
            if mode == "dask" and "mem" in res:
                line += f"  ARI in-memory {ari_codes(_labels(args.data, 'mem-' + method), lab):.4f}"
                line += f"  time ratio {r['seconds'] / res['mem']['seconds']:.2f}"
            print(line, flush=True)
    if args.cleanup:
        shutil.rmtree(args.data, ignore_errors=True)


if __name__ == "__main__":
    main()
