"""Does the shipped ``Consensus(n_clusters="auto")`` find the planted k (k = 2..8) on >= 90 % of
planted tables, mixed included, and answer "no clear groups" (k = 1) on >= 90 % of
structureless tables? (issue 38 acceptance)

Answer used in: docs/consensus-design.md, "Choosing k: the evidence".

The acceptance measurement of the k rule of ``src/catembed/cluster/consensus/_auto_k.py`` as shipped
(a permutation test of the columns' dependence decides k = 1, else the latent class BIC
picks k >= 2); the rule is frozen and not tuned here. ``studies/auto_k_design.py`` ran the
raw LCA BIC on its four categorical shapes, one repetition; this script runs
``Consensus("auto", random_state=rep)`` itself (default members, default everything,
warnings recorded but not shown) on the pool below.

The pool was declared in this file and committed before its first run (no table, shape
or seed was changed after seeing a result):

* planted latent-class tables, k = 2..8, ``--reps`` repetitions (different seeds, fresh:
  not the seeds of auto_k_design.py):

  * ``cat0``-``cat3``: the four categorical shapes of auto_k_design.py (its ``planted``);
  * ``mix0``-``mix2``: mixed, the categorical columns of ``planted`` plus numeric columns
    (float) whose mean depends on the hidden class: Gaussian with unit spread whose class
    means are ``gap`` standard deviations apart (classes in a random order per column),
    and, in ``mix1``, a skewed (log-normal) column whose log-mean depends on the class;

* structureless tables (independent columns), ``--reps`` repetitions: ``null0``-``null2``
  the three shapes of auto_k_design.py's ``structureless``, ``null3``-``null5`` small
  categorical ones (100-300 rows), ``null6``-``null9`` and ``null11`` mixed ones
  (independent Gaussian or log-normal numeric columns), ``null10`` a large one with many
  values.

Recorded per table: the true k, the chosen ``n_clusters_``, ``dependence_z_``, seconds, the
ARI of the labels with the planted groups (planted tables only) and the warnings' texts.
Printed: per shape the exact-k rate, mean |k error|, mean ARI and mean seconds; overall the
planted exact-k rate (all, categorical, mixed) and the structureless k = 1 rate. The rows
go to ``--out`` (a CSV, default under /tmp).

    OMP_NUM_THREADS=1 PYTHONPATH=src python studies/auto_k_acceptance.py [--reps 2]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))

from auto_k_design import planted, structureless  # noqa: E402
from catembed.cluster import Consensus  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402

# planted shapes: name -> (n, categorical columns, values, purity, unequal groups,
#                          Gaussian numeric columns, their gap in SD, one log-normal column)
PLANTED = {
    "cat0": (1000, 10, 4, 0.6, False, 0, 0.0, False),
    "cat1": (2000, 20, 5, 0.45, False, 0, 0.0, False),
    "cat2": (1000, 8, 3, 0.75, True, 0, 0.0, False),
    "cat3": (3000, 15, 10, 0.4, True, 0, 0.0, False),
    "mix0": (1000, 8, 4, 0.6, False, 3, 1.5, False),
    "mix1": (2000, 12, 5, 0.45, True, 2, 1.0, True),
    "mix2": (1500, 5, 3, 0.6, True, 4, 2.0, False),
}
# structureless shapes: name -> (n, categorical columns, values, skewed values,
#                                Gaussian numeric columns, log-normal numeric columns)
NULL = {
    "null0": (1000, 10, 4, False, 0, 0),
    "null1": (2000, 20, 6, True, 0, 0),
    "null2": (500, 6, 3, True, 0, 0),
    "null3": (100, 6, 3, False, 0, 0),
    "null4": (200, 10, 4, True, 0, 0),
    "null5": (300, 8, 5, False, 0, 0),
    "null6": (1000, 8, 4, False, 3, 0),
    "null7": (2000, 12, 5, True, 2, 1),
    "null8": (300, 5, 3, False, 2, 0),
    "null9": (800, 3, 4, False, 4, 0),
    "null10": (3000, 15, 10, False, 0, 0),
    "null11": (250, 4, 3, True, 0, 3),
}
K_PLANTED = range(2, 9)


def planted_table(shape: str, k: int, seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """A planted table of ``shape`` (categorical columns from ``planted``, then the numeric
    columns whose mean depends on the hidden class ``g``)."""
    n, cols, vals, purity, unequal, n_gauss, gap, skewed = PLANTED[shape]
    df, g = planted(n, k, cols, vals, purity, unequal, seed=seed)
    rng = np.random.default_rng(seed + 500_000)
    for j in range(n_gauss):
        means = gap * rng.permutation(k).astype(float)
        df[f"x{j}"] = rng.normal(means[g], 1.0).astype(float)
    if skewed:
        log_means = 0.5 * gap * rng.permutation(k).astype(float)
        df["s0"] = np.exp(rng.normal(log_means[g], 0.5)).astype(float)
    return df, g


def null_table(shape: str, seed: int) -> pd.DataFrame:
    """A structureless table of ``shape``: every column drawn independently."""
    n, cols, vals, skew, n_gauss, n_lognormal = NULL[shape]
    df = structureless(n, cols, vals, skew, seed=seed)
    rng = np.random.default_rng(seed + 500_000)
    for j in range(n_gauss):
        df[f"x{j}"] = rng.normal(rng.uniform(-3, 3), rng.uniform(0.5, 2.0), size=n)
    for j in range(n_lognormal):
        df[f"s{j}"] = np.exp(rng.normal(0.0, 0.75, size=n))
    return df


def fit_one(df: pd.DataFrame, rep: int) -> dict:
    t = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = Consensus("auto", random_state=rep).fit(df)
    except Exception as exc:  # recorded, not hidden: the report names every failure
        return {"k": np.nan, "z": np.nan, "s": time.perf_counter() - t, "labels": None,
                "error": f"{type(exc).__name__}: {exc}", "warnings": ""}
    texts = sorted({str(w.message)[:70] for w in caught})
    return {"k": int(m.n_clusters_), "z": float(getattr(m, "dependence_z_", np.nan)),
            "s": time.perf_counter() - t, "labels": m.labels_, "error": "",
            "warnings": " | ".join(texts)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--out", default="/tmp/auto_k_acceptance.csv")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.2f}", flush=True)
    rows = []
    start = time.perf_counter()
    for rep in range(args.reps):
        for s, shape in enumerate(PLANTED):
            for k in K_PLANTED:
                df, g = planted_table(shape, k, seed=10_000 + 1000 * rep + 100 * s + k)
                r = fit_one(df, rep)
                ari = ari_codes(g, r["labels"]) if r["labels"] is not None else np.nan
                rows.append({"shape": shape, "kind": shape[:3], "rep": rep, "n": len(df),
                             "columns": df.shape[1], "true_k": k, "k": r["k"], "z": r["z"],
                             "ari": ari, "s": r["s"], "error": r["error"],
                             "warnings": r["warnings"]})
                print({c: rows[-1][c] for c in ("shape", "rep", "true_k", "k", "z", "ari", "s")},
                      file=sys.stderr, flush=True)
        for s, shape in enumerate(NULL):
            df = null_table(shape, seed=20_000 + 1000 * rep + s)
            r = fit_one(df, rep)
            rows.append({"shape": shape, "kind": "null", "rep": rep, "n": len(df),
                         "columns": df.shape[1], "true_k": 1, "k": r["k"], "z": r["z"],
                         "ari": np.nan, "s": r["s"], "error": r["error"],
                         "warnings": r["warnings"]})
            print({c: rows[-1][c] for c in ("shape", "rep", "true_k", "k", "z", "s")},
                  file=sys.stderr, flush=True)
        pd.DataFrame(rows).to_csv(args.out, index=False)
    t = pd.DataFrame(rows)
    t.to_csv(args.out, index=False)
    t["exact"] = t["k"] == t["true_k"]
    t["abs_err"] = (t["k"] - t["true_k"]).abs()
    per = t.groupby("shape", sort=False).agg(
        tables=("exact", "size"), exact_k=("exact", "mean"), mean_abs_k_error=("abs_err", "mean"),
        mean_ari=("ari", "mean"), mean_z=("z", "mean"), mean_s=("s", "mean"),
        errors=("error", lambda e: int((e != "").sum())))
    print(per.round(3).to_string())
    pl = t[t["kind"] != "null"]
    print("\nplanted, exact k per true k:")
    print(pl.groupby("true_k")["exact"].mean().round(3).to_string())
    print("\nchosen k (rows: true k, columns: chosen k):")
    print(pd.crosstab(t["true_k"], t["k"]).to_string())
    for label, part in (("planted, all", pl), ("planted, categorical", t[t["kind"] == "cat"]),
                        ("planted, mixed", t[t["kind"] == "mix"]),
                        ("structureless (k = 1)", t[t["kind"] == "null"])):
        print(f"{label}: exact k on {int(part['exact'].sum())} of {len(part)} "
              f"({part['exact'].mean():.1%})")
    print(f"errors: {int((t['error'] != '').sum())}; total {time.perf_counter() - start:.0f} s; "
          f"load average at end: {os.getloadavg()[0]:.2f}; rows in {args.out}")


if __name__ == "__main__":
    main()
