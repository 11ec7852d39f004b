"""The ``evaluate`` and ``bench`` subcommands (plugin of :mod:`catembed.cli`).

``catembed evaluate DATA --target COL --methods cde,onehot --runs 50 --seed 0 [--json]``
runs the clustering protocol on one table; ``catembed bench --table cde-1 [--data-dir DIR]
[--runs N] [--output report.md]`` runs a whole paper table.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from .._validation import CatEmbedError
from ..datasets import Dataset, apply_preset, preset_names

__all__ = ["load_input", "register"]

DEFAULT_METHODS = "cde,onehot,onehot-pca,idf"


def load_input(text: str, target: str | None, preset: str | None,
               drop: list[str] | None = None, data_dir: str | None = None) -> Dataset:
    """The table to evaluate, prepared by ``preset``.

    ``text`` is a CSV/Parquet file, a data-set folder or a bundled name. A folder's
    ``meta.json`` gives the column kinds and the target; a plain file's non-numeric columns
    are categorical (read as text), its numeric columns numeric (kept as categories only by
    the ``raw`` preset), and ``--target`` is required. Default preset: ``complete``.
    """
    from .. import io
    from ..cli import resolve_input
    from ..datasets import load_dataset

    if data_dir and not Path(text).exists():
        if not (Path(data_dir) / text / "data.csv").exists():
            raise CatEmbedError(f"no data set {text!r} in {data_dir}.")
        text = str(Path(data_dir) / text)
    spec = resolve_input(text)
    if spec.meta:
        data = load_dataset(spec.path.parent)
    else:
        if not target:
            raise CatEmbedError(f"{spec.path.name} has no meta.json: name the class column "
                                "with --target COL.")
        columns = io.read_columns(spec.path)
        numeric = [c for c in io.numeric_columns(spec.path) if c != target]
        text_cols = [c for c in columns if c not in numeric]
        frame = io.read_table(spec.path, text_columns=text_cols)
        kinds = {c: ("target" if c == target else "numeric" if c in numeric
                     else "categorical") for c in columns}
        data = Dataset(spec.name, frame, {"name": spec.name, "target": target,
                                          "columns": kinds}, spec.path)
    if target:
        if target not in data.frame.columns:
            raise CatEmbedError(
                f"--target {target!r} is not a column of {spec.name}; columns: "
                f"{', '.join(map(str, data.frame.columns[:20]))}."
            )
        kinds = dict(data.column_kinds)
        old = data.target
        if old and old != target and old in kinds:
            kinds[old] = "id"  # the file's own target is not a feature
        kinds[target] = "target"
        data.meta = {**data.meta, "target": target, "columns": kinds}
    if not data.target:
        raise CatEmbedError(f"{spec.name}: meta.json names no target; give --target COL.")
    if drop:
        missing = [c for c in drop if c not in data.frame.columns]
        if missing:
            raise CatEmbedError(f"--drop names column(s) not in {spec.name}: "
                                f"{', '.join(missing)}.")
        kinds = dict(data.column_kinds)
        for c in drop:
            kinds[c] = "id"
        data.meta = {**data.meta, "columns": kinds}
    return apply_preset(data, preset or "complete")


def _split(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from .methods import get_method
    from .protocol import TASKS

    methods = _split(args.methods)
    if not methods:
        raise CatEmbedError("--methods is empty.")
    for m in methods:
        get_method(m)  # unknown names are a user error, before any work
    if args.runs < 1:
        raise CatEmbedError(f"--runs must be at least 1; got {args.runs}.")
    if args.task not in TASKS:
        raise CatEmbedError(f"unknown task {args.task!r}; available: {', '.join(TASKS)}.")
    if args.task == "classify":  # the classify task's own options (issue 4)
        from functools import partial

        TASKS = {**TASKS, "classify": partial(
            TASKS["classify"], classifier=args.classifier, test_size=args.test_size,
            n_repeats=args.repeats)}
    data = load_input(args.data, args.target, args.preset, _split(args.drop), args.data_dir)
    d = data.describe()
    if not args.json:
        print(f"catembed evaluate: {data.summary()}", file=sys.stderr)
    results = TASKS[args.task](data.features, data.labels.to_numpy(), methods,
                               runs=args.runs, seed=args.seed, clusterer=args.clusterer,
                               init=args.init, n_jobs=args.jobs,
                               **({"refit": args.refit} if args.refit else {}))
    failed = [r for r in results if r.status != "ok"]
    if args.json:
        out = {"dataset": data.name, "preset": (data.preset or {}).get("name"),
               "n_rows": d["n_rows"], "n_features": d["n_features"],
               "n_values": d["n_values"], "n_classes": d["n_classes"], "runs": args.runs,
               "seed": args.seed, "init": args.init, "task": args.task,
               "results": [r.summary() for r in results]}
        json.dump(out, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        if args.task == "classify":
            from .classify import format_results

            print(format_results(results))
        elif args.task == "retrieve":
            from .retrieval import text_table

            print(text_table(results))
        else:
            print(_text_table(results))
    for r in failed:
        print(f"catembed: warning: {r.label}: {r.status}: {r.message}", file=sys.stderr)
    if failed and len(failed) == len(results):
        return 1
    return 0


def _text_table(results: list[Any]) -> str:
    head = f"{'method':<12} {'clusterer':<9} {'F-score':>15} {'NMI':>15} {'ACC':>15} " \
           f"{'ARI':>15} {'fit s':>8}"
    lines = [head, "-" * len(head)]
    for r in results:
        if r.status != "ok":
            lines.append(f"{r.label:<12} {r.clusterer:<9} {r.status}")
            continue
        cells = [f"{r.mean(m):.3f} +- {r.std(m):.3f}" for m in ("f_score", "nmi", "acc", "ari")]
        fit = r.fit_seconds
        lines.append(f"{r.label:<12} {r.clusterer:<9} " + " ".join(f"{c:>15}" for c in cells)
                     + f" {fit if np.isfinite(fit) else float('nan'):>8.3f}")
    return "\n".join(lines)


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import _stderr, format_markdown, run_table

    if args.runs is not None and args.runs < 1:
        raise CatEmbedError(f"--runs must be at least 1; got {args.runs}.")
    if args.data_dir and not Path(args.data_dir).is_dir():
        raise CatEmbedError(f"--data-dir {args.data_dir} is not a directory.")
    if args.output:
        out = Path(args.output)
        if out.parent and not out.parent.exists():
            raise CatEmbedError(f"cannot write {out}: the folder {out.parent} does not exist.")
    result = run_table(args.table, data_dir=args.data_dir, runs=args.runs, seed=args.seed,
                       init=args.init, datasets=_split(args.datasets) or None,
                       columns=_split(args.columns) or None, n_jobs=args.jobs,
                       refit=args.refit,
                       log=None if args.quiet or args.json else _stderr)
    text = format_markdown(result)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, default=_json_default)
        sys.stdout.write("\n")
    else:
        print(text, end="")
    return 0


def _json_default(x: Any) -> Any:
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def register(subparsers: Any) -> None:
    """Add ``evaluate`` and ``bench`` to the ``catembed`` command line."""
    from .bench import table_ids
    from .classify import CLASSIFIERS
    from .clustering import INITS
    from .methods import method_names
    from .protocol import CLUSTERERS, TASKS

    p = subparsers.add_parser(
        "evaluate", help="cluster a labelled table with several methods and score it",
        description="The papers' protocol: embed (refit per run for random methods), "
        "cluster with k = number of classes (one k-means start, MATLAB-style k-means++), "
        "score (F-score after Hungarian matching, NMI, accuracy, ARI), repeated --runs times.",
    )
    p.add_argument("data", help="CSV or Parquet file, data-set folder, or bundled data-set name")
    p.add_argument("--data-dir", help="folder to find a data set named by name in (default: "
                   "$CATEMBED_DATA, then the bundled sets)")
    p.add_argument("--target", help="class column (required for a file without meta.json)")
    p.add_argument("--preset", choices=preset_names(), default=None,
                   help="pre-processing preset (default: complete = categorical columns, "
                   "complete rows, constant columns dropped)")
    p.add_argument("--drop", help="comma-separated columns to leave out")
    p.add_argument("--methods", default=DEFAULT_METHODS,
                   help=f"comma-separated methods (default {DEFAULT_METHODS}); known: "
                   f"{', '.join(method_names())}")
    p.add_argument("--runs", type=int, default=50, help="runs with distinct seeds (default 50)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--clusterer", choices=sorted(CLUSTERERS),
                   help="clusterer for every embedding method (default: the method's own, "
                   "k-means for most)")
    p.add_argument("--init", choices=INITS, default="matlab",
                   help="k-means seeding: matlab (one k-means++ candidate per step, the "
                   "papers') or sklearn (greedy k-means++); default matlab")
    p.add_argument("--refit", choices=["auto", "once", "always"],
                   help="auto (default): refit random methods (CDE) in every run; once: fit "
                   "each method once and repeat only the clustering; always: refit all")
    p.add_argument("--task", default="cluster", choices=sorted(TASKS),
                   help="evaluation task (default cluster)")
    p.add_argument("--classifier", default="svm", choices=CLASSIFIERS,
                   help="task classify: svm (linear, one-vs-one), svm-rbf, knn, rf or lr "
                   "(default svm)")
    p.add_argument("--test-size", type=float, default=0.25,
                   help="task classify: test fraction of each stratified split (default 0.25 "
                   "as CDE++; UNTIE 0.1)")
    p.add_argument("--repeats", type=int, default=10,
                   help="task classify: splits per run (default 10; UNTIE 20)")
    p.add_argument("--jobs", type=int, default=None, help="parallel runs (same results)")
    p.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    p.set_defaults(func=_cmd_evaluate)

    b = subparsers.add_parser(
        "bench", help="reproduce a paper table",
        description="Run every column of a paper table on every data set found in the data "
        "directory and print ours beside the paper's numbers.",
    )
    b.add_argument("--table", required=True,
                   help=f"table id ({', '.join(table_ids())}) or a table JSON file")
    b.add_argument("--data-dir", help="folder of data sets (default: $CATEMBED_DATA, then the "
                   "bundled sets)")
    b.add_argument("--runs", type=int, help="runs per cell (default: the table's, 50)")
    b.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    b.add_argument("--init", choices=INITS, help="k-means seeding (default: the table's)")
    b.add_argument("--refit", choices=["auto", "once", "always"],
                   help="refit policy of the runs (default auto: random methods per run)")
    b.add_argument("--datasets", help="comma-separated subset of the table's data sets")
    b.add_argument("--columns", help="comma-separated subset of the table's columns")
    b.add_argument("--jobs", type=int, default=None, help="parallel runs (same results)")
    b.add_argument("--output", "-o", help="also write the Markdown table to this file")
    b.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    b.set_defaults(func=_cmd_bench)
