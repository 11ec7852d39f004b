"""UNTIE fit time on Connect-4 and on synthetic tables of 10k and 1M rows; exact vs sgd.

1. Connect-4 (67,557 x 42, ``$CATEMBED_SHARED/datasets/connect_4``): counting pass, the
   value-level fit after counting (``fit_statistics``), and the whole ``fit``; the sgd solver
   for comparison; peak memory of the fit after counting (tracemalloc).
2. Synthetic planted tables (``synthetic.py``, 20 attributes x 10 values) of 10,000 and
   1,000,000 rows: counting pass and fit after counting, reported separately. The fit after
   counting sees only the statistics, so its time should not grow with the rows.
3. ``--high-cardinality`` (issue 11, defect 6): 1M rows with one column of 100k values and
   three of 5 (``bench_pooling.py``'s ``one-column`` table), default pooling; fit time and
   peak RSS (target < 10 s, < 2 GB; run it under ``/usr/bin/time -v``).
4. ``--transform-1m``: Adult's categorical columns resampled (with replacement, seed 0) to
   1,000,000 rows; ``fit`` with ``n_components=16`` (a width independent of ``|V|``; the
   Eq. 21 vectors would be ``28 |V| + ...`` columns) and ``transform`` of all the rows, with
   the times, the output width and the process's peak resident memory (``ru_maxrss``; run it
   under ``/usr/bin/time -v`` for the same figure from outside).
5. ``--objectives``: the exact and sgd solvers on every UNTIE Table IV set present (prepared
   as ``src/catembed/evaluation/tables/untie-4.json`` says), with the
   objective both minimise at temperature 0.3 (``objective_``, see ``catembed.embed.untie``)
   and the scale-free share of kernel energy outside the cluster subspace
   (``energy_ratio_``); then the default ``temperature="auto"``: the temperature it chose
   (``inf`` = ``omega = 1``), its gap statistic against that of ``omega = 1``, fit time.

Usage: ``python benchmarks/bench_untie.py [--repeat 3] [--objectives] [--no-timing] [--skip-1m]
[--high-cardinality] [--transform-1m [--rows N] [--n-components K]]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np

from catembed import UNTIE, CatEmbedWarning, ValueStatistics, compute_statistics
from catembed.datasets import load_dataset
from synthetic import planted_codes

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))

TABLE4 = Path(__file__).resolve().parents[1] / "src/catembed/evaluation/tables/untie-4.json"


def _median(xs: list[float]) -> float:
    return float(np.median(xs))


def bench_connect4(repeat: int) -> None:
    folder = SHARED / "datasets" / "connect_4"
    if not (folder / "data.csv").exists():
        print("connect_4: not in the data folder, skipped")
        return
    ds = load_dataset(folder)
    X = ds.frame[ds.categorical_columns]
    y = ds.frame[ds.target]
    n_classes = int(y.nunique())
    count, after, whole = [], [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        stats = compute_statistics(X)
        t1 = time.perf_counter()
        est = UNTIE(n_clusters=n_classes).fit_statistics(stats)
        t2 = time.perf_counter()
        UNTIE(n_clusters=n_classes).fit(X)
        t3 = time.perf_counter()
        count.append(t1 - t0)
        after.append(t2 - t1)
        whole.append(t3 - t2)
    tracemalloc.start()
    UNTIE(n_clusters=n_classes).fit_statistics(stats)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    t0 = time.perf_counter()
    sgd = UNTIE(n_clusters=n_classes, solver="sgd", random_state=0).fit(X)
    t_sgd = time.perf_counter() - t0
    print(f"Connect-4: {X.shape[0]:,} rows x {X.shape[1]} attributes, |V| = "
          f"{est.stats_.n_values}, D = {est.omega_.size} weights, c = {n_classes}")
    print(f"  counting pass     median {_median(count):.3f} s")
    print(f"  fit after counting median {_median(after):.3f} s ({est.n_iter_} alternations),"
          f" peak traced memory {peak / 2**20:.1f} MiB")
    print(f"  whole fit (exact) median {_median(whole):.3f} s over {repeat} runs")
    print(f"  whole fit (sgd)   {t_sgd:.3f} s")
    print(f"  objective F: exact {est.objective_:.6g}, sgd {sgd.objective_:.6g}; energy "
          f"ratio: exact {est.energy_ratio_:.5f}, sgd {sgd.energy_ratio_:.5f}")


def bench_scaling(repeat: int, sizes: list[int]) -> None:
    names = [f"a{j}" for j in range(20)]
    cats = [np.array([f"v{v}" for v in range(10)], dtype=object)] * 20
    rows = {}
    for n in sizes:
        codes, _ = planted_codes(n, 20, 10, seed=0)
        count, after = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            stats = ValueStatistics.from_codes(codes, cats, names)
            t1 = time.perf_counter()
            est = UNTIE(n_clusters=5).fit_statistics(stats)
            t2 = time.perf_counter()
            count.append(t1 - t0)
            after.append(t2 - t1)
        rows[n] = _median(after)
        print(f"synthetic {n:>9,} rows x 20 attributes x 10 values: counting median "
              f"{_median(count):.3f} s, fit after counting median {_median(after):.3f} s "
              f"({est.n_iter_} alternations)")
    if len(rows) == 2:
        a, b = sorted(rows)
        print(f"  ratio fit-after-counting {b:,} / {a:,} rows = {rows[b] / rows[a]:.2f}")


def bench_transform_adult(n_rows: int, n_components: int) -> None:
    folder = SHARED / "datasets" / "adult"
    if not (folder / "data.csv").exists():
        print("adult: not in the data folder, skipped")
        return
    ds = load_dataset(folder)
    cols = [c for c, k in ds.meta["columns"].items() if k in ("categorical", "binary")]
    rng = np.random.default_rng(0)
    X = ds.frame[cols].iloc[rng.integers(0, len(ds.frame), n_rows)].reset_index(drop=True)
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    t0 = time.perf_counter()
    est = UNTIE(n_clusters=2, n_components=n_components).fit(X)
    t1 = time.perf_counter()
    Z = est.transform(X)
    t2 = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    full = est.omega_.size
    print(f"Adult resampled: {n_rows:,} rows x {len(cols)} categorical columns, |V| = "
          f"{est.stats_.n_values}; Eq. 21 width would be {full:,} columns "
          f"({n_rows * full * 8 / 2**30:.1f} GiB as float64)")
    print(f"  fit {t1 - t0:.2f} s, transform {t2 - t1:.2f} s -> {Z.shape} {Z.dtype} "
          f"({Z.nbytes / 2**20:.0f} MiB)")
    print(f"  peak RSS {rss:.0f} MiB (after loading and resampling: {rss0:.0f} MiB)")


def table4_sets():
    """(label, features, labels) of every UNTIE Table IV set present, prepared as the
    ``untie-4`` table says (its presets, targets and aliases)."""
    from catembed.datasets import apply_preset
    from catembed.evaluation.bench import find_dataset

    table = json.loads(TABLE4.read_text())
    for entry in table["datasets"]:
        folder = find_dataset(entry, SHARED / "datasets")
        if folder is None:
            yield entry["label"], None, None
            continue
        raw = load_dataset(folder)
        raw.name = entry["name"]
        if entry.get("target"):
            raw.meta = {**raw.meta, "target": entry["target"]}
        data = apply_preset(raw, entry.get("preset", table["preset"]))
        yield entry["label"], data.features, data.labels


def bench_objectives() -> None:
    print("exact vs sgd at temperature 0.3: objective F (lower is better) and energy ratio; "
          "temperature='auto': chosen temperature and gap statistic (learned / omega = 1); "
          "c = number of classes")
    print(f"{'data set':<14}{'n':>7}{'|V|':>6}{'c':>4}{'F exact':>14}{'F sgd':>14}"
          f"{'ratio exact':>13}{'ratio sgd':>11}{'exact<=sgd':>11}{'auto T':>8}"
          f"{'gap':>8}{'gap w=1':>8}{'fit s':>7}")
    for label, X, y in table4_sets():
        if X is None:
            print(f"{label:<14} missing")
            continue
        c = int(y.nunique())
        ex = UNTIE(n_clusters=c, temperature=0.3).fit(X)
        sg = UNTIE(n_clusters=c, temperature=0.3, solver="sgd", random_state=0).fit(X)
        t0 = time.perf_counter()
        auto = UNTIE(n_clusters=c).fit(X)
        t_auto = time.perf_counter() - t0
        # objectives of order 1e-12 are rounding noise (e.g. ThreeOf9, where every kernel is
        # constant and the objective is 0 for any weights): compare with a tolerance
        ok = ex.objective_ <= sg.objective_ + 1e-9 * X.shape[0]
        print(f"{label:<14}{X.shape[0]:>7}{ex.stats_.n_values:>6}{c:>4}{ex.objective_:>14.6g}"
              f"{sg.objective_:>14.6g}{ex.energy_ratio_:>13.5f}{sg.energy_ratio_:>11.5f}"
              f"{str(ok):>11}{auto.temperature_:>8g}{auto.gap_:>8.4f}{auto.uniform_gap_:>8.4f}"
              f"{t_auto:>7.2f}", flush=True)


def bench_high_cardinality() -> None:
    """Issue 11 defect 6 for UNTIE: ``bench_pooling.py``'s ``one-column`` table (1M rows, one
    column of 100k values with Zipf-like counts, three columns of 5 values), default
    pooling (``max_categories=100``). Target: ``fit`` < 10 s and < 2 GB."""
    from bench_pooling import _table

    X = _table("one-column")
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    t0 = time.perf_counter()
    est = UNTIE().fit(X)
    t1 = time.perf_counter()
    est2 = UNTIE().fit_statistics(est.stats_)
    t2 = time.perf_counter()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10
    print(f"one column of 100k values: {X.shape[0]:,} rows x {X.shape[1]} columns, "
          f"{est.stats_.n_values} values after pooling, c = {est.n_clusters_} (eigengap), "
          f"temperature {est2.temperature_:g}")
    print(f"  fit {t1 - t0:.2f} s (of which the value-level solve, fit_statistics on the "
          f"pooled counts: {t2 - t1:.2f} s); peak RSS {rss:.0f} MiB (the table alone: "
          f"{rss0:.0f} MiB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--objectives", action="store_true",
                    help="compare the exact and sgd solvers on every Table IV set present")
    ap.add_argument("--no-timing", action="store_true", help="only the --objectives part")
    ap.add_argument("--skip-1m", action="store_true", help="scale to 100k rows instead of 1M")
    ap.add_argument("--transform-1m", action="store_true",
                    help="fit and transform Adult resampled to --rows rows (only this part)")
    ap.add_argument("--high-cardinality", action="store_true",
                    help="fit 1M rows with one 100k-value column (only this part)")
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--n-components", type=int, default=16)
    args = ap.parse_args()
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    warnings.simplefilter("ignore", CatEmbedWarning)
    if args.high_cardinality:
        bench_high_cardinality()
        return
    if args.transform_1m:
        bench_transform_adult(args.rows, args.n_components)
        return
    if not args.no_timing:
        bench_connect4(args.repeat)
        bench_scaling(args.repeat, [10_000, 100_000 if args.skip_1m else 1_000_000])
    if args.objectives:
        bench_objectives()
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
