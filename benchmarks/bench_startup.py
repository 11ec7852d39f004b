"""Start-up time: of two catembed source trees, interleaved (issue 43: "start-up time unchanged"
across the restructuring), and of ``catembed cluster`` on a small table against its floor
(issue 55: wall time <= 1.15x ``python -c "import pandas, sklearn.cluster"`` plus the printed
total).

Each round runs, in fresh processes, ``import catembed``, ``catembed --version``,
``catembed --help``, ``catembed cluster T`` (k chosen) and ``catembed cluster T -k 3`` once per
tree, and the floor ``python -c "import pandas, sklearn.cluster"``, alternating which goes first.
``T`` is a 100-row x 10-column planted table (benchmarks/synthetic.py, 6 values, 3 groups, seed
0) written as a CSV. Prints the medians in ms, the ratio after / before, and for the cluster
commands the median of the per-round ratio wall / (floor + printed total), with the load.

    python benchmarks/bench_startup.py --after src --rounds 7
    python benchmarks/bench_startup.py --before /path/to/old/src --after src --rounds 11

Byte-compiled files matter: run once before timing (or with PYTHONDONTWRITEBYTECODE unset) so
that both trees have their ``__pycache__``, as an installed package has.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

COMMANDS = {"import catembed": ["-c", "import catembed"],
            "catembed --version": ["-m", "catembed", "--version"],
            "catembed --help": ["-m", "catembed", "--help"],
            "cluster T": ["-m", "catembed", "cluster", "{T}", "-o", "{O}"],
            "cluster T -k 3": ["-m", "catembed", "cluster", "{T}", "-k", "3", "-o", "{O}"]}
FLOOR = ["-c", "import pandas, sklearn.cluster"]
TOTAL = re.compile(r"total ([0-9.]+) s")


def _table(folder: str) -> str:
    import pandas as pd

    from synthetic import planted_codes

    codes, _ = planted_codes(100, n_features=10, n_values=6, n_groups=3, seed=0)
    path = os.path.join(folder, "t100.csv")
    pd.DataFrame({f"c{j}": [f"v{c}" for c in codes[:, j]] for j in range(codes.shape[1])}
                 ).to_csv(path, index=False)
    return path


def _run(argv: list[str], src: str | None) -> tuple[float, float | None]:
    """Wall seconds of one fresh process, and the total it printed (cluster commands)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src is not None:
        env["PYTHONPATH"] = os.path.abspath(src)
    t0 = time.perf_counter()
    res = subprocess.run([sys.executable, *argv], env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, check=True)
    wall = time.perf_counter() - t0
    m = TOTAL.search(res.stdout)
    return wall, float(m.group(1)) if m else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="the old tree's src folder (optional)")
    ap.add_argument("--after", default="src", help="the new tree's src folder")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--only", help="comma-separated command names to time (default: all)")
    args = ap.parse_args()
    trees = ([("before", args.before)] if args.before else []) + [("after", args.after)]
    names = [n for n in COMMANDS if not args.only or n in args.only.split(",")]
    folder = tempfile.mkdtemp()
    table, out = _table(folder), os.path.join(folder, "labels.csv")
    for _, src in trees:  # byte-compile both trees, warm the file cache
        _run(["-c", "import catembed.cli._cluster; from catembed.cluster import Consensus"], src)
    walls: dict[tuple[str, str], list[float]] = {(t, c): [] for t, _ in trees for c in names}
    ratios: dict[tuple[str, str], list[float]] = {(t, c): [] for t, _ in trees for c in names}
    floors: list[float] = []
    loads = [os.getloadavg()[0]]
    for r in range(args.rounds):
        jobs = [("floor", None, "floor")] + [(t, s, n) for n in names for t, s in trees]
        floor, done = None, []
        for tree, src, name in jobs if r % 2 == 0 else jobs[::-1]:
            if tree == "floor":
                floor, _ = _run(FLOOR, None)
                continue
            argv = [a.replace("{T}", table).replace("{O}", out) for a in COMMANDS[name]]
            wall, total = _run(argv, src)
            walls[(tree, name)].append(wall)
            done.append((tree, name, wall, total))
        floors.append(floor)
        for tree, name, wall, total in done:
            if total is not None:
                ratios[(tree, name)].append(wall / (floor + total))
        loads.append(os.getloadavg()[0])
    print(f"load average {min(loads):.1f}-{max(loads):.1f}, {args.rounds} rounds, medians; "
          f"floor (import pandas, sklearn.cluster) {statistics.median(floors) * 1000:.0f} ms")
    for name in names:
        line = f"{name:20s}"
        for tree, _ in trees:
            line += f" {tree} {statistics.median(walls[(tree, name)]) * 1000:7.1f} ms"
            if ratios[(tree, name)]:
                rs = ratios[(tree, name)]
                line += (f" (wall / (floor + total) {statistics.median(rs):.2f}, "
                         f"{min(rs):.2f}-{max(rs):.2f})")
        if args.before:
            after, before = (statistics.median(walls[(t, name)]) for t in ("after", "before"))
            line += f"  ratio {after / before:.2f}"
        print(line)


if __name__ == "__main__":
    main()
