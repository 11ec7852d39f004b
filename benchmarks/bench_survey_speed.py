"""Speed of MGR, LSH-k-representatives and OCL beside catembed's KModes (issue 39).

    CATEMBED_DATA=.../shared/datasets python benchmarks/bench_survey_speed.py \
        [--repeats 3] [--rows 100000] [--big 1000000]

One run, interleaved: for each repeat, each table (Zoo k=7, Soybean-small k=4, Mushroom k=2,
every column categorical, missing as a value; a planted ``rows x 20`` table, 10 values a
column, 8 groups, k=8), each method is fitted once in turn (``KModes``: Cao's start, one
run; OCL: ``random_state`` = the repeat). Every fit prints its time, its ratio to the
KModes fit of the same repeat and table, and the 1-minute load average beside it (the
machine is shared). The summary gives the range over the repeats. The ``big x 20`` table
is not fitted: each method's cost estimate (``fit_cost``) and whether the default limit
(ten minutes) refuses it.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

from catembed import CatEmbedError  # noqa: E402
from catembed.cluster import (  # noqa: E402
    MGR,
    OCL,
    KModes,
    LSHKRepresentatives,
    lshkreps,
    mgr,
    ocl,
)
from catembed.cluster._coded import check_cost  # noqa: E402
from catembed.datasets import load_dataset  # noqa: E402
from synthetic import planted_codes  # noqa: E402

METHODS = ("kmodes", "mgr", "lsh-kreps", "ocl")
COST = {"mgr": (MGR, mgr.fit_cost), "lsh-kreps": (LSHKRepresentatives, lshkreps.fit_cost),
        "ocl": (OCL, ocl.fit_cost)}


def _make(method: str, k: int, seed: int):
    if method == "mgr":
        return MGR(k)
    if method == "lsh-kreps":
        return LSHKRepresentatives(k)
    if method == "ocl":
        return OCL(k, random_state=seed)
    return KModes(n_clusters=k, categorical_features="all", random_state=seed)


def _tables(rows: int) -> list[tuple[str, object, int]]:
    out = []
    for name, k in (("zoo", 7), ("soybean_small", 4), ("mushroom", 2)):
        ds = load_dataset(name)
        out.append((name, ds.frame.drop(columns=[ds.target, *ds.id_columns]), k))
    if rows:
        codes, _ = planted_codes(rows, 20, 10, n_groups=8, purity=0.5, seed=0)
        out.append((f"planted {rows}x20", codes, 8))
    return out


def timings(repeats: int, rows: int) -> dict:
    times: dict = {}
    print(f"{'rep':>3s} {'table':22s} {'method':10s} {'fit s':>9s} {'x KModes':>9s} "
          f"{'load':>5s}")
    tables = _tables(rows)
    for rep in range(repeats):
        for name, X, k in tables:
            base = None
            for method in METHODS:
                est = _make(method, k, rep)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    est.fit(X)
                    t = time.perf_counter() - t0
                base = base or t
                times.setdefault((name, method), []).append((t, t / base))
                print(f"{rep:3d} {name:22s} {method:10s} {t:9.3f} {t / base:9.1f} "
                      f"{os.getloadavg()[0]:5.1f}", flush=True)
    return times


def summary(times: dict) -> None:
    print(f"\n{'table':22s} {'method':10s} {'fit s (min-max)':>20s} {'x KModes (min-max)':>20s}")
    for (name, method), runs in times.items():
        t, r = np.array(runs).T
        print(f"{name:22s} {method:10s} {t.min():9.3f}-{t.max():<9.3f} "
              f"{r.min():9.1f}-{r.max():<9.1f}")


def estimates(rows: int) -> None:
    sizes, k = np.full(20, 10), 8
    print(f"\n{rows} x 20 (10 values a column, k={k}), not fitted: the cost check")
    for method, (cls, cost) in COST.items():
        est = cost(rows, sizes, k)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check_cost(cls(k), rows, sizes, **est)
            verdict = "allowed"
        except CatEmbedError as err:
            verdict = f"refused: {err}"
        print(f"{method:10s} estimate {est['seconds']:8.0f} s  {verdict}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--big", type=int, default=1_000_000)
    args = ap.parse_args()
    os.environ.pop("CATEMBED_MAX_SECONDS", None)
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    summary(timings(args.repeats, args.rows))
    if args.big:
        estimates(args.big)


if __name__ == "__main__":
    main()
