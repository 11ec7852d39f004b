"""Which column ranks best over the data sets of a bench table, or of several tables pooled? (issue
26)

Answer used in: docs/reproducing.md and docs/consensus-design.md (the average-rank tables).

Average ranks of every column of one or more bench runs, as Markdown tables.

Reads the JSON that ``catembed bench --table ID --json`` prints. Runs of the same table
(e.g. a run of some columns and a later run of others, same seeds and runs) are merged
data set by data set before ranking. On each data set where every column has a score the
columns are ranked (1 = best, ties share the mean rank, Demsar 2006) and the ranks averaged;
each column's mean score over the same sets is shown beside its rank. A later file's cell
replaces an earlier one's for the same data set and column (list partial runs first).

With runs of more than one table, the tables are pooled (the issue 26 acceptance): every
(table, data set) is one set, the columns that scored there ranked among themselves, and each
method
(the registry name of a column, with its clusterer when that is not k-means, so that
"CDE" of one table and "CDE" of another are one method) gets

* its average rank over the sets it appears in (and their number), and its average scaled
  rank ``(rank - 1) / (columns - 1)`` (0 = best, 1 = worst: sets with many columns weigh
  no more than sets with few),
* how many of those sets put it in the bottom third (rank > 2/3 of the set's columns),
* how many of them it scores within 0.05 of the set's best column.

``--focus LABEL`` adds one line per set for that column: its score, the best column and its
score, the gap, its rank among the set's columns.

``--portfolio KEY,KEY,...`` (method keys, e.g. Consensus' members ``cde,mca,lcme,idf,onehot``)
adds a ceiling for any rule that picks one of those methods per set: on each set the best of
them *chosen with the labels* (an oracle no label-free rule can beat by picking), counted like
the methods above (bottom third, within 0.05 of the set's best column other than the
``--exclude`` column, e.g. ``Consensus``), and the sets where even that pick misses. It reads
the labels' scores only; it chooses nothing.

Usage: ``python studies/rank_tables.py RUN.json [RUN.json ...] [--focus Consensus]``
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from typing import Any

import numpy as np
from scipy.stats import rankdata

#: a score at most this far below a set's best counts as "within reach of the best"
NEAR_BEST = 0.05


def _mean(cell: dict, metric: str) -> float:
    ours = cell.get("ours") or {}
    if ours.get("status") != "ok":
        return float("nan")
    v = ours.get(f"{metric}_mean")
    return float("nan") if v is None else float(v)


def _key(cell: dict, label: str) -> str:
    """The method a column runs: its registry name (``+clusterer`` unless k-means or the
    method's own), else its label."""
    ours = cell.get("ours") or {}
    method = ours.get("method") or label
    clus = ours.get("clusterer")
    return method if clus in (None, "kmeans", method) else f"{method}+{clus}"


def read_runs(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per table: metric, runs, column labels, label -> method key, and the scores
    ``{data set: {label: mean score}}`` (merged over the documents, later ones winning)."""
    tables: dict[str, dict] = defaultdict(lambda: {"scores": defaultdict(dict), "labels": [],
                                                   "keys": {}, "metric": None, "runs": set()})
    for d in docs:
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
                    t["keys"][lab] = _key(cell, lab)
                    if lab not in t["labels"]:
                        t["labels"].append(lab)
    return dict(tables)


def table_ranks(t: dict[str, Any]) -> tuple[list[str], np.ndarray, np.ndarray, int]:
    """``(labels, mean rank, mean score, sets)`` over the sets where every column scored."""
    labels = t["labels"]
    full = [s for s in t["scores"].values() if all(lab in s for lab in labels)]
    if not full:
        return labels, np.array([]), np.array([]), 0
    ranks = [rankdata([-s[lab] for lab in labels]) for s in full]
    score = np.mean([[s[lab] for lab in labels] for s in full], axis=0)
    return labels, np.mean(ranks, axis=0), score, len(full)


def set_rows(tables: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """One entry per (table, data set) with at least two scored columns: the labels, method
    keys, scores and ranks of the columns that scored there (a column that failed on a set
    is left out of that set, not the set out of the pool)."""
    out = []
    for tid, t in tables.items():
        for ds, s in t["scores"].items():
            labels = [lab for lab in t["labels"] if lab in s]
            if len(labels) < 2:
                continue
            scores = np.array([s[lab] for lab in labels])
            out.append({"table": tid, "dataset": ds, "labels": labels,
                        "keys": [t["keys"][lab] for lab in labels], "scores": scores,
                        "ranks": rankdata(-scores)})
    return out


def pooled(sets: list[dict[str, Any]], near: float = NEAR_BEST) -> list[dict[str, Any]]:
    """Per method over the pooled sets: mean rank, sets, bottom-third and near-best counts,
    best mean rank first."""
    acc: dict[str, dict[str, Any]] = {}
    for s in sets:
        n = len(s["labels"])
        best = float(s["scores"].max())
        for lab, key, score, rank in zip(s["labels"], s["keys"], s["scores"], s["ranks"],
                                         strict=True):
            a = acc.setdefault(key, {"method": key, "label": lab, "ranks": [], "scaled": [],
                                     "bottom": 0, "near": 0})
            a["ranks"].append(float(rank))
            a["scaled"].append((float(rank) - 1.0) / (n - 1.0))
            a["bottom"] += int(rank > 2.0 * n / 3.0)
            a["near"] += int(score >= best - near - 1e-12)
    out = [{**a, "sets": len(a["ranks"]), "mean_rank": float(np.mean(a["ranks"])),
            "mean_scaled": float(np.mean(a["scaled"]))} for a in acc.values()]
    return sorted(out, key=lambda a: (a["mean_rank"], a["method"]))


def focus_rows(sets: list[dict[str, Any]], label: str) -> list[dict[str, Any]]:
    """Per set holding the column ``label``: its score, the best other column, gap, rank."""
    out = []
    for s in sets:
        if label not in s["labels"]:
            continue
        i = s["labels"].index(label)
        others = [j for j in range(len(s["labels"])) if j != i]
        j = max(others, key=lambda j: s["scores"][j])
        out.append({"table": s["table"], "dataset": s["dataset"],
                    "score": float(s["scores"][i]), "best": s["labels"][j],
                    "best_score": float(s["scores"][j]),
                    "gap": float(s["scores"][i] - s["scores"][j]),
                    "rank": float(s["ranks"][i]), "columns": len(s["labels"])})
    return out


def portfolio_ceiling(sets: list[dict[str, Any]], keys: set[str], exclude: str | None = None,
                      near: float = NEAR_BEST) -> list[dict[str, Any]]:
    """Per set holding at least one of the method ``keys``: the best of them (picked with the
    labels), its score and rank among all the set's columns, and the set's best column other
    than ``exclude`` (e.g. the combination whose members ``keys`` are) and its score."""
    out = []
    for s in sets:
        idx = [j for j, k in enumerate(s["keys"]) if k in keys]
        if not idx:
            continue
        j = max(idx, key=lambda j: s["scores"][j])
        b = max((i for i, lab in enumerate(s["labels"]) if lab != exclude),
                key=lambda i: s["scores"][i])
        n = len(s["labels"])
        out.append({"table": s["table"], "dataset": s["dataset"], "pick": s["labels"][j],
                    "score": float(s["scores"][j]), "rank": float(s["ranks"][j]),
                    "columns": n, "best": s["labels"][b], "best_score": float(s["scores"][b]),
                    "bottom": bool(s["ranks"][j] > 2.0 * n / 3.0),
                    "near": bool(s["scores"][j] >= s["scores"][b] - near - 1e-12)})
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--focus", help="a column label: one line per set (score vs the best)")
    ap.add_argument("--portfolio", help="method keys, comma-separated: the best of them per "
                    "set, picked with the labels (a ceiling for selecting one of them)")
    ap.add_argument("--exclude", help="a column label left out of the set's best column for "
                    "--portfolio (e.g. Consensus, whose members the portfolio lists)")
    args = ap.parse_args(argv)
    docs = []
    for path in args.runs:  # a run still going (empty file) or killed is skipped, said so
        try:
            with open(path, encoding="utf-8") as fh:
                docs.append(json.load(fh))
        except (OSError, ValueError) as exc:
            print(f"rank_tables: skipping {path}: {exc}", file=sys.stderr)
    tables = read_runs(docs)
    print("| table | metric | runs | sets ranked "
          "| average rank, 1 = best (mean score on those sets) |")
    print("|---|---|---:|---:|---|")
    for tid, t in tables.items():
        labels, mean, score, n = table_ranks(t)
        if not n:
            continue
        order = np.argsort(mean, kind="stable")
        cells = ", ".join(f"{labels[i]} {mean[i]:.2f} ({score[i]:.3f})" for i in order)
        print(f"| {tid} | {t['metric']} | {'/'.join(map(str, sorted(t['runs'])))} | "
              f"{n} | {cells} |")
    sets = set_rows(tables)
    if len(tables) > 1 and sets:
        print()
        print(f"Pooled over {len(sets)} (table, data set) pairs of {', '.join(tables)}: each "
              "set's columns ranked among themselves (1 = best).")
        print()
        print(f"| method | label | sets | average rank | scaled rank | bottom third | within "
              f"{NEAR_BEST:.2f} of the best |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for a in pooled(sets):
            print(f"| {a['method']} | {a['label']} | {a['sets']} | {a['mean_rank']:.2f} | "
                  f"{a['mean_scaled']:.2f} | {a['bottom']} | {a['near']} |")
    if args.focus:
        print()
        print(f"| table | data set | {args.focus} | best other column | its score | gap | "
              "rank / columns |")
        print("|---|---|---:|---|---:|---:|---:|")
        for r in focus_rows(sets, args.focus):
            print(f"| {r['table']} | {r['dataset']} | {r['score']:.3f} | {r['best']} | "
                  f"{r['best_score']:.3f} | {r['gap']:+.3f} | {r['rank']:g} / {r['columns']} |")
    if args.portfolio:
        rows = portfolio_ceiling(sets, set(args.portfolio.split(",")), args.exclude)
        print()
        print(f"Best of {args.portfolio} per set, picked with the labels: {len(rows)} sets, "
              f"bottom third on {sum(r['bottom'] for r in rows)}, within {NEAR_BEST:.2f} of "
              f"the best column{' but ' + args.exclude if args.exclude else ''} on "
              f"{sum(r['near'] for r in rows)}. The sets it misses:")
        print()
        print("| table | data set | best column | its score | best pick | its score | "
              "rank / columns |")
        print("|---|---|---|---:|---|---:|---:|")
        for r in rows:
            if r["bottom"] or not r["near"]:
                print(f"| {r['table']} | {r['dataset']} | {r['best']} | {r['best_score']:.3f} "
                      f"| {r['pick']} | {r['score']:.3f} | {r['rank']:g} / {r['columns']} |")


if __name__ == "__main__":
    main()
