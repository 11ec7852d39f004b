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
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from catembed.cluster import Consensus
from catembed.metrics import ari_codes

sys.path.insert(0, str(Path(__file__).resolve().parent))
from consensus_trust_shared import shared_tables  # noqa: E402  (the same 29 sets)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-rows", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--out", default="/tmp/auto_k_shared.csv")
    args = ap.parse_args()
    rows = []
    for name, X, yv, k in shared_tables(args.max_rows):
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
