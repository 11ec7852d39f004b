"""CDE's fit as the number of values grows (issue 22 item 3), with UNTIE, CDE++ and LCME.

Planted tables (``synthetic.py``) of 20,000 rows whose total value count ``l`` is 50 (5
columns x 10 values), 100 (5 x 20), 200 (8 x 25), 400 (8 x 50), 800 (8 x 100), 1600
(16 x 100), 3000 (30 x 100) and 6000 (60 x 100; not in the default sizes). Each fit runs in
its own child process, which reports the fit time (wall and CPU) and its peak resident
memory (``ru_maxrss``, the whole process: Python, the libraries and the table included).
For CDE the old path (``CDE._legacy_fit``: scikit-learn k-means per granularity, SVD of the
dense indicator) and the new one run one after the other for each ``l``, so the two see the
same machine load; compare the ratio rather than the seconds on a busy machine.
A fit that runs past ``--timeout`` seconds is reported as such, the method's larger sizes are
not run, and it is left out of the growth exponents: the least-squares slopes of log time,
and of log fit memory (peak RSS less the RSS before the fit), against log ``l``.

Usage: ``python benchmarks/bench_cde_values.py [--sizes 50 200 400 800 1600 3000]
[--old-max 800] [--others UNTIE CDEPlusPlus LCME] [--others-max 3000] [--timeout 120]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

SHAPES = {50: (5, 10), 100: (5, 20), 200: (8, 25), 400: (8, 50), 800: (8, 100),
          1600: (16, 100), 3000: (30, 100), 6000: (60, 100)}


def child(method: str, l: int, legacy: bool) -> None:
    import resource
    import warnings

    import catembed
    from catembed import CatEmbedWarning
    from synthetic import planted_frame

    warnings.simplefilter("ignore", CatEmbedWarning)
    warnings.simplefilter("ignore", RuntimeWarning)
    n_features, n_values = SHAPES[l]
    X = planted_frame(20_000, n_features, n_values)
    est = getattr(catembed, method)(random_state=0)
    if legacy:
        est._legacy_fit = True
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "rss_mb": peak,
                      "rss_before_fit_mb": before,
                      "n_values": int(est.stats_.n_values)}))


def run(method: str, l: int, legacy: bool, timeout: float) -> dict | None:
    cmd = [sys.executable, __file__, "--child", method, str(l)] + (["--legacy"] if legacy else [])
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope(rows: list[tuple[int, dict | None]], key: str = "seconds") -> float:
    def value(r: dict) -> float:
        if key == "seconds":
            return r["seconds"]
        return max(r["rss_mb"] - r["rss_before_fit_mb"], 1.0)  # the fit's own memory

    pts = [(l, value(r)) for l, r in rows if r is not None]
    if len(pts) < 2:
        return float("nan")
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


def local(rows: list[tuple[int, dict | None]]) -> str:
    """The slope of log time between the last two sizes (where a growth law takes over)."""
    if len(rows) < 2 or rows[-1][1] is None or rows[-2][1] is None:
        return "    "
    (l0, a), (l1, b) = rows[-2], rows[-1]
    return f"{np.log(b['seconds'] / a['seconds']) / np.log(l1 / l0):4.2f}"


def fmt(r: dict | None) -> str:
    return "timeout" if r is None else f"{r['seconds']:8.2f} s {r['rss_mb']:6.0f} MB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--legacy", action="store_true")
    ap.add_argument("--sizes", type=int, nargs="+", default=[s for s in SHAPES if s <= 3000])
    ap.add_argument("--old-max", type=int, default=800)
    ap.add_argument("--others", nargs="*", default=["UNTIE", "CDEPlusPlus", "LCME"])
    ap.add_argument("--others-max", type=int, default=3000)
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]), args.legacy)
        return
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}", flush=True)
    old_rows, new_rows = [], []
    print("CDE fit, 20,000 rows: l | old (sklearn k-means, SVD) | new (Gram) | old / new")
    for l in args.sizes:
        old = run("CDE", l, True, args.timeout) if l <= args.old_max else None
        new = run("CDE", l, False, args.timeout)
        if l <= args.old_max:
            old_rows.append((l, old))
        new_rows.append((l, new))
        ratio = (f"{old['seconds'] / new['seconds']:6.1f}x" if old and new else "")
        old_s = fmt(old) if l <= args.old_max else "not run"
        print(f"  {l:5d} | {old_s:>20} | {fmt(new):>20} | {ratio:>7} | new local exponent "
              f"{local(new_rows)}  "
              f"(load {os.getloadavg()[0]:.1f})", flush=True)
    print(f"  growth exponent, time: old {slope(old_rows):.2f}, new {slope(new_rows):.2f}; "
          f"fit memory: old {slope(old_rows, 'rss'):.2f}, new {slope(new_rows, 'rss'):.2f}")
    for method in args.others:
        rows = []
        print(f"{method} fit, 20,000 rows:")
        for l in args.sizes:
            if l > args.others_max:
                continue
            r = run(method, l, False, args.timeout)
            rows.append((l, r))
            print(f"  {l:5d} | {fmt(r):>20} | local exponent {local(rows)}  "
                  f"(load {os.getloadavg()[0]:.1f})", flush=True)
            if r is None:
                print(f"  stopped: l = {l} ran past {args.timeout:.0f} s")
                break
        print(f"  growth exponent, time: {slope(rows):.2f}; fit memory: {slope(rows, 'rss'):.2f}")


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main()
