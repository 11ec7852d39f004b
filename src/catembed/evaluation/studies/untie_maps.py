"""UNTIE's object-level studies: t-SNE maps of UNTIE, CDE and one-hot vectors (Fig. 7) and
retrieval precision@k with every object a query (Fig. 11)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..._utils._text import plot_text
from ._common import _Ctx

__all__ = ["untie_retrieval", "untie_tsne"]


def untie_tsne(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    import matplotlib.pyplot as plt
    from sklearn.metrics import silhouette_score

    from ...embed import CDE, UNTIE, OneHotEmbedder
    from ...plot.map2d import project_2d

    notes: list[str] = []
    sets = ctx.find(["dermatology", "soybean_large", "zoo"], notes, preset="categorical")
    data = sets[0]
    if data.name != "dermatology":
        notes.append(f"the paper's Fig. 7 uses Dermatology; drawn on {data.name}")
    X, y = data.features, data.labels.astype(str).to_numpy()
    rows = []
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8))
    for ax, (name, est) in zip(axes, [("UNTIE", UNTIE(random_state=ctx.seed)),
                                      ("CDE", CDE(random_state=ctx.seed)),
                                      ("one-hot", OneHotEmbedder())], strict=True):
        ctx.log(f"{data.name}: {name}")
        z = est.fit(X).transform(X)
        xy, _ = project_2d(z, "tsne", random_state=ctx.seed)
        for g in sorted(set(y)):
            sel = y == g
            ax.scatter(xy[sel, 0], xy[sel, 1], s=8, label=plot_text(g))
        ax.set_title(plot_text(f"{name} on {data.name} (t-SNE)"), fontsize=9)
        rows.append({"method": name, "dataset": data.name, "dimension": z.shape[1],
                     "silhouette_2d_by_class": round(float(silhouette_score(xy, y)), 4)})
    axes[-1].legend(fontsize=6, markerscale=1.5, ncols=2)
    notes.append("silhouette of the 2-D map by class: a number for what the eye sees")
    return pd.DataFrame(rows), fig, notes


def untie_retrieval(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    import matplotlib.pyplot as plt

    from ...embed import CDE, UNTIE, OneHotEmbedder
    from ..retrieval import retrieval_curve

    notes: list[str] = []
    sets = ctx.find(["dermatology", "dna_statlog", "splice"], notes, preset="categorical")
    if any(d.name == "dna_statlog" for d in sets):
        notes.append("dna_statlog stands for the paper's DNAnominal (the StatLog DNA table)")
    ks = [1, 5, 10, 20, 50, 100]
    rows = []
    fig, axes = plt.subplots(1, len(sets), figsize=(5.5 * len(sets), 4.2), squeeze=False)
    for ax, data in zip(axes[0], sets, strict=True):
        X, y = data.features, data.labels.to_numpy()
        for name, est in [("UNTIE", UNTIE(random_state=ctx.seed)),
                          ("CDE", CDE(random_state=ctx.seed)),
                          ("Hamming (one-hot)", OneHotEmbedder())]:
            ctx.log(f"{data.name}: {name}")
            curve = retrieval_curve(est.fit(X).transform(X), y, ks)
            ax.plot(curve.index, curve.to_numpy(), marker="o", label=plot_text(name))
            rows += [{"dataset": data.name, "method": name, "k": int(k),
                      "precision": round(float(p), 4)} for k, p in curve.items()]
        ax.set_xscale("log")
        ax.set_xlabel("k")
        ax.set_ylabel("precision@k")
        ax.set_title(plot_text(f"Retrieval on {data.name} (UNTIE Fig. 11)"), fontsize=9)
        ax.legend(fontsize=7)
    notes.append("Euclidean distance on each embedding; one-hot Euclidean ranks as Hamming")
    return pd.DataFrame(rows), fig, notes
