"""How should ``Consensus`` take numeric columns: quantile bins (how many), dropped, FAMD or
k-prototypes?

Answer used in: src/catembed/cluster/consensus/_estimator.py (``n_bins``);
docs/consensus-design.md, "Numeric
columns: the design study".

How :class:`catembed.cluster.Consensus` takes numeric columns: a study on synthetic
planted mixed tables only (:func:`synthetic.planted_mixed`; no bench set is read).

Rules compared (ARI with the planted groups, mean over seeds):

* ``bins=B``        Consensus with every numeric column cut into ``B`` quantile bins;
* ``cat-only``      Consensus on the categorical columns alone (numbers dropped);
* ``famd-km``       FAMD (10 axes, numbers standardised) + k-means, 10 starts: the
                    mixed-type embedding a FAMD member would add;
* ``kprototypes``   k-prototypes (Huang), 1 start per seed.

Scenarios: the categorical and numeric signals about equal, the numbers stronger, the
categories stronger, unequal groups, numbers only, and many numbers (8) beside 2 categories.
Run from the repository root:

    PYTHONPATH=src python studies/frozen/consensus_mixed_design.py [--rows 2000] [--seeds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # studies/: the live scripts
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # synthetic.py

from catembed.cluster import KPrototypes  # noqa: E402
from catembed.cluster.consensus import Consensus  # noqa: E402
from catembed.embed.mca import FAMD  # noqa: E402
from synthetic import planted_mixed  # noqa: E402

#: name -> planted_mixed keyword arguments
SCENARIOS = {
    "balanced": dict(n_categorical=6, n_numeric=3, purity=0.4, separation=1.0),
    "numbers-strong": dict(n_categorical=6, n_numeric=3, purity=0.25, separation=2.0),
    "categories-strong": dict(n_categorical=6, n_numeric=3, purity=0.6, separation=0.5),
    "unequal": dict(n_categorical=6, n_numeric=3, purity=0.4, separation=1.0, imbalance=0.5),
    "numbers-only": dict(n_categorical=0, n_numeric=6, separation=1.5),
    "many-numbers": dict(n_categorical=2, n_numeric=8, purity=0.4, separation=1.0),
}
BINS = (3, 5, 8, 12)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    rows = []
    warnings.simplefilter("ignore")
    for sc, kw in SCENARIOS.items():
        for seed in range(args.seeds):
            t = time.perf_counter()
            df, g = planted_mixed(args.rows, seed=seed, **kw)
            k = len(np.unique(g))
            res: dict = {"scenario": sc, "seed": seed}
            for b in BINS:
                lab = Consensus(k, n_bins=b, random_state=seed).fit(df).labels_
                res[f"bins={b}"] = adjusted_rand_score(g, lab)
            cat = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c].dtype)]
            res["cat-only"] = (adjusted_rand_score(
                g, Consensus(k, random_state=seed).fit(df[cat]).labels_) if cat else np.nan)
            Z = FAMD(10).fit_transform(df)
            res["famd-km"] = adjusted_rand_score(
                g, KMeans(k, n_init=10, random_state=seed).fit_predict(Z))
            res["kprototypes"] = adjusted_rand_score(
                g, KPrototypes(n_clusters=k, random_state=seed).fit(df).labels_)
            rows.append(res)
            print(f"{sc:18s} seed {seed} done in {time.perf_counter() - t:.1f}s",
                  file=sys.stderr)
    table = pd.DataFrame(rows)
    cols = [c for c in table.columns if c not in ("scenario", "seed")]
    mean = table.groupby("scenario", sort=False)[cols].mean()
    pd.set_option("display.width", 200)
    print("mean ARI over seeds, per scenario")
    print(mean.round(3).to_string())
    best = mean.max(axis=1)
    print()
    print("rule minus the best rule of the scenario: mean, worst")
    gap = mean.sub(best, axis=0)
    print(pd.DataFrame({"mean": gap.mean(), "worst": gap.min()}).round(3).to_string())


if __name__ == "__main__":
    main()
