"""Issue 42: which label-free measure, and which margin, for the guard's check? DESIGN half only.

Answer used in: src/catembed/deep/_reference.py (``check_partition``); docs/deep.md, "The check
and its threshold".

For every deep fit of the design half (``deep_pool_run.py --no-guard`` output, the guard of
issue 42 applied as ``deep_pool_eval.py`` does) this computes label-free measures of the
final partition against the rank reference (same seed as the fit):

* ``ratio``: explained variance in the rank space over the reference's
  (:func:`catembed.deep._reference.explained`; the reference's own k-means objective);
* ``ari``: adjusted Rand index to the reference partition;
* ``nmi_ref``: NMI to the reference partition;

and, with the labels, whether the fit is *short*: NMI more than .03 below the classical
baseline of its table where that baseline is above .10 (``deep_pool_eval.py``). It prints
each measure's AUC (how well a low value picks out the short fits) and, for each candidate
threshold, the short fits caught and the other fits warned.

    python studies/deep_pool_margin.py --deep bench_out/design_deep.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

import numpy as np
from sklearn.metrics import adjusted_rand_score, roc_auc_score
from sklearn.metrics import normalized_mutual_info_score as nmi
from sklearn.utils import check_random_state

sys.path.insert(0, os.path.dirname(__file__))
import deep_pool  # noqa: E402
from catembed.deep import _reference  # noqa: E402
from deep_pool_eval import classical, encoded, verdict  # noqa: E402
from deep_pool_run import load_pool  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--deep", required=True)
    ap.add_argument("--pool", default="bench_out/pool.json")
    a = ap.parse_args()
    pool = load_pool(a.pool)
    recs = list({(r["table"], r["method"], r["seed"]): r  # one line a fit (a rerun repeats it)
                 for r in map(json.loads, open(a.deep))}.values())
    recs = [r for r in recs if r["table"] in deep_pool.DESIGN]  # never the check half
    rows = []
    for t in deep_pool.DESIGN:
        mine = [r for r in recs if r["table"] == t]
        if not mine:
            continue
        tab = pool[t]
        codes, nums = encoded(tab.X)
        base = max(np.mean(v) for v in classical(tab, sorted({r["seed"] for r in mine}))
                   .values())
        for r in mine:
            v = verdict(r["method"], np.asarray(r["labels"]), codes, nums, tab.n_clusters,
                        r["seed"], 0.0)
            first = int(check_random_state(r["seed"]).randint(np.iinfo(np.int32).max))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = _reference.rank_reference(codes, nums, tab.n_clusters, first).labels
            score = nmi(tab.y, v["after"])
            rows.append({"table": t, "method": r["method"], "seed": r["seed"],
                         "short": bool(base > 0.10 and score < base - 0.03),
                         "fallback": v["fallback_after"], "nmi": score, "baseline": base,
                         "ratio": v["ratio"], "ari": adjusted_rand_score(ref, v["after"]),
                         "nmi_ref": nmi(ref, v["after"])})
    short = np.array([r["short"] for r in rows])
    fb = np.array([r["fallback"] for r in rows])
    print(f"fits {len(rows)}, short {short.sum()}, fallbacks {fb.sum()}")
    for m in ("ratio", "ari", "nmi_ref"):
        x = np.array([r[m] for r in rows])
        auc = roc_auc_score(short, -x) if 0 < short.sum() < len(short) else float("nan")
        print(f"\n{m}: AUC {auc:.3f} (low value -> short)")
        for thr in (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95):
            warn = (x < thr) | fb
            print(f"  < {thr:.2f}: short caught {int((warn & short).sum())}/{int(short.sum())}"
                  f", others warned {int((warn & ~short & ~fb).sum())}/"
                  f"{int((~short & ~fb).sum())} (fallbacks warn anyway)")
    x = np.array([r["ratio"] for r in rows])
    top = float(x[short & ~fb].max()) if (short & ~fb).any() else 0.0
    thr = np.ceil(top * 100 + 1e-9) / 100  # the 0.01 grid's first value above every short fit
    print(f"\nratio: highest among the short fits {top:.4f}; frozen threshold {thr:.2f}: "
          f"others warned {int(((x < thr) & ~short & ~fb).sum())}/{int((~short & ~fb).sum())}")
    print("\nshort fits:")
    for r in sorted(rows, key=lambda r: r["ratio"]):
        if r["short"]:
            print(f"  {r['table']:20s} {r['method']:10s} s{r['seed']} nmi {r['nmi']:.3f} "
                  f"base {r['baseline']:.3f} ratio {r['ratio']:.3f} ari {r['ari']:.3f} "
                  f"nmi_ref {r['nmi_ref']:.3f}")


if __name__ == "__main__":
    main()
