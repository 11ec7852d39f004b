"""How should ``Consensus`` combine its members' runs: one member, the most stable ones, or all of
them with which weights? (first design, planted tables)

Answer used in: docs/consensus-design.md, "How the design was chosen";
src/catembed/cluster/consensus/_estimator.py (``weights``).

Design study of :class:`catembed.cluster.Consensus` on synthetic planted tables only.

For each scenario and seed, one fit records every member's k-means runs; the combination
rules are then applied to those same runs, so rules differ only in how they combine:

* ``member:<name>``   the consensus of that member's runs alone (a single-method baseline);
* ``oracle-best``     the best single member by ARI with the truth (needs labels: a bound);
* ``select-stable``   the single most stable member (label-free selection);
* ``top3-stable``     the three most stable members, equal weights;
* ``eac-equal``       all members, equal weights (plain evidence accumulation);
* ``eac-stab^p``      all members, weights stability ** p, p in 1, 2, 4.

Scenarios vary purity, the number of groups, noise columns (uniform, high-cardinality,
skewed), unequal group sizes and latent-class tables (value profiles per class drawn from a
Dirichlet), so that different members win. Run from the repository root:

    PYTHONPATH=src python studies/frozen/consensus_design.py [--rows 2000] [--seeds 3]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # studies/: the live scripts
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))  # synthetic.py

from catembed._utils._threads import one_thread  # noqa: E402
from catembed.cluster.consensus import Consensus  # noqa: E402
from catembed.metrics import ari_codes as _ari  # noqa: E402
from synthetic import planted_codes  # noqa: E402


def _frame(codes: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({f"c{j}": np.char.add(f"c{j}_", codes[:, j].astype(str)).astype(object)
                         for j in range(codes.shape[1])})


def _unequal(n: int, sizes: list[float], n_features: int, n_values: int, purity: float,
             rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    k = len(sizes)
    groups = rng.choice(k, size=n, p=np.asarray(sizes) / np.sum(sizes))
    block = max(n_values // k, 1)
    codes = np.empty((n, n_features), dtype=np.int64)
    for j in range(n_features):
        inside = (groups * block + rng.integers(0, block, n)) % n_values
        codes[:, j] = np.where(rng.random(n) < purity, inside, rng.integers(0, n_values, n))
    return codes, groups


def _latent(n: int, k: int, n_features: int, n_values: int, conc: float,
            rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    groups = rng.integers(0, k, n)
    codes = np.empty((n, n_features), dtype=np.int64)
    for j in range(n_features):
        prof = rng.dirichlet(np.full(n_values, conc), size=k)
        cum = prof.cumsum(axis=1)[groups]
        codes[:, j] = np.minimum((rng.random(n)[:, None] > cum).sum(axis=1), n_values - 1)
    return codes, groups


def _with_noise(codes: np.ndarray, rng: np.random.Generator, n_cols: int, n_values: int,
                skew: float = 0.0) -> np.ndarray:
    n = len(codes)
    if skew:
        p = np.r_[1 - skew, np.full(n_values - 1, skew / (n_values - 1))]
        noise = rng.choice(n_values, size=(n, n_cols), p=p)
    else:
        noise = rng.integers(0, n_values, (n, n_cols))
    return np.hstack([codes, noise])


def scenario(name: str, n: int, seed: int) -> tuple[pd.DataFrame, np.ndarray, int]:
    rng = np.random.default_rng(1000 + seed)
    if name == "base":
        c, g = planted_codes(n, 10, 10, n_groups=5, purity=0.5, seed=seed)
        k = 5
    elif name == "low-purity":
        c, g = planted_codes(n, 10, 10, n_groups=5, purity=0.32, seed=seed)
        k = 5
    elif name == "many-groups":
        c, g = planted_codes(n, 12, 20, n_groups=10, purity=0.5, seed=seed)
        k = 10
    elif name == "noise-uniform":
        c, g = planted_codes(n, 6, 10, n_groups=5, purity=0.5, seed=seed)
        c, k = _with_noise(c, rng, 10, 10), 5
    elif name == "noise-highcard":
        c, g = planted_codes(n, 6, 10, n_groups=5, purity=0.5, seed=seed)
        c, k = _with_noise(c, rng, 4, 60), 5
    elif name == "noise-skewed":
        c, g = planted_codes(n, 6, 8, n_groups=4, purity=0.45, seed=seed)
        c, k = _with_noise(c, rng, 6, 6, skew=0.15), 4
    elif name == "unequal":
        c, g = _unequal(n, [0.5, 0.25, 0.13, 0.08, 0.04], 10, 10, 0.5, rng)
        k = 5
    elif name == "latent-class":
        c, g = _latent(n, 4, 8, 5, 0.5, rng)
        k = 4
    elif name == "latent-sparse":
        c, g = _latent(n, 3, 12, 3, 1.0, rng)
        k = 3
    else:
        raise ValueError(name)
    return _frame(np.asarray(c)), np.asarray(g), k


SCENARIOS = ("base", "low-purity", "many-groups", "noise-uniform", "noise-highcard",
             "noise-skewed", "unequal", "latent-class", "latent-sparse")


class _Recording(Consensus):
    """Consensus that keeps its member runs for the study (not for users: O(n L) memory)."""

    def _combine(self, runs_all, rs, weights=None, spaces=None):  # noqa: ANN001
        self.runs_ = runs_all
        super()._combine(runs_all, rs, weights, spaces)


def rules(model: _Recording, truth: np.ndarray) -> dict[str, float]:
    out: dict[str, float] = {}
    stab = model.member_stability_
    m = len(stab)

    def score(w: np.ndarray) -> float:
        model._combine(model.runs_, np.random.RandomState(0), w)
        return _ari(truth, model.labels_)

    singles = {}
    for i, name in enumerate(model.members_):
        singles[name] = score(np.eye(m)[i])
        out[f"member:{name}"] = singles[name]
    out["oracle-best"] = max(singles.values())
    out["select-stable"] = singles[model.members_[int(np.argmax(stab))]]
    top = np.zeros(m)
    top[np.argsort(stab)[::-1][:3]] = 1.0
    out["top3-stable"] = score(top)
    out["eac-equal"] = score(np.ones(m))
    for p in (1, 2, 4):
        out[f"eac-stab^{p}"] = score(np.maximum(stab, 1e-3) ** p)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--scenarios", nargs="*", default=list(SCENARIOS))
    args = ap.parse_args()
    rows = []
    for sc in args.scenarios:
        for seed in range(args.seeds):
            df, g, k = scenario(sc, args.rows, seed)
            t = time.perf_counter()
            model = _Recording(k, combine="coassoc", random_state=seed).fit(df)
            with one_thread():  # many small k-means problems: threads only spin-wait
                res = rules(model, g)
            res.update(scenario=sc, seed=seed, seconds=time.perf_counter() - t)
            for name, s in zip(model.members_, model.member_stability_, strict=True):
                res[f"stab:{name}"] = s
            rows.append(res)
            print(f"{sc:15s} seed {seed} done in {res['seconds']:.1f}s", file=sys.stderr)
    table = pd.DataFrame(rows)
    score_cols = [c for c in table.columns if c.startswith("member:")] + [
        "oracle-best", "select-stable", "top3-stable", "eac-equal", "eac-stab^1", "eac-stab^2",
        "eac-stab^4"]
    mean = table.groupby("scenario", sort=False)[score_cols].mean()
    mean.columns = [c.replace("member:", "") for c in mean.columns]
    pd.set_option("display.width", 200)
    print("mean ARI over seeds, per scenario")
    print(mean.round(3).to_string())
    print()
    gap = mean[[c for c in mean.columns[len(mean.columns) - 6:]]].sub(mean["oracle-best"],
                                                                     axis=0)
    print("rule minus oracle-best: mean, worst")
    print(pd.DataFrame({"mean": gap.mean(), "worst": gap.min()}).round(3).to_string())
    stabs = table.groupby("scenario", sort=False)[
        [c for c in table.columns if c.startswith("stab:")]].mean()
    print()
    print("member stability (mean pairwise ARI of its runs)")
    print(stabs.round(3).to_string())


if __name__ == "__main__":
    main()
