"""The guard's reference partition on planted data (issue 20, item 3): which space?

Answer used in: src/catembed/deep/_guard.py (``reference_partition``); docs/deep.md, "The
reference, second version".

The degeneracy guard (``catembed/deep/_guard.py``) judges a deep clusterer's partition by its
agreement with a reference partition, and falls back to it. This script scores the candidate
references against the planted groups (adjusted Rand index, ARI), with no labelled data set:
k-means (``n_init=10``) of the z-scored numbers beside the categorical columns as

* ``codes``: label codes, z-scored (the only reference until 24 November 2026, the thesis'
  classical "k-means" input);
* ``onehot``: one-hot indicators, each column's of total variance 1;
* ``chi2``: one-hot indicators over the square root of their value's share (MCA / FAMD's
  chi-square metric);

and ``vote``: the one of the three that agrees most with the other two
(:func:`catembed.deep._guard.reference_partition`, the guard's reference).

Every table of ``studies/deep_guard_design.py`` is scored twice: as
``benchmarks/synthetic.py:planted_mixed`` draws it (its groups own blocks of adjacent value
names ``v0, v1, ...``, so the sorted codes carry the groups' order) and with every column's
value names permuted at random (the codes' order then is arbitrary, as a category's name
usually is). ``credit_like_frame`` (skewed numbers, a few categorical columns) is scored too.

Usage: ``python studies/deep_guard_reference.py [--rows 600] [--seeds 5]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # synthetic.py
from catembed.deep import _guard  # noqa: E402
from catembed.deep._data import fit_encode_compact, split_columns  # noqa: E402
from deep_guard_design import TABLES  # noqa: E402
from synthetic import credit_like_frame, planted_mixed, wide_noise_frame  # noqa: E402


def permute_names(X, seed: int):
    """Every categorical column's value names permuted at random (the same values)."""
    rng = np.random.default_rng(seed)
    X = X.copy()
    for c in X.columns:
        if not pd.api.types.is_numeric_dtype(X[c]):
            names = np.unique(X[c].to_numpy())
            X[c] = X[c].map(dict(zip(names, rng.permutation(names), strict=True)))
    return X


def scores(X, groups, k: int, seed: int) -> list[float]:
    """ARI to the planted groups of each candidate space's k-means and of the vote."""
    df, cat, num = split_columns(X, "auto")
    enc, codes, nums = fit_encode_compact(df, cat, num)
    local = codes.astype(np.int64) - enc.offsets[None, :]
    state = _guard.reference_state(local, nums)
    parts = [KMeans(k, n_init=10, random_state=seed).fit(
        _guard.reference_input(local, nums, state, space)).labels_
        for space in _guard.REFERENCE_SPACES]
    parts.append(_guard.reference_partition(local, nums, k, seed).labels)
    return [adjusted_rand_score(groups, p) for p in parts]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=600)
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    print("table names " + " ".join(_guard.REFERENCE_SPACES)
          + " vote (ARI to the planted groups, mean over seeds)")
    cases = [(name, kw) for name, kw in TABLES] + [("credit-like", None), ("wide-noise", 0)]
    for name, kw in cases:
        for names in ("ordered", "permuted"):
            got = []
            for s in range(args.seeds):
                if kw is None:
                    X, groups = credit_like_frame(690, seed=s)
                    k = 2
                elif kw == 0:
                    X, groups = wide_noise_frame(400, seed=s)
                    k = 2
                else:
                    X, groups = planted_mixed(args.rows, seed=100 + s, **kw)
                    k = int(kw["n_groups"])
                if names == "permuted":
                    X = permute_names(X, seed=s)
                got.append(scores(X, groups, k, s))
            print(f"{name} {names} " + " ".join(f"{v:.3f}" for v in np.mean(got, axis=0)),
                  flush=True)


if __name__ == "__main__":
    main()
