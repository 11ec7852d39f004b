"""Does giving each attribute's kernel spaces the same energy mend UNTIE's near-collapse on planted
tables? (issue 25)

Answer used in: src/catembed/embed/untie.py (``scale``); docs/reproducing.md, "UNTIE's scale".

UNTIE's kernel-space scale on planted tables (issue 25): ``scale="none"`` (the paper's
spaces) against ``scale="attribute"`` (equal energy per attribute) and Couplings.

Labels are used only to score the planted groups (NMI of k-means, MATLAB seeding, seeds
0-4); nothing here looks at a benchmark data set. ``python studies/untie_scale_study.py``
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import normalized_mutual_info_score

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # synthetic.py
from catembed.cluster.embedding_labels import kmeans_labels  # noqa: E402
from catembed.embed.couplings import Couplings  # noqa: E402
from catembed.embed.untie import UNTIE  # noqa: E402
from synthetic import credit_like_frame, planted_codes, wide_noise_frame  # noqa: E402


def nmi(Z: np.ndarray, g: np.ndarray, runs: int = 5) -> float:
    k = len(np.unique(g))
    return float(np.mean([normalized_mutual_info_score(g, kmeans_labels(Z, k, r, init="matlab"))
                          for r in range(runs)]))


def rare_frame(seed: int, n: int = 600) -> tuple[pd.DataFrame, np.ndarray]:
    """Planted codes (12 attributes, 6 values, 3 groups, 55% pure), 1% of cells replaced by
    one of 10 rare values and 2% of rows by uniform random values."""
    codes, g = planted_codes(n, 12, 6, 3, purity=0.55, seed=seed)
    rng = np.random.default_rng(seed + 100)
    df = pd.DataFrame({f"a{j}": codes[:, j].astype(str) for j in range(12)})
    mask = rng.random(df.shape) < 0.01
    rare = pd.DataFrame("r" + rng.integers(0, 10, df.shape).astype(str), columns=df.columns)
    df = df.mask(mask, rare)
    out = rng.random(n) < 0.02
    df.loc[out] = rng.integers(0, 6, (int(out.sum()), 12)).astype(str)
    return df, g


def main() -> None:
    warnings.simplefilter("ignore")
    cases = [(f"wide n_wide={w} decimals={d}",
              lambda w=w, d=d: wide_noise_frame(n_wide=w, decimals=d))
             for w in (1, 2, 3) for d in (0, 1, 2)]
    cases += [(f"credit-like seed {s}", lambda s=s: credit_like_frame(seed=s)) for s in range(3)]
    cases += [(f"rare/outlier rows seed {s}", lambda s=s: rare_frame(s)) for s in range(3)]
    print("| table | widths | none | attribute | Couplings |")
    print("|---|---|---:|---:|---:|")
    for name, make in cases:
        df, g = make()
        k = len(np.unique(g))
        cells = []
        for scale in ("none", "attribute"):
            est = UNTIE(n_clusters=k, n_components="all", scale=scale).fit(df)
            cells.append(nmi(est.transform(df), g))
        cells.append(nmi(Couplings().fit_transform(df), g))
        w = df.nunique()
        print(f"| {name} | {w.min()}-{w.max()} | " + " | ".join(f"{c:.3f}" for c in cells) + " |",
              flush=True)


if __name__ == "__main__":
    main()
