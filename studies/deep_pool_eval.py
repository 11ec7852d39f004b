"""Does the guard of issue 42 warn on every deep fit short of the classical baseline, on the check
half? (issue 42)

Answer used in: docs/deep.md, "Issue 42" (the check half's table).

Issue 42: the guard's verdict on the pool's deep fits, and the table of docs/deep.md.

Reads the deep fits of ``deep_pool_run.py --no-guard`` (each network's own labels; with the
default ``n_init=1`` the guard never changes the network, only whether its labels are kept)
and applies the guard as a fit with ``guard=True`` would, from the same seed:

* **before** (the guard of issue 20): the vote reference
  (:func:`catembed.deep._guard.reference_partition`), fallback to it when the restart is
  degenerate, no check;
* **after** (issue 42): ``AutoencoderKMeans`` / ``IDEC`` / ``AttentionClusterer`` diagnose
  against the rank reference (:func:`catembed.deep._reference.rank_reference`) and fall back
  to it; ``ThesisClusterer`` keeps the vote reference for its diagnosis and fallback (the
  thesis reproduction's cells) and both check the final partition against the rank
  reference (:func:`catembed.deep._reference.check_partition`: a ratio of explained
  variance under ``CHECK_RATIO`` warns).

The classical label-free baseline of a table is the better (mean NMI over the seeds) of
k-means on the rank space (the guard's rank reference, ``random_state`` = the seed) and
k-modes on the table with every number in 5 quantile bins (k-prototypes with
``--numeric discretize``; catembed's ``KModes``, random init, ``n_init=10``).

    python studies/deep_pool_eval.py --half design --deep bench_out/design_deep.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

import numpy as np
import pandas as pd
from sklearn.metrics import normalized_mutual_info_score as nmi
from sklearn.utils import check_random_state

sys.path.insert(0, os.path.dirname(__file__))
import deep_pool  # noqa: E402
from catembed.deep import _guard, _reference  # noqa: E402
from catembed.deep._data import fit_encode_compact, split_columns  # noqa: E402
from deep_pool_reference import binned_codes  # noqa: E402
from deep_pool_run import load_pool  # noqa: E402

NAMES = {"ae-kmeans": "AutoencoderKMeans", "idec": "IDEC", "attention": "AttentionClusterer",
         "thesis": "ThesisClusterer", "thesis-ae-idec": "ThesisClusterer",
         "idec-cde": "IDEC", "attention-cde": "AttentionClusterer"}


def encoded(X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Column-local codes and numbers, as the deep estimators' guard reads them."""
    df, cat, num = split_columns(X, "auto")
    enc, codes, nums = fit_encode_compact(df, cat, num)
    return codes.astype(np.int64) - enc.offsets[None, :], np.asarray(nums)


def verdict(method: str, raw: np.ndarray, codes, nums, k: int, seed: int,
            threshold: float) -> dict:
    """The labels a guarded fit ends with, before and after issue 42, and the check."""
    first = int(check_random_state(seed).randint(np.iinfo(np.int32).max))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        vote = _guard.reference_partition(codes, nums, k, first)
        old, _, _ = _guard.choose_restart([raw], [0.0], vote.labels, "agreement", "x")
        rank = _reference.rank_reference(codes, nums, k, first)
        ref = vote if method.startswith("thesis") else rank
        new, _, _ = _guard.choose_restart([raw], [0.0], ref.labels, "agreement", "x")
    after = ref.labels if new is None else raw
    got = _reference.explained(after, codes, nums, rank)
    best = _reference.explained(rank.labels, codes, nums, rank)
    agreement = nmi(rank.labels, after)
    return {"before": vote.labels if old is None else raw, "after": after,
            "fallback_before": old is None, "fallback_after": new is None,
            "ratio": got / best if best > 0 else 1.0, "agreement": agreement,
            "check_warns": (got / best if best > 0 else 1.0) < threshold}


def classical(tab, seeds) -> dict[str, list[float]]:
    from catembed.cluster.kmodes import KModes

    codes, nums = encoded(tab.X)
    b = binned_codes(codes, nums)
    frame = pd.DataFrame({f"c{j}": b[:, j].astype(str) for j in range(b.shape[1])})
    out = {"rank-kmeans": [], "kmodes-binned": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s in seeds:
            out["rank-kmeans"].append(nmi(tab.y, _reference.rank_reference(
                codes, nums, tab.n_clusters, s).labels))
            out["kmodes-binned"].append(nmi(tab.y, KModes(
                tab.n_clusters, init="random", n_init=10, random_state=s).fit(frame).labels_))
    return out


def ms(v) -> str:
    v = np.asarray(v, dtype=float)
    return f"{v.mean():.3f} ± {v.std(ddof=1) if len(v) > 1 else 0.0:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--half", choices=["design", "check"], required=True)
    ap.add_argument("--deep", required=True)
    ap.add_argument("--pool", default="bench_out/pool.json")
    ap.add_argument("--threshold", type=float, default=_reference.CHECK_RATIO)
    ap.add_argument("--json", help="write every fit's verdict here")
    a = ap.parse_args()
    names = deep_pool.DESIGN if a.half == "design" else deep_pool.CHECK
    pool = load_pool(a.pool)
    recs = list({(r["table"], r["method"], r["seed"]): r  # one line a fit (a rerun repeats it)
                 for r in map(json.loads, open(a.deep))}.values())
    recs = [r for r in recs if r["table"] in names and not r.get("guard", False)]
    fits, rows = [], []
    for t in names:
        mine = [r for r in recs if r["table"] == t]
        if not mine:
            continue
        tab = pool[t]
        codes, nums = encoded(tab.X)
        base = classical(tab, sorted({r["seed"] for r in mine}))
        best = max(np.mean(v) for v in base.values())
        for m in dict.fromkeys(r["method"] for r in mine):
            got = sorted((r for r in mine if r["method"] == m), key=lambda r: r["seed"])
            vs = [verdict(m, np.asarray(r["labels"]), codes, nums, tab.n_clusters,
                          r["seed"], a.threshold) for r in got]
            before = [nmi(tab.y, v["before"]) for v in vs]
            after = [nmi(tab.y, v["after"]) for v in vs]
            warn = [v["fallback_after"] or v["check_warns"] for v in vs]
            short = [best > 0.10 and x < best - 0.03 for x in after]
            for r, v, x, w, sh in zip(got, vs, after, warn, short, strict=True):
                fits.append({"table": t, "method": m, "seed": r["seed"], "nmi": x,
                             "baseline": best, "ratio": v["ratio"],
                             "agreement": v["agreement"], "warns": w,
                             "fallback": v["fallback_after"], "short": sh})
            rows.append({"table": t, "n": len(tab.X), "baseline": best,
                         "rank-kmeans": ms(base["rank-kmeans"]),
                         "kmodes-binned": ms(base["kmodes-binned"]), "method": m,
                         "seeds": len(got), "before": ms(before), "after": ms(after),
                         "fallbacks": sum(v["fallback_after"] for v in vs),
                         "check warnings": sum(v["check_warns"] for v in vs),
                         "short": sum(short),
                         "short, silent": sum(s and not w for s, w in zip(short, warn,
                                                                          strict=True)),
                         "ratio": ms([v["ratio"] for v in vs]),
                         "agreement": ms([v["agreement"] for v in vs])})
    df = pd.DataFrame(rows)
    cols = list(df.columns)
    print("| " + " | ".join(cols) + " |\n|" + "---|" * len(cols))
    for _, r in df.iterrows():
        print("| " + " | ".join(f"{r[c]:.3f}" if isinstance(r[c], float) else str(r[c])
                                for c in cols) + " |")
    f = pd.DataFrame(fits)
    print(f"\nfits {len(f)}; short of the baseline by > .03 where it is > .10: "
          f"{int(f.short.sum())}; of those silent: {int((f.short & ~f.warns).sum())}; "
          f"warnings on fits not short: {int((f.warns & ~f.short).sum())} of "
          f"{int((~f.short).sum())}")
    if a.json:
        f.to_json(a.json, orient="records", lines=True)


if __name__ == "__main__":
    main()
