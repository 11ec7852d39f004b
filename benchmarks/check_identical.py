"""Bit-identity check for refactorings (issue 19): outputs before == outputs after.

Fits a fixed list of estimators on a fixed list of data sets and writes every output array
(embeddings, value tables, labels, distances, saved-model round trips, streamed fits) into
one ``.npz`` file. Run it once on the old commit with ``save``, then on the new code with
``compare``: every array must be equal bit for bit (``numpy.array_equal``, NaN equal to NaN).

usage:
    python benchmarks/check_identical.py save /tmp/before.npz
    python benchmarks/check_identical.py compare /tmp/before.npz
    python benchmarks/check_identical.py compare /tmp/before.npz --skip-deep

Data: the three bundled sets and ``heart_cleveland`` and ``tic_tac_toe`` from
``$CATEMBED_SHARED/datasets`` (default ``../shared/datasets``); the mixed methods (FAMD,
KPrototypes, the deep clusterers, the numeric policies) run on ``heart_cleveland``'s
numbers.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))
SETS = ["soybean_small", "zoo", "lenses", "heart_cleveland", "tic_tac_toe"]


def _tables() -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """name -> (categorical-only frame, mixed frame), complete rows, target and ids removed."""
    from catembed.datasets import load_dataset

    out = {}
    for name in SETS:
        ds = load_dataset(name if name in ("soybean_small", "zoo", "lenses")
                          else SHARED / "datasets" / name)
        drop = [c for c in [ds.target, *ds.id_columns] if c in ds.frame.columns]
        mixed = ds.frame.drop(columns=drop).dropna().reset_index(drop=True)
        cat = mixed.astype(str)
        out[name] = (cat, mixed)
    return out


def _estimators(skip_deep: bool):
    """(key, factory, kind) with kind in {"embed", "cluster", "distance"}."""
    from catembed import (
        CDE,
        LCME,
        MCA,
        UNTIE,
        CategoricalDistance,
        CDEAutoencoder,
        CDEPlusPlus,
        Couplings,
        IDFEmbedder,
        OneHotEmbedder,
        OneHotPCA,
    )
    from catembed.cluster import LCA, KModes, KPrototypes
    from catembed.embed import FAMD

    ests = [
        ("cde", lambda: CDE(random_state=0), "embed", "cat"),
        ("cde_k5_discretize", lambda: CDE(random_state=1, n_components=5, numeric="discretize",
                                          n_bins=3, categorical_features="auto"), "embed", "mixed"),
        ("cde_passthrough", lambda: CDE(random_state=2, numeric="passthrough"), "embed", "mixed"),
        ("cdepp", lambda: CDEPlusPlus(random_state=0, max_epochs=50), "embed", "cat"),
        ("cde_ae", lambda: CDEAutoencoder(random_state=0, max_epochs=50), "embed", "cat"),
        ("untie", lambda: UNTIE(random_state=0, n_components=6), "embed", "cat"),
        ("couplings", lambda: Couplings(), "embed", "cat"),
        ("onehot", lambda: OneHotEmbedder(), "embed", "cat"),
        ("onehot_pca", lambda: OneHotPCA(n_components=4), "embed", "cat"),
        ("idf", lambda: IDFEmbedder(), "embed", "cat"),
        ("mca", lambda: MCA(n_components=4), "embed", "cat"),
        ("lcme", lambda: LCME(random_state=0), "embed", "cat"),
        ("famd", lambda: FAMD(n_components=4), "embed", "mixed"),
        ("dist_ahmad", lambda: CategoricalDistance(metric="ahmad"), "distance", "cat"),
        ("dist_dilca", lambda: CategoricalDistance(metric="dilca"), "distance", "cat"),
        ("kmodes", lambda: KModes(n_clusters=3, random_state=0, n_init=2), "cluster", "cat"),
        ("kmodes_rough", lambda: KModes(n_clusters=3, metric="rough", random_state=0),
         "cluster", "cat"),
        ("kprototypes", lambda: KPrototypes(n_clusters=3, random_state=0), "cluster", "mixed"),
        ("lca", lambda: LCA(n_clusters=3, random_state=0), "cluster", "cat"),
    ]
    if not skip_deep:
        from catembed.deep import IDEC, AttentionClusterer, AutoencoderKMeans

        small = dict(pretrain_steps=30, cluster_steps=30, update_interval=10, random_state=0)
        ests += [
            ("deep_ae", lambda: AutoencoderKMeans(3, **small), "cluster", "mixed"),
            ("deep_idec", lambda: IDEC(3, **small), "cluster", "mixed"),
            ("deep_attention", lambda: AttentionClusterer(3, **small), "cluster", "mixed"),
        ]
    return ests


def _np(x) -> np.ndarray:
    if hasattr(x, "to_numpy"):
        x = x.to_numpy()
    return np.asarray(x)


def collect(skip_deep: bool = False) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    tables = _tables()
    warnings.simplefilter("ignore")
    for key, make, kind, which in _estimators(skip_deep):
        for name, (cat, mixed) in tables.items():
            X = cat if which == "cat" else mixed
            tag = f"{key}/{name}"
            try:
                est = make().fit(X)
            except Exception as exc:  # a refusal is an output too
                out[f"{tag}/error"] = np.array(f"{type(exc).__name__}: {exc}")
                continue
            if kind == "embed":
                out[f"{tag}/transform"] = _np(est.transform(X))
                out[f"{tag}/names"] = np.asarray(est.get_feature_names_out()).astype(str)
                if hasattr(est, "value_embedding_"):
                    out[f"{tag}/values"] = _np(est.value_embedding_)
                if hasattr(est, "save") and hasattr(type(est), "load"):
                    with tempfile.TemporaryDirectory() as d:
                        p = Path(d) / "m.npz"
                        est.save(p)
                        out[f"{tag}/loaded"] = _np(type(est).load(p).transform(X))
                if hasattr(est, "fit_chunks"):
                    def chunks(X=X):
                        return (X.iloc[i:i + 7] for i in range(0, len(X), 7))
                    try:
                        streamed = make().fit_chunks(chunks)
                        out[f"{tag}/chunked"] = _np(streamed.transform(X))
                    except Exception as exc:
                        out[f"{tag}/chunked_error"] = np.array(f"{type(exc).__name__}: {exc}")
            elif kind == "distance":
                out[f"{tag}/pairwise"] = _np(est.pairwise(X.iloc[:20]))
            else:
                out[f"{tag}/labels"] = _np(est.labels_)
                out[f"{tag}/predict"] = _np(est.predict(X))
                if hasattr(est, "transform"):
                    out[f"{tag}/transform"] = _np(est.transform(X))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["save", "compare"])
    ap.add_argument("path")
    ap.add_argument("--skip-deep", action="store_true", help="leave out the torch clusterers")
    args = ap.parse_args(argv)
    got = collect(args.skip_deep)
    if args.mode == "save":
        np.savez_compressed(args.path, **{k.replace("/", "|"): v for k, v in got.items()})
        print(f"saved {len(got)} arrays to {args.path}")
        return 0
    with np.load(args.path, allow_pickle=False) as f:
        ref = {k.replace("|", "/"): f[k] for k in f.files}
    if args.skip_deep:
        ref = {k: v for k, v in ref.items() if not k.startswith("deep_")}
    bad = []
    for k in sorted(set(ref) | set(got)):
        if k not in got or k not in ref:
            bad.append(f"{k}: only in {'before' if k in ref else 'after'}")
            continue
        a, b = ref[k], got[k]
        same = a.shape == b.shape and a.dtype == b.dtype and (
            np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        if not same:
            bad.append(f"{k}: differs (shape {a.shape}/{b.shape}, dtype {a.dtype}/{b.dtype})")
    n_fits = len({k.rsplit("/", 1)[0] for k in ref})
    print(f"{len(ref)} arrays from {n_fits} fits compared: {len(bad)} differ")
    for line in bad:
        print("  " + line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
