"""Average ranks of every column of one or more bench runs, as one Markdown table.

Reads the JSON that ``catembed bench --table ID --json`` prints. Runs of the same table
(e.g. a run of some columns and a later run of others, same seeds and runs) are merged
data set by data set before ranking. On each data set where every column has a score the
columns are ranked (1 = best, ties share the mean rank, Demsar 2006) and the ranks averaged;
each column's mean score over the same sets is shown beside its rank. A later file's cell
replaces an earlier one's for the same data set and column (list partial runs first).

With runs of more than one table, a last row ranks the columns that every table has on all
those tables' sets pooled (the issue 12 goal: the best average rank over all sets).

Usage: ``python benchmarks/rank_tables.py RUN.json [RUN.json ...]``
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict

import numpy as np
from scipy.stats import rankdata


def _mean(cell: dict, metric: str) -> float:
    ours = cell.get("ours") or {}
    if ours.get("status") != "ok":
        return float("nan")
    v = ours.get(f"{metric}_mean")
    return float("nan") if v is None else float(v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    args = ap.parse_args()
    tables: dict[str, dict] = defaultdict(lambda: {"scores": defaultdict(dict), "labels": [],
                                                   "metric": None, "runs": set()})
    for path in args.runs:
        with open(path, encoding="utf-8") as fh:
            d = json.load(fh)
        t = tables[d["table"]]
        t["metric"] = d["metric"]
        t["runs"].add(d["runs"])
        for row in d["rows"]:
            if row["status"] != "ok":
                continue
            for lab, cell in row["cells"].items():
                v = _mean(cell, d["metric"])
                if np.isfinite(v):
                    t["scores"][row["dataset"]][lab] = v
                    if lab not in t["labels"]:
                        t["labels"].append(lab)
    print("| table | metric | runs | sets ranked "
          "| average rank, 1 = best (mean score on those sets) |")
    print("|---|---|---:|---:|---|")
    for tid, t in tables.items():
        labels = t["labels"]
        full = [s for s in t["scores"].values() if all(lab in s for lab in labels)]
        ranks = [rankdata([-s[lab] for lab in labels]) for s in full]
        if not ranks:
            continue
        mean = np.mean(ranks, axis=0)
        score = np.mean([[s[lab] for lab in labels] for s in full], axis=0)
        order = np.argsort(mean, kind="stable")
        cells = ", ".join(f"{labels[i]} {mean[i]:.2f} ({score[i]:.3f})" for i in order)
        print(f"| {tid} | {t['metric']} | {'/'.join(map(str, sorted(t['runs'])))} | "
              f"{len(ranks)} | {cells} |")
    if len(tables) > 1:
        common = [lab for lab in next(iter(tables.values()))["labels"]
                  if all(lab in t["labels"] for t in tables.values())]
        full = [s for t in tables.values() for s in t["scores"].values()
                if all(lab in s for lab in common)]
        if common and full:
            mean = np.mean([rankdata([-s[lab] for lab in common]) for s in full], axis=0)
            order = np.argsort(mean, kind="stable")
            cells = ", ".join(f"{common[i]} {mean[i]:.2f}" for i in order)
            print(f"| all, pooled | - | - | {len(full)} | {cells} |")


if __name__ == "__main__":
    main()
