"""Start-up time of two catembed source trees, interleaved (issue 43: "start-up time
unchanged" across the restructuring).

Each round runs ``import catembed``, ``catembed --version`` and ``catembed --help`` in fresh
processes, once per tree, alternating which tree goes first; prints the medians in ms and the
ratio after / before, with the load average.

    python benchmarks/bench_startup.py --before /path/to/old/src --after src --rounds 11
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

COMMANDS = {"import catembed": ["-c", "import catembed"],
            "catembed --version": ["-m", "catembed", "--version"],
            "catembed --help": ["-m", "catembed", "--help"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the old tree's src folder")
    ap.add_argument("--after", default="src", help="the new tree's src folder")
    ap.add_argument("--rounds", type=int, default=11)
    args = ap.parse_args()
    trees = [("before", args.before), ("after", args.after)]
    times: dict[tuple[str, str], list[float]] = {(t, c): [] for t, _ in trees for c in COMMANDS}
    for r in range(args.rounds):
        for name, argv in COMMANDS.items():
            for tree, src in trees if r % 2 == 0 else trees[::-1]:
                env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
                t0 = time.perf_counter()
                subprocess.run([sys.executable, *argv], env=env, stdout=subprocess.DEVNULL,
                               check=True)
                times[(tree, name)].append(time.perf_counter() - t0)
    print(f"load average {os.getloadavg()[0]:.1f}, {args.rounds} rounds, medians")
    for name in COMMANDS:
        b = statistics.median(times[("before", name)])
        a = statistics.median(times[("after", name)])
        print(f"{name:20s} before {b * 1000:7.1f} ms  after {a * 1000:7.1f} ms  "
              f"ratio {a / b:.2f}")


if __name__ == "__main__":
    main()
