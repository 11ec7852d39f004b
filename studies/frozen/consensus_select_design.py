"""Design study for issue 38 (after the combination study): should ``Consensus`` *choose*,
without labels, among candidate partitions instead of always returning the side-by-side
(``concat``) partition?

Answer used in: src/catembed/cluster/consensus/_combine.py (``select_partition``) and
consensus.py (``combine="select"``, the default); docs/consensus-design.md, "Issue 38: choosing
among candidate partitions".

Question: the concat partition is below the median of its members' own
``KMeans(n_init=10)`` partitions on some tables (Zoo: concat .800, LCME alone .899) and
lands on one of two partitions on Titanic. Does a label-free choice among the concat
partition and the members' own partitions do better, on tables the rule was not chosen on?
Answer: ``pair`` (below), frozen on the design half, passed the check half and the
acceptance tables and is ``Consensus(combine="select")``, the default; the tables are in
``docs/consensus-design.md``.

Candidates (per table and seed, from one default fit, ``Recording`` of
``consensus_v2_design.py``): ``concat`` (the default's labels) and every member's
``KMeans(n_init=10)`` partition of its own embedding (the issue's reference line). LCA is
not a candidate (a fit of its own; the members do not hold it). The rules, declared before
any run (few on purpose):

* ``medoid``: the candidate with the largest mean ARI with the other candidates;
* ``medoid-w``: the same, the mean weighted by the members' agreement weights
  (``member_weights_``; the concat candidate's weight is the members' mean weight);
* ``pair``: ``medoid`` restricted to ``concat`` and the member with the largest agreement
  weight (its score still the mean ARI with all the other candidates);
* ``anmi``: Strehl & Ghosh's (2002) "supra-consensus": the candidate with the largest
  agreement-weighted mean NMI with every member's k-means runs (the ensemble itself, not
  the candidates).

Protocol, written down before the first run:

* pool: ``design_pool(1000)`` of ``consensus_concat_design.py`` (40 tables), seeds 0 and 1;
* split: the pool's tables sorted by name; positions 0, 2, 4, ... are the *design* half,
  1, 3, 5, ... the *check* half;
* choice on the design half only: the rule with the largest mean ARI among those with no
  more tables (seed-mean ARI) below the median member than ``concat``; if none, the rule
  with the fewest such tables (then the larger mean). That rule is frozen;
* adopted only if on the check half it is not worse than ``concat`` in mean ARI and has no
  more tables below the median member, and no acceptance table (``--part acceptance``,
  the tables of ``consensus_acceptance.py``, 5 seeds) loses more than .02.

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/frozen/consensus_select_design.py \
        --part pool --half design        # the design half (the check half: --half check)
    ... --part acceptance                # Zoo, Soybean small, Mushroom, R's Titanic, 5 seeds
    ... --part shared                    # the 29 shared sets, 2,000 rows, seed 0
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import normalized_mutual_info_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # studies/: the live scripts

from catembed.metrics import ari_codes  # noqa: E402
from consensus_concat_design import design_pool  # noqa: E402
from consensus_v2_design import POOL, Recording, _km10, run_tables, shared_tables  # noqa: E402

RULES = ("medoid", "medoid-w", "pair", "anmi")
#: frozen on the design half (seeds 0-1) before the check half was read: the rules with no
#: more tables below the median member than concat (4 of 20) were medoid (.319, 3),
#: medoid-w (.322, 4) and pair (.325, 3); anmi had 5. Concat's mean was .331.
FROZEN = "pair"


def halves(names: list[str]) -> dict[str, str]:
    """The declared split: sorted names, even positions design, odd positions check."""
    return {n: ("design" if i % 2 == 0 else "check") for i, n in enumerate(sorted(names))}


def choose(cands: dict[str, np.ndarray], w: np.ndarray, runs: list) -> dict[str, str]:
    """The candidate each rule picks (label-free: candidates and runs only)."""
    names = list(cands)
    c = len(names)
    A = np.zeros((c, c))
    for i in range(c):
        for j in range(i + 1, c):
            A[i, j] = A[j, i] = ari_codes(cands[names[i]], cands[names[j]])
    off = ~np.eye(c, dtype=bool)
    mean = (A * off).sum(axis=1) / (c - 1)
    v = np.append(w.mean(), w)  # names[0] is concat, then the members in order
    vw = np.array([(A[i] * v * off[i]).sum() / (v * off[i]).sum() for i in range(c)])
    top = 1 + int(np.argmax(w))
    anmi = [sum(wi * np.mean([normalized_mutual_info_score(cands[n], r) for r in rr])
                for rr, wi in zip(runs, w, strict=True)) / w.sum() for n in names]
    return {"medoid": names[int(np.argmax(mean))], "medoid-w": names[int(np.argmax(vw))],
            "pair": names[top] if mean[top] > mean[0] else "concat",
            "anmi": names[int(np.argmax(anmi))]}


def candidates(name: str, df: pd.DataFrame, y: np.ndarray, k: int, seed: int):
    """One default fit's candidates: ``(model, {name: labels}, {name: ARI}, row)``; the row
    holds the table, seed, concat's ARI and the median and best member's."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Recording(k, members=list(POOL), random_state=seed).fit(df)
    spaces = model.spaces_[: len(model.members_)]
    cands = {"concat": model.labels_}
    cands.update({m: _km10(Z, k, seed) for m, Z in zip(model.members_, spaces, strict=True)})
    score = {n: ari_codes(y, lab) for n, lab in cands.items()}
    out = {"table": name, "seed": seed, "concat": score["concat"]}
    members = [score[m] for m in model.members_]
    out["median-km10"], out["best-km10"] = float(np.median(members)), float(np.max(members))
    return model, cands, score, out


def study(name: str, df: pd.DataFrame, y: np.ndarray, k: int, seed: int) -> dict:
    model, cands, score, out = candidates(name, df, y, k, seed)
    for rule, pick in choose(cands, np.asarray(model.member_weights_), model.runs_).items():
        out[rule], out[f"pick:{rule}"] = score[pick], pick
    out.update({f"km10:{m}": score[m] for m in model.members_})
    return out


def acceptance_tables():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from consensus_acceptance import tables

    for name, X, y in tables():
        yield name, X, y, len(np.unique(y))


def summary(table: pd.DataFrame) -> pd.DataFrame:
    cols = ["median-km10", "best-km10", "concat", *RULES]
    mean = table.groupby("table", sort=True)[cols].mean()
    below = mean[cols].lt(mean["median-km10"] - 1e-9, axis=0).sum()
    return mean, pd.DataFrame({
        "mean ARI": mean[cols].mean(), "tables below median member": below,
        "... by > .02": mean[cols].lt(mean["median-km10"] - .02, axis=0).sum(),
        "runs below median member": table[cols].lt(table["median-km10"] - 1e-9,
                                                   axis=0).sum(),
        "worst gap to median": mean[cols].sub(mean["median-km10"], axis=0).min()})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("pool", "acceptance", "shared"), default="pool")
    ap.add_argument("--half", choices=("design", "check"), default="design")
    ap.add_argument("--seeds", type=int, default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out = args.out or f"/tmp/consensus_select_{args.part}" + (
        f"_{args.half}.csv" if args.part == "pool" else ".csv")
    if args.part == "pool":
        tables = design_pool(1000)
        half = halves([t[0] for t in tables])
        tables = [t for t in tables if half[t[0]] == args.half]
        seeds = args.seeds or 2
    elif args.part == "acceptance":
        tables, seeds = list(acceptance_tables()), args.seeds or 5
    else:
        tables, seeds = list(shared_tables(2000)), args.seeds or 1
    table = pd.DataFrame(run_tables(tables, seeds, study, out))
    pd.set_option("display.width", 250)
    mean, overall = summary(table)
    if args.part == "acceptance":
        cols = ["median-km10", "best-km10", "concat", *RULES]
        print(table.groupby("table", sort=False)[cols].agg(["mean", "std"]).round(3)
              .to_string())
    else:
        print(mean.round(3).to_string())
    print(overall.round(3).to_string())
    print(f"frozen rule: {FROZEN}")
    picks = table[[f"pick:{r}" for r in RULES]].apply(lambda s: s.value_counts()).fillna(0)
    print(picks.astype(int).to_string())


if __name__ == "__main__":
    main()
