"""Parameter sensitivity studies: CDE Figs. 2-3 (F-score and dimension against ``alpha`` and
``beta``) and CDE++ Figs. 2-5 (against ``epsilon`` and ``lambda``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ._common import _Ctx

__all__ = ["cde_sensitivity", "cdepp_sensitivity"]


def _score_setting(data: Any, method: str, params: dict, runs: int, seed: int,
                   refit: bool) -> tuple[float, float, int]:
    """Mean and std F-score of ``runs`` k-means runs (k = classes, the papers' MATLAB-style
    seeding) and the embedding width; the method is refitted with each run's seed when
    ``refit``, else fitted once."""
    from ...cluster.embedding_labels import kmeans_labels
    from ...embed.registry import METHODS
    from ...metrics import f_score

    X, y = data.features, data.labels.to_numpy()
    k = len(np.unique(y))
    scores, width, z = [], 0, None
    for r in range(runs):
        if z is None or refit:
            est = METHODS[method](**params)
            if "random_state" in est.get_params():
                est.set_params(random_state=seed + r)
            z = est.fit(X).transform(X)
            width = width or int(z.shape[1])
        scores.append(f_score(y, kmeans_labels(z, k, seed + r)))
    return float(np.mean(scores)), float(np.std(scores)), width


def _sensitivity(ctx: _Ctx, method: str, grids: dict[str, list[float]],
                 fixed: dict[str, dict], names: list[str], runs: int, refit: bool,
                 paper: str) -> tuple[pd.DataFrame, Any, list[str]]:
    import matplotlib.pyplot as plt

    notes: list[str] = []
    sets = ctx.find(names, notes)
    rows = []
    for param, grid in grids.items():
        for data in sets:
            for v in grid:
                params = {**fixed.get(param, {}), param: v}
                ctx.log(f"{data.name}: {param}={v:g}")
                f, sd, width = _score_setting(data, method, params, runs, ctx.seed, refit)
                rows.append({"parameter": param, "value": v, "dataset": data.name,
                             "f_score": round(f, 4), "f_score_std": round(sd, 4),
                             "dimension": width})
    table = pd.DataFrame(rows)
    fig, axes = plt.subplots(2, len(grids), figsize=(5.5 * len(grids), 7), squeeze=False)
    for c, param in enumerate(grids):
        part = table[table["parameter"] == param]
        for name, g in part.groupby("dataset", sort=False):
            axes[0, c].errorbar(g["value"], g["f_score"], yerr=g["f_score_std"], marker="o",
                                capsize=2, label=name)
            axes[1, c].plot(g["value"], g["dimension"], marker="s", label=name)
        for r, what in enumerate(("F-score", "representation dimension")):
            ax = axes[r, c]
            ax.set_xscale("log")
            ax.minorticks_off()
            ax.set_xticks(grids[param], [f"{v:g}" for v in grids[param]], fontsize=7)
            ax.set_xlabel(param)
            ax.set_ylabel(what)
            ax.legend(fontsize=7)
        axes[0, c].set_ylim(0, 1)
        axes[0, c].set_title(f"{paper}: {param}", fontsize=9)
    notes.append(f"F-score: k-means with k = classes, {runs} runs, the method "
                 + ("refitted with each run's seed" if refit else "fitted once")
                 + "; the dimension is the transform width.")
    return table, fig, notes


def cde_sensitivity(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    return _sensitivity(
        ctx, "cde", {"alpha": [2, 5, 10, 20, 40, 80], "beta": [1e-20, 1e-15, 1e-10, 1e-5, 1e-2]},
        {}, ["soybean_small", "zoo", "breast_cancer_wisconsin", "hepatitis"],
        ctx.runs or 5, True, "CDE Figs. 2-3")


def cdepp_sensitivity(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    grid = [2, 4, 6, 8, 10, 20, 40]
    return _sensitivity(
        ctx, "cdepp", {"epsilon": grid, "hidden_factor": grid},
        {"epsilon": {"hidden_factor": 10}, "hidden_factor": {"epsilon": 8}},
        ["soybean_small", "zoo"], ctx.runs or 5, False,
        "CDE++ Figs. 2-5 (lambda = hidden_factor)")
