"""CDE-G on Adult: the exact Gaussian spectral clustering vs its Nystrom approximation.

For each seed, CDE is fitted on Adult as prepared by the ``cde-2`` table (preset ``cde``),
and the same embedding is clustered twice by CDE-G (``gaussian_spectral_labels``): the exact
route (the full affinity of the distinct rows, exact median sigma) and the Nystrom route
forced with ``dense_limit=0`` (landmarks by the rule ``n_landmarks="auto"`` =
``min(u, 2000)``, sampled median sigma). Prints the F-score of both per seed, their means,
the mean absolute difference, and the times. The issue's acceptance: within 0.02.

Usage: ``python benchmarks/bench_cdeg_nystrom.py [--seeds 10]``
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np

from catembed import CDE, CatEmbedWarning
from catembed.datasets import apply_preset, load_dataset
from catembed.evaluation.clustering import _unique_rows, gaussian_spectral_labels
from catembed.metrics import f_score

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--landmarks", default="auto")
    args = ap.parse_args()
    landmarks = args.landmarks if args.landmarks == "auto" else int(args.landmarks)
    warnings.simplefilter("ignore", CatEmbedWarning)
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    raw = load_dataset(SHARED / "datasets" / "adult")
    raw.name = "adult"
    data = apply_preset(raw, "cde")
    X, y = data.features, data.labels.to_numpy()
    k = len(np.unique(y))
    print(data.summary())
    exact, approx, t_exact, t_approx = [], [], [], []
    for seed in range(args.seeds):
        Z = CDE(random_state=seed).fit_transform(X)
        u = len(_unique_rows(Z)[0])
        t0 = time.perf_counter()
        a = gaussian_spectral_labels(Z, k, seed)
        t1 = time.perf_counter()
        b = gaussian_spectral_labels(Z, k, seed, dense_limit=0, n_landmarks=landmarks)
        t2 = time.perf_counter()
        exact.append(f_score(y, a))
        approx.append(f_score(y, b))
        t_exact.append(t1 - t0)
        t_approx.append(t2 - t1)
        print(f"seed {seed}: {u} distinct rows, exact {exact[-1]:.4f} ({t_exact[-1]:.1f} s), "
              f"nystrom {approx[-1]:.4f} ({t_approx[-1]:.1f} s)", flush=True)
    e, n = np.array(exact), np.array(approx)
    print(f"mean F-score over {args.seeds} seeds: exact {e.mean():.4f}, nystrom {n.mean():.4f}"
          f" (difference {n.mean() - e.mean():+.4f}); mean |per-seed difference| "
          f"{np.abs(n - e).mean():.4f}; median time exact {np.median(t_exact):.1f} s, "
          f"nystrom {np.median(t_approx):.1f} s; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
