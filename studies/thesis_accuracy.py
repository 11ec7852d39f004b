"""Which clustering accuracy does the thesis (Fehling, Figure 1.3) report? (issue 13)

Answer used in: the thesis-*-acc tables (``acc``: catembed.metrics.matched_accuracy);
docs/deep.md, "Which accuracy does the thesis report?".

The thesis draft does not define its "Cluster Accuracy". This script runs the thesis' four
classical methods (the ``thesis-acc`` columns, one run, seed 0, the table's presets) and
scores the same labels under three definitions, beside the thesis' own cells:

* ``hungarian``: one-to-one (Hungarian) matching of clusters to classes
  (:func:`catembed.metrics.matched_accuracy`, the library's ``acc``);
* ``purity``: every cluster mapped to its majority class, ``sum_j max_c n_cj / n``
  (Manning, Raghavan, Schuetze 2008, Sec. 16.3; several clusters may map to one class);
* ``raw``: the cluster ids compared with the label-encoded classes, no matching
  (``sklearn.metrics.accuracy_score`` on ``LabelEncoder`` codes).

For each definition it prints the per-cell difference to the thesis and how many cells lie
within 0.01 and 0.03. No label enters a method; the labels only score.

Usage: ``python studies/thesis_accuracy.py [--datasets a,b] [--data-dir DIR]``.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.metrics import accuracy_score
from sklearn.metrics.cluster import contingency_matrix
from sklearn.preprocessing import LabelEncoder

from catembed.evaluation import bench, protocol
from catembed.metrics import matched_accuracy

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CLASSICAL = ["Naive k-means", "k-means one-hot", "k-prototypes", "Gower distance"]
DEFS = ("hungarian", "purity", "raw")


def purity(y: np.ndarray, labels: np.ndarray) -> float:
    """Fraction of the rows in their cluster's majority class."""
    return float(contingency_matrix(y.astype(str), labels).max(axis=0).sum() / len(y))


def _raw(y: np.ndarray, labels: np.ndarray) -> float:
    return float(accuracy_score(LabelEncoder().fit_transform(y.astype(str)), labels))


def parse_args(doc: str) -> argparse.Namespace:
    """``--datasets a,b`` and ``--data-dir DIR``, shared with ``thesis_majority.py``."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--datasets", default=None)
    ap.add_argument("--data-dir", default=str(SHARED / "datasets"))
    return ap.parse_args()


def run_scored(table: str, columns: list[str], extra: Callable[[np.ndarray, np.ndarray], dict],
               args: argparse.Namespace) -> Any:
    """One run (seed 0) of ``columns`` of a thesis table, every run's scores extended by
    ``extra(y, labels)`` (labels only score; the protocol's own scores are kept)."""
    original = protocol.clustering_scores

    def scores(y: np.ndarray, labels: np.ndarray) -> dict[str, float]:
        out = original(y, labels)
        out.update(extra(np.asarray(y, dtype=object), np.asarray(labels)))
        return out

    protocol.clustering_scores = scores
    try:
        return bench.run_table(table, data_dir=args.data_dir, runs=1, columns=columns,
                               datasets=args.datasets.split(",") if args.datasets else None,
                               log=lambda s: print(s, file=sys.stderr, flush=True))
    finally:
        protocol.clustering_scores = original


def main() -> None:
    args = parse_args(__doc__)
    result = run_scored(
        "thesis-acc", CLASSICAL,
        lambda yy, labels: dict(hungarian=matched_accuracy(yy, labels),
                                purity=purity(yy, labels), raw=_raw(yy, labels),
                                n_used=len(np.unique(labels))),
        args)
    near = {d: [0, 0] for d in DEFS}
    n = 0
    print(f"{'data':24} {'method':16} {'thesis':>7} " + " ".join(f"{d:>9}" for d in DEFS)
          + " clusters")
    for row in result.rows:
        if row.status != "ok":
            print(f"{row.label:24} {row.status}")
            continue
        paper = result._paper_row(row.name)["scores"]
        for lab in CLASSICAL:
            res = row.results[lab]
            if res.status != "ok":
                print(f"{row.label:24} {lab:16} {res.status}: {res.message}")
                continue
            r = res.runs[0]
            t = paper[lab]
            n += 1
            for d in DEFS:
                near[d][0] += abs(r[d] - t) <= 0.01
                near[d][1] += abs(r[d] - t) <= 0.03
            print(f"{row.label:24} {lab:16} {t:7.3f} "
                  + " ".join(f"{r[d]:9.3f}" for d in DEFS) + f" {r['n_used']:>4}", flush=True)
    print(f"cells within 0.01 / 0.03 of the thesis (of {n}): "
          + ", ".join(f"{d} {a} / {b}" for d, (a, b) in near.items()))


if __name__ == "__main__":
    main()
