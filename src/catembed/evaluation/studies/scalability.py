"""The scalability study (CDE++ Figs. 6-7, CDE's and UNTIE's Fig. 9): fit + transform time
against rows and against attributes for every embedder, with prince's MCA and scikit-learn
one-hot + PCA as peers, on synthetic planted-group tables."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ._common import _Ctx

__all__ = ["scalability"]


def _planted(n_rows: int, n_features: int, n_values: int, seed: int) -> pd.DataFrame:
    """Rows from 4 hidden groups; each attribute's value follows the group 70% of the time."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 4, n_rows)
    codes = np.where(rng.random((n_rows, n_features)) < 0.7, (g[:, None] % n_values),
                     rng.integers(0, n_values, (n_rows, n_features)))
    return pd.DataFrame(codes.astype(str), columns=[f"a{j}" for j in range(n_features)])


def _peers() -> dict[str, Callable[[], Any]]:
    """Fit-and-transform callables of every embedder, plus the peers."""
    from ...embed.registry import METHODS

    out: dict[str, Callable[[], Any]] = {}
    for name, cls in METHODS.items():
        def make(cls: Any = cls) -> Any:
            est = cls()
            if "random_state" in est.get_params():
                est.set_params(random_state=0)
            return est
        out[name] = make

    def onehot_pca() -> Any:
        from sklearn.decomposition import PCA
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder

        return make_pipeline(OneHotEncoder(sparse_output=False), PCA(n_components=0.999))

    out["sklearn onehot+PCA"] = onehot_pca
    try:
        import prince  # noqa: F401

        def mca() -> Any:

            class _MCA:
                def fit_transform(self, X: pd.DataFrame) -> Any:
                    m = prince.MCA(n_components=10, random_state=0)
                    return m.fit(X).transform(X)

            return _MCA()

        out["prince MCA"] = mca
    except ImportError:
        pass
    return out


def scalability(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    import matplotlib.pyplot as plt

    notes = ["synthetic planted-group tables (4 groups, 70% purity); time = one fit + "
             "transform of the whole table, wall clock, one process",
             "a method is not run at larger sizes once one run takes more than 30 s"]
    peers = _peers()
    if "prince MCA" not in peers:
        notes.append("prince is not installed: no MCA peer (pip install prince)")
    axes_spec = {"rows": ([1000, 2000, 4000, 8000, 16000], lambda n: (n, 10, 5)),
                 "attributes": ([10, 20, 40, 80], lambda d: (2000, d, 2))}
    rows = []
    for axis, (sizes, shape) in axes_spec.items():
        over: set[str] = set()
        for size in sizes:
            n, d, v = shape(size)
            X = _planted(n, d, v, ctx.seed)
            for name, make in peers.items():
                if name in over:
                    continue
                t0 = time.perf_counter()
                try:
                    est = make()
                    est.fit_transform(X)
                    status = "ok"
                except Exception as exc:  # noqa: BLE001 - a peer's failure is a table cell
                    status = f"error: {type(exc).__name__}: {exc}"[:120]
                sec = time.perf_counter() - t0
                ctx.log(f"{axis}={size}: {name} {sec:.2f} s {status}")
                rows.append({"axis": axis, "size": size, "rows": n, "attributes": d,
                             "method": name, "seconds": round(sec, 4), "status": status})
                if sec > 30:
                    over.add(name)
    table = pd.DataFrame(rows)
    from ...plot.map2d import palette

    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    colours = dict(zip(peers, palette(len(peers)), strict=True))
    for ax, axis in zip(axes, axes_spec, strict=True):
        part = table[(table["axis"] == axis) & (table["status"] == "ok")]
        for name, g in part.groupby("method", sort=False):
            ax.plot(g["size"], g["seconds"], marker="o", label=name, color=colours[name])
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"number of {axis}")
        ax.set_ylabel("fit + transform seconds")
        ax.set_title("time against " + axis + (" (CDE++ Fig. 6, UNTIE Fig. 9a)" if axis ==
                     "rows" else " (CDE++ Fig. 7, binary values)"), fontsize=9)
        ax.legend(fontsize=7, ncols=2)
    return table, fig, notes
