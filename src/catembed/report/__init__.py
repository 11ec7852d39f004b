"""``catembed report``: one self-contained HTML page that shows what an embedding found.

``catembed report DATA [--target COL] [--method cde] [--methods cde,onehot-pca,idf]
-o report.html`` writes a page (no network needed to open it: CSS and script inline, figures
as base64 PNG; the page itself is :mod:`catembed.report._html`) with

* the table's summary: rows, attributes, values, missing cells, and the CDE paper's data
  factors FCI (Eq. 7) and, with a target, VCI (Eq. 8);
* the value map (:func:`catembed.plot.values`): each value a point, coloured by attribute,
  a line to its nearest value of another attribute, and below it the interactive map of
  every value (hover labels, wheel zoom); beyond :data:`MAP_VALUES` values, both show the
  most frequent ones (a note says so);
* the object map (:func:`catembed.plot.objects`, PCA or t-SNE as UNTIE's Fig. 9) coloured by
  k-means cluster and, with a target, by class;
* cluster profiles (:func:`cluster_profiles`): each cluster's over-represented values with
  their lift, as a table;
* the label-free consensus (:class:`catembed.cluster.Consensus`): ``catembed cluster``'s
  answer for the same table, options and seed (the command's own code path,
  :mod:`catembed.evaluation.roles`: every row, the same columns, ``k`` chosen without
  labels unless ``--clusters`` gives it, also when a target sets the k-means ``k``): its
  members, each member's stability (mean ARI between its k-means runs), weight and agreement
  with the consensus, and the consensus' agreement with the k-means clusters above (and,
  with a target, with the classes; the fit never sees them);
* with a target, the methods side by side (F-score / NMI / ACC, mean +- std over ``--runs``
  runs of the papers' clustering protocol) beside the paper's figure for the same data set
  where one of the paper tables (``catembed bench --list``) has it.

The rows are those of ``catembed evaluate``: by default (preset ``complete``) rows with a
missing value are dropped, and the page says how many (the consensus section clusters every
row, as ``catembed cluster`` does). The columns are read by the one rule of ``catembed
cluster`` and ``embed`` (:func:`catembed.evaluation.inputs.numeric_roles`, ``--numeric
auto``): a column of numbers with many distinct values is cut into 5 quantile bins, one with
fewer than 20 is read as categories. The number of clusters is the
number of classes when a target is given (the papers'
protocol), else the ``k`` in 2..8 with the best silhouette on a sample of at most 2,000 rows
(a rule that needs no labels).
"""

from __future__ import annotations

import argparse
import base64
import io as _io
import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._utils._files import read_text_file
from .._utils._pathtext import path_text
from .._utils._text import plot_text, value_texts
from ..stats._profiles import cluster_profiles
from ._consensus import cluster_consensus, consensus_summary
from ._html import render_html

__all__ = ["ReportData", "build_report", "cluster_consensus", "cluster_page", "cluster_profiles",
           "consensus_summary", "register", "render_html", "write_cluster_page", "write_report"]

DEFAULT_METHODS = "cde,onehot-pca,idf"


def __getattr__(name: str) -> Any:  # the cluster page, loaded on use (the CLI starts light)
    if name in ("cluster_page", "write_cluster_page"):
        from . import _cluster_page

        return getattr(_cluster_page, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: the most values the value maps draw (the most frequent ones): the static map's lines to
#: the nearest value cost the square of the values drawn, the interactive map one SVG
#: element each
MAP_VALUES = 2000


@dataclass
class ReportData:
    """Everything the page shows (also useful on its own, e.g. in a notebook)."""

    name: str
    summary: dict[str, Any]
    figures: dict[str, str] = field(default_factory=dict)  # title -> base64 PNG
    profiles: Any = None
    comparison: list[dict[str, Any]] = field(default_factory=list)
    paper: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    # the interactive value map: x, y, column (index into columns), value, count, colours
    value_points: dict[str, Any] = field(default_factory=dict)
    # the label-free consensus: k, members (name, stability, weight, agreement), ARIs, and
    # (not drawn) its row labels, "labels", on the rows of "index"
    consensus: dict[str, Any] = field(default_factory=dict)
    # the k-means clusters of the maps, one per row of the table
    clusters: Any = None


def _png(fig: Any) -> str:
    buf = _io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _choose_k(z: Any, seed: int) -> int:
    """The k in 2..8 with the best silhouette on a sample of at most 2,000 rows."""
    import numpy as np
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score

    rng = np.random.default_rng(seed)
    sample = z if len(z) <= 2000 else z[rng.choice(len(z), 2000, replace=False)]
    best, best_score = 2, -np.inf
    for k in range(2, min(8, len(np.unique(sample, axis=0)) - 1) + 1):
        lab = KMeans(n_clusters=k, n_init=3, random_state=seed).fit_predict(sample)
        if len(set(lab)) < 2:
            continue
        score = silhouette_score(sample, lab)
        if score > best_score + 1e-12:
            best, best_score = k, score
    return best


def _short_paper(paper: str) -> str:
    """``"Jian et al. 2017 (CDE)"`` from a table's ``paper`` field."""
    import re

    authors, _, rest = paper.partition(". ")
    names = [a.strip() for a in authors.split(",") if a.strip()]
    who = names[0] + (" et al." if len(names) > 1 else "") if names else paper
    year = re.findall(r"\b(?:19|20)\d\d\b", rest)
    acro = re.search(r"\(([A-Za-z+\-]+)\)", rest) or re.match(r"([A-Za-z+\-]+):", rest)
    kind = "thesis draft" if "thesis draft" in rest else "thesis" if "thesis" in rest else ""
    what = acro.group(1) if acro else kind
    return " ".join(x for x in (who, year[-1] if year else "", f"({what})" if what else "") if x)


def _paper_rows(name: str, methods: list[str]) -> list[dict[str, Any]]:
    """The paper tables' figures for this data set and these methods: one row per table; a
    cell another table already gave (the same paper, table, metric and method) is left out."""
    tables = Path(__file__).resolve().parents[1] / "evaluation" / "tables"
    out: list[dict[str, Any]] = []
    seen: set[tuple] = set()
    for path in sorted(tables.glob("*.json")):
        spec = json.loads(read_text_file(path, kind="paper table file"))
        for entry in spec.get("datasets") or []:
            if name not in [entry.get("name"), *(entry.get("aliases") or [])]:
                continue
            scores = entry.get("scores") or {}
            protocol = spec.get("protocol") or {}
            clusterer = protocol.get("clusterer")
            paper = str(spec.get("paper", ""))
            cells = {}
            for c in spec.get("columns") or []:
                value = scores.get(c["label"])
                if c.get("method") not in methods or value is None:
                    continue
                how = c.get("clusterer", clusterer)
                method = c["method"] + (f" ({how})" if how not in (None, "kmeans") else "")
                key = (paper, spec.get("source"), spec.get("metric"), method, value)
                if key not in seen:
                    seen.add(key)
                    cells[method] = value
            if not cells:
                continue
            runs = protocol.get("runs")
            preset = spec.get("preset")
            out.append({"table": f"{spec.get('source', '')} [{spec['id']}]",
                        "source": _short_paper(paper),
                        "metric": spec.get("metric", ""),
                        "protocol": ", ".join(x for x in (
                            str(spec.get("task") or ""), clusterer or "",
                            f"{runs} runs" if runs else "",
                            f"preset {preset}" if isinstance(preset, str) else "") if x),
                        "scores": cells})
    return out


def _value_points(est: Any, max_points: int = MAP_VALUES) -> dict[str, Any]:
    """Every value's place on the value map, for the page's interactive view (beyond
    ``max_points`` values, the most frequent ones, as :func:`catembed.plot.values` draws)."""
    import matplotlib.colors as mcolors
    import numpy as np

    from ..plot.map2d import palette, robust_limits, value_map_xy

    coords = est.value_coordinates_
    attrs = coords.index.get_level_values(0).astype(str)
    counts = np.asarray(est.stats_.counts, dtype=np.float64)
    xy = value_map_xy(coords.to_numpy(), counts, stats=est.stats_)
    values = coords.index.get_level_values(1)
    if len(xy) > max_points:
        keep = np.sort(np.argsort(-counts, kind="stable")[:max_points])
        attrs, values, counts, xy = attrs[keep], values[keep], counts[keep], xy[keep]
    columns = list(dict.fromkeys(attrs))
    pos = {c: i for i, c in enumerate(columns)}
    return {"x": [round(float(v), 5) for v in xy[:, 0]],
            "y": [round(float(v), 5) for v in xy[:, 1]],
            "column": [pos[a] for a in attrs],
            "value": value_texts(values).tolist(),  # bytes: the one rule
            "count": [int(c) for c in counts], "columns": columns,
            "colours": [mcolors.to_hex(c) for c in palette(len(columns))],
            "lim": [[round(float(v), 5) for v in row] for row in robust_limits(xy)[0]]}


def build_report(X: Any, y: Any = None, *, name: str = "table", method: str = "cde",
                 methods: list[str] | None = None, runs: int = 3, n_clusters: int | None = None,
                 object_map: str = "pca", seed: int = 0, quiet: bool = False,
                 consensus: bool = True) -> ReportData:
    """Fit, cluster, project and compare; returns what :func:`write_report` renders.

    Parameters
    ----------
    X : DataFrame
        The categorical table (features only).
    y : array-like, optional
        Classes: colours the object map, sets ``k``, and enables the methods comparison.
    name : str
    method : str, default="cde"
        The embedder shown in the maps (a name of ``catembed.METHODS``).
    methods : list of str, optional
        Methods compared with a target (registered evaluation methods); default
        ``cde, onehot-pca, idf``. Empty: no comparison.
    runs : int, default=3
        k-means runs per method (distinct seeds) on one fit of each method (the protocol's
        ``refit="once"``; ``catembed evaluate`` refits random methods in every run).
    n_clusters : int, optional
        The k-means ``k``; default: the number of classes, else the silhouette rule (module
        docstring). The consensus uses it when given, else chooses its own (``"auto"``, as
        ``catembed cluster``).
    object_map : {"pca", "tsne"}
    seed : int, default=0
    quiet : bool
        No progress bar.
    consensus : bool, default=True
        Fit :class:`catembed.cluster.Consensus` on ``X`` (``n_clusters``, else ``"auto"``)
        and show its members. ``catembed report`` fits it by ``catembed cluster``'s code
        path instead (:func:`cluster_consensus`).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from tqdm.auto import tqdm

    from .. import plot
    from .._utils._method_names import resolve_name
    from .._utils._validation import CatEmbedError, as_frame
    from ..cluster.embedding_labels import kmeans_labels
    from ..embed.registry import METHODS
    from ..evaluation.methods import get_method
    from ..metrics import fci, vci
    from ..stats._compute import compute_statistics

    method = resolve_name(method, sorted(METHODS), suffix=" (--method)")
    X = as_frame(X)
    methods = [get_method(m).name
               for m in (DEFAULT_METHODS.split(",") if methods is None else methods)]
    if y is None:
        methods = []
    steps = ["statistics", "embedding", "clustering", "value map", "object map", "profiles"]
    steps += ["consensus"] if consensus else []
    steps += ["comparison"] if methods else []
    bar = tqdm(total=len(steps), desc="report", unit="step", file=sys.stderr,
               disable=True if quiet else None, leave=False)
    timings: dict[str, float] = {}
    t = time.perf_counter()

    def done(step: str) -> None:
        nonlocal t
        now = time.perf_counter()
        timings[step] = now - t
        t = now
        bar.set_postfix_str(step)
        bar.update(1)

    stats = compute_statistics(X)
    early_notes: list[str] = []
    summary: dict[str, Any] = {
        "rows": int(len(X)), "attributes": int(X.shape[1]), "values": int(stats.n_values),
        "missing cells": int(X.isna().sum().sum()),
        "FCI (CDE Eq. 7)": round(float(fci(stats)), 4),
    }
    if y is not None:
        y = np.asarray(y, dtype=object)
        summary["classes"] = int(len(set(y.tolist())))
        try:  # its cost grows with classes x classes: over the limits, a note instead
            summary["VCI (CDE Eq. 8)"] = round(float(vci(X, y)), 4)
        except CatEmbedError as exc:
            early_notes.append(f"The VCI line is left out: {exc}")
    done("statistics")
    est = METHODS[method]()
    params = est.get_params()
    est.set_params(**{k: v for k, v in {"random_state": seed,
                                         "categorical_features": "all"}.items()
                      if k in params})
    z = est.fit(X).transform(X)
    summary["method"] = method
    summary["embedding width"] = int(z.shape[1])
    done("embedding")
    k = n_clusters or (summary["classes"] if y is not None else _choose_k(z, seed))
    if k > len(X):
        raise CatEmbedError(f"--clusters {k} is more than the {len(X)} rows.")
    clusters = kmeans_labels(z, int(k), seed, init="sklearn")
    summary["clusters (k-means)"] = int(k)
    done("clustering")
    data = ReportData(name, summary, timings=timings, clusters=clusters)
    data.notes.extend(early_notes)
    fig, ax = plt.subplots(figsize=(8, 6.5))
    plot.values(est, ax=ax, max_points=MAP_VALUES)
    data.figures["Value map"] = _png(fig)
    data.value_points = _value_points(est, MAP_VALUES)
    n_values = len(est.value_coordinates_)
    if n_values > MAP_VALUES:
        data.notes.append(f"The value maps show the {MAP_VALUES:,} most frequent of the "
                          f"{n_values:,} values of the embedding.")
    done("value map")
    ncols = 2 if y is not None else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.5 * ncols, 5.5), squeeze=False)
    plot.objects(est, X, clusters, ax=axes[0, 0], method=object_map, embedding=z,
                 max_rows=2000 if object_map == "tsne" else 5000, random_state=seed,
                 title=f"Objects by k-means cluster ({object_map.upper()})")
    if y is not None:
        plot.objects(est, X, y, ax=axes[0, 1], method=object_map, embedding=z,
                     max_rows=2000 if object_map == "tsne" else 5000, random_state=seed,
                     title=f"Objects by class ({object_map.upper()})")
    data.figures["Object map"] = _png(fig)
    done("object map")
    data.profiles = cluster_profiles(X, clusters, top=5)
    fig, ax = plt.subplots(figsize=(7.5, max(2.5, 0.26 * min(len(data.profiles), 3 * k) + 1.2)),
                           layout="constrained")
    plot.profiles(X, clusters, top=3, ax=ax)
    data.figures["Cluster profiles"] = _png(fig)
    done("profiles")
    if consensus:
        data.consensus = consensus_summary(X, n_clusters or "auto", seed, clusters, y)
        done("consensus")
    if methods:
        from ..evaluation.protocol import run_clustering

        results = run_clustering(X, y, methods, runs=runs, seed=seed, refit="once")
        for r in results:
            row = {"method": r.label, "status": r.status}
            if r.status == "ok":
                for m in ("f_score", "nmi", "acc"):
                    row[m] = (float(r.mean(m)), float(r.std(m)))
            else:
                row["message"] = r.message
            data.comparison.append(row)
        data.paper = _paper_rows(name, methods)
        if any(r["status"] == "ok" for r in data.comparison):
            fig, ax = plt.subplots(figsize=(7, 3.2))
            ok = [r for r in data.comparison if r["status"] == "ok"]
            xs = np.arange(len(ok))
            for i, m in enumerate(("f_score", "nmi", "acc")):
                ax.bar(xs + (i - 1) * 0.27, [r[m][0] for r in ok], 0.27,
                       yerr=[r[m][1] for r in ok], label=plot_text(m.replace("_", "-").upper()),
                       capsize=2)
            ax.set_xticks(xs, [plot_text(r["method"]) for r in ok])
            ax.set_ylim(0, 1)
            ax.legend(fontsize=8, ncols=3)
            ax.set_title(plot_text(f"k-means on each embedding (fitted once), {runs} runs "
                                   "(mean +- std)"), fontsize=9)
            data.figures["Methods side by side"] = _png(fig)
        done("comparison")
    bar.close()
    return data


def write_report(data: ReportData, path: str | os.PathLike) -> Path:
    """Write the page to ``path`` through a temporary file renamed on success (nothing is left
    behind on failure; the permissions are those of a plain write)."""
    from ..io import write_text_atomic

    return write_text_atomic(path, render_html(data))


def _cmd_report(args: argparse.Namespace) -> int:
    from .._utils._validation import CatEmbedError
    from ..evaluation.inputs import NO_TARGET, check_seed

    if args.runs < 1:
        raise CatEmbedError(f"--runs must be at least 1; got {args.runs}.")
    if args.clusters is not None and args.clusters < 1:  # 0 was the default, -1 a crash
        raise CatEmbedError(f"--clusters must be at least 1; got {args.clusters}.")
    check_seed(args.seed)  # NumPy's seeds, naming the flag
    out = Path(args.output)
    if not out.parent.exists():
        raise CatEmbedError(f"cannot write {out}: the folder {out.parent} does not exist.")
    if out.exists() and out.is_dir():
        raise CatEmbedError(f"-o {out} is a folder; give a file name such as report.html.")
    from ..evaluation.inputs import input_files
    from ..io import check_not_input

    check_not_input(out, input_files(args.data, args.data_dir), flag="--output")
    t0 = time.perf_counter()
    from ..evaluation.inputs import load_input, summary_line

    loaded = load_input(args.data, args.target, args.preset,
                        [c.strip() for c in (args.drop or "").split(",") if c.strip()],
                        args.data_dir, numeric=args.numeric, require_target=False,
                        use_meta_target=not args.no_target)
    name, X = loaded.name, loaded.features
    binned = loaded.meta.get("binned") or []
    if binned and not args.quiet:  # the note of catembed cluster and embed
        from .._utils._progress import echo
        from ..evaluation.inputs import numeric_note

        echo(f"catembed: note: {path_text(numeric_note(binned, 'binned'))}")
    y = None if loaded.target == NO_TARGET else loaded.labels.to_numpy()
    t_read = time.perf_counter() - t0
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    data = build_report(X, y, name=name, method=args.method, methods=methods, runs=args.runs,
                        n_clusters=args.clusters, object_map=args.map, seed=args.seed,
                        quiet=args.quiet, consensus=False)
    if not args.no_consensus:  # catembed cluster's answer for the same table and seed
        t_c = time.perf_counter()
        from .._utils._spelling import cli_spelling

        with cli_spelling("report"):  # its warnings name catembed cluster's options
            data.consensus = cluster_consensus(args, X, y, data.clusters,
                                               loaded.meta.get("rows_kept"))
        data.timings["consensus"] = time.perf_counter() - t_c
    data.timings = {"read": t_read, **data.timings}
    data.notes.insert(0, f"Table: {summary_line(loaded)}.")
    write_report(data, out)
    if not args.quiet:
        print(f"catembed report: {name}: {len(X)} rows, {X.shape[1]} attributes; wrote "
              f"{path_text(out)} "
              f"in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


REPORT_EXAMPLES = """\
examples:
  catembed report zoo -o zoo.html
  catembed report adult --data-dir ../shared/datasets -o adult.html
  catembed report survey.csv --target answer --methods cde,onehot --map tsne -o survey.html

"""


def register(subparsers: Any) -> None:
    """Add ``report`` to the ``catembed`` command line."""
    from ..evaluation.roles import NUMERIC_CHOICES, NUMERIC_HELP

    p = subparsers.add_parser(
        "report", help="write a self-contained HTML report of a table's embedding",
        description="Embed a table and write one HTML page (no network needed to open it): "
        "the table's summary and data factors, the value map, the object map by cluster and "
        "class, cluster profiles, the catembed cluster result and, with a target, the methods "
        "side by side. Columns of numbers are read by catembed cluster's rule (--numeric).",
        epilog=REPORT_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", help="CSV or Parquet file, data-set folder, or data-set name")
    p.add_argument("--output", "-o", default="report.html",
                   help="the HTML file to write (default report.html)")
    p.add_argument("--target", help="class column (a folder's meta.json names one); "
                   "without one, no class colours and no methods comparison")
    p.add_argument("--no-target", action="store_true",
                   help="ignore the target that a folder's meta.json names")
    p.add_argument("--method", default="cde", help="embedder of the maps (default cde)")
    p.add_argument("--methods", default=DEFAULT_METHODS,
                   help=f"methods compared when there is a target (default {DEFAULT_METHODS};"
                   " empty: none)")
    p.add_argument("--runs", type=int, default=3,
                   help="k-means runs per compared method, each fitted once (default 3)")
    p.add_argument("--clusters", type=int,
                   help="clusters: the k-means k (default: the classes, else best silhouette "
                   "2..8) and the consensus' k (default: chosen without labels, as "
                   "catembed cluster)")
    p.add_argument("--map", choices=["pca", "tsne"], default="pca",
                   help="object map projection (default pca; tsne on <= 2,000 rows)")
    p.add_argument("--preset", default="complete",
                   help="pre-processing preset (default complete, as catembed evaluate: "
                   "categorical columns, rows with a missing value dropped; categorical "
                   "keeps every row, missing as a value)")
    p.add_argument("--drop", help="comma-separated columns to leave out")
    p.add_argument("--numeric", choices=NUMERIC_CHOICES, default="auto", help=NUMERIC_HELP)
    p.add_argument("--data-dir", help="folder to find a data set named by name in (default: "
                   "$CATEMBED_DATA, then $CATEMBED_SHARED/datasets, then the bundled sets)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--no-consensus", action="store_true",
                   help="leave out the label-free consensus section (the catembed cluster "
                   "result for the same table, --clusters and --seed)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")
    p.set_defaults(func=_cmd_report)
