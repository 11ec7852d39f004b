"""``catembed report`` on 50,000 rows with a 50,000-value column (issue 37, item 7).

Times :func:`catembed.stats._profiles.cluster_profiles` alone and the whole report (no consensus,
no target) on a generated table: one column of distinct values plus four ordinary ones.
Wall and CPU seconds are printed; on a loaded machine the CPU time is the fairer figure.

    PYTHONPATH=src python benchmarks/bench_report_many_values.py [--rows 50000] [--method cde]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd


def table(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "id_like": [f"v{i:06d}" for i in rng.permutation(n)],
        "colour": rng.choice(["red", "green", "blue", "black"], n),
        "size": rng.choice(["s", "m", "l"], n, p=[0.5, 0.3, 0.2]),
        "shape": rng.choice(list("abcdefgh"), n),
        "flag": rng.choice(["y", "n"], n),
    })


def clock(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--clusters", type=int, default=8)
    parser.add_argument("--method", default="cde")
    args = parser.parse_args()
    from catembed.report import build_report, render_html
    from catembed.stats._profiles import cluster_profiles

    X = table(args.rows)
    labels = np.random.default_rng(1).integers(0, args.clusters, len(X))
    prof, wall, cpu = clock(lambda: cluster_profiles(X, labels, top=5))
    print(f"cluster_profiles, {len(X)} rows, k={args.clusters}: {wall:.2f} s wall, "
          f"{cpu:.2f} s CPU, {len(prof)} rows")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        data, wall, cpu = clock(lambda: build_report(X, method=args.method, quiet=True,
                                                     consensus=False))
    page = render_html(data)
    print(f"build_report ({args.method}): {wall:.1f} s wall, {cpu:.1f} s CPU; page "
          f"{len(page) / 1e6:.1f} MB; steps: "
          + ", ".join(f"{k} {v:.1f}" for k, v in data.timings.items()))


if __name__ == "__main__":
    main()
