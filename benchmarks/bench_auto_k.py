"""Choosing k against k given (issue 55, item 1): ``catembed cluster T --target class`` (k
chosen from 1..10) against ``catembed cluster T --target class -k 3`` on the shared
``dna_statlog`` (3,186 rows x 60 four-valued columns) and on the same table coded as 180 binary
indicator columns (A = 100, C = 010, G = 001, T = 000, as the Statlog/mlbench coding).

Each command runs in a fresh process, interleaved (k given, then k chosen, alternating which
goes first), ``--rounds`` times per tree; prints each wall time, the k chosen, the ratio k
chosen / k given per round and the load average.

    CATEMBED_SHARED=/work/shared python benchmarks/bench_auto_k.py --after src --rounds 2
    CATEMBED_SHARED=/work/shared python benchmarks/bench_auto_k.py --before OLD/src --after src
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

CODE = {"A": (1, 0, 0), "C": (0, 1, 0), "G": (0, 0, 1), "T": (0, 0, 0)}


def tables(folder: str) -> dict[str, str]:
    shared = Path(os.environ.get("CATEMBED_SHARED", "../shared"))
    df = pd.read_csv(shared / "datasets" / "dna_statlog" / "data.csv", keep_default_na=False,
                     na_values=[""])
    four = os.path.join(folder, "dna_statlog.csv")
    df.to_csv(four, index=False)
    cols = [c for c in df.columns if c.startswith("pos_")]
    out = {f"{c}_{i}": [CODE[v][i] for v in df[c]] for c in cols for i in range(3)}
    binary = os.path.join(folder, "dna_binary.csv")
    pd.DataFrame({**out, "class": df["class"]}).to_csv(binary, index=False)
    return {"dna_statlog (3,186 x 60, 4 values)": four,
            "dna_statlog binary (3,186 x 180, 2 values)": binary}


def run(src: str, path: str, k: str | None, out: str) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": os.path.abspath(src)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    argv = [sys.executable, "-m", "catembed", "cluster", path, "--target", "class", "-o", out]
    if k:
        argv += ["-k", k]
    t = time.perf_counter()
    res = subprocess.run(argv, env=env, capture_output=True, text=True, check=True)
    m = re.search(r"-> (\d+) clusters", res.stdout + res.stderr)
    return time.perf_counter() - t, m.group(1) if m else "?"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", help="an old tree's src folder (optional)")
    ap.add_argument("--after", default="src")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    folder = tempfile.mkdtemp()
    out = os.path.join(folder, "labels.csv")
    trees = ([("before", args.before)] if args.before else []) + [("after", args.after)]
    for name, path in tables(folder).items():
        for tree, src in trees:
            for r in range(args.rounds):
                order = [None, "3"] if r % 2 == 0 else ["3", None]
                load0 = os.getloadavg()[0]
                got = {k: run(src, path, k, out) for k in order}
                (given, _), (chosen, k) = got["3"], got[None]
                print(f"{name:44s} {tree:6s} round {r + 1}: -k 3 {given:6.1f} s, k chosen "
                      f"({k}) {chosen:6.1f} s, ratio {chosen / given:.2f}, load "
                      f"{load0:.1f}-{os.getloadavg()[0]:.1f}", flush=True)


if __name__ == "__main__":
    main()
