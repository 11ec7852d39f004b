"""Run a paper table and print ours beside the paper's numbers.

A table is a JSON file in ``tables/`` (format: ``tables/README.md``). :func:`run_table` finds
each of its data sets in a data directory, prepares it with the table's preset, runs every
column through the task runner of :mod:`.protocol` and collects the scores;
:func:`format_markdown` prints the table with the paper's number and the difference in every
cell, the averages row and the p-values row (our significance test beside the paper's).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._utils._validation import CatEmbedError
from ..datasets import BUNDLED_DIR, Dataset, apply_preset, load_dataset
from ..metrics import fci, vci
from ._table_file import TABLES_DIR, load_table, table_ids
from .methods import _REGISTRY, MethodUnavailable
from .protocol import TASKS, MethodResult, MethodSpec
from .significance import friedman_test, paired_t_test

__all__ = ["TABLES_DIR", "BenchResult", "format_markdown", "load_table", "run_table",
           "table_ids"]

#: how far ours may be from the paper's number and still count as reproduced
TOLERANCE = 0.03
#: a method's result with scores: its own, or another partition's after a fallback (issue 53)
SCORED = ("ok", "fallback")


@dataclass
class DatasetRun:
    """One row of a bench table."""

    name: str
    label: str
    status: str  # "ok", "missing", "error"
    summary: str = ""
    factors: dict[str, float] = field(default_factory=dict)
    results: dict[str, MethodResult] = field(default_factory=dict)
    seconds: float = 0.0
    message: str = ""


@dataclass
class BenchResult:
    """A run of one paper table."""

    table: dict[str, Any]
    rows: list[DatasetRun]
    runs: int
    seed: int
    init: str
    data_dir: str | None
    seconds: float = 0.0

    @property
    def labels(self) -> list[str]:
        return [c["label"] for c in self.table["columns"]]

    def ours(self, dataset: str, label: str) -> float:
        row = next(r for r in self.rows if r.name == dataset)
        res = row.results.get(label)
        if res is None or res.status not in SCORED:
            return float("nan")
        return res.mean(self.table["metric"])

    def to_dict(self) -> dict[str, Any]:
        """Everything as JSON-able data."""
        metric = self.table["metric"]
        out_rows = []
        for r in self.rows:
            paper = self._paper_row(r.name)
            cells = {}
            for lab in self.labels:
                res = r.results.get(lab)
                ours = res.summary() if res is not None else None
                p = (paper.get("scores") or {}).get(lab)
                mean = res.mean(metric) if res is not None and res.status in SCORED else None
                cells[lab] = {"ours": ours, "paper": p,
                              "diff": None if mean is None or p is None else mean - p}
            out_rows.append({"dataset": r.name, "label": r.label, "status": r.status,
                             "message": r.message, "summary": r.summary,
                             "factors": r.factors, "paper_factors": paper.get("factors", {}),
                             "seconds": round(r.seconds, 3), "cells": cells})
        return {"table": self.table["id"], "title": self.table.get("title"),
                "metric": metric, "runs": self.runs, "seed": self.seed, "init": self.init,
                "data_dir": self.data_dir, "seconds": round(self.seconds, 3),
                "f_score": self.table.get("f_score"), "rows": out_rows, "average": self.averages(),
                "average_ranks": self.average_ranks(),
                "significance": self.significance()}

    def _paper_row(self, name: str) -> dict[str, Any]:
        return next(d for d in self.table["datasets"] if d["name"] == name)

    def _average_names(self) -> list[str]:
        over = (self.table.get("average") or {}).get("over", "all")
        names = [d["name"] for d in self.table["datasets"]]
        return names if over == "all" else [n for n in names if n in over]

    def averages(self) -> dict[str, Any]:
        """Our average per column over the data sets run (within ``average.over``), and the
        paper's average over the same sets, and as printed in the paper."""
        names = [n for n in self._average_names()
                 if next(r for r in self.rows if r.name == n).status == "ok"]
        ours, paper_same = {}, {}
        for lab in self.labels:
            o = [self.ours(n, lab) for n in names]
            p = [(self._paper_row(n).get("scores") or {}).get(lab) for n in names]
            pairs = [(a, b) for a, b in zip(o, p, strict=True) if np.isfinite(a)]
            ours[lab] = float(np.mean([a for a, _ in pairs])) if pairs else None
            pp = [b for _, b in pairs if b is not None]
            paper_same[lab] = float(np.mean(pp)) if pp and len(pp) == len(pairs) else None
        return {"datasets": names, "ours": ours, "paper_same_sets": paper_same,
                "paper": (self.table.get("average") or {}).get("scores", {})}

    def average_ranks(self) -> dict[str, Any]:
        """Each column's rank on each data set run (1 = best score, ties share the mean
        rank), averaged over the sets on which every column has a score (Demsar 2006).

        Returns ``{"datasets": [...], "ranks": {label: mean rank}}``; the columns with no
        score on any set (not available) are left out of the ranking.
        """
        from scipy.stats import rankdata

        labels = [lab for lab in self.labels
                  if any(np.isfinite(self.ours(r.name, lab)) for r in self.rows
                         if r.status == "ok")]
        names, table = [], []
        for r in self.rows:
            if r.status != "ok":
                continue
            scores = [self.ours(r.name, lab) for lab in labels]
            if labels and all(np.isfinite(scores)):
                names.append(r.name)
                table.append(rankdata(-np.asarray(scores)))
        ranks = (dict(zip(labels, np.mean(table, axis=0).tolist(), strict=True))
                 if table else {})
        return {"datasets": names, "ranks": ranks}

    def significance(self) -> dict[str, Any]:
        """Our p-values (the table's test over the data sets run) and the paper's."""
        sig = self.table.get("significance") or {"test": "paired_t"}
        names = [r.name for r in self.rows if r.status == "ok"]
        out: dict[str, Any] = {"test": sig.get("test", "paired_t"),
                               "paper": self.table.get("p_values") or {}}
        ref = self.table.get("reference") or self.labels[0]
        if out["test"] == "paired_t" and ref in self.labels:
            ours = {}
            for lab in self.labels:
                if lab == ref:
                    continue
                a = [self.ours(n, ref) for n in names]
                b = [self.ours(n, lab) for n in names]
                p = paired_t_test(a, b)
                ours[lab] = None if not np.isfinite(p) else p
            out.update(reference=ref, ours=ours)
        elif out["test"] == "friedman":
            import pandas as pd

            # the paper's columns only: columns marked "extra" (not in the paper) would
            # change the ranks the paper's test is compared with
            paper_cols = [c["label"] for c in self.table["columns"] if not c.get("extra")]
            frame = pd.DataFrame({lab: [self.ours(n, lab) for n in names]
                                  for lab in paper_cols}, index=names)
            frame = frame.dropna(axis=1, how="all")
            try:
                out["ours"] = friedman_test(frame, sig.get("alpha", 0.05)).to_dict()
            except CatEmbedError as exc:
                out["ours"] = None
                out["message"] = str(exc)
        return out

    def reproduced(self, tol: float = TOLERANCE) -> dict[str, tuple[int, int]]:
        """Per column: (cells within ``tol`` of the paper, cells compared)."""
        out = {}
        for lab in self.labels:
            hit = tot = 0
            for r in self.rows:
                p = (self._paper_row(r.name).get("scores") or {}).get(lab)
                o = self.ours(r.name, lab) if r.status == "ok" else float("nan")
                if p is None or not np.isfinite(o):
                    continue
                tot += 1
                hit += abs(o - p) <= tol + 1e-12
            out[lab] = (hit, tot)
        return out


def find_dataset(entry: dict[str, Any], data_dir: str | os.PathLike | None) -> Path | None:
    """The folder of a table's data set: in ``data_dir`` when given, else in
    ``$CATEMBED_DATA`` and the bundled copies. None when absent."""
    names = [entry["name"], *(entry.get("aliases") or [])]
    roots = [Path(data_dir)] if data_dir else [
        *([Path(os.environ["CATEMBED_DATA"])] if os.environ.get("CATEMBED_DATA") else []),
        BUNDLED_DIR,
    ]
    for root in roots:
        for n in names:
            if (root / n / "data.csv").exists():
                return root / n
    return None


def compute_factors(data: Dataset, keys: list[str]) -> dict[str, float]:
    """The data factors a table shows, computed on the prepared data set."""
    d = data.describe()
    out: dict[str, float] = {}
    for k in keys:
        if k in d:
            out[k] = d[k]
        elif k == "fci":
            out[k] = fci(data.features)
        elif k == "vci":
            out[k] = vci(data.features, data.labels)
    return out


def run_table(
    table: str | dict[str, Any],
    *,
    data_dir: str | os.PathLike | None = None,
    runs: int | None = None,
    seed: int = 0,
    init: str | None = None,
    datasets: list[str] | None = None,
    columns: list[str] | None = None,
    n_jobs: int | None = None,
    refit: str | None = None,
    f_score: str | None = None,
    log: Callable[[str], None] | None = None,
) -> BenchResult:
    """Run every column of a paper table on every data set found.

    Parameters
    ----------
    table : str or dict
        A table id, a JSON path, or the parsed table.
    data_dir : path, optional
        Where the data-set folders are; default ``$CATEMBED_DATA``, then the bundled sets.
    runs : int, optional
        Runs per cell; default the table's protocol (50).
    seed : int, default=0
    init : {"matlab", "sklearn"}, optional
        k-means seeding; default the table's protocol (``"matlab"``).
    datasets, columns : list of str, optional
        Only these data sets (names or labels) / columns (labels or method names).
    n_jobs : int, optional
        Parallel runs (results do not depend on it).
    refit : {"auto", "once", "always"}, optional
        Refit policy (:func:`~catembed.evaluation.protocol.run_clustering`); default the
        table's protocol, else ``"auto"``.
    f_score : {"hungarian", "best-match", "pairwise"}, optional
        F-score definition (:func:`catembed.metrics.f_score`); default the table's.
    log : callable, optional
        Receives one progress line per data set (e.g. ``print`` to stderr).
    """
    from . import classify, retrieval  # noqa: F401  (register the classify/retrieve tasks)

    spec = load_table(table) if not isinstance(table, dict) else table
    proto = dict(spec.get("protocol") or {})
    runs = int(runs if runs is not None else proto.pop("runs", 50))
    proto.pop("runs", None)
    init = init or proto.pop("init", "matlab")
    proto.pop("init", None)
    clusterer = proto.pop("clusterer", None)
    if refit is not None:
        proto["refit"] = refit
    task = spec.get("task", "cluster")
    if task not in TASKS:
        raise CatEmbedError(f"table {spec['id']} needs the task {task!r}, which is not "
                            f"available yet (known: {', '.join(TASKS)}).")
    runner = TASKS[task]
    if task == "cluster":
        spec = {**spec, "f_score": f_score or spec.get("f_score", "hungarian")}
        proto["f_score"] = spec["f_score"]
    import inspect

    try:  # a key of a user's table that the runner does not take: a TypeError in every row
        inspect.signature(runner).bind_partial(None, None, [], runs=runs, seed=seed, init=init,
                                               n_jobs=n_jobs, **proto)
    except TypeError as exc:
        raise CatEmbedError(f"table {spec['id']}: its protocol does not suit the {task} task "
                            f"({exc}); see evaluation/tables/README.md.") from None
    cols = spec["columns"]
    if columns:
        want = set(columns)
        cols = [c for c in cols if c["label"] in want or c["method"] in want]
        if not cols:
            raise CatEmbedError(f"no column of {spec['id']} matches {', '.join(columns)}.")
        spec = {**spec, "columns": cols}
    entries = spec["datasets"]
    if datasets:
        want = set(datasets)
        entries = [e for e in entries if e["name"] in want or e.get("label") in want]
        if not entries:
            raise CatEmbedError(f"no data set of {spec['id']} matches {', '.join(datasets)}.")
        spec = {**spec, "datasets": entries}
    factor_keys = [f["key"] for f in spec.get("factors") or []]
    t_all = time.perf_counter()
    rows: list[DatasetRun] = []
    for i, entry in enumerate(entries):
        label = entry.get("label", entry["name"])
        folder = find_dataset(entry, data_dir)
        if folder is None:
            rows.append(DatasetRun(entry["name"], label, "missing",
                                   message="not in the data directory"))
            if log:
                log(f"[{i + 1}/{len(entries)}] {label}: missing")
            continue
        t0 = time.perf_counter()
        try:
            raw = load_dataset(folder)
            raw.name = entry["name"]  # the table's name picks the preset's per-set rules
            if entry.get("target"):  # another class column: the file's own is a feature
                kinds = {**(raw.meta.get("columns") or {}), entry["target"]: "target"}
                if raw.target and raw.target != entry["target"]:
                    kinds[raw.target] = "categorical"
                raw.meta = {**raw.meta, "target": entry["target"], "columns": kinds}
            preset = entry.get("preset", spec.get("preset", "complete"))
            data = apply_preset(raw, preset)
            # a data set found under an alias keeps the table's name for the preset lookup
            row = DatasetRun(entry["name"], label, "ok", summary=data.summary(),
                             factors=compute_factors(data, factor_keys))
            specs = []
            for c in cols:
                # a classify table names its column's classifier in "classifier"
                specs.append(MethodSpec(c["method"],
                                        c.get("clusterer", c.get("classifier", clusterer)),
                                        dict(c.get("params") or {}), c["label"]))
            known = [s for s in specs if s.method in _REGISTRY]
            for s in specs:
                if s.method not in _REGISTRY:
                    row.results[s.name] = MethodResult(
                        s.method, s.name, s.clusterer or "", status="unavailable",
                        message=f"method {s.method!r} is not registered yet")
            out = runner(data.features, data.labels.to_numpy(), known, runs=runs, seed=seed,
                         init=init, n_jobs=n_jobs, **proto)
            for res in out:
                if res.runs and spec["metric"] not in res.runs[0]:
                    raise CatEmbedError(
                        f"table {spec['id']}: the {task} task gives no metric "
                        f"{spec['metric']!r} (it gives {', '.join(res.runs[0])}).")
                row.results[res.label] = res
        except (CatEmbedError, MethodUnavailable) as exc:
            row = DatasetRun(entry["name"], label, "error", message=str(exc))
        row.seconds = time.perf_counter() - t0
        rows.append(row)
        if log:
            metric = spec["metric"]
            cells = ", ".join(
                f"{lab} {res.mean(metric):.3f}" + ("" if res.status == "ok" else " (fallback)")
                if res.status in SCORED else f"{lab} {res.status}"
                for lab, res in row.results.items())
            log(f"[{i + 1}/{len(entries)}] {row.summary or label}: {cells} "
                f"({row.seconds:.1f} s)" if row.status == "ok" else
                f"[{i + 1}/{len(entries)}] {label}: error: {row.message}")
    result = BenchResult(spec, rows, runs, seed, init, str(data_dir) if data_dir else None)
    result.seconds = time.perf_counter() - t_all
    return result


def _fmt(x: Any, nd: int = 3) -> str:
    if x is None or not isinstance(x, (int, np.integer)) and not np.isfinite(float(x)):
        return "-"
    return str(int(x)) if isinstance(x, (int, np.integer)) else f"{float(x):.{nd}f}"


def _md(text: str) -> str:
    """Escape the pipes of a Markdown table cell (``|O|``)."""
    return str(text).replace("|", "\\|")


def _factor_cell(ours: Any, paper: Any) -> str:
    if paper is None:
        return _fmt(ours)
    if ours is None:
        return f"- / {_fmt(paper)}"
    same = (ours == paper) if isinstance(paper, int) else abs(float(ours) - paper) <= 1e-3
    return _fmt(ours) if same else f"{_fmt(ours)} / {_fmt(paper)}"


def format_markdown(result: BenchResult) -> str:
    """The table as Markdown: ours / paper (difference) in each cell, flagged with ``*`` when
    the difference exceeds 0.03; then the averages, the p-values and a summary."""
    t, metric = result.table, result.table["metric"]
    labels = result.labels
    factors = t.get("factors") or []
    lines = [f"## {t['id']}: {t.get('title', '')}", ""]
    fdef = f" (F-score: {t['f_score']})" if metric == "f_score" and "f_score" in t else ""
    lines.append(f"{t.get('paper', '')}, {t.get('source', '')}. Metric: {metric}, mean of "
                 f"{result.runs} runs{fdef} (seeds {result.seed}.."
                 f"{result.seed + result.runs - 1}), "
                 f"k-means seeding: {result.init}. Cells: ours / paper (ours - paper); "
                 f"`*` marks a difference above {TOLERANCE}. Factor cells: ours / paper "
                 "where they differ.")
    lines.append("")
    head = [_md(h) for h in ["Data"] + [f["label"] for f in factors] + labels + ["time (s)"]]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    for r in result.rows:
        paper = result._paper_row(r.name)
        pf = paper.get("factors") or {}
        if r.status != "ok":
            cells = [r.label] + [_fmt(pf.get(f["key"])) for f in factors] + \
                [f"{r.status}" + (f": {r.message}" if r.status == "error" else "")] + \
                [""] * (len(labels) - 1) + [""]
            lines.append("| " + " | ".join(cells) + " |")
            continue
        cells = [r.label] + [_factor_cell(r.factors.get(f["key"]), pf.get(f["key"]))
                             for f in factors]
        for lab in labels:
            res = r.results.get(lab)
            p = (paper.get("scores") or {}).get(lab)
            if res is None or res.status == "unavailable":
                cells.append("not yet available")
            elif res.status not in SCORED:
                cells.append("error")
            else:
                o = res.mean(metric)
                mark = "" if res.status == "ok" else " (fallback)"  # another partition's
                if p is None:
                    cells.append(f"{o:.3f} / -{mark}")
                else:
                    flag = "*" if abs(o - p) > TOLERANCE + 1e-12 else ""
                    cells.append(f"{o:.3f} / {p:.3f} ({o - p:+.3f}){flag}{mark}")
        cells.append(f"{r.seconds:.1f}")
        lines.append("| " + " | ".join(cells) + " |")
    av = result.averages()
    pad = [""] * len(factors)
    n_av = len(av["datasets"])
    row = [f"Average, {n_av} sets run"] + pad
    for lab in labels:
        o, p = av["ours"].get(lab), av["paper_same_sets"].get(lab)
        row.append("-" if o is None else (f"{o:.3f} / {p:.3f} ({o - p:+.3f})" if p is not None
                                         else f"{o:.3f}"))
    lines.append("| " + " | ".join(row + [""]) + " |")
    if av["paper"]:
        row = ["Average in the paper"] + pad + [_fmt(av["paper"].get(lab)) for lab in labels]
        lines.append("| " + " | ".join(row + [""]) + " |")
    sig = result.significance()
    if sig["test"] == "paired_t" and "ours" in sig:
        row = [f"p-value vs {sig['reference']} (ours / paper)"] + pad
        for lab in labels:
            if lab == sig["reference"]:
                row.append("")
            else:
                o, p = sig["ours"].get(lab), sig["paper"].get(lab)
                row.append(f"{_fmt(o)} / {_fmt(p)}")
        lines.append("| " + " | ".join(row + [""]) + " |")
    ar = result.average_ranks()
    if ar["ranks"]:
        row = [f"Average rank (1 = best), {len(ar['datasets'])} sets"] + pad
        row += [_fmt(ar["ranks"].get(lab), 2) if lab in ar["ranks"] else "-" for lab in labels]
        lines.append("| " + " | ".join(row + [""]) + " |")
    lines.append("")
    missing = [r.label for r in result.rows if r.status == "missing"]
    if missing:
        lines.append(f"Missing data sets (not in the data directory): {', '.join(missing)}.")
    unavailable = sorted({lab for r in result.rows for lab, res in r.results.items()
                          if res.status == "unavailable"})
    if unavailable:
        lines.append(f"Not yet available (method not registered or not importable): "
                     f"{', '.join(unavailable)}.")
    errors = [f"{r.label}: {lab}: {res.message}" for r in result.rows
              for lab, res in r.results.items() if res.status == "error"]
    if errors:
        lines.append("Errors: " + "; ".join(errors) + ".")
    fell = [f"{r.label}: {lab}: {res.fallback['runs']} of {res.fallback['of']} runs scored the "
            f"{res.fallback['partition']}" for r in result.rows
            for lab, res in r.results.items() if res.status == "fallback" and res.fallback]
    if fell:
        lines.append("Fallbacks (cells marked \"(fallback)\"): " + "; ".join(fell) + ".")
    if sig["test"] == "friedman" and sig.get("ours"):
        f = sig["ours"]
        ranks = ", ".join(f"{k} {v:.2f}" for k, v in f["average_ranks"].items())
        lines.append(f"Friedman: chi2 {f['chi2']:.3f}, p {f['p_value']:.4f}; average ranks: "
                     f"{ranks}; CD (alpha {f['alpha']}): Nemenyi {f['cd_nemenyi']:.3f}, "
                     f"Bonferroni-Dunn {f['cd_bonferroni_dunn']:.3f}.")
    rep = result.reproduced()
    parts = [f"{lab} {h}/{n}" for lab, (h, n) in rep.items() if n]
    if parts:
        lines.append(f"Within {TOLERANCE} of the paper: " + ", ".join(parts) + ".")
    lines.append(f"Wall time: {result.seconds:.1f} s.")
    if t.get("notes"):
        lines.append("")
        lines.append(f"Note: {t['notes']}")
    return "\n".join(lines) + "\n"


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)
