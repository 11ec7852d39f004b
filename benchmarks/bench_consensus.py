"""Time and memory of :class:`catembed.cluster.Consensus` on a planted table or Adult.

    PYTHONPATH=src /usr/bin/time -v python benchmarks/bench_consensus.py planted --rows 1000000
    PYTHONPATH=src /usr/bin/time -v python benchmarks/bench_consensus.py adult

Prints the fit time (the table is built or read first, outside the timing), the load average
and, for the planted table, the ARI with the planted groups; peak memory is /usr/bin/time's
"Maximum resident set size".
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sklearn.metrics import adjusted_rand_score  # noqa: E402

from catembed.cluster.consensus import Consensus  # noqa: E402
from synthetic import planted_codes  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("table", choices=["planted", "adult"])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("-k", type=int, default=None)
    ap.add_argument("--strings", action="store_true", help="planted values as Python strings "
                    "(object columns) instead of pandas categoricals")
    args = ap.parse_args()
    truth = None
    if args.table == "planted":
        codes, truth = planted_codes(args.rows, 8, 10, n_groups=5, purity=0.6, seed=0)
        df = pd.DataFrame({f"a{j}": pd.Categorical(codes[:, j]) for j in range(8)})
        if args.strings:
            df = df.astype(str).astype(object)
        k = args.k or 5
    else:
        from catembed.datasets import load_dataset

        shared = Path(os.environ.get("CATEMBED_SHARED", "/work/shared"))
        data = load_dataset(shared / "datasets" / "adult")
        kinds = data.meta.get("columns") or {}
        df = data.frame[[c for c in data.frame.columns
                         if kinds.get(c) not in ("numeric", "target", "id", "split")]]
        k = args.k or 2
    print(f"table {df.shape}, load average before {os.getloadavg()}", flush=True)
    t = time.perf_counter()
    model = Consensus(k, random_state=0).fit(df)
    sec = time.perf_counter() - t
    print(f"fit {sec:.2f} s; load average after {os.getloadavg()}")
    print("members", model.members_, "stability", model.member_stability_.round(3))
    if truth is not None:
        print(f"ARI with planted groups {adjusted_rand_score(truth, model.labels_):.3f}")


if __name__ == "__main__":
    main()
