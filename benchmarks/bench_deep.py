"""Fit time and memory of the deep mixed-type clusterers on Adult (issue 13 acceptance).

1. Fit time of :class:`catembed.deep.AutoencoderKMeans`, :class:`~catembed.deep.IDEC` and
   :class:`~catembed.deep.AttentionClusterer` (library defaults, ``n_clusters=2``) on the
   Adult training file, mixed (6 numeric + 8 categorical columns, complete rows: 30,162),
   with ``--threads`` torch threads (default 1, the classes' default; 2 threads on a busy
   2-core machine made 100 steps 17x slower, threads waiting for each other).
   Wall time and the process CPU time (all threads) are both printed: on a shared machine
   the wall time measures the load as much as the fit.
2. Memory flat in n: the same fit on 30,162 rows and on 301,620 rows resampled from them
   (with replacement, seed 0). Each fit runs in a fresh child process; the figures are the
   child's peak resident memory (``ru_maxrss``) and the growth of the peak during the fit
   over the resident memory after the table is loaded. With ``--warmup`` (the default) the
   child first fits the same model for a few steps on 256 rows, so that the one-time costs
   (PyTorch's lazily imported modules, e.g. ``torch._dynamo`` through ``torch.optim``, about
   60 MiB, and the allocators' first pools) fall before the baseline reading and the growth
   is what the fit of ``n`` rows adds; ``--no-warmup`` measures from a cold process. The
   fit encodes the table compactly once (one byte per categorical cell, ``float32``
   numbers) and streams every full pass, so the growth should hardly depend on ``n``.

The machine load (``os.getloadavg``) is printed beside every timing.

``--tracemalloc`` adds the peak of NumPy's and Python's allocations during the fit (exact for
arrays, blind to PyTorch's allocator); ``--steps N`` shortens the fits for a memory reading.

Usage: ``python benchmarks/bench_deep.py [--methods ae,idec,attention] [--rows 30162,301620]
[--threads 2] [--n-init 1] [--tracemalloc] [--steps N]``; ``child`` runs one measurement and
prints one JSON line.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))
PRESET = {"columns": "mixed", "rows": "complete", "split": "train", "drop_constant": True}
METHODS = {"ae": "AutoencoderKMeans", "idec": "IDEC", "attention": "AttentionClusterer"}


def _rss_mib() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover


def child(method: str, rows: int, threads: int, warmup: bool = True, n_init: int = 1,
          trace: bool = False, steps: int | None = None) -> dict:
    """One fit in this process; returns its figures."""
    import catembed.deep as deep
    from catembed.datasets import load_dataset

    data = load_dataset("adult", data_dir=SHARED / "datasets", preset=PRESET)
    X = data.features
    if rows != len(X):
        idx = np.random.RandomState(0).randint(len(X), size=rows)
        X = X.iloc[idx].reset_index(drop=True)
    cls = getattr(deep, METHODS[method])
    import torch  # noqa: F401  (imported before the baseline reading)

    if warmup:
        cls(2, random_state=0, n_threads=threads, pretrain_steps=5, cluster_steps=5,
            update_interval=2).fit(X.iloc[:256])
        gc.collect()
    before = _rss_mib()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    load0 = os.getloadavg()[0]
    kw = {"n_init": n_init} if n_init != 1 else {}
    if steps is not None:
        kw.update(pretrain_steps=steps, cluster_steps=steps)
    if trace:
        import tracemalloc

        tracemalloc.start()
    t0, c0 = time.perf_counter(), time.process_time()
    model = cls(2, random_state=0, n_threads=threads, **kw).fit(X)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    extra = {}
    if trace:
        extra["numpy_peak_mib"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"method": method, "rows": len(X), "columns": X.shape[1], "threads": threads,
            "warmup": warmup,
            "fit_s": round(seconds, 2), "cpu_s": round(cpu, 2), "rss_before_mib": round(before, 1),
            "peak_mib": round(peak, 1), "fit_growth_mib": round(peak - max(before,
                                                                              peak_before), 1),
            "load_start": round(load0, 2), "load_end": round(os.getloadavg()[0], 2),
            "n_init": n_init, "n_iter": getattr(model, "n_iter_", 0), **extra}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", nargs="?", default="all", choices=["all", "child"])
    ap.add_argument("--methods", default="ae,idec,attention")
    ap.add_argument("--rows", default="30162,301620")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--n-init", type=int, default=1, help="restarts per fit (default 1)")
    ap.add_argument("--tracemalloc", action="store_true",
                    help="also the peak of NumPy's allocations during the fit (slower)")
    ap.add_argument("--steps", type=int, default=None,
                    help="pretrain_steps = cluster_steps = STEPS (default: the classes')")
    ap.add_argument("--warmup", action=argparse.BooleanOptionalAction, default=True,
                    help="a short fit on 256 rows before the baseline reading (default on)")
    args = ap.parse_args()
    if args.mode == "child":
        (method,) = args.methods.split(",")
        print(json.dumps(child(method, int(args.rows), args.threads, args.warmup,
                               args.n_init, args.tracemalloc, args.steps)))
        return
    print(f"warm-up fit before the baseline: {'yes' if args.warmup else 'no'}")
    print(f"{'method':10} {'rows':>8} {'fit s':>7} {'CPU s':>7} {'before MiB':>10} {'peak MiB':>9} "
          f"{'fit growth':>10} {'load':>11}")
    for method in args.methods.split(","):
        for rows in args.rows.split(","):
            out = subprocess.run(
                [sys.executable, __file__, "child", "--methods", method, "--rows", rows,
                 "--threads", str(args.threads), "--n-init", str(args.n_init),
                 "--warmup" if args.warmup else "--no-warmup",
                 *(["--tracemalloc"] if args.tracemalloc else []),
                 *(["--steps", str(args.steps)] if args.steps is not None else [])],
                capture_output=True, text=True, check=True)
            r = json.loads(out.stdout.strip().splitlines()[-1])
            print(f"{r['method']:10} {r['rows']:>8} {r['fit_s']:>7} {r['cpu_s']:>7} "
                  f"{r['rss_before_mib']:>10} "
                  f"{r['peak_mib']:>9} {r['fit_growth_mib']:>10} "
                  f"{r['load_start']:>5}-{r['load_end']:<5}"
                  + (f" NumPy peak {r['numpy_peak_mib']} MiB" if "numpy_peak_mib" in r else ""),
                  flush=True)


if __name__ == "__main__":
    main()
