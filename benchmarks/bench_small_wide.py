"""Small wide tables on the command line (issue 55, item 3): ``catembed cluster T -k 3`` on 30
rows x 200, 2,000 and 20,000 four-valued columns (``"a"``-``"d"`` uniform, seed 0, as
``bench_wide.py``), and ``catembed embed`` (CDE) on 30 x 20,000, whose answer is a refusal.

Each command runs in a fresh process, the trees interleaved, ``--rounds`` times; prints the
wall time, the user CPU time (``/usr/bin/time``), the printed total (cluster) or the exit
status (embed), and the floor ``python -c "import pandas, sklearn.cluster"`` of the round, with
the load average.

    python benchmarks/bench_small_wide.py --before OLD/src --after src --rounds 2
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd

WIDTHS = (200, 2000, 20000)


def _tables(folder: str) -> dict[int, str]:
    out = {}
    for m in WIDTHS:
        rng = np.random.default_rng(0)
        df = pd.DataFrame(np.array(list("abcd"), dtype=object)[rng.integers(0, 4, (30, m))],
                          columns=[f"c{j}" for j in range(m)])
        out[m] = os.path.join(folder, f"wide{m}.csv")
        df.to_csv(out[m], index=False)
    return out


def _run(argv: list[str], src: str | None) -> tuple[float, float, int, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if src:
        env["PYTHONPATH"] = os.path.abspath(src)
    t = time.perf_counter()
    res = subprocess.run(["/usr/bin/time", "-f", "USER %U", sys.executable, *argv], env=env,
                         capture_output=True, text=True)
    wall = time.perf_counter() - t
    text = res.stdout + res.stderr
    user = float(re.findall(r"USER ([0-9.]+)", text)[-1])
    total = re.search(r"total ([0-9.]+) s", text)
    return wall, user, res.returncode, total.group(1) if total else "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before")
    ap.add_argument("--after", default="src")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    folder = tempfile.mkdtemp()
    paths = _tables(folder)
    out = os.path.join(folder, "out.csv")
    trees = ([("before", args.before)] if args.before else []) + [("after", args.after)]
    cases = [(f"cluster 30 x {m:,} -k 3",
              ["-m", "catembed", "cluster", paths[m], "-k", "3", "-o", out]) for m in WIDTHS]
    cases.append(("embed (CDE) 30 x 20,000", ["-m", "catembed", "embed", paths[20000], "-o",
                                              out]))
    for r in range(args.rounds):
        floor = _run(["-c", "import pandas, sklearn.cluster"], None)
        print(f"round {r + 1}: floor {floor[0]:.1f} s wall, {floor[1]:.1f} s user; load "
              f"{os.getloadavg()[0]:.1f}", flush=True)
        for name, argv in cases:
            for tree, src in trees if r % 2 == 0 else trees[::-1]:
                wall, user, rc, total = _run(argv, src)
                print(f"  {name:26s} {tree:6s} {wall:6.1f} s wall {user:5.1f} s user, exit "
                      f"{rc}, printed total {total}; load {os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
