"""MCA fitted from the shared statistics at 1M x 8, and prince on the same table for scale.

Counts a 1,000,000 x 8 synthetic table with planted value clusters (``synthetic.py``, 10
values per attribute) once, then times :meth:`MCA.fit_statistics` (the Burt-matrix
eigen-decomposition: the issue's "fits 1M x 8 from statistics in < 2 s"), the counting pass
and ``transform``. With ``--prince N`` it also fits ``prince.MCA`` on the first N rows and on
our MCA of the same rows and prints the largest coordinate difference up to sign.

Usage: ``python benchmarks/bench_mca.py [--rows 1000000] [--repeat 5] [--prince 100000]``
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from catembed import MCA, compute_statistics
from synthetic import planted_frame


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--prince", type=int, default=0)
    args = ap.parse_args()
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    df = planted_frame(args.rows, n_features=args.features)
    t0 = time.perf_counter()
    stats = compute_statistics(df)
    t_count = time.perf_counter() - t0
    fits = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        m = MCA(n_components=10).fit_statistics(stats)
        fits.append(time.perf_counter() - t0)
    t0 = time.perf_counter()
    Z = m.transform(df)
    t_tr = time.perf_counter() - t0
    print(f"{args.rows:,} x {args.features}, J = {stats.n_values} values: counting pass "
          f"{t_count:.2f} s; fit_statistics median {np.median(fits) * 1000:.1f} ms (min "
          f"{min(fits) * 1000:.1f} ms, {args.repeat} repeats); transform {t_tr:.2f} s -> "
          f"{Z.shape}; explained inertia of 10 axes {m.explained_inertia_.sum():.3f}")
    if args.prince:
        import prince

        sub = df.iloc[: args.prince]
        t0 = time.perf_counter()
        ref = prince.MCA(n_components=10, engine="scipy").fit(sub)
        Fp = ref.row_coordinates(sub).to_numpy()
        t_p = time.perf_counter() - t0
        t0 = time.perf_counter()
        F = MCA(n_components=10).fit(sub).transform(sub)
        t_o = time.perf_counter() - t0
        s = np.sign((F * Fp).sum(axis=0))
        print(f"prince on {args.prince:,} rows: {t_p:.2f} s; ours fit + transform {t_o:.2f} s "
              f"(ratio {t_p / t_o:.1f}x); max |difference| up to sign "
              f"{np.abs(F * s - Fp).max():.2e}")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
