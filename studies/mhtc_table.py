"""Which figures does MHTC's published comparison give on the shared sets it also ran? (issue 53,
item 6)

Answer used in: src/catembed/evaluation/tables/mhtc-ari.json and mhtc-acc.json
(``catembed bench --table mhtc-ari``); docs/benchmarks.md, "MHTC's comparison (TKDD 2025)".

MHTC (hulianyu/MHTC on GitHub, TKDD 2025) re-ran 12 methods on 25 UCI sets, k = the number of
classes, 50 random starts, and published every mean in
``ComparisonResults/Performance/PerformanceComparison-2025.mat`` (``Metric_<method>``: 25 x 7,
the columns ACC, NMI, Purity, ARI, Precision, Recall, F-score of its
``Evaluation/ClusteringMeasure.m``; the rows in the order of ``Datasets/DataInfo.mat``). This
script reads those two files (fetched from the repository, not kept here) and writes the ARI
and ACC figures of the 13 sets the shared folder holds as bench tables. Only the figures are
kept. The NMI is left out: MHTC divides the mutual information by the larger entropy, catembed's
``nmi`` by their mean.

How the shared sets were matched to MHTC's data files (``Datasets/<set>.txt``, class in the
first column, checked by this session column by column: every MHTC column is a relabelling of
one shared column, row for row): all rows, a missing value a value of its own, constant
columns dropped; solar flare is the ``flare1`` part (323 rows) without the three flare counts,
class the Zurich class; Titanic's class is the passenger class (``status``, 4 values), the
columns age, sex and survived; Mushroom without ``stalk_root`` (and the constant
``veil_type``). Primary tumor: the same 339 rows and per-column value counts, but MHTC's file
has another row order (checked by the counts only).

    python studies/mhtc_table.py PerformanceComparison-2025.mat DataInfo.mat
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parents[1] / "src" / "catembed" / "evaluation" / "tables"

#: MHTC's file name -> (shared folder, label, preset overrides)
SETS = {
    "lenses": ("lenses", "Lenses", {}),
    "soybean-small": ("soybean_small", "Soybean small", {}),
    "zoo": ("zoo", "Zoo", {}),
    "dna-promoter": ("promoters", "DNA promoter", {}),
    "solar-flare": ("solar_flare", "Solar flare", {
        "split": "flare1", "drop": ["c_class_flares", "m_class_flares", "x_class_flares"]}),
    "primary-tumor": ("primary_tumor", "Primary tumor", {}),
    "balance-scale": ("balance_scale", "Balance scale", {}),
    "breast-cancer-wisconsin": ("breast_cancer_wisconsin", "Breast cancer Wisconsin", {}),
    "tic-tac-toe": ("tic_tac_toe", "Tic-tac-toe", {}),
    "titanic": ("titanic", "Titanic", {}),
    "chess": ("chess_kr_vs_kp", "Chess", {}),
    "mushroom": ("mushroom", "Mushroom", {"drop": ["stalk_root"]}),
    "nursery": ("nursery", "Nursery", {}),
}
#: the .mat's methods, as MHTC names them, and catembed's method for each
METHODS = {"MHTC": ("MHTC", "mhtc", None), "CU": ("CU", "cu", None),
           "kmodes": ("k-modes", "kmodes-hamming", {"init": "random"}),
           "Entropy": ("Entropy", "entropy-clustering", None),
           "CDC_DR": ("CDC_DR", "cdc-dr", None), "CMS": ("CMS", "cms", None),
           "CDE": ("CDE", "cde", None), "HDNDW": ("HD-NDW", "hd-ndw", None),
           "Het2Hom": ("Het2Hom", "het2hom", None), "COForest": ("COForest", "coforest", None),
           "SigDT": ("SigDT", "sigdt", None), "Random": ("Random", "random-partition", None)}
METRICS = {"ari": 3, "acc": 0}


def table(mat: dict, names: list[str], metric: str) -> dict:
    col = METRICS[metric]
    columns = []
    for label, method, params in METHODS.values():
        entry = {"label": label, "method": method}
        if params:
            entry["params"] = params
        columns.append(entry)
    columns.append({"label": "Consensus", "method": "consensus", "extra": True})
    datasets = []
    for mh, (folder, label, preset) in SETS.items():
        i = names.index(mh)
        entry = {"name": folder, "label": label}
        if folder == "titanic":
            entry["target"] = "status"
        if preset:
            entry["preset"] = {"columns": "features", "rows": "all", "drop_constant": True,
                               **preset}
        entry["scores"] = {METHODS[m][0]: round(float(mat[f"Metric_{m}"][i, col]), 4)
                           for m in METHODS}
        datasets.append(entry)
    word = {"ari": "ARI", "acc": "accuracy (one-to-one matched)"}[metric]
    return {
        "id": f"mhtc-{metric}",
        "title": f"{word} of twelve categorical clusterers re-run by MHTC (TKDD 2025) on the "
                 "13 shared sets of its 25",
        "paper": "Hu, Jiang, Liu, Zou, He. Clustering Categorical Data via Multiple Hypothesis "
                 "Testing (MHTC), ACM TKDD 19(5), 109 (2025), doi 10.1145/3735977",
        "source": "GitHub hulianyu/MHTC, ComparisonResults/Performance/"
                  "PerformanceComparison-2025.mat (Metric_<method>, means of 50 runs, column "
                  f"{col + 1} of ClusteringMeasure's ACC, NMI, Purity, ARI, ...), rows "
                  "matched by Datasets/DataInfo.mat; extracted by studies/mhtc_table.py",
        "task": "cluster",
        "metric": metric,
        "protocol": {"runs": 50},
        "preset": {"columns": "features", "rows": "all", "drop_constant": True},
        "factors": [{"key": "n_rows", "label": "n"}, {"key": "n_features", "label": "m"},
                    {"key": "n_classes", "label": "k"}],
        "columns": columns,
        "datasets": datasets,
        "notes": "MHTC's own data files were matched to the shared sets column by column "
                 "(studies/mhtc_table.py): solar flare is flare1 without the flare counts, "
                 "Titanic's class the passenger class, Mushroom without stalk_root; primary "
                 "tumor's rows are in another order in MHTC's file. k-modes is MHTC's "
                 "random-start k-modes (kmodes-hamming, init='random'), CDE with k-means; "
                 "the other MHTC columns are not catembed methods. Consensus (ours, the "
                 "default) is an extra column. The 12 other MHTC sets are kept back.",
    }


def main() -> None:
    import scipy.io

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mat", help="PerformanceComparison-2025.mat")
    ap.add_argument("info", help="Datasets/DataInfo.mat")
    args = ap.parse_args()
    mat = scipy.io.loadmat(args.mat)
    names = [str(f).strip() for f in scipy.io.loadmat(args.info)["filename"]]
    assert int(np.asarray(mat["ET"]).ravel()[0]) == 50
    for metric in METRICS:
        path = OUT / f"mhtc-{metric}.json"
        path.write_text(json.dumps(table(mat, names, metric), indent=1) + "\n")
        print("wrote", path)


if __name__ == "__main__":
    main()
