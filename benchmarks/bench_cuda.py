"""CPU against CUDA for :class:`catembed.deep.ThesisClusterer` on Adult (issue 20, item 5).

For each network: one fit on ``device="cpu"`` (``n_threads=1``, the class default) and one on
``device="cuda"``, the same ``random_state`` and settings, on the Adult training file (mixed,
complete rows: 30,162), ``n_clusters=2``. A warm-up fit on 256 rows per device comes first
(PyTorch's lazy imports, CUDA context). Printed per fit: wall and CPU seconds; per network:
the ratio of the wall times, whether the two partitions are equal (up to renaming the
clusters), their adjusted Rand index, and each one's NMI with the income label.

GPU and CPU sum floating-point numbers in different orders, so after thousands of Adam steps
the two fits need not give the same partition; the ARI says how far apart they are.

Usage: ``python benchmarks/bench_cuda.py --networks ae,attention [--epochs 100]
[--cluster-epochs N] [--clustering kmeans] [--devices cpu,cuda] [--json OUT.json]``
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from pathlib import Path

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))
PRESET = {"columns": "mixed", "rows": "complete", "split": "train", "drop_constant": True}


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--networks", default="ae,attention,transformer,ft-transformer")
    ap.add_argument("--clustering", default="kmeans")
    ap.add_argument("--epochs", type=int, default=None, help="default: the class' (100)")
    ap.add_argument("--cluster-epochs", type=int, default=None)
    ap.add_argument("--devices", default="cpu,cuda")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import numpy as np
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    from catembed.datasets import load_dataset
    from catembed.deep import ThesisClusterer

    data = load_dataset("adult", data_dir=SHARED / "datasets", preset=PRESET)
    X, y = data.features, np.asarray(data.labels)
    out = []
    for net in args.networks.split(","):
        kw = {"network": net, "clustering": args.clustering}
        if args.epochs is not None:
            kw["epochs"] = args.epochs
        if args.cluster_epochs is not None:
            kw["cluster_epochs"] = args.cluster_epochs
        labels = {}
        for dev in args.devices.split(","):
            ThesisClusterer(2, random_state=0, epochs=1, cluster_epochs=1, device=dev,
                            network=net, clustering=args.clustering).fit(X.iloc[:256])
            t0, c0 = time.perf_counter(), _cpu()
            model = ThesisClusterer(2, random_state=0, device=dev, **kw).fit(X)
            if dev.startswith("cuda"):
                import torch

                torch.cuda.synchronize()
            wall, cpu = time.perf_counter() - t0, _cpu() - c0
            labels[dev] = np.asarray(model.labels_)
            row = {"network": net, "clustering": args.clustering, "device": dev,
                   "rows": len(X), "epochs": model.epochs, "wall_s": round(wall, 2),
                   "cpu_s": round(cpu, 2), "fallback": bool(model.fallback_),
                   "nmi_income": round(normalized_mutual_info_score(y, labels[dev]), 4)}
            print(json.dumps(row), flush=True)
            out.append(row)
        if len(labels) == 2:
            a, b = labels.values()
            walls = [r["wall_s"] for r in out[-2:]]
            row = {"network": net, "cpu_over_cuda_wall": round(walls[0] / walls[1], 2),
                   "equal_partitions": bool(adjusted_rand_score(a, b) == 1.0),
                   "ari_cpu_cuda": round(adjusted_rand_score(a, b), 4)}
            print(json.dumps(row), flush=True)
            out.append(row)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
