"""MGR and LSH-k-representatives against catembed's KModes: quality on the survey's sets,
time on the same tables (issue 39).

    CATEMBED_DATA=.../shared/datasets python benchmarks/bench_survey_clusterers.py \
        [--seeds 5] [--rows 1000000] [--features 20] [--k 8]

Zoo (k=7), Soybean-small (k=4), Mushroom (k=2; all 8124 rows, missing as a value, as the
survey ran it): ARI, NMI, ACC (Hungarian) means over the seeds, beside the survey's figures
(``_output_<Set>/average_metrics_all_algorithms.csv``; for k-modes its Cao row), and the
median fit time of each method beside ``KModes`` (Cao's start, one run) on the same table.
Then one fit of each on a planted ``rows x features`` table (10 values a column, ``k``
groups). MGR and LSH-k-representatives are deterministic: the seeds only repeat them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

sys.path.insert(0, os.path.dirname(__file__))

from catembed.cluster import MGR, KModes, LSHKRepresentatives  # noqa: E402
from catembed.datasets import load_dataset  # noqa: E402
from catembed.metrics import matched_accuracy  # noqa: E402
from synthetic import planted_codes  # noqa: E402

#: the survey's figures (ARI, NMI, ACC): MGR, LSH-k-representatives, k-modes with Cao's
#: start (KModes' default, one run)
SURVEY = {
    "zoo": {"mgr": (0.9555, 0.9301, 0.9109), "lsh-kreps": (0.6793, 0.7968, 0.7723),
            "kmodes": (0.5884, 0.7635, 0.6733)},
    "soybean_small": {"mgr": (0.6738, 0.8229, 0.8298), "lsh-kreps": (1.0, 1.0, 1.0),
                      "kmodes": (1.0, 1.0, 1.0)},
    "mushroom": {"mgr": (-0.0011, 0.0242, 0.5034), "lsh-kreps": (0.6009, 0.5383, 0.8876),
                 "kmodes": (0.5637, 0.5507, 0.8754)},
}
SETS = {"zoo": 7, "soybean_small": 4, "mushroom": 2}


def _make(name: str, k: int, seed: int):
    if name == "mgr":
        return MGR(k)
    if name == "lsh-kreps":
        return LSHKRepresentatives(k)
    return KModes(n_clusters=k, categorical_features="all", random_state=seed)


def _timed_fit(est, X) -> tuple[np.ndarray, float]:
    t0 = time.perf_counter()
    labels = est.fit(X).labels_
    return labels, time.perf_counter() - t0


def survey_sets(seeds: int) -> None:
    print(f"{'set':14s} {'method':10s} {'ARI':>7s} {'NMI':>7s} {'ACC':>7s}   survey ARI/NMI/ACC"
          f"      fit s  x KModes")
    for ds_name, k in SETS.items():
        ds = load_dataset(ds_name)
        X = ds.frame.drop(columns=[ds.target, *ds.id_columns])
        y = ds.frame[ds.target].astype(str).to_numpy()
        times = {}
        for method in ("kmodes", "mgr", "lsh-kreps"):
            scores, secs = [], []
            for seed in range(seeds):
                labels, t = _timed_fit(_make(method, k, seed), X)
                secs.append(t)
                scores.append((adjusted_rand_score(y, labels),
                               normalized_mutual_info_score(y, labels),
                               matched_accuracy(y, labels)))
            times[method] = float(np.median(secs))
            a, n, c = np.mean(scores, axis=0)
            pa, pn, pc = SURVEY[ds_name][method]
            print(f"{ds_name:14s} {method:10s} {a:7.4f} {n:7.4f} {c:7.4f}   "
                  f"{pa:.4f}/{pn:.4f}/{pc:.4f}  {times[method]:8.3f}  "
                  f"{times[method] / times['kmodes']:6.1f}")


def planted(rows: int, features: int, k: int) -> None:
    codes, groups = planted_codes(rows, features, 10, n_groups=k, purity=0.5, seed=0)
    print(f"\nplanted {rows} x {features}, 10 values a column, k={k}")
    base = None
    for method in ("kmodes", "mgr", "lsh-kreps"):
        labels, t = _timed_fit(_make(method, k, 0), codes)
        base = base or t
        print(f"{method:10s} fit {t:8.2f} s  ({t / base:4.1f} x KModes)  ARI vs planted "
              f"{adjusted_rand_score(groups, labels):.4f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=20)
    ap.add_argument("--k", type=int, default=8)
    args = ap.parse_args()
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    survey_sets(args.seeds)
    if args.rows:
        planted(args.rows, args.features, args.k)


if __name__ == "__main__":
    main()
