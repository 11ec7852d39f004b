"""CPU against CUDA for every deep clusterer, on Adult and on 1M resampled rows (issue 42,
item 4; issue 20, item 5 measured the thesis' batch of 32).

Each fit runs in a child process of its own (``--one``) under a time limit, so a slow fit
costs its limit and no more, and each child's peak GPU memory is its own. A child first fits
256 rows on its device (PyTorch's lazy imports, the CUDA context), then the timed fit.
Printed per fit, one JSON line: the method, rows, device, batch size, epochs or steps, wall
and CPU seconds, peak GPU memory (``torch.cuda.max_memory_allocated``), whether the guard
fell back, and the NMI with the income label; per pair of devices: the CPU / GPU wall ratio
and the adjusted Rand index of the two partitions (``1.0``: the same partition).

The same settings run on both devices, with batches large enough to keep a GPU busy
(``--batch``, default 4,096 rows; the networks' own defaults are 32 and 256 rows). On the
CPU PyTorch uses every core (``n_threads=None``) so the CPU side is not handicapped. The
1M-row table is Adult's training rows drawn with replacement (``numpy`` seed 0), written
once to a pickle beside the JSON and read by every child.

Usage: ``python benchmarks/bench_cuda.py [--methods thesis-ae,deep-idec,...]
[--rows 30162,1000000] [--devices cuda,cpu] [--batch 4096] [--limit 120] [--budget 330]
[--json OUT.json]``
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
METHODS = ("thesis-ae", "thesis-attention", "thesis-transformer", "thesis-ft-transformer",
           "deep-ae-kmeans", "deep-idec", "deep-attention")


def _estimator(method: str, device: str, batch: int, big: bool, threads: int | None):
    from catembed.deep import IDEC, AttentionClusterer, AutoencoderKMeans, ThesisClusterer

    common = {"device": device, "random_state": 0, "n_threads": threads}
    if method.startswith("thesis-"):
        # epochs: about 150 steps on Adult, 2 passes over the 1M rows
        return ThesisClusterer(2, network=method[len("thesis-"):], batch_size=batch,
                               epochs=2 if big else 20, **common)
    cls = {"deep-ae-kmeans": AutoencoderKMeans, "deep-idec": IDEC,
           "deep-attention": AttentionClusterer}[method]
    steps = {"pretrain_steps": 300, "cluster_steps": 300, "update_interval": 100}
    return cls(2, batch_size=batch, **steps, **common)


def _table(rows: int, cache: Path):
    import numpy as np
    import pandas as pd

    from catembed.datasets import load_dataset

    data = load_dataset("adult", data_dir=SHARED / "datasets", preset=PRESET)
    X, y = data.features, np.asarray(data.labels)
    if rows <= len(X):
        return X.iloc[:rows], y[:rows]
    path = cache / f"adult_{rows}.pkl"
    if not path.exists():
        idx = np.random.default_rng(0).integers(0, len(X), rows)
        pd.to_pickle((X.iloc[idx].reset_index(drop=True), y[idx]), path)
    return pd.read_pickle(path)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def one(args: argparse.Namespace) -> None:
    """Fit one method on one table on each device in turn (the GPU first), in this process,
    and print a JSON line per fit."""
    import numpy as np
    from sklearn.metrics import normalized_mutual_info_score

    X, y = _table(args.rows, Path(args.cache))
    for dev in args.devices.split(","):
        cuda = dev.startswith("cuda")
        threads = 1 if cuda else None
        _estimator(args.methods, dev, 64, False, threads).set_params(
            **({"epochs": 1} if args.methods.startswith("thesis-") else
               {"pretrain_steps": 2, "cluster_steps": 2})).fit(X.iloc[:256])
        if cuda:
            import torch

            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        est = _estimator(args.methods, dev, args.batch, args.rows > 100_000, threads)
        t0, c0 = time.perf_counter(), _cpu()
        est.fit(X)
        if cuda:
            torch.cuda.synchronize()
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        p = est.get_params()
        row = {"method": args.methods, "rows": len(X), "device": dev,
               "batch": args.batch, "epochs": p.get("epochs"),
               "steps": None if "epochs" in p else p["pretrain_steps"] + p["cluster_steps"],
               "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
               "gpu_peak_mib": (round(torch.cuda.max_memory_allocated() / 2**20, 1)
                                if cuda else None),
               "fallback": bool(est.fallback_),
               "nmi_income": round(normalized_mutual_info_score(y, est.labels_), 4)}
        np.save(Path(args.cache) / f"labels_{args.methods}_{args.rows}_{dev}.npy",
                np.asarray(est.labels_))
        print(json.dumps(row), flush=True)


def _child(cmd: list[str], limit: float) -> tuple[list[dict], float | None]:
    """The JSON lines a child printed (those before its time limit, if it ran over)."""
    try:
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
        text, over, err = res.stdout, None, res.stderr
    except subprocess.TimeoutExpired as exc:
        text = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        over, err = limit, ""
    rows = [json.loads(x) for x in text.splitlines() if x.startswith("{")]
    if not rows and over is None:
        rows = [{"error": err.strip().splitlines()[-1:]}]
    return rows, over


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--rows", default="30162,1000000")
    ap.add_argument("--devices", default="cuda,cpu")
    ap.add_argument("--batch", type=int, default=4096)
    ap.add_argument("--limit", type=float, default=120.0,
                    help="seconds per method and table, both devices, at most")
    ap.add_argument("--budget", type=float, default=1e9, help="seconds for the whole run")
    ap.add_argument("--json", default="bench_cuda.json")
    ap.add_argument("--cache", default=None)
    ap.add_argument("--one", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        args.rows = int(args.rows)
        return one(args)

    import numpy as np
    from sklearn.metrics import adjusted_rand_score

    out_path = Path(args.json)
    cache = Path(args.cache or out_path.parent)
    cache.mkdir(parents=True, exist_ok=True)
    start, out = time.perf_counter(), []
    sizes = [int(r) for r in args.rows.split(",")]
    for rows in sizes:
        _table(rows, cache)  # the resampled table, written once before the children read it
    for rows in sizes:
        for method in args.methods.split(","):
            left = args.budget - (time.perf_counter() - start)
            if left < 20:
                found, over = [], None
                out.append({"method": method, "rows": rows, "skipped": "budget"})
            else:
                cmd = [sys.executable, __file__, "--one", "--methods", method, "--rows",
                       str(rows), "--devices", args.devices, "--batch", str(args.batch),
                       "--cache", str(cache)]
                found, over = _child(cmd, min(args.limit, left))
                out.extend(found)
                if over is not None:
                    done = {r.get("device") for r in found}
                    out.extend({"method": method, "rows": rows, "device": d, "over_s": over}
                               for d in args.devices.split(",") if d not in done)
            timed = {r["device"]: r for r in found if "wall_s" in r}
            if len(timed) == 2:
                (d1, a), (d2, b) = timed.items()
                la = np.load(cache / f"labels_{method}_{rows}_{d1}.npy")
                lb = np.load(cache / f"labels_{method}_{rows}_{d2}.npy")
                out.append({"method": method, "rows": rows,
                            f"{d2}_over_{d1}_wall": round(b["wall_s"] / a["wall_s"], 2),
                            "ari_between_devices": round(adjusted_rand_score(la, lb), 4)})
            for r in out[-3:]:
                print(json.dumps(r), flush=True)
            out_path.write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
