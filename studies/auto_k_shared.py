"""How much does ``Consensus("auto")`` lose against ``Consensus(k = number of classes)`` on the
shared UCI sets? (issue 38 acceptance)

Answer used in: docs/consensus-design.md, "Choosing k: the evidence".

Auto k against the class count on the shared UCI sets (issue 38 acceptance): the ARI
with the class of ``Consensus("auto")`` next to ``Consensus(k = number of classes)``, the
k chosen, per set (at most ``--max-rows`` rows, a fixed random sample).

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/auto_k_shared.py
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from catembed.cluster import Consensus
from catembed.datasets import load_dataset
from catembed.metrics import ari_codes


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-rows", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--out", default="/tmp/auto_k_shared.csv")
    args = ap.parse_args()
    root = Path(os.environ.get("CATEMBED_SHARED", "../shared")) / "datasets"
    rows = []
    for name in sorted(p.name for p in root.iterdir() if (p / "meta.json").exists()):
        ds = load_dataset(root / name)
        if ds.target is None:
            continue
        y = ds.frame[ds.target]
        keep = y.notna().to_numpy()
        X = ds.features.loc[keep].reset_index(drop=True)
        yv = pd.factorize(y[keep])[0]
        k = len(np.unique(yv))
        if k < 2 or k > 10 or X.shape[1] > 70:
            continue
        if len(X) > args.max_rows:
            idx = np.sort(np.random.default_rng(0).choice(len(X), args.max_rows, replace=False))
            X, yv = X.iloc[idx].reset_index(drop=True), yv[idx]
        for seed in range(args.seeds):
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fixed = Consensus(k, random_state=seed).fit(X)
                auto = Consensus("auto", random_state=seed).fit(X)
            rows.append({"table": name, "seed": seed, "classes": k, "k_auto": auto.n_clusters_,
                         "ari_fixed": ari_codes(yv, fixed.labels_),
                         "ari_auto": ari_codes(yv, auto.labels_)})
            print(rows[-1], f"{time.perf_counter() - t:.1f}s", file=sys.stderr, flush=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)
    t = pd.DataFrame(rows)
    print(t.round(3).to_string(index=False))
    print(f"mean ARI fixed k {t.ari_fixed.mean():.3f}, auto k {t.ari_auto.mean():.3f}, "
          f"difference {(t.ari_auto - t.ari_fixed).mean():+.3f}")


if __name__ == "__main__":
    main()
