"""CDE's fit as the number of values grows (issues 22 and 40), with UNTIE, CDE++ and LCME.

First (issue 40) CDE on tables of 20,000 rows whose values are split in several ways
(``--shapes``, default: 30 x 100, 100 x 30, 10 x 300 and 300 x 10 values per column at
3,000 values, and 100 x 100 at 10,000), each both as ``blocks`` (every value belongs to a
group's block, ``planted_codes``) and as ``noise`` (one preferred value per group, the
others noise, ``noisy_codes``); ``max_categories=None`` so that every value counts. For each
shape the bounded fit (the default above 1,024 values), up to ``--exact-max`` values the
exact fit (``CDE._large_value_set = None``), and up to ``--baseline-max`` the code at
``--baseline-src`` (a ``src`` folder, e.g. main's) run one after the other, each in its
own process, with the load average beside each figure.

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

Usage: ``python benchmarks/bench_cde_values.py [--shapes noise:30x100 blocks:100x100 ...]
[--exact-max 1500] [--baseline-src PATH] [--baseline-max 3000] [--sizes 50 200 400 800 1600 3000]
[--old-max 800] [--others UNTIE CDEPlusPlus LCME] [--others-max 3000] [--timeout 120]``
(``--sizes`` with nothing after it skips the growth table, ``--shapes`` likewise).
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
SPLITS = [f"{kind}:{shape}" for shape in ("30x100", "100x30", "10x300", "300x10", "100x100")
          for kind in ("noise", "blocks")]


def child(method: str, l: int | str, legacy: bool, mode: str = "new") -> None:
    import resource
    import warnings

    import catembed
    from catembed import CatEmbedWarning
    from synthetic import planted_frame

    warnings.simplefilter("ignore", CatEmbedWarning)
    warnings.simplefilter("ignore", RuntimeWarning)
    if isinstance(l, str) and ":" in l:  # "noise:30x100"
        kind, shape = l.split(":")
        n_features, n_values = map(int, shape.split("x"))
        X = planted_frame(20_000, n_features, n_values, noisy=kind == "noise")
        est = getattr(catembed, method)(random_state=0, max_categories=None)
    else:
        n_features, n_values = SHAPES[int(l)]
        X = planted_frame(20_000, n_features, n_values)
        est = getattr(catembed, method)(random_state=0)
    if legacy:
        est._legacy_fit = True
    if mode == "exact":
        est._large_value_set = None
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0, c0 = time.perf_counter(), time.process_time()
    est.fit(X)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"seconds": seconds, "cpu_seconds": cpu, "rss_mb": peak,
                      "rss_before_fit_mb": before,
                      "n_values": int(est.stats_.n_values)}))


def run(method: str, l: int | str, legacy: bool, timeout: float, mode: str = "new",
        src: str | None = None) -> dict | None:
    cmd = [sys.executable, __file__, "--child", method, str(l), "--mode", mode]
    cmd += ["--legacy"] if legacy else []
    env = dict(os.environ)
    if src:  # another copy of catembed (the baseline)
        env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")])
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True,
                             env=env)
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


def fmt_cpu(r: dict | None, timeout: float) -> str:
    if r is None:
        return f"> {timeout:.0f} s"
    return f"{r['seconds']:7.2f} s ({r['cpu_seconds']:6.2f} CPU s, {r['rss_mb']:5.0f} MB)"


def shapes_table(args: argparse.Namespace) -> None:
    """Issue 40: the bounded fit on several splits of the values, the exact fits beside it."""
    print("CDE fit, 20,000 rows, max_categories=None: shape | values | bounded (default) | "
          "exact | baseline src; wall seconds (CPU seconds, peak RSS), load average after")
    for spec in args.shapes:
        m, v = map(int, spec.split(":")[1].split("x"))
        cells = []
        for mode, src in (("new", None), ("exact", None), ("new", args.baseline_src)):
            limit = args.exact_max if mode == "exact" else args.baseline_max
            if (mode, src) != ("new", None) and (m * v > limit or src == ""):
                cells.append("not run")
                continue
            r = run("CDE", spec, False, args.timeout, mode, src)
            cells.append(f"{fmt_cpu(r, args.timeout)} @ {os.getloadavg()[0]:.1f}")
        print(f"  {spec:>14} | {m * v:6d} | " + " | ".join(cells), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", nargs=2)
    ap.add_argument("--legacy", action="store_true")
    ap.add_argument("--mode", default="new", choices=["new", "exact"])
    ap.add_argument("--shapes", nargs="*", default=SPLITS)
    ap.add_argument("--exact-max", type=int, default=1500)
    ap.add_argument("--baseline-src", default="")
    ap.add_argument("--baseline-max", type=int, default=3000)
    ap.add_argument("--sizes", type=int, nargs="*", default=[s for s in SHAPES if s <= 3000])
    ap.add_argument("--old-max", type=int, default=800)
    ap.add_argument("--others", nargs="*", default=["UNTIE", "CDEPlusPlus", "LCME"])
    ap.add_argument("--others-max", type=int, default=3000)
    ap.add_argument("--timeout", type=float, default=120)
    args = ap.parse_args()
    if args.child:
        child(args.child[0], args.child[1], args.legacy, args.mode)
        return
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}", flush=True)
    if args.shapes:
        shapes_table(args)
    if not args.sizes:
        return
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
