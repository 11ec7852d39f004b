"""Issue 56's acceptance run: ``catembed cluster`` on Dask against the in-memory command, as
the user runs them (the CLI in a subprocess under ``/usr/bin/time -v``).

The table: ``--rows`` rows x 10 string columns of 8 values, 5 planted groups, purity 0.8
(``synthetic.planted_arrow_part``: a row takes its group's value with probability 0.8 and a
uniform value otherwise; the groups are separable, the Bayes rule's ARI is about 1), written
under ``--data`` (never the repository) as Parquet files of ``--per-file`` rows
(``data/part-0000.parquet`` ...), the planted groups beside them (``groups-0000.npy``, not a
column). ``gen`` writes them (``--single`` also writes ``table.parquet``, the whole table in
one file, for the in-memory command, which reads one file).

``run`` runs one command and prints one JSON line:

* ``--mode dask``: ``catembed cluster DATA/data --scheduler local --workers W
  --memory-limit M -o OUT`` (a ``LocalCluster`` of ``W`` worker processes of one thread);
* ``--mode mem``: ``catembed cluster DATA/table.parquet -o OUT/labels.parquet``;

with ``-k K`` (or k chosen: ``--k auto``), ``--seed 0``. Recorded: wall, user + system CPU
(``/usr/bin/time -v``: the CLI process and the children it reaped, the LocalCluster's workers
included), the CLI process's own peak RSS (``VmHWM`` polled: the client; ``time``'s maximum
RSS, also recorded, is the largest of the process and its reaped workers), the ARI of the
written labels with the planted groups, and with ``--against OUT2`` the ARI with another
run's labels (the in-memory command's).

Usage::

    python benchmarks/bench_dask_100m.py gen --rows 10_000_000 --data /tmp/d10m --single
    python benchmarks/bench_dask_100m.py run --mode mem --data /tmp/d10m --out /tmp/d10m/mem5
    python benchmarks/bench_dask_100m.py run --mode dask --data /tmp/d10m --out /tmp/d10m/dask5 \
        --against /tmp/d10m/mem5
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

N_FEATURES, N_VALUES, N_GROUPS, PURITY = 10, 8, 5, 0.8


def _int(text: str) -> int:
    return int(text.replace("_", ""))


def generate(folder: Path, n_rows: int, per_file: int, single: bool) -> None:
    """The planted table as Parquet files of ``per_file`` rows (and ``table.parquet``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path.insert(0, str(Path(__file__).parent))
    from synthetic import planted_arrow_part

    shutil.rmtree(folder, ignore_errors=True)
    (folder / "data").mkdir(parents=True)
    writer = None
    for i in range(-(-n_rows // per_file)):
        n = min(per_file, n_rows - i * per_file)
        table, groups = planted_arrow_part(1000 + i, n, N_FEATURES, N_VALUES, N_GROUPS, PURITY)
        pq.write_table(table, folder / "data" / f"part-{i:04d}.parquet")
        np.save(folder / f"groups-{i:04d}.npy", groups)
        if single:
            if writer is None:
                writer = pq.ParquetWriter(folder / "table.parquet", table.schema)
            writer.write_table(table)
    if writer is not None:
        writer.close()
    (folder / "_rows.json").write_text(json.dumps({"rows": n_rows, "per_file": per_file}))
    del pa


def labels_of(out: Path) -> np.ndarray:
    """The written labels in row order (a folder's files sort in row order)."""
    import pyarrow.parquet as pq

    files = [out] if out.is_file() else sorted(out.glob("*.parquet"))
    return np.concatenate([pq.read_table(f, columns=["cluster"])["cluster"].to_numpy()
                           for f in files])


def _ari(a: np.ndarray, b: np.ndarray) -> float:
    from catembed.metrics import ari_codes

    return float(ari_codes(a, b))


def _own_peak(proc: subprocess.Popen) -> int:
    """The CLI process's own peak RSS (``VmHWM``, bytes), polled every 0.5 s until it ends:
    ``/usr/bin/time``'s maximum RSS is the largest of the process and of the children it
    reaped (a LocalCluster's workers), not the client's alone."""
    import psutil

    peak, cli = 0, None
    while proc.poll() is None:
        try:
            if cli is None:
                kids = psutil.Process(proc.pid).children()
                cli = kids[0].pid if kids else None
            if cli is not None:
                for line in Path(f"/proc/{cli}/status").read_text().splitlines():
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]) * 1024)
        except (OSError, psutil.Error):
            pass
        time.sleep(0.5)
    return peak


def run(args: argparse.Namespace) -> dict:
    data, out = args.data, args.out
    shutil.rmtree(out, ignore_errors=True)
    cmd = [sys.executable, "-m", "catembed", "cluster"]
    if args.mode == "dask":
        cmd += [str(data / "data"), "--scheduler", "local", "--workers", str(args.workers),
                "--memory-limit", args.memory_limit, "-o", str(out)]
    else:
        out.mkdir(parents=True)
        cmd += [str(data / "table.parquet"), "-o", str(out / "labels.parquet")]
    if args.k != "auto":
        cmd += ["-k", args.k]
    cmd += ["--seed", "0"]
    t0 = time.time()
    load0 = os.getloadavg()[0]
    with open(out.parent / f"{out.name}.stdout", "w+") as so, \
            open(out.parent / f"{out.name}.stderr", "w+") as se:
        proc = subprocess.Popen(["/usr/bin/time", "-v", *cmd], stdout=so, stderr=se)
        own_peak = _own_peak(proc)
        wall = time.time() - t0
        so.seek(0)
        se.seek(0)
        proc.stdout, err = so.read(), se.read()

    def field(name: str) -> float:
        m = re.search(rf"{re.escape(name)}: ([0-9.:]+)", err)
        return float(m.group(1)) if m and ":" not in m.group(1) else float("nan")

    res = {"mode": args.mode, "k": args.k, "rc": proc.returncode, "wall_s": round(wall, 1),
           "cpu_s": round(field("User time (seconds)") + field("System time (seconds)"), 1),
           "client_peak_rss_mib": round(own_peak / 2**20),
           "tree_max_rss_mib": round(field("Maximum resident set size (kbytes)") / 1024),
           "load_start": round(load0, 1), "load_end": round(os.getloadavg()[0], 1)}
    summary = [line for line in (proc.stdout + err).splitlines()
               if line.startswith("catembed cluster:")]
    res["summary"] = summary[0] if summary else err[-1500:]
    if proc.returncode:
        return res
    groups = np.concatenate([np.load(p) for p in sorted(data.glob("groups-*.npy"))])
    lab = labels_of(out)
    res["rows"] = len(lab)
    res["us_per_row"] = round(1e6 * wall / len(lab), 2)
    res["ari_planted"] = round(_ari(groups, lab), 4)
    if args.against:
        res["ari_against"] = round(_ari(labels_of(args.against), lab), 4)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--rows", type=_int, required=True)
    g.add_argument("--per-file", type=_int, default=1_000_000)
    g.add_argument("--data", type=Path, required=True)
    g.add_argument("--single", action="store_true")
    r = sub.add_parser("run")
    r.add_argument("--mode", choices=["dask", "mem"], required=True)
    r.add_argument("--data", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True)
    r.add_argument("--k", default="5", help="a number, or 'auto' (k chosen)")
    r.add_argument("--workers", type=int, default=2)
    r.add_argument("--memory-limit", default="2GiB")
    r.add_argument("--against", type=Path)
    args = ap.parse_args()
    if args.cmd == "gen":
        t0 = time.time()
        generate(args.data, args.rows, args.per_file, args.single)
        print(json.dumps({"generated": args.rows, "seconds": round(time.time() - t0, 1)}))
        return
    print(json.dumps(run(args)), flush=True)


if __name__ == "__main__":
    main()
