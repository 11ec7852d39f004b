"""Which design of LCME (views, axes, EM starts, weights) clusters tables with planted classes
best, without labels? (issue 12, item 5)

Answer used in: src/catembed/embed/lcme.py; docs/reproducing.md, "Our own method: LCME".

LCME design study on synthetic tables with planted classes (no bench set is used).

The development data of catembed's own method (``catembed.embed.LCME``, issue 12 item 5):
tables with a known hidden class, two generators:

* ``planted``: ``benchmarks/synthetic.py`` (value blocks per group, ``purity``);
* ``lcagen``: a latent class model, ``theta_{cj} ~ Dirichlet(conc)`` per class and informative
  attribute, plus noise attributes whose distribution is the same in every class, class
  sizes ``~ Dirichlet(2)``.

Each method embeds the table (or clusters it, LCA), k-means (one start, k-means++) clusters
the embedding into the true number of classes, and the adjusted Rand index against the hidden
class is averaged over seeds. Prints one line per case and the mean per method.

Usage: ``python studies/lcme_design.py [--seeds 5] [METHOD ...]``; methods: ``mca``,
``lca`` (true K), ``lcme``, ``lc`` (LCME's latent-class view alone), ``lcme20``
(``n_components=20``), ``onehot``; ``cmap`` (the composite-likelihood classes with the true
K, each row to its most probable class: how close the statistics-only fit comes to LCA),
``post`` / ``hpost`` (posteriors of LCME's 10 classes, or their square roots, as the
embedding), ``lcme+post`` (LCME with the posteriors as its latent-class view).
"""

from __future__ import annotations

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from catembed.cluster.lca import LCA
from catembed.embed import LCME, MCA
from catembed.stats import encode

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))  # synthetic.py
from synthetic import planted_codes  # noqa: E402


def lcagen(n: int, m: int, k: int, max_values: int, seed: int, *, noise: int = 0,
           conc: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """Codes and classes of a latent-class table: ``m`` informative + ``noise`` attributes."""
    rs = np.random.default_rng(seed)
    z = rs.choice(k, n, p=rs.dirichlet(np.full(k, 2.0)))
    cols = []
    for j in range(m + noise):
        lj = int(rs.integers(2, max_values + 1))
        if j < m:
            th = rs.dirichlet(np.full(lj, conc), size=k)
        else:
            th = np.tile(rs.dirichlet(np.ones(lj)), (k, 1))
        cols.append((th[z].cumsum(1) < rs.random(n)[:, None]).sum(1))
    return np.column_stack(cols), z


def cases() -> list[tuple[str, np.ndarray, np.ndarray]]:
    out = []
    for s in range(3):
        out.append((f"planted 10x10 g5 p.35 s{s}", *planted_codes(600, 10, 10, 5, 0.35, seed=s)))
        out.append((f"planted 20x6 g3 p.30 s{s}", *planted_codes(600, 20, 6, 3, 0.30, seed=s)))
        out.append((f"lca K4 8+6 noise s{s}", *lcagen(800, 8, 4, 6, s, noise=6)))
        out.append((f"lca K6 12 conc1 s{s}", *lcagen(800, 12, 6, 4, 10 + s, conc=1.0)))
        out.append((f"lca K3 6+10 noise l10 s{s}",
                    *lcagen(1000, 6, 3, 10, 20 + s, noise=10, conc=0.3)))
        out.append((f"lca K2 15 small s{s}", *lcagen(300, 15, 2, 3, 30 + s, conc=1.0)))
    return out


def frame(codes: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame({f"a{j}": [f"v{v}" for v in codes[:, j]] for j in range(codes.shape[1])})


def class_loglik(est: LCME, df: pd.DataFrame) -> np.ndarray:
    """``log pi_c + sum_j log theta~_{c x_j}`` of each row (LCME's smoothed classes)."""
    st = est.stats_
    n, offs = st.n_rows, st.offsets
    pi, theta = est.class_weights_, est.class_probabilities_
    l_of = np.diff(offs)[st.attribute_of][:, None]
    log_t = np.log((n * pi * theta + 0.5) / (n * pi + 0.5 * l_of))
    codes = encode(df, list(st.feature_names), list(st.categories))
    return np.log(pi) + log_t[codes + offs[:-1]].sum(axis=1)


def labels(method: str, df: pd.DataFrame, k: int, seed: int) -> np.ndarray:
    if method == "lca":
        return LCA(k, random_state=seed).fit(df).labels_
    if method == "mca":
        emb = MCA(10).fit_transform(df)
    elif method == "onehot":
        emb = pd.get_dummies(df).to_numpy(float)
    elif method in ("lcme", "lc"):
        est = LCME(random_state=seed).fit(df)
        emb = est.transform(df)
        if method == "lc":
            emb = emb[:, [n.startswith("lc") for n in est.get_feature_names_out()]]
    elif method in ("post", "hpost", "cmap", "lcme+post"):
        est = LCME(k if method == "cmap" else 10, random_state=seed).fit(df)
        ll = class_loglik(est, df)
        post = np.exp(ll - ll.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        if method == "cmap":
            return post.argmax(axis=1)
        emb = np.sqrt(post) if method == "hpost" else post
        if method == "lcme+post":
            out = est.transform(df)
            post = post - post.mean(axis=0)
            emb = np.hstack([out[:, :est._n_mca],
                             post / np.sqrt((post ** 2).sum(axis=1).mean())])
    elif method == "lcme20":
        emb = LCME(20, random_state=seed).fit_transform(df)
    else:
        raise SystemExit(f"unknown method {method}")
    return KMeans(k, n_init=1, random_state=seed).fit_predict(emb)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("methods", nargs="*", default=["mca", "lca", "lcme", "lc", "lcme20"])
    ap.add_argument("--seeds", type=int, default=5)
    args = ap.parse_args()
    warnings.filterwarnings("ignore")
    table = []
    for name, codes, z in cases():
        df = frame(codes)
        k = len(np.unique(z))
        row = [np.mean([adjusted_rand_score(z, labels(m, df, k, s)) for s in range(args.seeds)])
               for m in args.methods]
        table.append(row)
        cells = zip(args.methods, row, strict=True)
        print(f"{name:28s} " + " | ".join(f"{m} {v:.3f}" for m, v in cells), flush=True)
    mean = np.mean(table, axis=0)
    cells = zip(args.methods, mean, strict=True)
    print(f"{'mean ARI':28s} " + " | ".join(f"{m} {v:.3f}" for m, v in cells))


if __name__ == "__main__":
    main()
