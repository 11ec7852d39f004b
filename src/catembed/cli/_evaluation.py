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

This module builds the two parsers; the commands run in :mod:`catembed.cli._evaluate`
and :mod:`catembed.cli._bench`, the table is read by
:mod:`catembed.evaluation.inputs`. It is imported by ``catembed --help`` and every other
command, so its top level (and theirs) imports no NumPy, pandas or scikit-learn: the
choices that come from the registries are filled in when the subcommand itself is parsed
or its help printed.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from ..evaluation.inputs import BUNDLED_DIR
from ._bench import cmd_bench, table_ids
from ._evaluate import cmd_evaluate, evaluation_tasks

__all__ = ["register"]

DEFAULT_METHODS = "cde,onehot,onehot-pca,idf"

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


def _presets() -> list[str]:
    from .._utils._files import read_text_file

    text = read_text_file(BUNDLED_DIR.parent / "presets.json", kind="presets file")
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
    p.add_argument("--numeric", choices=["drop", "discretize", "passthrough"], default=None,
                   help="columns holding numbers: by default a plain CSV's columns are all "
                   "categories (codes 1, 2, 3 stay categories); drop: leave out the columns "
                   "whose values all parse as numbers; discretize: cut them (or a folder's "
                   "numeric columns) into --n-bins quantile bins; passthrough: keep them as "
                   "numbers, standardised (z-scores), for the mixed-type methods (famd, "
                   "lca, kprototypes, the deep clusterers, consensus); the others get the "
                   "categorical columns only")
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
    p.add_argument("--f-score", choices=["hungarian", "best-match", "pairwise"],
                   default="hungarian",
                   help="task cluster: F-score definition: hungarian (default; macro-F1 after "
                   "one-to-one matching), best-match (each class's best F over the clusters, "
                   "weighted by class size) or pairwise (F over pairs of objects)")
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
    p.set_defaults(func=cmd_evaluate)

    def fill_evaluate() -> None:
        from ..cluster.embedding_labels import INITS
        from ..evaluation.classify import CLASSIFIERS
        from ..evaluation.methods import method_names
        from ..evaluation.protocol import CLUSTERERS

        _action(p, "preset").choices = _presets()
        _action(p, "clusterer").choices = sorted(CLUSTERERS)
        _action(p, "init").choices = INITS
        _action(p, "task").choices = sorted(evaluation_tasks())
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
    b.add_argument("--table", help=f"table id ({', '.join(table_ids())}) or a table JSON file")
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
    b.add_argument("--f-score", choices=["hungarian", "best-match", "pairwise"],
                   help="F-score definition (default: the table's f_score field, else "
                   "hungarian); see catembed evaluate --help")
    b.add_argument("--datasets", help="comma-separated subset of the table's data sets "
                   "(--study: data sets to use instead of the paper's)")
    b.add_argument("--columns", help="comma-separated subset of the table's columns")
    b.add_argument("--jobs", type=int, default=None, help="parallel runs (same results)")
    b.add_argument("--output", "-o", help="--table: also write the Markdown table to this "
                   "file; --study: the output folder (default study-NAME)")
    b.add_argument("--format", choices=["png", "svg"], default="png",
                   help="--study: figure format (default png)")
    b.add_argument("--json", action="store_true",
                   help="print the results as JSON on stdout (progress lines still go to "
                   "stderr; --quiet silences them)")
    b.add_argument("--quiet", "-q", action="store_true", help="no progress lines on stderr")
    b.set_defaults(func=cmd_bench)

    def fill_bench() -> None:
        from ..cluster.embedding_labels import INITS
        from ..evaluation.studies import STUDIES

        _action(b, "init").choices = INITS
        _action(b, "study").choices = list(STUDIES)

    _lazy(b, fill_bench)
