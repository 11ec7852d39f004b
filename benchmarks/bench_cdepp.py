"""CDE++ fit time on Chess (krkopt, 28,056 x 6) and on a 10,000 x 300 binary synthetic table.

Goals (issue 4): Chess under 10 s on the CPU; the 10k x 300 binary table under 60 s (the
CDE++ paper reports about 10 minutes in MATLAB, Sec. 4.6). Each fit is timed whole
(statistics, value matrices, hybrid clustering, autoencoder, transform) and by stage.
Chess is read from ``$CATEMBED_SHARED/datasets/chess_krkopt`` (default
``../shared/datasets/chess_krkopt``).

Usage: ``python benchmarks/bench_cdepp.py [--repeat 3] [--device cpu|cuda] [--only chess|binary]``
"""

from __future__ import annotations

import argparse
import os
import resource
import time
import warnings
from pathlib import Path

import numpy as np

from catembed import CatEmbedWarning, CDEPlusPlus
from catembed.datasets import load_dataset
from catembed.embed._autoencoder import code_size, train_autoencoder
from catembed.embed.cde import cde_influence_matrices
from catembed.embed.cdepp import hybrid_value_clusters
from catembed.stats import compute_statistics
from synthetic import planted_frame

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))


def chess_frame():
    ds = load_dataset(SHARED / "datasets" / "chess_krkopt")
    return ds.frame[ds.feature_columns].astype(str)


def stages(X, device: str, seed: int) -> dict[str, float]:
    """Seconds per stage of one fit, run as CDEPlusPlus runs them."""
    out = {}
    t = time.perf_counter()
    stats = compute_statistics(X)
    out["statistics"] = time.perf_counter() - t
    t = time.perf_counter()
    m_c, m_o = cde_influence_matrices(stats)
    out["matrices"] = time.perf_counter() - t
    t = time.perf_counter()
    h = hybrid_value_clusters({"M_o": m_o, "M_c": m_c})
    out["hybrid clustering"] = time.perf_counter() - t
    t = time.perf_counter()
    res = train_autoencoder(h.indicator, code_size(h.indicator.shape[1], 10), device=device,
                            random_state=seed)
    out["autoencoder"] = time.perf_counter() - t
    out["vc"] = h.indicator.shape[1]
    out["epochs"] = res.n_epochs
    return out


def time_cdepp(name: str, X, repeat: int, device: str) -> None:
    fit, transform = [], []
    for seed in range(repeat):
        t0 = time.perf_counter()
        est = CDEPlusPlus(random_state=seed, device=device).fit(X)
        t1 = time.perf_counter()
        Z = est.transform(X)
        t2 = time.perf_counter()
        fit.append(t1 - t0)
        transform.append(t2 - t1)
    total = np.add(fit, transform)
    print(f"{name}: {X.shape[0]:,} rows x {X.shape[1]} attributes, l = {est.stats_.n_values} "
          f"values, vc = {est.value_clusters_.shape[1]} clusters, q = {est.n_components_}, "
          f"output {Z.shape[1]} dims, {est.n_epochs_} epochs")
    print(f"  fit + transform median {np.median(total):.2f} s (fit {np.median(fit):.2f} s, "
          f"transform {np.median(transform):.3f} s), max {total.max():.2f} s over {repeat} "
          f"seeds, device {device}")
    st = stages(X, device, 0)
    print("  stages of one fit: " + ", ".join(
        f"{k} {v:.2f} s" for k, v in st.items() if k not in ("vc", "epochs")))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--only", choices=("chess", "binary"))
    args = ap.parse_args()
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    warnings.simplefilter("ignore", CatEmbedWarning)
    t = time.perf_counter()
    import torch  # noqa: F401  (imported once here so the first fit does not pay for it)

    print(f"import torch {time.perf_counter() - t:.2f} s")
    if args.only != "binary":
        if (SHARED / "datasets" / "chess_krkopt" / "data.csv").exists():
            time_cdepp("Chess krkopt", chess_frame(), args.repeat, args.device)
        else:
            print(f"chess_krkopt not found under {SHARED / 'datasets'}; skipped")
    if args.only != "chess":
        X = planted_frame(10_000, 300, 2, seed=0)
        time_cdepp("synthetic binary", X, args.repeat, args.device)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory {peak:.0f} MiB, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
