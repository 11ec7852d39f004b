"""``catembed bench``: run a paper table (``--table``) or a paper study (``--study``) and
write the results (Markdown table, JSON, figures).

The parser is built in :mod:`catembed.cli._evaluation`; the top level imports no NumPy,
pandas or scikit-learn.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from .._utils._pathtext import path_text
from ..evaluation.inputs import _error, check_jobs, check_seed, data_roots, split_list
from ._evaluate import evaluation_tasks

__all__ = ["TABLES_DIR", "cmd_bench", "table_ids"]

TABLES_DIR = Path(__file__).resolve().parents[1] / "evaluation" / "tables"


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


def cmd_bench(args: argparse.Namespace) -> int:
    if args.list:
        from ..evaluation.studies import STUDIES

        print("tables: " + ", ".join(table_ids()))
        print("studies:")
        for name, st in STUDIES.items():
            print(f"  {name:<20} {st.title}")
        return 0
    if args.data_dir and not Path(args.data_dir).is_dir():
        raise _error(f"--data-dir {args.data_dir} is not a directory.")
    if args.study and args.table:
        raise _error("give --table ID or --study NAME, not both (a study is not a table).")
    check_jobs(args.jobs)
    check_seed(args.seed, args.runs)
    if args.study:
        return _cmd_study(args)
    if not args.table:
        raise _error("give --table ID (a paper table) or --study NAME (a paper study); "
                     "--list shows both.")
    from ..evaluation.bench import _stderr, format_markdown, run_table

    if args.runs is not None and args.runs < 1:
        raise _error(f"--runs must be at least 1; got {args.runs}.")
    if args.runs is None:  # the table's runs: seed + runs - 1 must be a seed too
        from ..evaluation.bench import load_table

        check_seed(args.seed, (load_table(args.table).get("protocol") or {}).get("runs", 50))
    data_dir = _bench_data_dir(args.data_dir)
    if args.output:
        out = Path(args.output)
        if out.is_dir():
            raise _error(f"--output {out} is a folder; give a file name inside it, e.g. "
                         f"{out / 'table.md'}.")
        from ..evaluation.bench import find_dataset, load_table
        from ..io import check_output_path

        inputs = [args.table] if Path(args.table).is_file() else []
        for entry in load_table(args.table)["datasets"]:  # the data sets the table reads
            folder = find_dataset(entry, data_dir)
            inputs += [folder / "data.csv", folder / "meta.json"] if folder else []
        # the checks every output gets (not an input, folder exists and is writable, an
        # existing file not read-only); any suffix (the table is Markdown)
        check_output_path(out, inputs=inputs, flag="--output", suffixes=(out.suffix.lower(),))
    evaluation_tasks()
    from .._utils._spelling import cli_spelling

    with cli_spelling("bench"):  # the methods' warnings name the command line's options
        result = run_table(args.table, data_dir=data_dir, runs=args.runs, seed=args.seed,
                           init=args.init, datasets=split_list(args.datasets) or None,
                           columns=split_list(args.columns) or None, n_jobs=args.jobs,
                           refit=args.refit, f_score=getattr(args, "f_score", None),
                           log=None if args.quiet else _stderr)
    text = format_markdown(result)
    missing = [r.label for r in result.rows if r.status == "missing"]
    if missing:
        searched = [Path(data_dir)] if data_dir else [
            p for p in data_roots(None) if "CATEMBED_SHARED" not in os.environ
            or p != Path(os.environ["CATEMBED_SHARED"]) / "datasets"]
        note = (f"missing data set(s) {', '.join(missing)}: searched "
                f"{', '.join(path_text(p) for p in searched)}; give --data-dir DIR or set "
                "CATEMBED_DATA=DIR.")
        print(f"catembed: note: {note}", file=sys.stderr)
        text += f"\nSearched: {', '.join(path_text(p) for p in searched)}.\n"
    if args.output:
        from ..io import write_text_atomic

        write_text_atomic(args.output, text)
    if args.json:
        json.dump(result.to_dict(), sys.stdout, indent=2, default=_json_default)
        sys.stdout.write("\n")
    else:
        print(text, end="")
    return 0




def _cmd_study(args: argparse.Namespace) -> int:
    from ..evaluation.studies import run_study

    out = Path(args.output or f"study-{args.study}")
    result = run_study(args.study, out, data_dir=_bench_data_dir(args.data_dir),
                       seed=args.seed, runs=args.runs, fmt=args.format,
                       quiet=args.quiet, datasets=split_list(args.datasets) or None)
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


def table_ids() -> list[str]:
    return sorted(p.stem for p in TABLES_DIR.glob("*.json"))
