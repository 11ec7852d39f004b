"""Issue 38's cost line as a user meets it: the ``catembed cluster`` command (k given, and k
chosen) against the peer a user would write, pandas ``read_csv`` + scikit-learn
``OneHotEncoder`` + ``KMeans(n_init=10)`` + the labels written, on the same CSV.

A planted table of ``--rows`` rows x 20 categorical columns (10 values, 5 groups, purity 0.6)
is written to a temporary CSV; with ``--wide M``, instead, ``bench_small_wide.py``'s table of
30 rows x ``M`` four-valued columns (uniform, seed 0; k given is ``-k 3`` there, and the
peer's ``KMeans`` 3 clusters). Each command runs in its own process under ``/usr/bin/time
-v`` (wall seconds, user + system CPU seconds, peak RSS), the three interleaved ``--repeat``
times, with the load average beside each figure. The ratios are of CPU seconds (the figure to
read on a loaded machine) and of wall seconds, to the peer and to the k-given command of the
same round.

    PYTHONPATH=src python benchmarks/bench_cluster_cli.py [--rows 1000000] [--repeat 2]
    PYTHONPATH=src python benchmarks/bench_cluster_cli.py --wide 2000 --repeat 3
    PYTHONPATH=src python benchmarks/bench_cluster_cli.py --rows 100000 --before OLD/src

With ``--before OLD/src`` (another tree's ``src``, e.g. ``git archive main src | tar -x -C
OLD``), the two catembed commands of that tree run too, in the same rounds, each beside its
counterpart; their ratios are to the peer and to that tree's k-given command.
"""

from __future__ import annotations

import argparse
import os
import re
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
    labels = KMeans(int(sys.argv[3]), n_init=10, random_state=0).fit(Z).labels_
pd.DataFrame({"cluster": labels}).to_csv(sys.argv[2], index=False)
"""


def timed(cmd: list[str], src: str | None = None) -> tuple[float, float, float]:
    """Wall seconds, user + system CPU seconds and peak RSS (MiB) of ``cmd`` under
    ``/usr/bin/time -v`` (``src``: the ``PYTHONPATH`` it imports catembed from)."""
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    if src is not None:
        env["PYTHONPATH"] = src
    res = subprocess.run(["/usr/bin/time", "-v", *cmd], capture_output=True, text=True,
                         env=env)
    if res.returncode != 0:
        raise SystemExit(f"{cmd[:4]} failed:\n{res.stderr[-2000:]}")

    def field(name: str) -> str:
        return re.findall(rf"{name}.*: ([0-9.:]+)$", res.stderr, re.M)[-1]

    wall = sum(float(x) * 60 ** i
               for i, x in enumerate(reversed(field("Elapsed").split(":"))))
    cpu = float(field("User time")) + float(field("System time"))
    return wall, cpu, float(field("Maximum resident set size")) / 1024


def _table(args: argparse.Namespace, path: Path) -> tuple[np.ndarray | None, int]:
    """Write the table; return the planted groups (None for the wide table) and k given."""
    if args.wide:
        rng = np.random.default_rng(0)
        pd.DataFrame(np.array(list("abcd"), dtype=object)[rng.integers(0, 4, (30, args.wide))],
                     columns=[f"c{j}" for j in range(args.wide)]).to_csv(path, index=False)
        return None, 3
    codes, groups = planted_codes(args.rows, 20, 10, n_groups=5, purity=0.6, seed=0)
    pd.DataFrame({f"c{j}": np.char.add(f"v{j}_", codes[:, j].astype(str))
                  for j in range(codes.shape[1])}).to_csv(path, index=False)
    return groups, 5


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--wide", type=int, default=0, help="30 rows x WIDE columns instead")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--before", metavar="OLD_SRC",
                    help="also run the catembed commands with this src tree (interleaved)")
    args = ap.parse_args()
    from catembed.metrics import ari_codes

    with tempfile.TemporaryDirectory() as tmp:
        table, out = Path(tmp) / "table.csv", Path(tmp) / "labels.csv"
        groups, k = _table(args, table)
        cli = [sys.executable, "-m", "catembed", "cluster", str(table), "-o", str(out),
               "--seed", "0"]
        runs = {"peer": ([sys.executable, "-c", PEER, str(table), str(out), str(k)], None)}
        for given in (f"-k {k}", "k chosen"):
            if args.before:
                runs[f"{given} (before)"] = (cli + ["-k", str(k)] * (given != "k chosen"),
                                             str(Path(args.before).resolve()))
            runs[given] = (cli + ["-k", str(k)] * (given != "k chosen"), None)
        shape = f"{args.wide and 30 or args.rows:,} rows x {args.wide or 20:,} columns"
        print(f"{shape}, {table.stat().st_size / 2**20:.1f} MiB CSV; peer = read_csv + "
              f"one-hot + KMeans({k}, n_init=10); ratios CPU (wall)", flush=True)
        for r in range(args.repeat):
            seen: dict[str, tuple[float, float]] = {}
            for name, (cmd, src) in runs.items():
                load = os.getloadavg()[0]
                wall, cpu, rss = timed(cmd, src)
                seen[name] = (cpu, wall)
                lab = pd.read_csv(out).iloc[:, -1].to_numpy()
                quality = (f"ARI {ari_codes(groups, lab):.3f}" if groups is not None
                           else f"{len(np.unique(lab))} clusters")
                tag = " (before)" if name.endswith(" (before)") else ""
                ratios = "".join(
                    f"  /{ref} {cpu / seen[ref][0]:.2f} ({wall / seen[ref][1]:.2f})"
                    for ref in ("peer", f"-k {k}{tag}") if ref in seen and ref != name)
                print(f"round {r}  {name:18s} {cpu:6.1f} s CPU {wall:6.1f} s wall  "
                      f"peak {rss:6.0f} MiB  {quality}  load {load:.1f}{ratios}", flush=True)


if __name__ == "__main__":
    main()
