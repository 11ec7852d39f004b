"""Which label-free criterion finds a categorical table's number of groups k, and says k = 1 on a
table without groups? (issue 38)

Answer used in: src/catembed/cluster/consensus/_auto_k.py (``Consensus("auto")``);
docs/consensus-design.md,
"Choosing k: the evidence".

Design study for choosing k without labels (issue 38, part 2).

Question: which label-free criterion finds the number of groups of a categorical table,
and says "no clear groups" (k = 1) on a table without any? Candidates, each computed on at
most ``--sample`` rows:

* ``bic``: the latent class model's BIC, ``-2 log L + p log n`` with
  ``p = (K - 1) + K sum_j (l_j - 1)``; K = 1 is the independence model, so a table whose
  columns are independent is answered with k = 1;
* ``caic``: ``-2 log L + p (log n + 1)`` (consistent AIC, stricter than BIC);
* ``sabic``: BIC with ``log((n + 2) / 24)`` (sample-size adjusted, looser).

Design pool: planted latent-class tables with k = 2..8 groups (several shapes: few/many
columns, values per column, purity, unequal sizes, mixed numeric columns), structureless
tables (independent columns, skewed or uniform), and the shared UCI sets (where the
partition at the chosen k is compared with the partition at the class count).

    PYTHONPATH=src python studies/auto_k_design.py [--reps 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from catembed.cluster.lca import LCA  # noqa: E402


def planted(n: int, k: int, n_cols: int, n_values: int, purity: float, unequal: bool,
            seed: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Latent classes: each class prefers one value per column (taken with ``purity``),
    otherwise a uniform value."""
    rng = np.random.default_rng(seed)
    p = np.linspace(1.0, 3.0, k) if unequal else np.ones(k)
    g = rng.choice(k, size=n, p=p / p.sum())
    pref = rng.integers(0, n_values, size=(k, n_cols))
    take = rng.random((n, n_cols)) < purity
    codes = np.where(take, pref[g], rng.integers(0, n_values, size=(n, n_cols)))
    return pd.DataFrame({f"c{j}": codes[:, j].astype(str) for j in range(n_cols)}), g


def structureless(n: int, n_cols: int, n_values: int, skew: bool, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(n_cols):
        p = rng.dirichlet(np.full(n_values, 0.5 if skew else 50.0))
        cols[f"c{j}"] = rng.choice(n_values, size=n, p=p).astype(str)
    return pd.DataFrame(cols)


def criteria(df: pd.DataFrame, ks: range, seed: int) -> pd.DataFrame:
    n = len(df)
    levels = [df[c].nunique(dropna=False) for c in df.columns]
    rows = []
    for k in ks:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m = LCA(k, n_init=5, random_state=seed).fit(df)
        p = (k - 1) + k * sum(v - 1 for v in levels)
        ll = m.log_likelihood_
        rows.append({"k": k, "ll": ll, "bic": -2 * ll + p * np.log(n),
                     "caic": -2 * ll + p * (np.log(n) + 1),
                     "sabic": -2 * ll + p * np.log((n + 2) / 24)})
    return pd.DataFrame(rows).set_index("k")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--kmax", type=int, default=9)
    args = ap.parse_args()
    shapes = [  # n, cols, values, purity, unequal
        (1000, 10, 4, 0.6, False), (2000, 20, 5, 0.45, False), (1000, 8, 3, 0.75, True),
        (3000, 15, 10, 0.4, True),
    ]
    out = []
    for rep in range(args.reps):
        for s, (n, cols, vals, pur, uneq) in enumerate(shapes):
            for k in range(2, 9):
                df, _ = planted(n, k, cols, vals, pur, uneq, seed=100 * rep + 10 * s + k)
                t = time.perf_counter()
                c = criteria(df, range(1, args.kmax + 1), rep)
                row = {"table": f"planted{s}", "true": k, "rep": rep,
                       "s": time.perf_counter() - t}
                row.update({name: int(c[name].idxmin()) for name in ("bic", "caic", "sabic")})
                out.append(row)
                print(row, file=sys.stderr, flush=True)
        for s, (n, cols, vals, skew) in enumerate([(1000, 10, 4, False), (2000, 20, 6, True),
                                                   (500, 6, 3, True)]):
            df = structureless(n, cols, vals, skew, seed=rep * 7 + s)
            c = criteria(df, range(1, 5), rep)
            row = {"table": f"null{s}", "true": 1, "rep": rep}
            row.update({name: int(c[name].idxmin()) for name in ("bic", "caic", "sabic")})
            out.append(row)
            print(row, file=sys.stderr, flush=True)
    t = pd.DataFrame(out)
    for name in ("bic", "caic", "sabic"):
        t[f"ok_{name}"] = t[name] == t["true"]
    print(t.groupby("table")[[c for c in t.columns if c.startswith("ok_")]].mean().round(2))
    print(t[[c for c in t.columns if c.startswith("ok_")]].mean().round(3))
    t.to_csv("/tmp/auto_k_design.csv", index=False)


if __name__ == "__main__":
    main()
