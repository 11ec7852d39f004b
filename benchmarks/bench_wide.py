"""Wide tables (issue 37 item 6, issue 40 item 5): times on 30 rows x many four-valued columns.

    PYTHONPATH=src python benchmarks/bench_wide.py            # every case
    PYTHONPATH=src python benchmarks/bench_wide.py count-20000 consensus-100 --timeout 120

Each case runs in a child process (a fresh interpreter, imports not counted) under a wall
clock limit; it prints the wall and CPU seconds of the timed step, the child's peak RSS
(table and imports included), its outcome (a refusal is an outcome: "refused: <message>"),
and the load average beside it. Cases:

* ``count-M``: :func:`catembed.stats.compute_statistics` of 30 x M;
* ``embed-M``: ``CDE().fit`` of 30 x M (what ``catembed embed`` runs after reading);
* ``consensus-M``: ``Consensus(n_clusters=3, random_state=0).fit`` of 30 x M;
* ``idec-M``: ``IDEC(3, pretrain_steps=30, cluster_steps=30)`` of 30 x M;
* ``thesis-M``: ``ThesisClusterer(3, epochs=2)`` of 30 x M;
* ``mca-M`` / ``prince-M``: ``MCA(n_components=2).fit_transform`` against prince's
  ``MCA(n_components=2).fit(X).row_coordinates(X)``;
* ``onehotpca-M`` / ``sklearnpca-M``: ``OneHotPCA(n_components=10).fit_transform`` against
  scikit-learn's ``OneHotEncoder(sparse_output=False)`` + ``PCA(10)``;
* ``idf-M``, ``onehot-M``, ``kmodes-M``, ``dilca-M``, ``lshkreps-M``: ``IDFEmbedder``,
  ``OneHotEmbedder`` (``fit_transform``), ``KModes(3)``, ``CategoricalDistance("dilca")``,
  ``LSHKRepresentatives(3)`` (``fit``);
* ``famd-M`` / ``princefamd-M``: ``FAMD(n_components=2).fit_transform`` against prince's
  ``FAMD(n_components=2).fit(X).row_coordinates(X)``, the table with one more column
  ``x`` of standard normal numbers.

The table: column ``j`` holds ``"a"``, ``"b"``, ``"c"`` or ``"d"`` drawn uniformly (seed 0).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

CASES = ["count-2000", "count-20000", "embed-20000", "consensus-100", "consensus-400",
         "consensus-2000", "idec-2000", "thesis-2000"]

_CHILD = r"""
import sys, time, warnings
import numpy as np, pandas as pd
warnings.simplefilter("ignore")
kind, m = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
df = pd.DataFrame(np.array(["a", "b", "c", "d"], dtype=object)[rng.integers(0, 4, (30, m))],
                  columns=[f"c{j}" for j in range(m)])
if kind in ("famd", "princefamd"):
    df["x"] = rng.normal(size=30)
if kind == "count":
    from catembed.stats import compute_statistics as run
elif kind == "embed":
    from catembed import CDE
    run = lambda X: CDE().fit(X)
elif kind == "consensus":
    from catembed.cluster import Consensus
    run = lambda X: Consensus(n_clusters=3, random_state=0).fit(X)
elif kind == "idec":
    from catembed.deep import IDEC
    run = lambda X: IDEC(3, pretrain_steps=30, cluster_steps=30, update_interval=10,
                         random_state=0).fit(X)
elif kind == "mca":
    from catembed import MCA
    run = lambda X: MCA(n_components=2).fit_transform(X)
elif kind == "prince":
    import prince
    run = lambda X: prince.MCA(n_components=2).fit(X).row_coordinates(X)
elif kind in ("idf", "onehot"):
    from catembed import IDFEmbedder, OneHotEmbedder
    run = lambda X: (IDFEmbedder if kind == "idf" else OneHotEmbedder)().fit_transform(X)
elif kind in ("kmodes", "lshkreps"):
    from catembed.cluster import KModes, LSHKRepresentatives
    run = lambda X: (KModes(3, random_state=0) if kind == "kmodes"
                     else LSHKRepresentatives(3)).fit(X)
elif kind == "dilca":
    from catembed.similarity import CategoricalDistance
    run = lambda X: CategoricalDistance(metric="dilca").fit(X)
elif kind == "famd":
    from catembed.embed import FAMD
    run = lambda X: FAMD(n_components=2).fit_transform(X)
elif kind == "princefamd":
    import prince
    run = lambda X: prince.FAMD(n_components=2).fit(X).row_coordinates(X)
elif kind == "onehotpca":
    from catembed import OneHotPCA
    run = lambda X: OneHotPCA(n_components=10).fit_transform(X)
elif kind == "sklearnpca":
    from sklearn.decomposition import PCA
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder
    run = lambda X: make_pipeline(OneHotEncoder(sparse_output=False),
                                  PCA(10, random_state=0)).fit_transform(X)
else:
    from catembed.deep import ThesisClusterer
    run = lambda X: ThesisClusterer(3, epochs=2, random_state=0).fit(X)
t, c = time.perf_counter(), time.process_time()
try:
    run(df)
    out = "ok"
except Exception as exc:
    out = f"refused: {type(exc).__name__}: {str(exc)[:110]}"
import resource
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{time.perf_counter() - t:.2f} {time.process_time() - c:.2f} {rss:.0f} {out}")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="*", default=CASES)
    ap.add_argument("--timeout", type=float, default=300.0, help="wall seconds per case")
    args = ap.parse_args()
    for case in args.cases:
        kind, m = case.rsplit("-", 1)
        load = os.getloadavg()[0]
        start = time.perf_counter()
        try:
            res = subprocess.run([sys.executable, "-c", _CHILD, kind, m], capture_output=True,
                                 text=True, timeout=args.timeout, env=os.environ)
            line = (res.stdout.strip().splitlines() or [res.stderr.strip()[-200:]])[-1]
            wall, cpu, rss, out = (line.split(" ", 3) if res.returncode == 0
                                   else ("-", "-", "-", line))
            print(f"{case:16s} wall {wall:>7s} s  cpu {cpu:>7s} s  peak RSS {rss:>5s} MiB  "
                  f"load {load:5.1f}  {out}", flush=True)
        except subprocess.TimeoutExpired:
            print(f"{case:16s} no answer in {time.perf_counter() - start:.0f} s (limit)  "
                  f"load {load:5.1f}", flush=True)


if __name__ == "__main__":
    main()
