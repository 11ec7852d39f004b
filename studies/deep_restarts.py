"""Does the restart criterion of the deep clusterers track cluster quality? (issue 13)

Answer used in: docs/deep.md, "Why: the label-free criterion does not track the classes".

``n_init`` keeps the restart with the lowest final IDEC loss (``objective_``), chosen
without labels. This script looks afterwards, with the labels, at what the criterion
chose: for one data set of ``thesis-deep-nmi`` (its preset), one model and several
``random_state`` seeds, it fits with ``n_init`` restarts, records every restart's
objective and labels, and prints each restart's NMI and matched accuracy, which one was
kept, and the Spearman correlation between objective and NMI over all restarts. The
labels only score; nothing here feeds back into a setting.

Usage: ``python studies/deep_restarts.py --dataset adult --model IDEC [--seeds 0,1,2,3,4]
[--n-init 3]``.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import normalized_mutual_info_score

import catembed.deep as deep
from catembed.datasets import apply_preset, load_dataset
from catembed.deep import clustering
from catembed.evaluation import bench
from catembed.metrics import matched_accuracy

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dataset", required=True)
    ap.add_argument("--model", default="IDEC",
                    choices=["AutoencoderKMeans", "IDEC", "AttentionClusterer"])
    ap.add_argument("--seeds", default="0,1,2,3,4")
    ap.add_argument("--n-init", type=int, default=3)
    ap.add_argument("--data-dir", default=str(SHARED / "datasets"))
    args = ap.parse_args()
    spec = bench.load_table("thesis-deep-nmi")
    entry = next(e for e in spec["datasets"] if e["name"] == args.dataset)
    raw = load_dataset(bench.find_dataset(entry, args.data_dir))
    raw.name = entry["name"]
    data = apply_preset(raw, entry.get("preset", spec.get("preset", "complete")))
    X, y = data.features, np.asarray(data.labels, dtype=object).astype(str)
    k = len(np.unique(y))
    runs: list[dict] = []
    original = clustering._DeepClusterer._fit_one

    def recording(self, *a, **kw):  # keeps every restart's labels for scoring afterwards
        run = original(self, *a, **kw)
        runs.append({"objective": run["objective"], "labels": np.array(run["labels"])})
        return run

    clustering._DeepClusterer._fit_one = recording
    cls = getattr(deep, args.model)
    objs, nmis = [], []
    print(f"{args.dataset}, {args.model}, k={k}, n_init={args.n_init}")
    print(f"{'seed':>4} {'restart':>7} {'objective':>10} {'NMI':>6} {'acc':>6} kept")
    for seed in map(int, args.seeds.split(",")):
        runs.clear()
        model = cls(k, n_init=args.n_init, random_state=seed).fit(X)
        for r, run in enumerate(runs):
            nmi = normalized_mutual_info_score(y, run["labels"])
            objs.append(run["objective"])
            nmis.append(nmi)
            print(f"{seed:>4} {r:>7} {run['objective']:10.5f} {nmi:6.3f} "
                  f"{matched_accuracy(y, run['labels']):6.3f} "
                  f"{'*' if r == model.best_init_ else ''}", flush=True)
    rho = spearmanr(objs, nmis)
    print(f"Spearman(objective, NMI) over {len(objs)} restarts: {rho.statistic:.3f} "
          f"(p = {rho.pvalue:.3f}); negative = a lower objective goes with a higher NMI")


if __name__ == "__main__":
    main()
