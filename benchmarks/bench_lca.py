"""``catembed.cluster.LCA`` against ``stepmix`` (the latent class package a user would pick),
interleaved: each fit in its own process under ``/usr/bin/time -v`` (wall time and peak
memory), the two methods one after the other, on several shapes, ``--rounds`` times, with
the load average beside each figure and each fit's log-likelihood (both must reach about
the same optimum for the times to compare).

Both fit ``K`` classes with the same starts (``--n-init``), at most 1,000 EM steps and a
tolerance of 1e-8 on the mean log-likelihood per row; missing values do not occur.

    CATEMBED_SHARED=../shared PYTHONPATH=src python benchmarks/bench_lca.py [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

FIT = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
method, path, k, n_init = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
X = np.load(path)
if method == "catembed":  # imports before the clock (issue 55: they were timed, ~1-2 s)
    import pandas as pd
    from catembed.cluster import LCA
else:
    import stepmix
t = time.perf_counter()
if method == "catembed":
    m = LCA(k, n_init=n_init, max_iter=1000, tol=1e-8, random_state=0,
            categorical_features="all").fit(pd.DataFrame(X))
    ll = m.log_likelihood_
else:
    m = stepmix.StepMix(n_components=k, measurement="categorical", n_init=n_init,
                        max_iter=1000, abs_tol=1e-8, random_state=0, verbose=0,
                        progress_bar=0).fit(X)
    ll = m.score(X) * len(X)
print(json.dumps({"seconds": time.perf_counter() - t, "loglik": float(ll)}))
"""


def shapes() -> list[tuple[str, np.ndarray, int]]:
    from synthetic import planted_codes

    out = []
    shared = Path(os.environ.get("CATEMBED_SHARED", HERE.parent.parent / "shared"))
    for name, k in (("nursery", 5), ("mushroom", 2)):
        folder = shared / "datasets" / name
        if (folder / "data.csv").exists():
            from catembed.datasets import load_dataset

            X = load_dataset(folder).features
            codes = np.column_stack([pd.factorize(X[c].astype(str))[0] for c in X.columns])
            out.append((f"{name} {codes.shape[0]:,} x {codes.shape[1]}", codes, k))
    for rows in (100_000, 300_000):
        codes, _ = planted_codes(rows, 10, 5, n_groups=4, purity=0.6, seed=0)
        out.append((f"planted {rows:,} x 10", codes, 4))
    return out


def run(method: str, path: str, k: int, n_init: int) -> dict:
    cmd = ["/usr/bin/time", "-v", sys.executable, "-c", FIT, method, path, str(k),
           str(n_init)]
    load = os.getloadavg()[0]
    res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", res.stderr)
    out["peak_gb"] = int(rss.group(1)) / 2**20 if rss else float("nan")
    out["load"] = load
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--n-init", type=int, default=5)
    ap.add_argument("--only", help="shapes whose name starts with this (e.g. nursery)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, codes, k in shapes():
            if args.only and not name.startswith(args.only):
                continue
            path = str(Path(tmp) / "codes.npy")
            np.save(path, codes.astype(np.int64))
            for r in range(args.rounds):
                a = run("catembed", path, k, args.n_init)
                b = run("stepmix", path, k, args.n_init)
                print(f"{name}, K={k}, round {r + 1}: catembed {a['seconds']:.2f} s "
                      f"({a['peak_gb']:.2f} GB, loglik {a['loglik']:.1f}, load "
                      f"{a['load']:.1f}); stepmix {b['seconds']:.2f} s ({b['peak_gb']:.2f} "
                      f"GB, loglik {b['loglik']:.1f}, load {b['load']:.1f}); ratio "
                      f"{b['seconds'] / a['seconds']:.1f}x", flush=True)
                time.sleep(1)


if __name__ == "__main__":
    main()
