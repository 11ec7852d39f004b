"""Issue 42, item 2: which reference partition for the deep clusterers' guard?

Answer used in: src/catembed/deep/_reference.py (``rank_reference``); docs/deep.md, "The
reference (design half and planted tables only)".

Scores candidate label-free references by NMI to the class on the DESIGN half of the pool
(``deep_pool.py``; the check half is never read here) and by NMI to the planted groups on
planted mixed tables of the shapes issue 42 names (:func:`heavy_tailed_mixed`: income-like
columns up to 1e5 beside 0-10 columns, a many-valued Zipf-skewed categorical column, skewed
binary categories). Candidates, k-means with ``n_init=10`` unless said:

* ``old``: the reference before issue 42 (``codes`` / ``onehot`` / ``chi2`` spaces, numbers
  z-scored, the one agreeing most with the other two);
* ``binned``: every numeric column in 5 quantile bins, then every column one-hot with its
  indicators of total variance 1 (the ``onehot`` weighting);
* ``rank``: categorical columns one-hot (total variance 1 a column) beside the numbers as
  normal scores of their ranks (z-scored);
* ``vote-rank``: ``old`` with the numbers replaced by the normal scores of their ranks;
* ``kmodes-binned``: catembed's ``KModes`` (random init, ``n_init=10``) of the binned table
  (k-prototypes with ``--numeric discretize``).

Usage: ``python studies/deep_pool_reference.py [--seeds 5]``.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import pandas as pd
from scipy.stats import norm, rankdata
from sklearn.cluster import KMeans
from sklearn.metrics import normalized_mutual_info_score as nmi

sys.path.insert(0, os.path.dirname(__file__))
import deep_pool  # noqa: E402
from catembed.deep import _guard  # noqa: E402
from catembed.stats._numeric import quantile_edges  # noqa: E402


def heavy_tailed_mixed(n_rows: int = 1000, n_groups: int = 3, strength: float = 1.0,
                       seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """``(frame, groups)``: planted groups seen by two 0-10 scores (group shifts of
    ``strength``), an income-like log-normal column (group-dependent median, up to ~1e5), a
    second income-like column of pure noise (heavier tail), a 40-valued Zipf-skewed
    categorical column (30% of rows shifted by the group), two skewed binary columns (10%
    minority, the rate depending on the group), a 3-valued column by group (60% pure) and
    two categorical noise columns."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n_rows)
    d: dict[str, object] = {}
    for j in range(2):
        mu = rng.permutation(np.linspace(2, 8, n_groups)) if strength else np.full(n_groups, 5)
        d[f"score{j}"] = np.clip(5 + strength * (mu[g] - 5) + rng.normal(0, 1.5, n_rows), 0, 10)
    med = np.log(20_000) + 0.5 * strength * rng.permutation(np.arange(n_groups) - 1)
    d["income"] = np.minimum(np.exp(med[g] + rng.normal(0, 0.8, n_rows)), 1e5)
    d["wealth"] = np.minimum(np.exp(np.log(5_000) + rng.normal(0, 1.6, n_rows)), 1e5)
    p = 1.0 / np.arange(1, 41)
    v = rng.choice(40, n_rows, p=p / p.sum())
    d["region"] = np.array([f"r{x}" for x in np.where(rng.random(n_rows) < 0.3,
                                                      (v + 7 * g) % 40, v)], dtype=object)
    for j in range(2):
        rate = 0.1 * (1 + rng.permutation(n_groups)) / n_groups * 2 if strength else \
            np.full(n_groups, 0.1)
        d[f"flag{j}"] = np.where(rng.random(n_rows) < rate[g], "yes", "no").astype(object)
    d["type"] = np.array([f"t{x}" for x in np.where(rng.random(n_rows) < 0.6, g % 3,
                                                    rng.integers(0, 3, n_rows))], dtype=object)
    for j in range(2):
        d[f"noise{j}"] = rng.choice(["a", "b", "c", "d"], n_rows,
                                    p=[0.55, 0.3, 0.1, 0.05]).astype(object)
    return pd.DataFrame(d), g


PLANTED = {
    "heavy-k3": {"n_groups": 3, "strength": 1.0},
    "heavy-weak-k3": {"n_groups": 3, "strength": 0.6},
    "heavy-k5": {"n_groups": 5, "strength": 1.0},
    "heavy-k2": {"n_groups": 2, "strength": 1.0},
}


def split_codes(X: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    cat = [c for c in X.columns if not pd.api.types.is_numeric_dtype(X[c])]
    num = [c for c in X.columns if c not in cat]
    codes = (np.stack([pd.factorize(X[c])[0] for c in cat], axis=1) if cat
             else np.zeros((len(X), 0), dtype=np.int64))
    return codes, X[num].to_numpy(np.float64) if num else np.zeros((len(X), 0))


def binned_codes(codes: np.ndarray, nums: np.ndarray, n_bins: int = 5) -> np.ndarray:
    bins = [np.searchsorted(quantile_edges(nums[:, j], n_bins), nums[:, j], side="right")
            for j in range(nums.shape[1])]
    return np.column_stack([codes] + bins) if bins else codes


def normal_scores(nums: np.ndarray) -> np.ndarray:
    """Every column's numbers as normal scores of their ranks (ties share the mean rank)."""
    if not nums.shape[1]:
        return nums
    return np.column_stack([norm.ppf((rankdata(nums[:, j]) - 0.5) / len(nums))
                            for j in range(nums.shape[1])])


def candidate(name: str, X: pd.DataFrame, k: int, seed: int) -> np.ndarray:
    codes, nums = split_codes(X)
    if name == "old":
        return _guard.reference_partition(codes, nums, k, seed).labels
    if name == "new":
        return _guard.reference_partition(codes, nums, k, seed).labels
    if name in ("binned", "kmodes-binned"):
        b = binned_codes(codes, nums)
        if name == "kmodes-binned":
            from catembed.cluster.kmodes import KModes
            frame = pd.DataFrame({f"c{j}": b[:, j].astype(str) for j in range(b.shape[1])})
            return KModes(k, init="random", n_init=10, random_state=seed).fit(frame).labels_
        empty = np.zeros((len(b), 0))
        state = _guard.reference_state(b, empty)
        return KMeans(k, n_init=10, random_state=seed).fit_predict(
            _guard.reference_input(b, empty, state, "onehot"))
    if name == "vote-rank":
        return _guard.reference_partition(codes, normal_scores(nums), k, seed).labels
    if name == "rank":
        empty = np.zeros((len(codes), 0))
        state = _guard.reference_state(codes, empty)
        onehot = _guard.reference_input(codes, empty, state, "onehot").toarray()
        z = np.column_stack([norm.ppf((rankdata(nums[:, j]) - 0.5) / len(nums))
                             for j in range(nums.shape[1])]) if nums.shape[1] else empty
        z = (z - z.mean(0)) / np.where(z.std(0) > 0, z.std(0), 1)
        return KMeans(k, n_init=10, random_state=seed).fit_predict(np.hstack([onehot, z]))
    raise ValueError(name)


CANDIDATES = ("old", "binned", "rank", "vote-rank", "kmodes-binned")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--candidates", nargs="+", default=list(CANDIDATES))
    a = ap.parse_args()
    pool = {t: deep_pool.load(t) for t in deep_pool.DESIGN}  # the design half only
    rows = []
    for t, tab in pool.items():
        rows += [(t, c, s, nmi(tab.y, candidate(c, tab.X, tab.n_clusters, s)))
                 for c in a.candidates for s in range(a.seeds)]
    for t, spec in PLANTED.items():
        for s in range(a.seeds):
            X, g = heavy_tailed_mixed(seed=100 + s, **spec)
            rows += [(t, c, s, nmi(g, candidate(c, X, spec["n_groups"], s)))
                     for c in a.candidates]
    df = pd.DataFrame(rows, columns=["table", "candidate", "seed", "nmi"])
    mean = df.pivot_table(index="table", columns="candidate", values="nmi", aggfunc="mean")
    sd = df.pivot_table(index="table", columns="candidate", values="nmi", aggfunc="std")
    print((mean.round(3).astype(str) + " ± " + sd.round(3).astype(str))[a.candidates]
          .to_string())
    print("mean over design tables:", mean.loc[list(pool)].mean().round(3).to_dict())
    print("mean over planted:", mean.loc[list(PLANTED)].mean().round(3).to_dict())


if __name__ == "__main__":
    main()
