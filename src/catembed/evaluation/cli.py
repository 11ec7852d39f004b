"""The ``evaluate`` and ``bench`` subcommands (plugin of :mod:`catembed.cli`).

``catembed evaluate DATA --target COL --methods cde,onehot --runs 50 --seed 0 [--json]``
runs the clustering protocol on one table; ``catembed bench --table cde-1 [--data-dir DIR]
[--runs N] [--output report.md]`` runs a whole paper table and ``catembed bench --study NAME``
one of the papers' studies (:mod:`catembed.evaluation.studies`).

The rule for columns is the one of ``catembed embed``: every column of a plain CSV/Parquet
file is categorical (read as text, so categories coded 1, 2, 3 stay categories) unless
``--numeric`` says what to do with the columns that hold numbers; a data-set folder's
``meta.json`` types its columns.

Data sets named by name are looked up in ``--data-dir``, then ``$CATEMBED_DATA``, then
``$CATEMBED_SHARED/datasets``, then the copies bundled with the package; every "not found"
names the folders searched.

This module is imported by ``catembed --help`` and every other command, so its top level
imports no NumPy, pandas or scikit-learn: the choices that come from the registries are
filled in when the subcommand itself is parsed or its help printed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["data_roots", "load_features", "load_input", "register"]

DEFAULT_METHODS = "cde,onehot,onehot-pca,idf"
TABLES_DIR = Path(__file__).with_name("tables")
BUNDLED_DIR = Path(__file__).resolve().parents[1] / "datasets" / "data"

EVALUATE_EXAMPLES = """\
examples:
  catembed evaluate soybean_small --runs 10
  catembed evaluate votes.csv --target class --methods cde,onehot,idf --runs 20
  catembed evaluate adult --data-dir ../shared/datasets --runs 5 --task classify
  catembed evaluate mixed.csv --target y --numeric discretize --json

"""

BENCH_EXAMPLES = """\
examples:
  catembed bench --table cde-1 --runs 5 --datasets zoo,soybean_small
  CATEMBED_DATA=../shared/datasets catembed bench --table cdepp-3 -o table3.md
  catembed bench --study cde-sensitivity -o studies/
  catembed bench --list

"""


def data_roots(data_dir: str | os.PathLike | None = None) -> list[Path]:
    """The folders a data set named by name is searched in, in order.

    ``data_dir`` alone when given; else ``$CATEMBED_DATA``, then
    ``$CATEMBED_SHARED/datasets`` (the project's shared-data layout), then the bundled copies.
    """
    if data_dir:
        return [Path(data_dir)]
    roots: list[Path] = []
    if os.environ.get("CATEMBED_DATA"):
        roots.append(Path(os.environ["CATEMBED_DATA"]))
    if os.environ.get("CATEMBED_SHARED"):
        roots.append(Path(os.environ["CATEMBED_SHARED"]) / "datasets")
    roots.append(BUNDLED_DIR)
    return roots


def _error(message: str) -> Exception:
    from .._validation import CatEmbedError

    return CatEmbedError(message)


def _find(text: str, data_dir: str | None) -> str:
    """A path as given, else the folder named ``text`` in the first root that has it."""
    if Path(text).exists():
        return text
    roots = data_roots(data_dir)
    for root in roots:
        if (root / text / "data.csv").exists():
            return str(root / text)
    raise _error(
        f"no file or data set {text!r}: searched {', '.join(str(r) for r in roots)}. "
        "Give a path, --data-dir DIR, or set CATEMBED_DATA=DIR."
    )


_NO_TARGET = "__catembed_no_target__"


def load_features(text: str, target: str | None, preset: str | None,
                  drop: list[str] | None = None, data_dir: str | None = None,
                  numeric: str | None = None, use_meta_target: bool = True
                  ) -> tuple[str, Any, Any]:
    """``(name, features, labels)`` of a table, as :func:`load_input` prepares it; the
    labels are None when no target is given (nor, with ``use_meta_target``, named by a
    folder's ``meta.json``)."""
    data = load_input(text, target, preset, drop, data_dir, numeric=numeric,
                      require_target=False, use_meta_target=use_meta_target)
    if data.target == _NO_TARGET:
        return data.name, data.features, None
    return data.name, data.features, data.labels.to_numpy()


def load_input(text: str, target: str | None, preset: str | None,
               drop: list[str] | None = None, data_dir: str | None = None,
               numeric: str | None = None, n_bins: int = 5, *,
               require_target: bool = True, use_meta_target: bool = True) -> Any:
    """The table to evaluate (a :class:`~catembed.datasets.Dataset`), prepared by ``preset``.

    ``text`` is a CSV/Parquet file, a data-set folder or a data-set name (searched in
    :func:`data_roots`). A folder's ``meta.json`` gives the column kinds and the target. A
    plain file needs ``--target``; all its columns are categorical (read as text) unless
    ``numeric`` is given: ``"drop"`` leaves out the columns whose values all parse as
    numbers, ``"discretize"`` cuts them into ``n_bins`` quantile bins used as categories.
    Default preset: ``complete``.
    """
    from .. import io
    from ..cli import resolve_input
    from ..datasets import Dataset, apply_preset, load_dataset

    spec = resolve_input(_find(text, data_dir))
    if spec.meta:
        data = load_dataset(spec.path.parent)
        if not use_meta_target and data.target and not target:
            data.meta = {**data.meta, "target": None, "columns": {
                **data.column_kinds, data.target: "id"}}
        if numeric == "discretize":
            data.frame = _discretize(data.frame, data.feature_columns, data.column_kinds,
                                     n_bins)
            data.meta = {**data.meta, "columns": {
                c: "categorical" if k == "numeric" else k for c, k in data.column_kinds.items()
            }}
    else:
        if not target and require_target:
            raise _error(f"{spec.path.name} has no meta.json: name the class column "
                         "with --target COL.")
        columns = io.read_columns(spec.path)
        found = [c for c in io.numeric_columns(spec.path) if c != target] if numeric else []
        text_cols = [c for c in columns if c not in found]
        frame = io.read_table(spec.path, text_columns=text_cols)
        kinds = {c: "target" if c == target else "categorical" for c in columns}
        if numeric == "drop":
            kinds.update({c: "id" for c in found})
        elif numeric == "discretize":
            frame = _discretize(frame, found, {c: "numeric" for c in found}, n_bins)
        data = Dataset(spec.name, frame, {"name": spec.name, "target": target,
                                          "columns": kinds}, spec.path)
    if target:
        if target not in data.frame.columns:
            raise _error(
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
        if require_target:
            raise _error(f"{spec.name}: meta.json names no target; give --target COL.")
        data.frame = data.frame.assign(**{_NO_TARGET: "all"})
        data.meta = {**data.meta, "target": _NO_TARGET,
                     "columns": {**data.column_kinds, _NO_TARGET: "target"}}
    if drop:
        missing = [c for c in drop if c not in data.frame.columns]
        if missing:
            raise _error(f"--drop names column(s) not in {spec.name}: {', '.join(missing)}.")
        kinds = dict(data.column_kinds)
        for c in drop:
            kinds[c] = "id"
        data.meta = {**data.meta, "columns": kinds}
    name = preset or "complete"
    try:
        return apply_preset(data, name)
    except Exception as exc:
        if "leaves no attribute" not in str(exc):
            raise
        numeric_cols = [c for c, k in data.column_kinds.items() if k == "numeric"]
        hint = (" --numeric drop left out every column holding numbers: leave out --numeric "
                "to read them as categories, or use --numeric discretize." if numeric == "drop"
                else f" Its numeric column(s) ({', '.join(numeric_cols[:8])}) are left out by "
                f"preset {name!r}: use --numeric discretize to bin them, or --preset raw to "
                "read every column as categories." if numeric_cols else
                " Use --preset raw to keep constant columns and every row, or --drop fewer "
                "columns.")
        raise _error(f"{exc}{hint}") from None


def _discretize(frame: Any, columns: list[str], kinds: dict[str, str], n_bins: int) -> Any:
    """Numeric columns -> quantile-bin labels (text), as ``numeric="discretize"`` does."""
    import numpy as np

    from .._numeric import bin_labels

    frame = frame.copy()
    qs = np.linspace(0, 1, n_bins + 1)[1:-1]
    for c in columns:
        if kinds.get(c) != "numeric":
            continue
        x = frame[c].to_numpy(dtype=float, na_value=np.nan)
        finite = x[np.isfinite(x)]
        edges = np.unique(np.quantile(finite, qs)) if finite.size else np.array([])
        frame[c] = bin_labels(x, edges)
    return frame


def _split(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _tasks() -> dict[str, Any]:
    """The evaluation tasks, with the classify and retrieve plug-ins registered."""
    from . import classify, retrieval  # noqa: F401  (they register their tasks)
    from .protocol import TASKS

    return TASKS


def _cmd_evaluate(args: argparse.Namespace) -> int:
    from .methods import get_method

    tasks = _tasks()
    methods = _split(args.methods)
    if not methods:
        raise _error("--methods is empty: name at least one method, e.g. --methods cde.")
    for m in methods:
        get_method(m)  # unknown names are a user error, before any work
    if args.runs < 1:
        raise _error(f"--runs must be at least 1; got {args.runs}.")
    if args.task == "classify":  # the classify task's own options (issue 4)
        from functools import partial

        tasks = {**tasks, "classify": partial(
            tasks["classify"], classifier=args.classifier, test_size=args.test_size,
            n_repeats=args.repeats)}
    data = load_input(args.data, args.target, args.preset, _split(args.drop), args.data_dir,
                      numeric=args.numeric, n_bins=args.n_bins)
    d = data.describe()
    if not args.json:
        print(f"catembed evaluate: {data.summary()}", file=sys.stderr)
    results = tasks[args.task](data.features, data.labels.to_numpy(), methods,
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
    import math

    head = f"{'method':<12} {'clusterer':<9} {'F-score':>15} {'NMI':>15} {'ACC':>15} " \
           f"{'ARI':>15} {'fit s':>8}"
    lines = [head, "-" * len(head)]
    for r in results:
        if r.status != "ok":
            lines.append(f"{r.label:<12} {r.clusterer:<9} {r.status}")
            continue
        cells = [f"{r.mean(m):.3f} +- {r.std(m):.3f}" for m in ("f_score", "nmi", "acc", "ari")]
        fit = float(r.fit_seconds)
        lines.append(f"{r.label:<12} {r.clusterer:<9} " + " ".join(f"{c:>15}" for c in cells)
                     + f" {fit if math.isfinite(fit) else float('nan'):>8.3f}")
    return "\n".join(lines)


def _bench_data_dir(data_dir: str | None) -> str | None:
    """The folder :func:`~catembed.evaluation.bench.run_table` searches.

    ``--data-dir``; else ``None`` when ``$CATEMBED_DATA`` is set (``run_table`` reads it,
    then the bundled sets); else ``$CATEMBED_SHARED/datasets`` when it exists.
    """
    if data_dir or os.environ.get("CATEMBED_DATA"):
        return data_dir
    shared = os.environ.get("CATEMBED_SHARED")
    if shared and (Path(shared) / "datasets").is_dir():
        return str(Path(shared) / "datasets")
    return None


def _cmd_bench(args: argparse.Namespace) -> int:
    if args.list:
        from .studies import STUDIES

        print("tables: " + ", ".join(_table_ids()))
        print("studies:")
        for name, st in STUDIES.items():
            print(f"  {name:<20} {st.title}")
        return 0
    if args.data_dir and not Path(args.data_dir).is_dir():
        raise _error(f"--data-dir {args.data_dir} is not a directory.")
    if args.study:
        return _cmd_study(args)
    if not args.table:
        raise _error("give --table ID (a paper table) or --study NAME (a paper study); "
                     "--list shows both.")
    from .bench import _stderr, format_markdown, run_table

    if args.runs is not None and args.runs < 1:
        raise _error(f"--runs must be at least 1; got {args.runs}.")
    if args.output:
        out = Path(args.output)
        if out.parent and not out.parent.exists():
            raise _error(f"cannot write {out}: the folder {out.parent} does not exist.")
    _tasks()
    data_dir = _bench_data_dir(args.data_dir)
    result = run_table(args.table, data_dir=data_dir, runs=args.runs, seed=args.seed,
                       init=args.init, datasets=_split(args.datasets) or None,
                       columns=_split(args.columns) or None, n_jobs=args.jobs,
                       refit=args.refit,
                       log=None if args.quiet or args.json else _stderr)
    text = format_markdown(result)
    missing = [r.label for r in result.rows if r.status == "missing"]
    if missing:
        searched = [Path(data_dir)] if data_dir else [
            p for p in data_roots(None) if "CATEMBED_SHARED" not in os.environ
            or p != Path(os.environ["CATEMBED_SHARED"]) / "datasets"]
        note = (f"missing data set(s) {', '.join(missing)}: searched "
                f"{', '.join(str(p) for p in searched)}; give --data-dir DIR or set "
                "CATEMBED_DATA=DIR.")
        print(f"catembed: note: {note}", file=sys.stderr)
        text += f"\nSearched: {', '.join(str(p) for p in searched)}.\n"
    if args.output:
        _write_text(Path(args.output), text)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, default=_json_default)
        sys.stdout.write("\n")
    else:
        print(text, end="")
    return 0


def _write_text(path: Path, text: str) -> None:
    """Write through a temporary file renamed on success."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _cmd_study(args: argparse.Namespace) -> int:
    from .studies import run_study

    out = Path(args.output or f"study-{args.study}")
    result = run_study(args.study, out, data_dir=_bench_data_dir(args.data_dir),
                       seed=args.seed, runs=args.runs, fmt=args.format,
                       quiet=args.quiet or args.json, datasets=_split(args.datasets) or None)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, default=_json_default)
        sys.stdout.write("\n")
    else:
        print(result.summary())
    return 0


def _json_default(x: Any) -> Any:
    import numpy as np

    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, Path):
        return str(x)
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def _table_ids() -> list[str]:
    return sorted(p.stem for p in TABLES_DIR.glob("*.json"))


def _presets() -> list[str]:
    text = (BUNDLED_DIR.parent / "presets.json").read_text(encoding="utf-8")
    return sorted(json.loads(text))


def _lazy(parser: argparse.ArgumentParser, fill: Callable[[], None]) -> None:
    """Run ``fill`` (heavy imports, registry choices) once, when ``parser`` itself is used."""
    done: list[bool] = []

    def ensure() -> None:
        if not done:
            done.append(True)
            fill()

    for name in ("parse_known_args", "format_help", "format_usage"):
        method = getattr(parser, name)

        def wrapped(*a: Any, _m: Callable[..., Any] = method, **k: Any) -> Any:
            ensure()
            return _m(*a, **k)

        setattr(parser, name, wrapped)


def _action(parser: argparse.ArgumentParser, dest: str) -> argparse.Action:
    return next(a for a in parser._actions if a.dest == dest)


def register(subparsers: Any) -> None:
    """Add ``evaluate`` and ``bench`` to the ``catembed`` command line."""
    fmt = argparse.RawDescriptionHelpFormatter
    p = subparsers.add_parser(
        "evaluate", help="cluster a labelled table with several methods and score it",
        description="The papers' protocol: embed (refit per run for random methods), "
        "cluster with k = number of classes (one k-means start, MATLAB-style k-means++), "
        "score (F-score after Hungarian matching, NMI, accuracy, ARI), repeated --runs times. "
        "Every column of a plain CSV is categorical unless --numeric says otherwise; a "
        "data-set folder's meta.json types its columns.",
        epilog=EVALUATE_EXAMPLES, formatter_class=fmt,
    )
    p.add_argument("data", help="CSV or Parquet file, data-set folder, or data-set name")
    p.add_argument("--data-dir", help="folder to find a data set named by name in (default: "
                   "$CATEMBED_DATA, then $CATEMBED_SHARED/datasets, then the bundled sets)")
    p.add_argument("--target", help="class column (required for a file without meta.json)")
    p.add_argument("--preset", default=None,
                   help="pre-processing preset (default: complete = categorical columns, "
                   "complete rows, constant columns dropped)")
    p.add_argument("--drop", help="comma-separated columns to leave out")
    p.add_argument("--numeric", choices=["drop", "discretize"], default=None,
                   help="columns holding numbers: by default a plain CSV's columns are all "
                   "categories (codes 1, 2, 3 stay categories); drop: leave out the columns "
                   "whose values all parse as numbers; discretize: cut them (or a folder's "
                   "numeric columns) into --n-bins quantile bins")
    p.add_argument("--n-bins", type=int, default=5,
                   help="quantile bins for --numeric discretize (default 5)")
    p.add_argument("--methods", default=DEFAULT_METHODS,
                   help=f"comma-separated methods (default {DEFAULT_METHODS})")
    p.add_argument("--runs", type=int, default=50, help="runs with distinct seeds (default 50)")
    p.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    p.add_argument("--clusterer",
                   help="clusterer for every embedding method (default: the method's own, "
                   "k-means for most)")
    p.add_argument("--init", default="matlab",
                   help="k-means seeding: matlab (one k-means++ candidate per step, the "
                   "papers') or sklearn (greedy k-means++); default matlab")
    p.add_argument("--refit", choices=["auto", "once", "always"],
                   help="auto (default): refit random methods (CDE) in every run; once: fit "
                   "each method once and repeat only the clustering; always: refit all")
    p.add_argument("--task", default="cluster", help="evaluation task (default cluster)")
    p.add_argument("--classifier", default="svm",
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

    def fill_evaluate() -> None:
        from .classify import CLASSIFIERS
        from .clustering import INITS
        from .methods import method_names
        from .protocol import CLUSTERERS

        _action(p, "preset").choices = _presets()
        _action(p, "clusterer").choices = sorted(CLUSTERERS)
        _action(p, "init").choices = INITS
        _action(p, "task").choices = sorted(_tasks())
        _action(p, "classifier").choices = CLASSIFIERS
        _action(p, "methods").help += f"; known: {', '.join(method_names())}"

    _lazy(p, fill_evaluate)

    b = subparsers.add_parser(
        "bench", help="reproduce a paper table or study",
        description="Run every column of a paper table on every data set found in the data "
        "directory and print ours beside the paper's numbers (--table), or run one of the "
        "papers' studies and write its figure and table (--study). Data sets are searched in "
        "--data-dir, else $CATEMBED_DATA, else $CATEMBED_SHARED/datasets, else the bundled "
        "sets.",
        epilog=BENCH_EXAMPLES, formatter_class=fmt,
    )
    b.add_argument("--table", help=f"table id ({', '.join(_table_ids())}) or a table JSON file")
    b.add_argument("--study", help="a paper study (see --list): writes a figure and a table "
                   "into the --output folder")
    b.add_argument("--list", action="store_true", help="list the tables and studies")
    b.add_argument("--data-dir", help="folder of data sets (default: $CATEMBED_DATA, then "
                   "$CATEMBED_SHARED/datasets, then the bundled sets)")
    b.add_argument("--runs", type=int, help="runs per cell (default: the table's, 50)")
    b.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    b.add_argument("--init", help="k-means seeding (default: the table's)")
    b.add_argument("--refit", choices=["auto", "once", "always"],
                   help="refit policy of the runs (default auto: random methods per run)")
    b.add_argument("--datasets", help="comma-separated subset of the table's data sets "
                   "(--study: data sets to use instead of the paper's)")
    b.add_argument("--columns", help="comma-separated subset of the table's columns")
    b.add_argument("--jobs", type=int, default=None, help="parallel runs (same results)")
    b.add_argument("--output", "-o", help="--table: also write the Markdown table to this "
                   "file; --study: the output folder (default study-NAME)")
    b.add_argument("--format", choices=["png", "svg"], default="png",
                   help="--study: figure format (default png)")
    b.add_argument("--json", action="store_true", help="print the results as JSON on stdout")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    b.set_defaults(func=_cmd_bench)

    def fill_bench() -> None:
        from .clustering import INITS
        from .studies import STUDIES

        _action(b, "init").choices = INITS
        _action(b, "study").choices = list(STUDIES)

    _lazy(b, fill_bench)
