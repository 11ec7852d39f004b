"""OCL against catembed's KModes: quality and time on the same tables (issue 39).

    CATEMBED_DATA=.../shared/datasets python benchmarks/bench_ocl.py [--seeds 5] \
        [--sets zoo,soybean_small,mushroom,chess_kr_vs_kp] [--starts ROWS.csv]

Each set as the bench tables read it (``survey-*``: every column categorical, missing as a
value, constant columns kept; ``ocl-large-*``: the categorical columns, constant ones
dropped), ``k`` = the number of classes. For every seed: one OCL fit (random distinct start
rows from the seed) and one ``KModes`` fit from random start rows of the same seed
(``init="random"``, one start: the k-modes of the OCL paper) and one with Cao's start (its
default). Means of ARI, NMI, ACC (Hungarian) over the seeds, the median fit time, and OCL's
time over ``KModes``' (random start).

``--starts ROWS.csv`` (one set only): OCL from given start rows instead, ``k`` 1-based row
numbers per run, one per line (as the authors' ``Execute_Clustering.m`` draws them after
``rand('seed', 8)``; ``docs/reproducing.md``, Connect-4, has the Octave lines that write
such a file); one OCL fit per run, with its scores.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from catembed.cluster import OCL, KModes
from catembed.datasets import apply_preset, load_dataset
from catembed.metrics import matched_accuracy

SURVEY_PRESET = {"columns": "features", "rows": "all", "drop_constant": False}
LARGE_PRESET = {"columns": "categorical", "rows": "all", "drop_constant": True}
SURVEY_SETS = ("zoo", "soybean_small", "mushroom")


def _make(method: str, k: int, seed: int):
    if method == "ocl":
        return OCL(k, random_state=seed)
    init = "random" if method == "kmodes-random" else "cao"
    return KModes(n_clusters=k, init=init, categorical_features="all", random_state=seed)


def _scores(y: np.ndarray, labels: np.ndarray) -> tuple[float, float, float]:
    return (adjusted_rand_score(y, labels), normalized_mutual_info_score(y, labels),
            matched_accuracy(y, labels))


def _load(name: str):
    data = apply_preset(load_dataset(name), SURVEY_PRESET if name in SURVEY_SETS
                        else LARGE_PRESET)
    y = data.labels.astype(str).to_numpy()
    return data.features, y, len(np.unique(y))


def run_starts(name: str, path: str) -> None:
    """OCL from the start rows in ``path`` (1-based, ``k`` per run)."""
    X, y, k = _load(name)
    rows = np.loadtxt(path, dtype=int).reshape(-1, k) - 1
    scores = []
    for t, start in enumerate(rows):
        t0 = time.perf_counter()
        model = OCL(k, init=X.iloc[start].to_numpy()).fit(X)
        scores.append(_scores(y, model.labels_))
        print(f"{name:22s} run {t:<9d} {scores[-1][0]:7.4f} {scores[-1][1]:7.4f} "
              f"{scores[-1][2]:7.4f} {time.perf_counter() - t0:8.3f} (rows {start + 1}, "
              f"{model.n_iter_} passes)", flush=True)
    a, n, c = np.mean(scores, axis=0)
    print(f"{name:22s} {'ocl (mean)':14s} {a:7.4f} {n:7.4f} {c:7.4f}")


def run(name: str, seeds: int) -> None:
    X, y, k = _load(name)
    times = {}
    for method in ("kmodes-random", "kmodes-cao", "ocl"):
        scores, secs = [], []
        for seed in range(seeds):
            t0 = time.perf_counter()
            labels = _make(method, k, seed).fit(X).labels_
            secs.append(time.perf_counter() - t0)
            scores.append(_scores(y, labels))
        times[method] = float(np.median(secs))
        a, n, c = np.mean(scores, axis=0)
        print(f"{name:22s} {method:14s} {a:7.4f} {n:7.4f} {c:7.4f} {times[method]:8.3f} "
              f"{times[method] / times['kmodes-random']:6.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--sets", default="zoo,soybean_small,mushroom,chess_kr_vs_kp")
    ap.add_argument("--starts", help="OCL from these start rows (1-based, k per run)")
    args = ap.parse_args()
    if args.starts and "," in args.sets:
        ap.error("--starts takes one set (--sets NAME)")
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    print(f"{'set':22s} {'method':14s} {'ARI':>7s} {'NMI':>7s} {'ACC':>7s} {'fit s':>8s} "
          f"{'x KM':>6s}")
    if args.starts:
        run_starts(args.sets, args.starts)
        return
    for name in args.sets.split(","):
        run(name, args.seeds)


if __name__ == "__main__":
    main()
