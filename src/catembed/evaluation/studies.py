"""The papers' studies: ``catembed bench --study NAME`` writes a figure and a table.

=====================  ==================================================================
``cde-sensitivity``    CDE (IJCAI 2017) Figs. 2-3: F-score and dimension against ``alpha``
                       and ``beta``.
``cdepp-sensitivity``  CDE++ (Entropy 2020) Figs. 2-5: dimension and F-score against
                       ``epsilon`` (``lambda = 10``) and ``lambda`` (``epsilon = 8``).
``scalability``        CDE++ Figs. 6-7, CDE's and UNTIE's (Fig. 9) scalability figures:
                       fit + transform time against rows and against attributes for every
                       embedder, with prince's MCA and scikit-learn one-hot + PCA as peers.
``untie-heterogeneity``  UNTIE Eqs. 23-25 (intra/inter-coupling heterogeneity indicators,
                       Figs. 2-3) and the (epsilon, gamma)-curves of Fig. 6.
``untie-tsne``         UNTIE Fig. 7: t-SNE maps of UNTIE, CDE and one-hot vectors.
``untie-retrieval``    UNTIE Fig. 11: precision@k, every object a query.
=====================  ==================================================================

Default sizes are small (each study runs in a few minutes on one core); the paper's data
sets that are not found are listed in the study's notes, never silently replaced. No
parameter is chosen from the labels: the labels only score what each setting gives.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._validation import CatEmbedError

__all__ = ["STUDIES", "Study", "StudyResult", "epsilon_gamma_curve",
           "inter_heterogeneity", "intra_heterogeneity", "run_study"]


@dataclass
class StudyResult:
    """What a study wrote: its table (also as CSV), figure, run time and notes."""

    name: str
    table: pd.DataFrame
    figure: Path | None = None
    table_path: Path | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"study": self.name, "figure": str(self.figure), "table": str(self.table_path),
                "seconds": round(self.seconds, 2), "notes": self.notes,
                "rows": json.loads(self.table.to_json(orient="records"))}

    def summary(self) -> str:
        lines = [f"study {self.name}: {self.seconds:.1f} s; figure {self.figure}; "
                 f"table {self.table_path}"]
        with pd.option_context("display.width", 120, "display.max_rows", 60):
            lines.append(self.table.to_string(index=False))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


@dataclass
class Study:
    """A study: its title and the function that runs it."""

    name: str
    title: str
    run: Callable[..., tuple[pd.DataFrame, Any, list[str]]]


class _Ctx:
    """Where data sets are found, the seed, the runs, and the progress log."""

    def __init__(self, data_dir: str | None, seed: int, runs: int | None, quiet: bool,
                 datasets: list[str] | None = None):
        from .inputs import data_roots

        self.roots = data_roots(data_dir)
        self.datasets = datasets
        self.seed = seed
        self.runs = runs
        self.quiet = quiet

    def log(self, text: str) -> None:
        if not self.quiet:
            print(f"[study] {text}", file=sys.stderr, flush=True)

    def find(self, names: list[str], notes: list[str], preset: str = "complete"
             ) -> list[Any]:
        from ..datasets import load_dataset

        found, missing = [], []
        if self.datasets:
            notes.append(f"data sets from --datasets instead of the paper's "
                         f"({', '.join(names)})")
            names = self.datasets
        for n in names:
            folder = next((r / n for r in self.roots if (r / n / "data.csv").exists()), None)
            if folder is None:
                missing.append(n)
                continue
            found.append(load_dataset(folder, preset=preset))
        if missing:
            notes.append(f"not found (searched {', '.join(map(str, self.roots))}): "
                         f"{', '.join(missing)}")
        if not found:
            raise CatEmbedError(f"none of the study's data sets ({', '.join(names)}) is in "
                                f"{', '.join(map(str, self.roots))}; give --data-dir DIR.")
        return found


def _score_setting(data: Any, method: str, params: dict, runs: int, seed: int,
                   refit: bool) -> tuple[float, float, int]:
    """Mean and std F-score of ``runs`` k-means runs (k = classes, the papers' MATLAB-style
    seeding) and the embedding width; the method is refitted with each run's seed when
    ``refit``, else fitted once."""
    from .. import METHODS
    from ..metrics import f_score
    from .clustering import kmeans_labels

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


def _cde_sensitivity(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    return _sensitivity(
        ctx, "cde", {"alpha": [2, 5, 10, 20, 40, 80], "beta": [1e-20, 1e-15, 1e-10, 1e-5, 1e-2]},
        {}, ["soybean_small", "zoo", "breast_cancer_wisconsin", "hepatitis"],
        ctx.runs or 5, True, "CDE Figs. 2-3")


def _cdepp_sensitivity(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    grid = [2, 4, 6, 8, 10, 20, 40]
    return _sensitivity(
        ctx, "cdepp", {"epsilon": grid, "hidden_factor": grid},
        {"epsilon": {"hidden_factor": 10}, "hidden_factor": {"epsilon": 8}},
        ["soybean_small", "zoo"], ctx.runs or 5, False,
        "CDE++ Figs. 2-5 (lambda = hidden_factor)")


def _planted(n_rows: int, n_features: int, n_values: int, seed: int) -> pd.DataFrame:
    """Rows from 4 hidden groups; each attribute's value follows the group 70% of the time."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 4, n_rows)
    codes = np.where(rng.random((n_rows, n_features)) < 0.7, (g[:, None] % n_values),
                     rng.integers(0, n_values, (n_rows, n_features)))
    return pd.DataFrame(codes.astype(str), columns=[f"a{j}" for j in range(n_features)])


def _peers() -> dict[str, Callable[[], Any]]:
    """Fit-and-transform callables of every embedder, plus the peers."""
    from .. import METHODS

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


def _scalability(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
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
    from ..map2d import palette

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


def intra_heterogeneity(X: Any, labels: Any) -> float:
    """UNTIE Eq. 23: how unevenly each value spreads over the classes, in [0, 1].

    For value ``v``, ``x = sqrt(sum_k P(c_k | v)^2)`` normalised by Eq. 24,
    ``NM(x) = 1 - (1 - x) / (1 - sqrt(n_c (1 / n_c)^2))``: 1 when ``v`` occurs in one class
    only, 0 when its class distribution is uniform. Eq. 23 prints a sum over the values
    divided by the number of attributes, but states the indicator lies in [0, 1]; for the
    stated range we average over the values of each attribute, then over attributes.
    """
    from .._validation import as_frame

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

    from ..embed._untie_core import coupling_spaces
    from ..stats import compute_statistics

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

    from ..embed import CDE, UNTIE
    from ..similarity import CategoricalDistance

    out = {"UNTIE": UNTIE(random_state=seed).fit(X).similarity(X)}
    z = CDE(random_state=seed).fit(X).transform(X)
    out["CDE (-Euclidean)"] = -cdist(z, z)
    for metric in ("cos", "dilca", "hamming"):
        out[f"{metric.upper()} (-distance)"] = -CategoricalDistance(metric=metric).fit(
            X).pairwise(X)
    return out


def _untie_heterogeneity(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
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


def _untie_tsne(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    import matplotlib.pyplot as plt
    from sklearn.metrics import silhouette_score

    from ..embed import CDE, UNTIE, OneHotEmbedder
    from ..map2d import project_2d

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
            ax.scatter(xy[sel, 0], xy[sel, 1], s=8, label=g)
        ax.set_title(f"{name} on {data.name} (t-SNE)", fontsize=9)
        rows.append({"method": name, "dataset": data.name, "dimension": z.shape[1],
                     "silhouette_2d_by_class": round(float(silhouette_score(xy, y)), 4)})
    axes[-1].legend(fontsize=6, markerscale=1.5, ncols=2)
    notes.append("silhouette of the 2-D map by class: a number for what the eye sees")
    return pd.DataFrame(rows), fig, notes


def _untie_retrieval(ctx: _Ctx) -> tuple[pd.DataFrame, Any, list[str]]:
    import matplotlib.pyplot as plt

    from ..embed import CDE, UNTIE, OneHotEmbedder
    from .retrieval import retrieval_curve

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
            ax.plot(curve.index, curve.to_numpy(), marker="o", label=name)
            rows += [{"dataset": data.name, "method": name, "k": int(k),
                      "precision": round(float(p), 4)} for k, p in curve.items()]
        ax.set_xscale("log")
        ax.set_xlabel("k")
        ax.set_ylabel("precision@k")
        ax.set_title(f"Retrieval on {data.name} (UNTIE Fig. 11)", fontsize=9)
        ax.legend(fontsize=7)
    notes.append("Euclidean distance on each embedding; one-hot Euclidean ranks as Hamming")
    return pd.DataFrame(rows), fig, notes


STUDIES: dict[str, Study] = {s.name: s for s in [
    Study("cde-sensitivity", "CDE Figs. 2-3: F-score and dimension vs alpha and beta",
          _cde_sensitivity),
    Study("cdepp-sensitivity", "CDE++ Figs. 2-5: dimension and F-score vs epsilon and lambda",
          _cdepp_sensitivity),
    Study("scalability", "time vs rows and vs attributes, every embedder + MCA, one-hot+PCA",
          _scalability),
    Study("untie-heterogeneity", "UNTIE Eqs. 23-25 indicators and Fig. 6 (eps, gamma)-curves",
          _untie_heterogeneity),
    Study("untie-tsne", "UNTIE Fig. 7: t-SNE maps of UNTIE, CDE and one-hot", _untie_tsne),
    Study("untie-retrieval", "UNTIE Fig. 11: precision@k curves", _untie_retrieval),
]}


def run_study(name: str, out_dir: str | os.PathLike, *, data_dir: str | None = None,
              seed: int = 0, runs: int | None = None, fmt: str = "png",
              quiet: bool = False, datasets: list[str] | None = None) -> StudyResult:
    """Run a study and write ``NAME.png`` (or ``.svg``) and ``NAME.csv`` into ``out_dir``.

    Parameters
    ----------
    name : str
        A key of :data:`STUDIES`.
    out_dir : path
        Created when missing; files are written through temporary names.
    data_dir : str, optional
        Folder of data sets (default: :func:`catembed.evaluation.inputs.data_roots`).
    seed : int, default=0
    runs : int, optional
        k-means runs per setting (sensitivity studies); default the study's.
    fmt : {"png", "svg"}
    quiet : bool
    datasets : list of str, optional
        Data sets to use instead of the study's defaults (the paper's).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if name not in STUDIES:
        raise CatEmbedError(f"unknown study {name!r}; choose from {', '.join(STUDIES)}.")
    if fmt not in ("png", "svg"):
        raise CatEmbedError(f"--format must be png or svg; got {fmt!r}.")
    if runs is not None and runs < 1:
        raise CatEmbedError(f"--runs must be at least 1; got {runs}.")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise CatEmbedError(f"-o {out} is a file; a study writes into a folder.")
    out.mkdir(parents=True, exist_ok=True)
    ctx = _Ctx(data_dir, seed, runs, quiet, datasets)
    t0 = time.perf_counter()
    table, fig, notes = STUDIES[name].run(ctx)
    seconds = time.perf_counter() - t0
    fig.suptitle(f"{STUDIES[name].title}  [{seconds:.0f} s]", fontsize=10)
    fig.tight_layout()
    figure = out / f"{name}.{fmt}"
    tmp = out / f".{name}.tmp.{fmt}"
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, figure)
    table_path = out / f"{name}.csv"
    tmp = out / f".{name}.tmp.csv"
    table.to_csv(tmp, index=False)
    os.replace(tmp, table_path)
    return StudyResult(name, table, figure, table_path, seconds, notes)
