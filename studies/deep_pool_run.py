"""What do the deep clusterers (defaults) and the classical label-free candidates score on each
table and seed of the pool? (issue 42; the fits the other deep_pool scripts read)

Answer used in: docs/deep.md, "Issue 42" ("Protocol").

Issue 42: run the deep clusterers (defaults) and the classical label-free candidates on the
validation pool (:mod:`deep_pool`), seeds one after the other in one process, and append one
JSON line per (table, method, seed) to ``--out`` (labels kept, so label-free measures can be
computed afterwards without refitting). Resumable: a line already in ``--out`` is skipped.

    python studies/deep_pool_run.py --half design --seeds 0 1 2 3 4 --out design.jsonl

Issue 42's runs (docs/deep.md): ``--save-pool bench_out/pool.json`` once, then one process
per half with ``--pool bench_out/pool.json --no-guard --jobs JOBS`` where JOBS lists
``[half, table, method, seed]`` for the methods ``ae-kmeans idec thesis`` (every table, seed
after seed) and then ``attention`` (check half: seeds 0-4; design half: seed 0 only, for
time), followed by ``deep_pool_eval.py`` and ``deep_pool_margin.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
from sklearn.metrics import normalized_mutual_info_score as nmi

sys.path.insert(0, os.path.dirname(__file__))
import deep_pool  # noqa: E402


def split_codes(X):
    cat = [c for c in X.columns if X[c].dtype == object]
    num = [c for c in X.columns if c not in cat]
    codes = np.stack([X[c].factorize()[0] for c in cat], axis=1) if cat else \
        np.zeros((len(X), 0), dtype=np.int64)
    nums = X[num].to_numpy(np.float64) if num else np.zeros((len(X), 0))
    return codes, nums


def classical(name: str, X, k: int, seed: int) -> np.ndarray:
    from catembed.deep import _guard

    codes, nums = split_codes(X)
    if name == "ref-old":
        return _guard.reference_partition(codes, nums, k, seed).labels
    if name == "ref-new":
        return _guard.reference_partition(codes, nums, k, seed).labels
    if name == "kmodes-binned":
        from catembed.cluster.kmodes import KModes
        from catembed.stats._numeric import quantile_edges
        B = X.copy()
        for c in X.columns:
            if X[c].dtype != object:
                B[c] = np.searchsorted(quantile_edges(X[c].to_numpy(), 5),
                                       X[c].to_numpy(), side="right").astype(str)
        return KModes(k, random_state=seed, n_init=10, init="random").fit(B).labels_
    if name == "consensus":
        from catembed.cluster import Consensus
        return Consensus(n_clusters=k, random_state=seed).fit(X).labels_
    raise ValueError(name)


DEEP = {
    "ae-kmeans": ("catembed.deep", "AutoencoderKMeans", {}),
    "idec": ("catembed.deep", "IDEC", {}),
    "attention": ("catembed.deep", "AttentionClusterer", {}),
    "thesis": ("catembed.deep", "ThesisClusterer", {}),
    "thesis-ae-idec": ("catembed.deep", "ThesisClusterer", {"clustering": "idec"}),
    "idec-cde": ("catembed.deep", "IDEC", {"value_init": "cde"}),
    "attention-cde": ("catembed.deep", "AttentionClusterer", {"value_init": "cde"}),
}


def deep(name: str, X, k: int, seed: int, guard: bool = True) -> dict:
    import importlib
    mod, cls, params = DEEP[name]
    est = getattr(importlib.import_module(mod), cls)(n_clusters=k, random_state=seed,
                                                     guard=guard, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    msgs = [str(w.message)[:160] for w in caught if "catembed" in type(w.category).__module__
            or w.category.__name__ == "CatEmbedWarning"]
    ref = getattr(est, "reference_", None)
    return {"labels": est.labels_.tolist(), "fallback": bool(getattr(est, "fallback_", False)),
            "warnings": msgs,
            "ref_labels": None if ref is None else np.asarray(ref.labels).tolist(),
            "ref_nmi": None}


def load_pool(path: str | None) -> dict:
    """The pool tables, from ``path`` (a pickle written by ``--save-pool``) or prepared here."""
    if path and os.path.exists(path):
        import pandas as pd
        with open(path) as f:
            raw = json.load(f)
        return {t: deep_pool.Table(t, pd.DataFrame({c: pd.Series(v, dtype=object if c in r["cat"]
                                                             else np.float64)
                                                    for c, v in r["data"].items()}),
                                   np.asarray(r["y"], dtype=object), r["k"])
                for t, r in raw.items()}
    return {t: deep_pool.load(t) for t in deep_pool.DESIGN + deep_pool.CHECK}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--half", choices=["design", "check"])
    ap.add_argument("--tables", nargs="*")
    ap.add_argument("--methods", nargs="+")
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    ap.add_argument("--out")
    ap.add_argument("--no-guard", action="store_true",
                    help="deep fits with guard=False: the restart's own labels (the guard's "
                    "decision is applied afterwards by deep_pool_eval.py)")
    ap.add_argument("--quiet", action="store_true", help="print no scores")
    ap.add_argument("--pool", help="JSON of the prepared pool (written by --save-pool)")
    ap.add_argument("--save-pool", help="write the prepared pool to this JSON file and stop")
    ap.add_argument("--jobs", help="a JSON list of [half, table, method, seed] jobs (in "
                    "priority order) instead of --half/--tables/--methods/--seeds")
    ap.add_argument("--shard", default="0/1", help="i/n: run jobs i, i+n, i+2n, ...")
    a = ap.parse_args()
    if a.save_pool:
        out = {t: {"data": {c: tab.X[c].tolist() for c in tab.X.columns},
                   "cat": [c for c in tab.X.columns if tab.X[c].dtype == object],
                   "y": [str(v) for v in tab.y], "k": tab.n_clusters}
               for t, tab in load_pool(None).items()}
        with open(a.save_pool, "w") as f:
            json.dump(out, f)
        return
    pool = load_pool(a.pool)
    if a.jobs:
        jobs = [tuple(j) for j in json.load(open(a.jobs))]
    else:
        names = a.tables or (deep_pool.DESIGN if a.half == "design" else deep_pool.CHECK)
        jobs = [(a.half, t, m, s) for t in names for m in a.methods for s in a.seeds]
    for half, t, _, _ in jobs:
        assert t in (deep_pool.DESIGN if half == "design" else deep_pool.CHECK), (half, t)
    i, n = map(int, a.shard.split("/"))
    jobs = jobs[i::n]
    done = set()
    if os.path.exists(a.out):
        for line in open(a.out):
            r = json.loads(line)
            done.add((r["table"], r["method"], r["seed"]))
    for _, t, m, s in jobs:
        if (t, m, s) in done:
            continue
        tab = pool[t]
        t0 = time.perf_counter()
        if m in DEEP:
            rec = deep(m, tab.X, tab.n_clusters, s, guard=not a.no_guard)
        else:
            rec = {"labels": np.asarray(classical(m, tab.X, tab.n_clusters, s)).tolist()}
        rec.update(table=t, method=m, seed=s, seconds=time.perf_counter() - t0,
                   guard=not a.no_guard, nmi=float(nmi(tab.y, rec["labels"])))
        if rec.get("ref_labels") is not None:
            rec["ref_nmi"] = float(nmi(tab.y, rec["ref_labels"]))
        with open(a.out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        if a.quiet:
            print(f"{t:22s} {m:15s} seed {s} {rec['seconds']:6.1f}s", flush=True)
            continue
        print(f"{t:22s} {m:15s} seed {s} nmi {rec['nmi']:.3f} "
              f"{rec['seconds']:6.1f}s fb={rec.get('fallback')} "
              f"warn={len(rec.get('warnings', []))}", flush=True)


if __name__ == "__main__":
    main()
