"""UNTIE's heterogeneity indicators (Eqs. 23-25, Figs. 2-3) and the (epsilon, gamma)-curves
of Fig. 6, and the study that reports them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ..._utils._validation import CatEmbedError
from ._common import _Ctx

__all__ = ["epsilon_gamma_curve", "inter_heterogeneity", "intra_heterogeneity",
           "untie_heterogeneity"]


def intra_heterogeneity(X: Any, labels: Any) -> float:
    """UNTIE Eq. 23: how unevenly each value spreads over the classes, in [0, 1].

    For value ``v``, ``x = sqrt(sum_k P(c_k | v)^2)`` normalised by Eq. 24,
    ``NM(x) = 1 - (1 - x) / (1 - sqrt(n_c (1 / n_c)^2))``: 1 when ``v`` occurs in one class
    only, 0 when its class distribution is uniform. Eq. 23 prints a sum over the values
    divided by the number of attributes, but states the indicator lies in [0, 1]; for the
    stated range we average over the values of each attribute, then over attributes.
    """
    from ..._utils._validation import as_frame

    df = as_frame(X)
    y = np.asarray(labels)
    nc = len(np.unique(y))
    if nc < 2:
        raise CatEmbedError("intra_heterogeneity needs at least 2 classes.")
    per_attr = []
    for c in df.columns:
        tab = pd.crosstab(df[c].astype(object).where(df[c].notna(), "(missing)").astype(str),
                          y).to_numpy(dtype=float)
        x = np.sqrt(((tab / tab.sum(axis=1, keepdims=True)) ** 2).sum(axis=1))
        per_attr.append(np.mean(1 - (1 - x) / (1 - np.sqrt(1.0 / nc))))
    return float(np.mean(per_attr))


def inter_heterogeneity(X: Any) -> float:
    """UNTIE Eq. 25 for UNTIE's couplings: how different an attribute's coupling matrices are.

    For attribute ``z`` the couplings are the intra-attribute one (Eq. 1, ``[p(v)]``) and one
    inter-attribute coupling per other attribute (Eq. 4, ``[p(v | u)]`` over that attribute's
    values ``u``); ``C^(z,k)`` is the Euclidean distance matrix of ``z``'s values under
    coupling ``k``, and ``I = sqrt(sum_{k,l} ||C^k - C^l||_F^2 / n_v^2 / n_m^2)``. Eq. 25 is
    written for one attribute; we average it over the attributes.
    """
    from scipy.spatial.distance import cdist

    from ...embed._untie_spaces import coupling_spaces
    from ...stats._compute import compute_statistics

    stats = compute_statistics(X)
    sizes = np.asarray(stats.sizes)
    out = []
    for z, (intra, inter) in enumerate(coupling_spaces(stats)):
        reps = [intra]
        cuts = np.cumsum([s for j, s in enumerate(sizes) if j != z])[:-1]
        reps += np.split(inter, cuts, axis=1)
        mats = np.stack([cdist(r, r) for r in reps])  # (n_m, n_v, n_v)
        nm, nv = mats.shape[0], mats.shape[1]
        flat = mats.reshape(nm, -1)
        sq = (flat ** 2).sum(1)
        d2 = np.maximum(sq[:, None] + sq[None, :] - 2 * flat @ flat.T, 0.0)
        out.append(np.sqrt(d2.sum() / nv ** 2 / nm ** 2))
    return float(np.mean(out))


def epsilon_gamma_curve(S: np.ndarray, labels: Any, eps: np.ndarray) -> np.ndarray:
    """The (epsilon, gamma)-curve of a similarity matrix (UNTIE Fig. 6; Balcan et al. Def. 4).

    Each object's margin is its mean similarity to the other objects of its class minus its
    mean similarity to the objects of other classes, with ``S`` scaled to [0, 1]
    (min-max over the off-diagonal entries, so that measures compare). ``gamma(epsilon)``
    is the largest ``gamma`` with at least a ``1 - epsilon`` share of the objects at margin
    ``>= gamma``: the ``epsilon``-quantile of the margins.
    """
    S = np.asarray(S, dtype=np.float64).copy()
    y = np.asarray(labels)
    n = len(y)
    off = ~np.eye(n, dtype=bool)
    lo, hi = S[off].min(), S[off].max()
    S = (S - lo) / (hi - lo) if hi > lo else np.zeros_like(S)
    same = (y[:, None] == y[None, :]) & off
    other = y[:, None] != y[None, :]
    intra = (S * same).sum(1) / np.maximum(same.sum(1), 1)
    inter = (S * other).sum(1) / np.maximum(other.sum(1), 1)
    return np.quantile(intra - inter, eps)


def _similarities(X: pd.DataFrame, seed: int) -> dict[str, np.ndarray]:
    from scipy.spatial.distance import cdist

    from ...embed import CDE, UNTIE
    from ...similarity import CategoricalDistance

    out = {"UNTIE": UNTIE(random_state=seed).fit(X).similarity(X)}
    z = CDE(random_state=seed).fit(X).transform(X)
    out["CDE (-Euclidean)"] = -cdist(z, z)
    for metric in ("cos", "dilca", "hamming"):
        out[f"{metric.upper()} (-distance)"] = -CategoricalDistance(metric=metric).fit(
            X).pairwise(X)
    return out


def untie_heterogeneity(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    import matplotlib.pyplot as plt

    notes: list[str] = []
    names = ["mofn_3_7_10", "dermatology", "crx", "breast_cancer"]
    sets = ctx.find(names, notes, preset="categorical")
    eps = np.linspace(0, 1, 41)
    rows, curves = [], {}
    for data in sets:
        X, y = data.features, data.labels.to_numpy()
        ctx.log(f"{data.name}: indicators")
        rows.append({"dataset": data.name, "rows": len(X), "I_intra": intra_heterogeneity(X, y),
                     "I_inter (UNTIE couplings)": inter_heterogeneity(X)})
        ctx.log(f"{data.name}: similarities")
        curves[data.name] = {m: epsilon_gamma_curve(S, y, eps)
                             for m, S in _similarities(X, ctx.seed).items()}
        for m, g in curves[data.name].items():
            pos = eps[g >= 0]
            rows[-1][f"gamma@eps=0.5 {m}"] = float(np.interp(0.5, eps, g))
            rows[-1][f"eps(gamma>=0) {m}"] = float(pos.min()) if pos.size else 1.0
    table = pd.DataFrame(rows).round(4)
    fig, axes = plt.subplots(1, len(sets) + 1, figsize=(4.5 * (len(sets) + 1), 4.2),
                             squeeze=False)
    ax = axes[0, 0]
    xs = np.arange(len(table))
    ax.bar(xs - 0.2, table["I_intra"], 0.4, label="I_intra (Eq. 23)")
    ax.bar(xs + 0.2, table["I_inter (UNTIE couplings)"], 0.4, label="I_inter (Eq. 25)")
    ax.set_xticks(xs, table["dataset"], rotation=20, fontsize=8)
    ax.set_title("Heterogeneity indicators (UNTIE Figs. 2-3)", fontsize=9)
    ax.legend(fontsize=7)
    for i, (name, cs) in enumerate(curves.items()):
        ax = axes[0, i + 1]
        for m, g in cs.items():
            keep = g >= 0
            ax.plot(eps[keep], g[keep], label=m)
        ax.set_xlabel("epsilon")
        ax.set_ylabel("gamma")
        ax.set_title(f"(epsilon, gamma)-curve on {name} (Fig. 6)", fontsize=9)
        ax.legend(fontsize=7)
    notes.append("similarities scaled to [0, 1] per measure before the margins; curves "
                 "drawn where gamma >= 0 as in the paper")
    return table, fig, notes
