"""CDE++ fit time on the paper's data sets, on Chess (krkopt, 28,056 x 6) and on a 10k x 300 table.

Goals: issue 12, a fit in under 1 s on the CPU for the small tables of the paper (``--only
paper``: every set of Table 3 in the shared data folder, prepared as the bench prepares it;
the default layer-wise MATLAB-style training is timed against the end-to-end PyTorch network,
``training="joint"``, in the same run, so the ratio holds whatever the machine's load);
issue 4, Chess under 10 s and the 10k x 300 binary table under 60 s (the CDE++ paper reports
about 10 minutes in MATLAB, Sec. 4.6). Each fit is timed whole (statistics, value matrices,
hybrid clustering, autoencoder, transform) and by stage. Data are read from
``$CATEMBED_SHARED/datasets`` (default ``../shared/datasets``).

Usage: ``python benchmarks/bench_cdepp.py [--repeat 3] [--device cpu|cuda]
[--only paper|chess|binary|ae] [--no-joint]``; ``--only ae`` prints label-free figures of the
autoencoder on each paper set's value-cluster matrix instead of timings
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
from catembed.embed._sparse_autoencoder import stacked_reconstruction, train_stacked_autoencoder
from catembed.embed._value_clusters import hybrid_value_clusters
from catembed.embed.cde import cde_influence_matrices
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
    q = code_size(h.indicator.shape[1], 10)
    if device == "cpu":  # the default: MATLAB-style layer-wise training in NumPy
        d = CDEPlusPlus()
        _, layers = train_stacked_autoencoder(
            h.indicator, (d.hidden_size, q), l2_weight=d.l2_weight,
            sparsity_proportion=d.sparsity_proportion, mse_normalization=d.mse_normalization,
            random_state=seed)
        epochs = sum(layer.n_epochs for layer in layers)
    else:  # the end-to-end PyTorch network, the only one that runs on a GPU
        epochs = train_autoencoder(h.indicator, q, device=device, random_state=seed).n_epochs
    out["autoencoder"] = time.perf_counter() - t
    out["vc"] = h.indicator.shape[1]
    out["epochs"] = epochs
    return out


PAPER_SETS = ("zoo", "iris", "hepatitis", "tic_tac_toe", "anneal", "balance_scale", "tae",
              "student_academics_performance", "lenses", "nursery", "primary_tumor",
              "chess_krkopt")


def paper_frames():
    """The sets of CDE++ Table 3 found in the shared folder, prepared as ``bench`` does."""
    from catembed.datasets import apply_preset
    from catembed.evaluation.bench import find_dataset, load_table

    spec = load_table("cdepp-3")
    for entry in spec["datasets"]:
        folder = find_dataset(entry, SHARED / "datasets")
        if folder is None:
            continue
        raw = load_dataset(folder)
        raw.name = entry["name"]
        yield entry["label"], apply_preset(raw, entry.get("preset", spec.get("preset")))


def time_paper_sets(repeat: int, joint: bool = True) -> None:
    """Median fit time per set: the default training and the end-to-end PyTorch network."""
    print("Wall and CPU seconds of one fit (median over seeds); on a shared machine the CPU "
          "time is what the fit costs (both trainings run on one thread).")
    print("set | n x d | l values | vc | q | stacked (default) wall / CPU s | epochs | "
          + ("joint wall / CPU s | joint / stacked CPU | " if joint else "") + "load")
    ratios = []
    for label, data in paper_frames():
        X = data.features
        times: dict[str, list[float]] = {"stacked": [], "joint": []}
        cpu: dict[str, list[float]] = {"stacked": [], "joint": []}
        if not joint:
            times["joint"] = cpu["joint"] = [float("nan")]
        for seed in range(repeat):
            for training in times if joint else ("stacked",):
                opt = "scg" if training == "stacked" else "lbfgs"
                t, c = time.perf_counter(), time.process_time()
                est = CDEPlusPlus(random_state=seed, training=training, optimizer=opt).fit(X)
                times[training].append(time.perf_counter() - t)
                cpu[training].append(time.process_time() - c)
                if training == "stacked":
                    info = (est.stats_.n_values, est.value_clusters_.shape[1],
                            est.n_components_, est.n_epochs_)
        st, jt = np.median(times["stacked"]), np.median(times["joint"])
        sc, jc = np.median(cpu["stacked"]), np.median(cpu["joint"])
        ratios.append(jc / sc)
        cells = f"{jt:.2f} / {jc:.2f} | {jc / sc:.1f} | " if joint else ""
        print(f"{label} | {X.shape[0]} x {X.shape[1]} | {info[0]} | {info[1]} | {info[2]} | "
              f"{st:.2f} / {sc:.2f} | {info[3]} | {cells}{os.getloadavg()[0]:.1f}", flush=True)
    if joint:
        print(f"median joint / stacked CPU time ratio {np.median(ratios):.1f}")


AE_SETTINGS = {  # name -> train_stacked_autoencoder keywords
    "MATLAB scaling, MATLAB weights": {"mse_normalization": "matlab", "l2_weight": 1e-3,
                                       "sparsity_proportion": 0.05},
    "MATLAB scaling, 1e-5 / 0.3 (default)": {"mse_normalization": "matlab", "l2_weight": 1e-5,
                                             "sparsity_proportion": 0.3},
    "documented formula, Ng init (first pass)": {"mse_normalization": "samples",
                                                 "init": "ng", "l2_weight": 1e-5,
                                                 "sparsity_proportion": 0.3},
}


def autoencoder_diagnostics(seed: int = 0) -> None:
    """Label-free figures of the stacked autoencoder on each paper set's ``C`` (issue 12).

    For each setting of :data:`AE_SETTINGS`: the reconstruction error of the stacked network
    over that of the column means, the second layer's ``trainscg`` epochs and the largest
    standard deviation of a code unit (constant codes: near 0). For the default also: how
    many entries of ``C`` the rounded reconstruction gets wrong, and the Pearson correlation
    of the values' pairwise distances in ``C`` and in the codes.
    """
    from scipy.spatial.distance import pdist

    print(f"autoencoder on C, seed {seed}: reconstruction error / column means' error, "
          "layer-2 epochs, max code std")
    print("set | l | distinct rows | vc | q | " + " | ".join(AE_SETTINGS)
          + " | wrong entries of round(reconstruction) | corr(distances in C, in codes)")
    for label, data in paper_frames():
        stats = compute_statistics(data.features)
        m_c, m_o = cde_influence_matrices(stats)
        C = hybrid_value_clusters({"M_o": m_o, "M_c": m_c}).indicator
        q = code_size(C.shape[1], 10)
        base = float(((C - C.mean(axis=0)) ** 2).mean())
        cells = []
        for name, kw in AE_SETTINGS.items():
            codes, layers = train_stacked_autoencoder(C, (64, q), random_state=seed, **kw)
            rec = stacked_reconstruction(layers, C)
            cells.append(f"{((rec - C) ** 2).mean() / base:.3f}, {layers[1].n_epochs}, "
                         f"{codes.std(axis=0).max():.3f}")
            if "default" in name:
                wrong = int((np.abs(rec - C) >= 0.5).sum())
                corr = float(np.corrcoef(pdist(C), pdist(codes))[0, 1])
        print(f"{label} | {C.shape[0]} | {len(np.unique(C, axis=0))} | {C.shape[1]} | {q} | "
              + " | ".join(cells) + f" | {wrong} of {C.size} | {corr:.3f}", flush=True)


def time_cdepp(name: str, X, repeat: int, device: str) -> None:
    fit, transform = [], []
    for seed in range(repeat):
        t0 = time.perf_counter()
        training = "stacked" if device == "cpu" else "joint"
        est = CDEPlusPlus(random_state=seed, device=device, training=training,
                          optimizer="scg" if device == "cpu" else "lbfgs").fit(X)
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
    ap.add_argument("--only", choices=("paper", "chess", "binary", "ae"))
    ap.add_argument("--no-joint", action="store_true",
                    help="paper sets: time the default training only")
    args = ap.parse_args()
    print(f"cpu count {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    warnings.simplefilter("ignore", CatEmbedWarning)
    t = time.perf_counter()
    import torch  # noqa: F401  (imported once here so the first fit does not pay for it)

    print(f"import torch {time.perf_counter() - t:.2f} s")
    if args.only == "ae":
        autoencoder_diagnostics()
        return
    if args.only in (None, "paper"):
        time_paper_sets(args.repeat, joint=not args.no_joint)
    if args.only in (None, "chess"):
        if (SHARED / "datasets" / "chess_krkopt" / "data.csv").exists():
            time_cdepp("Chess krkopt", chess_frame(), args.repeat, args.device)
        else:
            print(f"chess_krkopt not found under {SHARED / 'datasets'}; skipped")
    if args.only in (None, "binary"):
        X = planted_frame(10_000, 300, 2, seed=0)
        time_cdepp("synthetic binary", X, args.repeat, args.device)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory {peak:.0f} MiB, load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
