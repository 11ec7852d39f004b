"""Which thresholds should the deep clusterers' degeneracy guard use, and which restart should it
keep? (issue 20, item 3)

Answer used in: src/catembed/deep/_guard.py; docs/deep.md, "How the thresholds and the criterion
were chosen".

Choose the degeneracy guard's thresholds and test the restart criterion on planted data
(issue 20, item 3). No labelled data set enters: every table is made by
``benchmarks/synthetic.py:planted_mixed``, whose planted groups score the restarts.

For every planted table and every model, one fit with ``n_init`` restarts and the guard off
records every restart's partition and final objective. For each restart the script prints
its adjusted Rand index to the planted groups (ARI-truth), its objective, its agreement (mean
ARI to the other restarts and to the reference partition, the k-means of the standardised
input), its effective number of clusters over the reference's (eff ratio) and its ARI to the
reference; per table, the Spearman correlation of ARI-truth with the agreement and with minus
the objective (both: higher should mean better). ``--stress`` adds fits set up to fail
(a clustering weight ``gamma=20`` and a learning rate of ``1e-2``), the degenerate cases the
guard must catch.

Usage: ``python studies/deep_guard_design.py [--models IDEC,AttentionClusterer]
[--n-init 5] [--steps 300] [--stress]``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # synthetic.py
import catembed.deep as deep  # noqa: E402
from catembed.deep import _guard, clustering  # noqa: E402
from catembed.deep._data import fit_encode_compact, split_columns  # noqa: E402
from synthetic import planted_mixed  # noqa: E402

#: (name, planted_mixed arguments): strong to weak signal, balanced and not
TABLES = [
    ("clear-k4", {"n_groups": 4, "purity": 0.5, "separation": 1.0}),
    ("weak-k4", {"n_groups": 4, "purity": 0.3, "separation": 0.6}),
    ("cat-only-signal-k3", {"n_groups": 3, "purity": 0.5, "separation": 0.0}),
    ("imbalanced-k5", {"n_groups": 5, "purity": 0.45, "separation": 1.0, "imbalance": 0.6}),
    ("num-heavy-k3", {"n_groups": 3, "purity": 0.25, "separation": 1.5, "n_numeric": 6}),
    ("noise-k4", {"n_groups": 4, "purity": 0.0, "separation": 0.0}),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="IDEC,AttentionClusterer")
    ap.add_argument("--n-init", type=int, default=5)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--rows", type=int, default=600)
    ap.add_argument("--stress", action="store_true")
    args = ap.parse_args()
    runs: list[dict] = []
    original = clustering._DeepClusterer._fit_one

    def recording(self, *a, **kw):
        run = original(self, *a, **kw)
        runs.append({"objective": run["objective"], "labels": np.array(run["labels"])})
        return run

    clustering._DeepClusterer._fit_one = recording
    settings = [("default", {})]
    if args.stress:
        settings.append(("stress", {"gamma": 20.0, "learning_rate": 1e-2}))
    print("table model setting restart ari_truth objective agreement eff_ratio ari_ref "
          "ref_ari_truth")
    summary = []
    for t, (name, kw) in enumerate(TABLES):
        X, groups = planted_mixed(args.rows, seed=100 + t, **kw)
        k = int(kw["n_groups"])
        df, cat, num = split_columns(X, "auto")
        enc, codes, nums = fit_encode_compact(df, cat, num)
        ref = _guard.reference_partition(codes.astype(np.int64) - enc.offsets[None, :], nums,
                                         k, 0).labels
        ref_truth = adjusted_rand_score(groups, ref)
        for model in args.models.split(","):
            for setting, extra in settings:
                runs.clear()
                t0 = time.perf_counter()
                getattr(deep, model)(k, n_init=args.n_init, random_state=t, guard=False,
                                     pretrain_steps=args.steps, cluster_steps=args.steps,
                                     **extra).fit(X)
                secs = time.perf_counter() - t0
                parts = [r["labels"] for r in runs]
                agree = _guard.agreement_scores(parts, ref)
                truth = [adjusted_rand_score(groups, p) for p in parts]
                objs = [r["objective"] for r in runs]
                for r, p in enumerate(parts):
                    d = _guard.diagnose(p, ref)
                    print(f"{name} {model} {setting} {r} {truth[r]:.3f} {objs[r]:.4f} "
                          f"{agree[r]:.3f} {d['effective'] / d['reference_effective']:.3f} "
                          f"{d['ari_reference']:.3f} {ref_truth:.3f}", flush=True)
                rho_a = spearmanr(agree, truth).statistic
                rho_o = spearmanr(-np.asarray(objs), truth).statistic
                pick_a = truth[int(np.argmax(agree))]
                pick_o = truth[int(np.nanargmin(objs))]
                summary.append((name, model, setting, rho_a, rho_o, pick_a, pick_o,
                                max(truth), float(np.mean(truth)), secs))
    print("\ntable model setting spearman(agreement,ARI) spearman(-objective,ARI) "
          "ARI(agreement pick) ARI(objective pick) best mean seconds")
    for row in summary:
        print(" ".join(str(v) if isinstance(v, str) else f"{v:.3f}" for v in row))


if __name__ == "__main__":
    main()
