"""On the shared UCI sets, is the default ``Consensus`` ever below the median of its members, and
how does it rank among catembed's other clusterers? (issue 38 acceptance)

Answer used in: docs/consensus-design.md, "Issue 38: the combination step" ("Shared sets, after
freezing").

Issue 38's shared-set lines for the default ``Consensus``: on every shared UCI set with
2-10 classes (at most ``--max-rows`` rows, a fixed random sample; k = the number of
classes), its ARI with the class against the median of its members' ``KMeans(n_init=10)``
ARI (each member's own embedding from the same fit), and its average rank among
catembed's clusterers (MGR, OCL, LSH k-representatives), k-modes, LCA and one-hot +
``KMeans(n_init=10)``. The three combinations (``select``, the default; ``concat``,
``coassoc``) are fitted; each is ranked against the other columns without the others.
(``likelihood``, the choice by fit to the table, was a column at commit 9dc9ef4;
``--report`` still summarises such a CSV.)

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/consensus_shared_rank.py
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent / "frozen"))  # the design rounds

from catembed import OneHotEmbedder  # noqa: E402
from catembed.cluster import LCA, MGR, OCL, KModes, LSHKRepresentatives  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402
from catembed.stats._numeric import apply_numeric  # noqa: E402
from consensus_v2_design import (  # noqa: E402
    POOL,
    Recording,
    _km10,
    run_tables,
    shared_tables,
)

OTHERS = ("lca", "kmodes", "onehot+kmeans", "mgr", "ocl", "lshkreps")


def one(name, X, y, k, seed):
    out = {"table": name, "seed": seed, "k": k}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = Recording(k, members=list(POOL), combine="concat", random_state=seed).fit(X)
        out["concat"] = ari_codes(y, m.labels_)
        out["select"] = ari_codes(y, Recording(k, members=list(POOL), random_state=seed)
                                  .fit(X).labels_)
        km = [ari_codes(y, _km10(Z, k, seed)) for Z in m.spaces_[: len(m.members_)]]
        out["median-km10"], out["best-km10"] = float(np.median(km)), float(np.max(km))
        out["coassoc"] = ari_codes(y, Recording(k, members=list(POOL), combine="coassoc",
                                                random_state=seed).fit(X).labels_)
        d = apply_numeric(X, m.numeric_bins_).astype(str)
        out["lca"] = ari_codes(y, LCA(k, random_state=seed).fit(d).labels_)
        out["kmodes"] = ari_codes(y, KModes(k, random_state=seed).fit(d).labels_)
        Z = OneHotEmbedder().fit_transform(d)
        out["onehot+kmeans"] = ari_codes(y, KMeans(k, n_init=10, random_state=seed)
                                         .fit(Z).labels_)
        out["mgr"] = ari_codes(y, MGR(k).fit(d).labels_)
        out["ocl"] = ari_codes(y, OCL(k, random_state=seed).fit(d).labels_)
        out["lshkreps"] = ari_codes(y, LSHKRepresentatives(k).fit(d).labels_)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-rows", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--out", default="/tmp/consensus_shared_rank.csv")
    ap.add_argument("--shard", default="0/1", help="I/N: every N-th set from the I-th")
    ap.add_argument("--report", nargs="*", help="summarise these CSVs (no runs)")
    args = ap.parse_args()
    if args.report:
        rows = pd.concat([pd.read_csv(f) for f in args.report], ignore_index=True)
    else:
        i, n = (int(v) for v in args.shard.split("/"))
        rows = run_tables(list(shared_tables(args.max_rows))[i::n], args.seeds, one, args.out)
    t = pd.DataFrame(rows).groupby("table", sort=True).mean(numeric_only=True)
    pd.set_option("display.width", 250)
    print(t.drop(columns=["seed"]).round(3).to_string())
    combos = [c for c in ("select", "likelihood", "concat", "coassoc") if c in t]
    for focus in combos:
        other = ", ".join(c for c in combos if c != focus)
        cols = [focus, *OTHERS]
        ranks = t[cols].rank(axis=1, ascending=False, method="average").mean()
        below = int((t[focus] < t["median-km10"] - 1e-9).sum())
        print(f"\n{focus}: below the median member on {below} of {len(t)} sets "
              f"(by > .05: {int((t[focus] < t['median-km10'] - .05).sum())}); mean ARI "
              f"{t[focus].mean():.3f}; average rank without {other}:")
        print(ranks.sort_values().round(2).to_string())


if __name__ == "__main__":
    main()
