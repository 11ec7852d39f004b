"""CDE fit + transform time on Adult and on a 200k x 8 synthetic table.

Adult: the 30,162 complete rows of the training split with its 8 categorical attributes
(the CDE paper's setting), read from ``$CATEMBED_SHARED/datasets/adult`` (default
``../shared/datasets/adult``). The authors' MATLAB code takes about 8 s on it.

Usage: ``python benchmarks/bench_cde.py [--repeat 5]``
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

from catembed import CDE, CatEmbedWarning
from catembed.datasets import load_dataset
from synthetic import planted_frame

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def adult_frame():
    ds = load_dataset(SHARED / "datasets" / "adult")
    df = ds.frame
    df = df[df["split"] == "train"]
    df = df[ds.categorical_columns]
    return df[(df != "").all(axis=1) & df.notna().all(axis=1)]


def time_cde(name: str, X, repeat: int) -> None:
    fit, transform, dims = [], [], 0
    for seed in range(repeat):
        t0 = time.perf_counter()
        cde = CDE(random_state=seed).fit(X)
        t1 = time.perf_counter()
        Z = cde.transform(X)
        t2 = time.perf_counter()
        fit.append(t1 - t0)
        transform.append(t2 - t1)
        dims = Z.shape[1]
    total = np.add(fit, transform)
    print(f"{name}: {X.shape[0]:,} rows x {X.shape[1]} attributes, |V| = "
          f"{cde.stats_.n_values}, output {dims} dims; fit + transform median "
          f"{np.median(total):.3f} s (fit {np.median(fit):.3f} s, transform "
          f"{np.median(transform):.3f} s), min {total.min():.3f} s over {repeat} seeds")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    warnings.simplefilter("ignore", CatEmbedWarning)
    if (SHARED / "datasets" / "adult" / "data.csv").exists():
        time_cde("Adult", adult_frame(), args.repeat)
    else:
        print(f"Adult not found under {SHARED / 'datasets'}; skipped")
    time_cde("synthetic planted", planted_frame(200_000, 8, 10, seed=0), args.repeat)


if __name__ == "__main__":
    main()
