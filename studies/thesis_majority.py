"""How high can a one-cluster labelling score on the thesis' sets? (issue 13)

Answer used in: docs/deep.md, "Accuracy: where the thesis' best is a near one-cluster
labelling".

The thesis' best accuracies on Bank Marketing, Census Income and Auction Verification
(Fehling, Figure 1.3) are Gower distance + average linkage, whose NMIs there are near 0.
This script checks the argument with numbers: for every set of ``thesis-deep-acc`` (its
presets) it prints the majority class' share, the accuracy of the labelling that puts
every row in one cluster under the thesis' (one-to-one matched) accuracy
(:func:`catembed.metrics.matched_accuracy`) and its NMI, the thesis' best accuracy cell,
and, from one run of the ``Gower distance`` column (seed 0), the share of the rows in
Gower's largest cluster and its matched accuracy and NMI. Labels only score.

Usage: ``python studies/thesis_majority.py [--datasets a,b] [--data-dir DIR]``.
"""

from __future__ import annotations

import numpy as np
from sklearn.metrics import normalized_mutual_info_score

from catembed.evaluation import bench
from catembed.metrics import matched_accuracy
from thesis_accuracy import CLASSICAL, parse_args, run_scored  # studies/ is on sys.path


def _one_cluster(yy: np.ndarray, labels: np.ndarray) -> dict[str, float]:
    yy = yy.astype(str)
    one = np.zeros(len(yy), dtype=int)
    _, counts = np.unique(yy, return_counts=True)
    return dict(majority=counts.max() / len(yy), one_acc=matched_accuracy(yy, one),
                one_nmi=normalized_mutual_info_score(yy, one),
                largest=np.bincount(np.unique(labels, return_inverse=True)[1]).max() / len(yy))


def main() -> None:
    args = parse_args(__doc__)
    result = run_scored("thesis-deep-acc", ["Gower distance"], _one_cluster, args)
    nmi_table = bench.load_table("thesis-deep-nmi")
    thesis_nmi = {d["name"]: d["scores"] for d in nmi_table["datasets"]}
    print(f"{'data':24} {'majority':>8} {'1-cl acc':>8} {'1-cl NMI':>8} {'thesis best acc':>24} "
          f"{'Gower NMI (thesis)':>18} {'Gower largest':>13} {'acc':>6} {'NMI':>6}")
    for row in result.rows:
        if row.status != "ok":
            print(f"{row.label:24} {row.status}")
            continue
        paper = result._paper_row(row.name)["scores"]
        best = max(CLASSICAL, key=lambda c: paper[c])
        r = row.results["Gower distance"].runs[0]
        print(f"{row.label:24} {r['majority']:8.3f} {r['one_acc']:8.3f} {r['one_nmi']:8.3f} "
              f"{paper[best]:7.3f} ({best:>15}) {thesis_nmi[row.name]['Gower distance']:18.3f} "
              f"{r['largest']:13.3f} {r['acc']:6.3f} {r['nmi']:6.3f}", flush=True)


if __name__ == "__main__":
    main()
