"""CPU time and memory of :class:`catembed.deep.ThesisClusterer` on Adult (issue 20 acceptance).

One fit per fresh child process: the Adult training file, mixed (8 categorical + 6 numeric
columns), complete rows (30,162), or those rows resampled with replacement (seed 0) to
``--rows``; ``n_clusters=2``; the thesis' settings (``ThesisClusterer`` defaults: 100 epochs,
batch 32, Adam 1e-3) unless ``--epochs`` / ``--cluster-epochs`` lower them for an estimate.
Reported: the child's CPU seconds (user + sys, ``resource.getrusage``, all threads) of the fit,
its wall seconds, peak RSS (``ru_maxrss``) and the growth of the peak during the fit over the
RSS after a warm-up fit on 256 rows (so PyTorch's lazily imported modules fall before the
baseline), ``fit_peak_growth_mib`` (Linux: the kernel's peak-RSS mark reset at the start of
the fit, after ``gc`` and ``malloc_trim``, so neither loading the data nor the warm-up
counts), and the load average before and after. ``--tracemalloc`` adds the peak of the
allocations Python and NumPy make during the fit (``numpy_peak_mib``, under ``tracemalloc``:
exact for arrays, blind to PyTorch's own allocator); its difference between two row counts
divided by the rows added is the growth per row.

``--src DIR`` runs the child with ``DIR`` first on ``sys.path`` (e.g. an older checkout's
``src``), so old and new code can be interleaved in one session.

Usage: ``python benchmarks/bench_thesis_adult.py --networks ae,attention --clustering kmeans
[--epochs 100] [--rows 30162] [--src OLD/src,NEW/src] [--tracemalloc]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))
PRESET = {"columns": "mixed", "rows": "complete", "split": "train", "drop_constant": True}


def _rss_mib(field: str = "VmRSS") -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return float("nan")  # pragma: no cover


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (``VmHWM``) to the current RSS (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as fh:
            fh.write("5")
        return True
    except OSError:  # pragma: no cover - not Linux, or not allowed
        return False


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(network: str, clustering: str, rows: int, epochs: int | None,
          cluster_epochs: int | None, trace: bool = False) -> dict:
    """One fit in this process; returns its figures."""
    import gc

    import numpy as np

    from catembed.datasets import load_dataset
    from catembed.deep import ThesisClusterer

    X = load_dataset("adult", data_dir=SHARED / "datasets", preset=PRESET).features
    if rows != len(X):
        X = X.iloc[np.random.RandomState(0).randint(len(X), size=rows)].reset_index(drop=True)
    kw = {"network": network, "clustering": clustering}
    ThesisClusterer(2, random_state=0, epochs=1, cluster_epochs=1, **kw).fit(X.iloc[:256])
    gc.collect()
    try:  # hand freed heap back to the system, so the baseline holds only live memory
        import ctypes

        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # pragma: no cover - not glibc
        pass
    if epochs is not None:
        kw["epochs"] = epochs
    if cluster_epochs is not None:
        kw["cluster_epochs"] = cluster_epochs
    before = _rss_mib()
    peak_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    hwm = _reset_peak()
    load0 = os.getloadavg()[0]
    if trace:
        import tracemalloc

        tracemalloc.start()
    t0, c0 = time.perf_counter(), _cpu()
    model = ThesisClusterer(2, random_state=0, **kw).fit(X)
    wall, cpu = time.perf_counter() - t0, _cpu() - c0
    extra = {}
    if trace:
        extra["numpy_peak_mib"] = round(tracemalloc.get_traced_memory()[1] / 2**20, 1)
        tracemalloc.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    if hwm:  # the peak of this fit alone, over the RSS at its start
        extra["fit_peak_growth_mib"] = round(_rss_mib("VmHWM") - before, 1)
    import catembed

    return {"network": network, "clustering": clustering, "rows": len(X),
            "epochs": model.epochs, "cluster_epochs": model.cluster_epochs,
            "src": str(Path(catembed.__file__).parents[1]),
            "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "rss_before_mib": round(before, 1),
            "peak_mib": round(peak, 1), "growth_mib": round(peak - max(before, peak_before), 1),
            "load_start": round(load0, 2), "load_end": round(os.getloadavg()[0], 2),
            "fallback": bool(model.fallback_), "last_pretrain_loss": model.pretrain_loss_[-1],
            **extra}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", nargs="?", default="all", choices=["all", "child"])
    ap.add_argument("--networks", default="ae,attention,transformer,ft-transformer")
    ap.add_argument("--clustering", default="kmeans")
    ap.add_argument("--rows", default="30162")
    ap.add_argument("--epochs", type=int, default=None, help="default: the class' (100)")
    ap.add_argument("--cluster-epochs", type=int, default=None)
    ap.add_argument("--src", default="", help="comma-separated src folders to interleave")
    ap.add_argument("--tracemalloc", action="store_true",
                    help="also report the peak of NumPy's allocations (slower)")
    args = ap.parse_args()
    if args.mode == "child":
        print(json.dumps(child(args.networks, args.clustering, int(args.rows), args.epochs,
                               args.cluster_epochs, args.tracemalloc)))
        return
    srcs = [s for s in args.src.split(",") if s] or [""]
    for network in args.networks.split(","):
        for rows in args.rows.split(","):
            for src in srcs:
                env = dict(os.environ)
                if src:
                    env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
                cmd = [sys.executable, __file__, "child", "--networks", network,
                       "--clustering", args.clustering, "--rows", rows]
                if args.epochs is not None:
                    cmd += ["--epochs", str(args.epochs)]
                if args.cluster_epochs is not None:
                    cmd += ["--cluster-epochs", str(args.cluster_epochs)]
                if args.tracemalloc:
                    cmd += ["--tracemalloc"]
                out = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env)
                print(out.stdout.strip().splitlines()[-1], flush=True)


if __name__ == "__main__":
    main()
