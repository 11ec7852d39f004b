"""High cardinality (issue 11, defect 6): pooling rare values keeps fits small and fast.

Each case runs in a fresh process and prints its fit time and peak resident memory:

* ``one-column``: 1M rows, one column with 100k distinct values (Zipf-like counts) and three
  columns of 5 values; CDE with its default pooling (``max_categories=100``). Target: < 10 s
  and < 2 GB.
* ``adult-csv``: Adult with every column read as text (as a plain CSV without ``--numeric``
  gives it: ``fnlwgt`` alone has ~28k values); CDE with default pooling.
* ``numeric-500x4``: a 500 x 4 table of distinct floats read as categories; CDE.
* ``guard``: 2,000 columns x 20 rows; CDE must refuse at once (estimated memory) instead of
  running for minutes.

Usage: ``python benchmarks/bench_pooling.py [case ...] [--methods cde,untie,...]`` (default:
every case, CDE only; ``--methods`` names keys of :data:`catembed.METHODS`).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd

CASES = ["one-column", "adult-csv", "numeric-500x4", "guard"]


def _table(case: str) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    if case == "one-column":
        n = 1_000_000
        big = (rng.zipf(1.3, n) % 100_000).astype(np.int64)
        big[:100_000] = np.arange(100_000)  # every one of the 100k values occurs
        return pd.DataFrame({
            "big": pd.Series(big).astype(str).to_numpy(dtype=object),
            **{f"c{j}": rng.choice(list("abcde"), n) for j in range(3)},
        })
    if case == "adult-csv":
        shared = os.environ.get("CATEMBED_SHARED", "../shared")
        path = os.path.join(shared, "datasets", "adult", "data.csv")
        return pd.read_csv(path, dtype=str, keep_default_na=False).drop(columns=["income"])
    if case == "numeric-500x4":
        return pd.DataFrame(rng.normal(size=(500, 4)), columns=list("abcd")).astype(str)
    if case == "guard":
        return pd.DataFrame(rng.integers(0, 20, size=(20, 2000)).astype(str),
                            columns=[f"c{j}" for j in range(2000)])
    raise SystemExit(f"unknown case {case}")


def run_case(case: str, method: str = "cde") -> None:
    import catembed
    from catembed import CatEmbedError

    X = _table(case)
    cls = catembed.METHODS[method]
    params = {"random_state": 0} if "random_state" in cls().get_params() else {}
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    t = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = cls(**params).fit(X)
            outcome = f"fitted, {est.stats_.n_values} values after pooling"
        except CatEmbedError as exc:
            outcome = f"refused: {exc}"
    dt = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    n_values = int(sum(X[c].nunique() for c in X.columns))
    print(f"{case} [{method}]: {X.shape[0]} rows x {X.shape[1]} columns, {n_values} distinct "
          "values; "
          f"fit {dt:.2f} s; peak RSS {peak:.2f} GiB (table alone {base:.2f} GiB); {outcome}")
    for w in caught[:2]:
        print(f"    warning: {str(w.message)[:160]}")


def main() -> None:
    args = sys.argv[1:]
    if len(args) > 2 and args[0] == "--case":
        run_case(args[1], args[2])
        return
    methods = ["cde"]
    if "--methods" in args:
        i = args.index("--methods")
        methods = args[i + 1].split(",")
        args = args[:i] + args[i + 2 :]
    for case in args or CASES:
        for method in methods:
            subprocess.run([sys.executable, __file__, "--case", case, method], check=False)


if __name__ == "__main__":
    main()
