"""Issue 38's cost line as a user meets it: the ``catembed cluster`` command (k given, and k
chosen) against the peer a user would write, pandas ``read_csv`` + scikit-learn
``OneHotEncoder`` + ``KMeans(n_init=10)`` + the labels written, on the same CSV.

A planted table of ``--rows`` rows x 20 categorical columns (10 values, 5 groups, purity 0.6)
is written to a temporary CSV. Each command runs in its own process under
``/usr/bin/time`` (wall seconds, peak RSS), the three interleaved ``--repeat`` times, with the
load average beside each figure; the ratio is to the peer's time in the same round.

    PYTHONPATH=src python benchmarks/bench_cluster_cli.py [--rows 1000000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import planted_codes  # noqa: E402

PEER = """
import sys, warnings
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.preprocessing import OneHotEncoder
df = pd.read_csv(sys.argv[1], dtype=str)
Z = OneHotEncoder().fit_transform(df)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    labels = KMeans(5, n_init=10, random_state=0).fit(Z).labels_
pd.DataFrame({"cluster": labels}).to_csv(sys.argv[2], index=False)
"""


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MiB) of ``cmd`` under ``/usr/bin/time``."""
    res = subprocess.run(["/usr/bin/time", "-f", "%e %M", *cmd], capture_output=True,
                         text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if res.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed:\n{res.stderr[-2000:]}")
    wall, rss = res.stderr.strip().splitlines()[-1].split()
    return float(wall), float(rss) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=2)
    args = ap.parse_args()
    codes, groups = planted_codes(args.rows, 20, 10, n_groups=5, purity=0.6, seed=0)
    with tempfile.TemporaryDirectory() as tmp:
        table, out = Path(tmp) / "table.csv", Path(tmp) / "labels.csv"
        pd.DataFrame({f"c{j}": np.char.add(f"v{j}_", codes[:, j].astype(str))
                      for j in range(codes.shape[1])}).to_csv(table, index=False)
        cli = [sys.executable, "-m", "catembed", "cluster", str(table), "-o", str(out),
               "--seed", "0"]
        runs = {"peer: read_csv + one-hot + KMeans(n_init=10)":
                [sys.executable, "-c", PEER, str(table), str(out)],
                "catembed cluster -k 5": [*cli, "-k", "5"],
                "catembed cluster (k chosen)": cli}
        print(f"{args.rows:,} rows x 20 columns, {table.stat().st_size / 2**20:.0f} MiB CSV")
        for r in range(args.repeat):
            base = None
            for name, cmd in runs.items():
                load = os.getloadavg()[0]
                wall, rss = timed(cmd)
                base = base or wall
                from catembed.metrics import ari_codes

                lab = pd.read_csv(out).iloc[:, -1].to_numpy()
                print(f"round {r}  {name:46s} {wall:6.1f} s  {wall / base:5.2f}x  "
                      f"peak {rss:6.0f} MiB  ARI {ari_codes(groups, lab):.3f}  "
                      f"load {load:.1f}", flush=True)


if __name__ == "__main__":
    main()
