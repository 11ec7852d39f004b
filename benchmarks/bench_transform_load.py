"""``catembed transform`` of a Parquet file against its I/O floor, quiet and beside busy loops
(issue 40, item 1).

usage:
    python benchmarks/bench_transform_load.py [--rows 2000000] [--pairs 5] [--loads 0,1,2]
        [--workdir DIR] [--ours-env KEY=VALUE ...] [--filled-floor]

Both sides run as fresh processes, timed from start to exit (wall), with their CPU time
and peak RSS from ``os.wait4``, interleaved (floor, catembed, floor, catembed, ...), each
writing a new file after the old ones are removed and the disk synced:

* floor: ``bench_floor._io_floor`` (pyarrow ``ParquetFile.iter_batches`` over the same
  columns in batches of the transform's block rows, writing per batch 32 float32 columns of
  one fixed random-normal block, dictionary encoding off, Snappy: its output arrays are built
  once); ``--filled-floor``: each batch's rows are first copied into a reused output block,
  every output cell written once per batch as the transform's lookup writes it;
* catembed: ``python -m catembed transform MODEL IN -o OUT`` (the saved lookup of a
  ``CDE(n_components=32)`` fitted on 200,000 rows).

``--loads 0,1,2``: the pairs are run with 0, 1 and 2 busy-loop processes
(``python -c "while True: pass"``, not pinned) started one second before the first pair and
stopped after the last; the 1-minute load average is printed beside each pair (it counts the
other jobs of a shared machine too). The ratio is the median over pairs of catembed / floor.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

BUSY = [sys.executable, "-c", "while True: pass"]


def _run(cmd: list[str], env: dict | None = None) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + system) and peak RSS (MiB) of one child process."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit(f"{cmd[:4]} failed: {p.returncode}")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss // 1024


def _prepare(tmp: Path, rows: int) -> tuple[Path, Path, int]:
    import pyarrow.parquet as pq

    import catembed
    from bench_floor import _make_parquet
    from catembed import CDE
    from catembed.transform.streaming import _block_rows

    src = tmp / f"in_{rows}.parquet"
    model = tmp / f"model_{rows}.npz"
    if not src.exists():
        _make_parquet(src, rows)
    sample = pq.ParquetFile(src).read_row_group(0).to_pandas().iloc[:200_000]
    est = CDE(random_state=0, n_components=32).fit(sample)
    if not model.exists():
        est.save(model)
    return src, model, _block_rows(est, catembed.transform.streaming.MAX_BLOCK_BYTES)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2_000_000)
    ap.add_argument("--pairs", type=int, default=5)
    ap.add_argument("--loads", default="0,1,2", help="busy-loop processes per set of pairs")
    ap.add_argument("--workdir", help="where the Parquet files go (default: the temp dir)")
    ap.add_argument("--own-session", action="store_true",
                    help="start each busy loop in a session of its own (setsid): with the "
                    "kernel's autogroup scheduling it then competes as another user's job, "
                    "not inside this benchmark's share of the CPUs")
    ap.add_argument("--ours-env", nargs="*", default=[],
                    help="KEY=VALUE set for the catembed process only (thread experiments)")
    ap.add_argument("--before", metavar="SRC",
                    help="also run catembed from this source folder (another checkout's "
                    "src/), interleaved: floor, before, catembed, ...")
    ap.add_argument("--filled-floor", action="store_true",
                    help="the floor writes every output cell of every batch once (copied into "
                    "a reused block) instead of writing one fixed block as it is")
    ap.add_argument("--floor", nargs=3, metavar=("SRC", "DST", "CHUNK"), help=argparse.SUPPRESS)
    ap.add_argument("--prepare", nargs=2, metavar=("DIR", "ROWS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.prepare:
        print(*_prepare(Path(args.prepare[0]), int(args.prepare[1])))
        return
    if args.floor:
        from bench_floor import _io_floor

        _io_floor(Path(args.floor[0]), Path(args.floor[1]), int(args.floor[2]), 32,
                  filled=args.filled_floor)
        return

    tmp = Path(args.workdir or tempfile.gettempdir()) / "bench_transform_load"
    tmp.mkdir(parents=True, exist_ok=True)
    # made in a child: a child forked from a parent that holds the data starts with the
    # parent's resident pages, which would count in its peak RSS
    got = subprocess.run([sys.executable, __file__, "--prepare", str(tmp), str(args.rows)],
                         check=True, capture_output=True, text=True).stdout.split()
    src, model, chunk = Path(got[-3]), Path(got[-2]), int(got[-1])
    floor_out, ours_out = tmp / "floor.parquet", tmp / "out.parquet"
    env = dict(os.environ)
    ours_env = dict(env, **dict(kv.split("=", 1) for kv in args.ours_env))
    cmds = {
        "floor": ([sys.executable, __file__, "--floor", str(src), str(floor_out), str(chunk)]
                  + (["--filled-floor"] if args.filled_floor else []), env),
        "ours": ([sys.executable, "-m", "catembed", "transform", str(model), str(src), "-o",
                  str(ours_out), "--quiet"], ours_env),
    }
    if args.before:
        before_env = dict(ours_env, PYTHONPATH=args.before)
        cmds["before"] = (cmds["ours"][0], before_env)
        cmds["ours"] = cmds.pop("ours")  # floor, before, catembed
    print(f"## catembed transform {args.rows:,} x 8 Parquet -> 32 float32 vs floor "
          f"(batches of {chunk:,} rows; {os.cpu_count()} CPUs; "
          f"floor {'filled' if args.filled_floor else 'fixed'}; "
          f"ours env: {' '.join(args.ours_env) or '-'}; busy loops "
          f"{'each in a session of its own' if args.own_session else 'in this session'})")
    extra = " before wall | before ratio | before CPU |" if args.before else ""
    print("| busy loops | pair | load (1 min) | floor wall | catembed wall | ratio | "
          f"floor CPU | catembed CPU | floor RSS | catembed RSS |{extra}")
    print("|---" * (10 + 3 * bool(args.before)) + "|")
    summary = []
    for n_busy in [int(x) for x in args.loads.split(",")]:
        busy = [subprocess.Popen(BUSY, start_new_session=args.own_session)
                for _ in range(n_busy)]
        try:
            time.sleep(1.0 if n_busy else 0.0)
            ratios, before = [], []
            for i in range(args.pairs):
                r = {}
                for k, (cmd, e) in cmds.items():
                    for out in (floor_out, ours_out):
                        out.unlink(missing_ok=True)
                    os.sync()
                    r[k] = _run(cmd, e)
                ratios.append(r["ours"][0] / r["floor"][0])
                print(f"| {n_busy} | {i + 1} | {os.getloadavg()[0]:.1f} | "
                      f"{r['floor'][0]:.2f} s | {r['ours'][0]:.2f} s | {ratios[-1]:.2f}x | "
                      f"{r['floor'][1]:.2f} s | {r['ours'][1]:.2f} s | {r['floor'][2]} MiB | "
                      f"{r['ours'][2]} MiB |" + (
                          f" {r['before'][0]:.2f} s | {r['before'][0] / r['floor'][0]:.2f}x | "
                          f"{r['before'][1]:.2f} s |" if args.before else ""), flush=True)
                if args.before:
                    before.append(r["before"][0] / r["floor"][0])
            summary.append((n_busy, statistics.median(ratios), min(ratios), max(ratios),
                            statistics.median(before) if before else None))
        finally:
            for p in busy:
                p.kill()
                p.wait()
    for n_busy, med, lo, hi, old in summary:
        print(f"busy loops {n_busy}: median ratio {med:.2f}x (range {lo:.2f}-{hi:.2f}x)"
              + (f"; before: {old:.2f}x" if old is not None else ""))


if __name__ == "__main__":
    main()
