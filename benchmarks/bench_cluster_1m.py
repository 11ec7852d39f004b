"""Issue 38's cost lines: ``Consensus`` with k given (the default combination,
``combine="concat"`` and ``combine="coassoc"``) and with k chosen (``"auto"``) against
one-hot + scikit-learn ``KMeans(n_init=10)``, on a planted table of ``--rows`` rows x 20
categorical columns (10 values, 5 groups, purity 0.6), measured in one process, one after
the other, with the load average beside each figure.

    PYTHONPATH=src python benchmarks/bench_cluster_1m.py [--rows 1000000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from sklearn.cluster import KMeans  # noqa: E402
from sklearn.preprocessing import OneHotEncoder  # noqa: E402

from catembed.cluster import Consensus  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402
from synthetic import planted_codes  # noqa: E402

AUTO = "Consensus('auto')"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    args = ap.parse_args()
    codes, truth = planted_codes(args.rows, 20, 10, n_groups=5, purity=0.6, seed=0)
    df = pd.DataFrame({f"a{j}": pd.Categorical(codes[:, j]) for j in range(20)})
    times = {}

    def run(name, fn):  # noqa: ANN001
        load = os.getloadavg()[0]
        t = time.perf_counter()
        labels = fn()
        times[name] = time.perf_counter() - t
        print(f"{name:28s} {times[name]:8.1f} s  ARI {ari_codes(truth, labels):.3f}  "
              f"load {load:.1f}", flush=True)

    def onehot_kmeans():
        X = OneHotEncoder(sparse_output=True).fit_transform(codes)
        return KMeans(5, n_init=10, random_state=0).fit(X).labels_

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run("one-hot + KMeans(n_init=10)", onehot_kmeans)
        run("Consensus(5)", lambda: Consensus(5, random_state=0).fit(df).labels_)
        run("Consensus(5, 'concat')",
            lambda: Consensus(5, combine="concat", random_state=0).fit(df).labels_)
        run("Consensus(5, 'coassoc')",
            lambda: Consensus(5, combine="coassoc", random_state=0).fit(df).labels_)
        auto = Consensus("auto", random_state=0)
        run(AUTO, lambda: auto.fit(df).labels_)
    base = times["one-hot + KMeans(n_init=10)"]
    print(f"ratios to one-hot + KMeans: k given {times['Consensus(5)'] / base:.2f}x, "
          f"auto {times[AUTO] / base:.2f}x "
          f"(auto chose k = {auto.n_clusters_})")


if __name__ == "__main__":
    main()
