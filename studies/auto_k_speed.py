"""Which k does ``Consensus("auto")`` choose on the shared sets, and how long does choosing it
take? (issue 55, item 1: the choice made cheaper must stay the same)

Runs ``Consensus("auto").fit`` up to the choice of k only (the members are not fitted: the
module's ``choose_k`` is wrapped to stop the fit there), on at most ``--max-rows`` rows of each
shared set with a target (a fixed random sample, as ``studies/auto_k_shared.py`` draws), and
prints per set the k chosen, the dependence z, the BIC per k and the seconds taken. Run it on
two trees and compare:

    CATEMBED_SHARED=/work/shared PYTHONPATH=src python studies/auto_k_speed.py --out after.csv
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

from catembed.cluster import Consensus
from catembed.cluster.consensus import _estimator as _consensus

sys.path.insert(0, str(Path(__file__).resolve().parent))
from consensus_trust_shared import shared_tables  # noqa: E402  (the same 29 sets)


class _Chosen(Exception):
    def __init__(self, k: int, scores: pd.DataFrame, z: float) -> None:
        super().__init__(k)
        self.k, self.scores, self.z = k, scores, z


def chosen_k(X: pd.DataFrame, seed: int = 0) -> _Chosen:
    """The k ``Consensus("auto", random_state=seed)`` chooses on ``X``, its scores and z."""
    choose = _consensus.choose_k

    def stop(scores: pd.DataFrame, z: float) -> int:
        raise _Chosen(choose(scores, z), scores, z)

    _consensus.choose_k = stop
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Consensus("auto", random_state=seed).fit(X)
    except _Chosen as done:
        return done
    finally:
        _consensus.choose_k = choose
    raise RuntimeError("the fit did not choose k")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-rows", type=int, default=1000)
    ap.add_argument("--sets", help="comma-separated set names (default: every set with a "
                    "target, at most 70 columns and 2-10 classes)")
    ap.add_argument("--out", default="/tmp/auto_k_speed.csv")
    args = ap.parse_args()
    rows = []
    for name, X, _, _ in shared_tables(args.max_rows, args.sets.split(",") if args.sets
                                       else None):
        t = time.perf_counter()
        done = chosen_k(X)
        secs = time.perf_counter() - t
        bic = " ".join(f"{b:.1f}" for b in done.scores["bic"])
        rows.append({"table": name, "rows": len(X), "k": done.k, "z": round(done.z, 2),
                     "seconds": round(secs, 2), "bic": bic})
        print(rows[-1], file=sys.stderr, flush=True)
    t = pd.DataFrame(rows)
    t.to_csv(args.out, index=False)
    print(t.drop(columns="bic").to_string(index=False))


if __name__ == "__main__":
    main()
