"""Scale benchmark: fit + transform to Parquet at 1M-50M rows, with peak memory.

Synthetic tables with planted value clusters (:mod:`synthetic`), ``m`` string attributes of
10 values plus an ``id`` column, are written once to Parquet (``--data-dir``). Each
measurement runs in a child process under ``/usr/bin/time -v`` (peak RSS):

* ``cde``, ``untie``, ``onehot-pca``: catembed, streamed: statistics counted chunk by chunk
  from the file, fit from the statistics, then :func:`catembed.transform_file` to Parquet with
  ``n_components=32`` float32 columns (the compact output);
* ``sklearn``: scikit-learn ``OneHotEncoder`` + ``PCA(32)`` on the whole table in memory;
* ``prince``: prince ``MCA(32)`` on the whole table in memory;

the in-memory ones only up to ``--in-memory-max`` rows. ``--strings`` adds the in-memory
comparison on a 1M-row frame of pyarrow strings: CDE fit + transform (paper concatenation
and compact), optionally with another catembed source tree (``--baseline-src``, e.g. an
older checkout) for a before/after ratio, and scikit-learn ``OneHotEncoder + PCA(10)``.

Usage::

    python benchmarks/bench_scale.py --rows 1e6 1e7 5e7 --features 8 20
    python benchmarks/bench_scale.py --strings --baseline-src /tmp/old/src
    OMP_NUM_THREADS=1 python benchmarks/bench_scale.py --lookup
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
N_VALUES = 10
WIDTH = 32


def write_data(path: Path, n_rows: int, n_features: int, chunk: int = 1_000_000) -> None:
    """Write the planted table to Parquet in chunks (dictionary-encoded strings + id)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    sys.path.insert(0, str(HERE))
    from synthetic import planted_codes

    labels = [pa.array([f"a{j}_v{v}" for v in range(N_VALUES)]) for j in range(n_features)]
    tmp = path.with_suffix(".tmp")
    writer = None
    for i, start in enumerate(range(0, n_rows, chunk)):
        n = min(chunk, n_rows - start)
        codes, _ = planted_codes(n, n_features, N_VALUES, seed=i)
        cols = [pa.array(np.arange(start, start + n, dtype=np.int64))]
        cols += [pa.DictionaryArray.from_arrays(pa.array(codes[:, j]), labels[j])
                 for j in range(n_features)]
        table = pa.table(cols, names=["id"] + [f"a{j}" for j in range(n_features)])
        if writer is None:
            writer = pq.ParquetWriter(tmp, table.schema)
        writer.write_table(table)
    writer.close()
    os.replace(tmp, path)


def child(args: argparse.Namespace) -> None:
    """One measurement; prints a JSON line."""
    import numpy as np

    out: dict = {"method": args.method, "data": args.data}
    if args.method in ("cde", "untie", "onehot-pca"):
        import pyarrow.parquet as pq

        import catembed
        from catembed import io
        from catembed.stats import compute_statistics

        t0 = time.perf_counter()
        features = [c for c in io.read_columns(args.data) if c != "id"]
        cls = {"cde": catembed.CDE, "untie": catembed.UNTIE,
               "onehot-pca": catembed.OneHotPCA}[args.method]
        kw = {"random_state": 0} if args.method == "cde" else {}
        if args.method == "untie":
            kw["n_clusters"] = 5
        est = cls(n_components=WIDTH, dtype=np.float32, **kw)
        stats = compute_statistics(io.iter_chunks(args.data, 1_000_000, columns=features),
                                   columns=features)
        est.fit_statistics(stats)
        out["fit_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        rows = catembed.transform_file(est, args.data, args.out, id_columns=["id"],
                                       progress=False)
        out["transform_s"] = time.perf_counter() - t1
        pf = pq.ParquetFile(args.out)
        out["rows_out"] = pf.metadata.num_rows
        out["rows_written"] = rows
        out["rows_in"] = io.count_rows(args.data)
        out["cols_out"] = pf.metadata.num_columns
        # the ids, batch by batch (reading the whole column would dominate the peak RSS)
        start, equal = 0, True
        for batch in pf.iter_batches(batch_size=1 << 20, columns=["id"]):
            ids = batch.column(0).to_numpy()
            equal &= bool(np.array_equal(ids, np.arange(start, start + len(ids))))
            start += len(ids)
        out["id_equal"] = equal and start == out["rows_in"]
    else:
        import pandas as pd

        t0 = time.perf_counter()
        df = pd.read_parquet(args.data).drop(columns="id").astype(str)
        out["read_s"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        if args.method == "sklearn":
            from sklearn.decomposition import PCA
            from sklearn.preprocessing import OneHotEncoder

            z = PCA(WIDTH, random_state=0).fit_transform(
                OneHotEncoder(sparse_output=False).fit_transform(df))
        else:
            import prince

            z = prince.MCA(n_components=WIDTH, random_state=0).fit(df).transform(df)
            z = np.asarray(z)
        out["fit_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        _write_parquet(np.asarray(z, dtype=np.float32), args.out)
        out["transform_s"] = time.perf_counter() - t1
        out["rows_out"] = int(z.shape[0])
    print("RESULT " + json.dumps(out), flush=True)


def _write_parquet(z, path: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table({f"c{i}": z[:, i] for i in range(z.shape[1])}), path)


def strings_child(args: argparse.Namespace) -> None:
    """In-memory 1M x 8 pyarrow-string frame: fit + transform, one configuration."""
    import numpy as np

    sys.path.insert(0, str(HERE))
    from synthetic import planted_frame

    df = planted_frame(args.n, 8, N_VALUES).astype("str")
    from sklearn.decomposition import PCA
    from sklearn.preprocessing import OneHotEncoder

    from catembed import CDE

    t0 = time.perf_counter()
    if args.method == "sklearn":
        z = PCA(10, random_state=0).fit_transform(
            OneHotEncoder(sparse_output=False).fit_transform(df))
    else:
        kw = {} if args.method == "cde-paper" else {"n_components": WIDTH,
                                                    "dtype": np.float32}
        est = CDE(random_state=0, **kw).fit(df)
        t_fit = time.perf_counter() - t0
        z = est.transform(df)
    out = {"method": args.method, "total_s": time.perf_counter() - t0,
           "shape": list(z.shape), "dtype": str(z.dtype), "src": os.environ.get("PYTHONPATH")}
    if args.method != "sklearn":
        out["fit_s"] = t_fit
    print("RESULT " + json.dumps(out), flush=True)


def lookup_bench(n: int = 1_000_000, repeat: int = 5) -> None:
    """The lookup alone, from category codes, vs filling an output array of the same shape."""
    import numpy as np
    import pandas as pd

    sys.path.insert(0, str(HERE))
    from catembed import CDE
    from catembed.stats import encode
    from synthetic import planted_codes

    codes, _ = planted_codes(n, 8, N_VALUES)
    labels = [np.array([f"a{j}_v{v}" for v in range(N_VALUES)], dtype=object) for j in range(8)]
    frame = pd.DataFrame({f"a{j}": pd.Categorical.from_codes(codes[:, j], labels[j])
                          for j in range(8)})
    print("| output | encode from category codes (s) | lookup (s) | lookup rows/s "
          "| fill same shape (s) | lookup / fill |")
    print("|---|---|---|---|---|---|")
    for kw in ({"n_components": WIDTH}, {"dtype": np.float32}, {}):
        est = CDE(random_state=0, **kw).fit(frame.iloc[:200_000])
        plan = est._get_plan()

        def best(f):
            ts = []
            for _ in range(repeat):
                t = time.perf_counter()
                f()
                ts.append(time.perf_counter() - t)
            return min(ts)

        t_enc = best(lambda est=est: encode(frame, list(est.feature_names_), est.categories_))
        c = encode(frame, list(est.feature_names_), est.categories_)
        t_look = best(lambda plan=plan, c=c: plan(c))
        t_fill = best(lambda plan=plan: np.full((n, plan.width), 0.5, dtype=plan.dtype))
        print(f"| {n:,} x {plan.width} {plan.dtype} ({len(plan.groups)} gathers) | "
              f"{t_enc:.3f} | {t_look:.3f} | {n / t_look / 1e6:.1f} M | {t_fill:.3f} | "
              f"{t_look / t_fill:.1f} |", flush=True)


def run_child(argv: list[str], env_src: str | None = None) -> dict:
    env = dict(os.environ)
    if env_src:
        env["PYTHONPATH"] = env_src
    cmd = ["/usr/bin/time", "-v", sys.executable, str(Path(__file__).resolve())] + argv
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    res = {"argv": argv, "rc": proc.returncode}
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            res.update(json.loads(line[len("RESULT "):]))
    res["peak_rss_mb"] = int(rss.group(1)) / 1024 if rss else None
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()
        res["error"] = next((t for t in reversed(tail) if "Error" in t or "Killed" in t),
                            tail[-1] if tail else "")[:200]
    return res


def _fmt(v, spec=".1f") -> str:
    return "-" if v is None else format(v, spec)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd")
    c = sub.add_parser("child")
    c.add_argument("--method", required=True)
    c.add_argument("--data", required=True)
    c.add_argument("--out", required=True)
    s = sub.add_parser("strings-child")
    s.add_argument("--method", required=True)
    s.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--rows", type=float, nargs="*", default=[1e6])
    ap.add_argument("--features", type=int, nargs="*", default=[8])
    ap.add_argument("--methods", nargs="*",
                    default=["cde", "untie", "onehot-pca", "sklearn", "prince"])
    ap.add_argument("--in-memory-max", type=float, default=1e6)
    ap.add_argument("--data-dir", default="/tmp/catembed-bench-scale")
    ap.add_argument("--keep", action="store_true", help="keep the data and output files")
    ap.add_argument("--strings", action="store_true")
    ap.add_argument("--baseline-src", help="another catembed src tree for --strings")
    ap.add_argument("--repeat", type=int, default=1, help="--strings: runs per configuration")
    ap.add_argument("--lookup", action="store_true",
                    help="time the lookup alone (one process, one core) against a fill")
    args = ap.parse_args()
    if args.cmd == "child":
        child(args)
        return
    if args.cmd == "strings-child":
        strings_child(args)
        return
    print(f"load average at start: {os.getloadavg()}", flush=True)
    if args.lookup:
        lookup_bench()
        print(f"load average at end: {os.getloadavg()}", flush=True)
        return
    if args.strings:
        runs = [("cde-paper", None), ("cde-compact", None), ("sklearn", None)]
        if args.baseline_src:
            runs.insert(0, ("cde-paper", args.baseline_src))
        print(f"(best of {args.repeat} runs, interleaved)")
        print("| configuration | fit + transform (s) | fit (s) | output | peak RSS (MB) |")
        print("|---|---|---|---|---|")
        results: dict = {}
        for _ in range(args.repeat):
            for method, src in runs:
                r = run_child(["strings-child", "--method", method], env_src=src)
                best = results.get((method, src))
                if best is None or r.get("total_s", 1e9) < best.get("total_s", 1e9):
                    results[(method, src)] = r
        for method, src in runs:
            r = results[(method, src)]
            label = method + (" (baseline src)" if src else "")
            print(f"| {label} | {_fmt(r.get('total_s'), '.2f')} | {_fmt(r.get('fit_s'), '.2f')}"
                  f" | {r.get('shape')} {r.get('dtype', r.get('error', ''))} | "
                  f"{_fmt(r['peak_rss_mb'], '.0f')} |", flush=True)
        print(f"load average at end: {os.getloadavg()}", flush=True)
        return
    data_dir = Path(args.data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    print("| rows x attributes | method | fit (s) | transform to Parquet (s) | peak RSS (MB) "
          "| rows out = in, ids equal |")
    print("|---|---|---|---|---|---|")
    for m in args.features:
        for n in (int(r) for r in args.rows):
            data = data_dir / f"planted_{n}_{m}.parquet"
            if not data.exists():
                t = time.perf_counter()
                write_data(data, n, m)
                print(f"(wrote {data.name} in {time.perf_counter() - t:.1f} s, "
                      f"{data.stat().st_size / 2**20:.0f} MB)", flush=True)
            for method in args.methods:
                if method in ("sklearn", "prince") and n > args.in_memory_max:
                    continue
                out = data_dir / f"out_{method}_{n}_{m}.parquet"
                r = run_child(["child", "--method", method, "--data", str(data),
                               "--out", str(out)])
                check = ("-" if "rows_in" not in r else
                         f"{r['rows_out'] == r['rows_in']}, {r['id_equal']}")
                err = f" ({r['error']})" if r.get("error") else ""
                print(f"| {n:,} x {m} | {method}{err} | {_fmt(r.get('fit_s'), '.2f')} | "
                      f"{_fmt(r.get('transform_s'), '.2f')} | {_fmt(r['peak_rss_mb'], '.0f')} "
                      f"| {check} |", flush=True)
                if not args.keep:
                    out.unlink(missing_ok=True)
            if not args.keep:
                data.unlink(missing_ok=True)
    print(f"load average at end: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
