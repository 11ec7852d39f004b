"""Fit time of LCME (ours) on the largest set of each table it was ranked on, beside its peers.

For Adult (``cde-1``, preset ``cde``), Chess krkopt (``cdepp-3``) and Connect-4 (``untie-4``)
with each table's preset: the median over 3 seeds of ``LCME().fit``, and in the same run
``MCA(10).fit`` and one ``LCA(n_classes).fit`` (the clusterer that ranks first), in seconds.
Needs the shared data sets (``--data-dir`` or ``$CATEMBED_SHARED/datasets``).

Usage: ``python benchmarks/bench_lcme.py [--data-dir DIR]``
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np

from catembed.cluster.lca import LCA
from catembed.datasets import load_dataset
from catembed.embed import LCME, MCA

SETS = (
    ("cde-1", "adult", "cde"),
    ("cdepp-3", "chess_krkopt", {"columns": "features", "rows": "all", "drop_constant": True}),
    ("untie-4", "connect_4", {"columns": "categorical", "rows": "all", "drop_constant": True}),
)


def _median_time(make, X, seeds=(0, 1, 2)) -> float:
    times = []
    for s in seeds:
        est = make(s)
        t0 = time.perf_counter()
        est.fit(X)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=os.path.join(os.environ.get("CATEMBED_SHARED", "."),
                                                       "datasets"))
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    print("| table | data | n | Q | J | LCME fit (s) | MCA fit (s) | LCA fit (s) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for table, name, preset in SETS:
        ds = load_dataset(name, data_dir=args.data_dir, preset=preset)
        X = ds.features
        k = int(ds.labels.nunique())
        est = LCME(random_state=0).fit(X)
        t_lcme = _median_time(lambda s: LCME(random_state=s), X)
        t_mca = _median_time(lambda s: MCA(10), X)
        t_lca = _median_time(lambda s, k=k: LCA(k, random_state=s), X, seeds=(0,))
        print(f"| {table} | {name} | {len(X)} | {est.stats_.n_features} | "
              f"{est.stats_.n_values} | {t_lcme:.2f} | {t_mca:.2f} | {t_lca:.2f} |", flush=True)


if __name__ == "__main__":
    main()
