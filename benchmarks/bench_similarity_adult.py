"""COS, DILCA and ALGO on Adult (30,162 rows), where the CDE paper's runs ran out of memory.

    python benchmarks/bench_similarity_adult.py [--data-dir ../shared/datasets] [--k 30]

Without ``--data-dir`` the folder holding ``adult/`` is searched as ``catembed evaluate``
does: ``$CATEMBED_DATA``, then ``$CATEMBED_SHARED/datasets``; a one-line message names the
folders searched when it is in none.

For each measure, in a fresh process: the value statistics and distance tables from the
table (target: under 5 s), then spectral clustering on a sparse kNN similarity graph built
in chunks from the tables (never the 30k x 30k matrix), with the peak resident memory of
the process (target: under 2 GB) and the F-score against ``income`` (CDE Table 2 lists
CDE-G 0.676 and "NA" for the three measures). Pre-processing as in the CDE paper: the
30,162 complete rows of the training file, the 8 categorical attributes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

COLUMNS = ["workclass", "education", "marital_status", "occupation", "relationship", "race",
           "sex", "native_country"]


def one(metric: str, data_dir: str | None, k: int) -> dict:
    import warnings

    from catembed.cluster import SimilaritySpectral
    from catembed.datasets import load_dataset
    from catembed.metrics import f_score
    from catembed.similarity import CategoricalDistance

    ds = load_dataset("adult", data_dir=data_dir)
    df = ds.frame
    df = df[df["split"] == "train"][COLUMNS + ["income"]].dropna()
    X, y = df[COLUMNS].astype(str), df["income"].to_numpy()
    t = time.perf_counter()
    cd = CategoricalDistance(metric=metric).fit(X)
    t_tables = time.perf_counter() - t
    t = time.perf_counter()
    cd.kneighbors_graph(n_neighbors=k)  # the fitted rows' graph, self excluded
    t_knn_all = time.perf_counter() - t
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sc = SimilaritySpectral(n_clusters=2, metric=metric, graph="knn", n_neighbors=k,
                                random_state=0).fit(X)
    t_spec = time.perf_counter() - t
    return {
        "metric": metric, "rows": len(X), "values": int(cd.stats_.n_values),
        "tables_s": t_tables, "knn_graph_all_rows_s": t_knn_all, "spectral_s": t_spec,
        "distinct_rows": int(sc.n_distinct_), "f_score": f_score(y, sc.labels_),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _adult_dir(data_dir: str | None) -> str:
    """The folder holding ``adult/``; exits with the folders searched when none has it."""
    from catembed.evaluation.inputs import data_roots

    roots = data_roots(data_dir)
    for root in roots:
        if (root / "adult" / "data.csv").exists():
            return str(root)
    sys.exit(f"bench_similarity_adult: no adult/data.csv in {', '.join(map(str, roots))}; "
             "give --data-dir DIR (the folder holding adult/) or set CATEMBED_DATA=DIR.")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--k", type=int, default=30, help="neighbours per row in the graph")
    ap.add_argument("--metric", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.metric:
        print(json.dumps(one(args.metric, args.data_dir, args.k)))
        return
    data_dir = _adult_dir(args.data_dir)
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average, {os.cpu_count()} CPUs)")
    paper = {"cos": "NA (out of memory)", "dilca": "NA (out of memory)",
             "ahmad": "NA (out of memory)"}
    for metric in ("cos", "dilca", "ahmad"):
        cmd = [sys.executable, __file__, "--metric", metric, "--k", str(args.k),
               "--data-dir", data_dir]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{metric}: failed: {done.stderr.strip().splitlines()[-1:]}")
        out = done.stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(
            f"{metric:6s} rows {r['rows']} |V| {r['values']}: tables {r['tables_s']:.2f} s; "
            f"kNN graph of all rows (k={args.k}) {r['knn_graph_all_rows_s']:.1f} s; "
            f"spectral ({r['distinct_rows']} distinct rows) {r['spectral_s']:.1f} s; "
            f"peak RSS {r['peak_rss_mb']:.0f} MB; F-score {r['f_score']:.3f} "
            f"(paper: {paper[metric]}; CDE-G 0.676)"
        )


if __name__ == "__main__":
    main()
