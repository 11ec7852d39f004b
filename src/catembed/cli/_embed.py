"""``catembed embed INPUT``: fit an embedding on a table and write the embedded table.

Built into the command line (:mod:`catembed.cli` adds it without importing the plugins);
the input, column roles and output checks are :mod:`catembed.cli._input`'s, the streamed
writing is :func:`catembed.transform.streaming.write_chunks`. Module-level imports stay light so
that the command line starts fast.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
from typing import Any

from .._utils._errors import CatEmbedError
from .._utils._pathtext import path_text
from ._input import (
    check_outputs,
    check_ragged,
    column_roles,
    freeze_imports,
    int_in,
    progress_for,
    resolve_input,
)

__all__ = ["register"]

#: catembed._utils._params.MAX_SEED, repeated: importing _params would load NumPy at CLI start-up
MAX_SEED = 2**32 - 1


EMBED_EXAMPLES = """\
examples:
  catembed embed data.csv --target class -o embedded.parquet
      embed every other column of data.csv (numbers too, as categories), copy the class
      column to the output
  catembed embed datasets/adult --method cdepp -o adult.csv --save-model adult.npz
      a data-set folder (data.csv + meta.json): its target and id columns are copied, not
      embedded; numeric columns are left out unless --numeric says otherwise
  catembed embed big.csv.gz --drop id --chunksize 100000 -o big.parquet
      stream a compressed CSV in chunks of 100,000 rows

the output is written to a temporary file beside it and renamed on success: a failed or
interrupted run leaves no partial output, and the input is never written over.
"""


def _make_estimator(method: str, seed: int | None, handle_unknown: str) -> Any:
    from .._utils._method_names import METHOD_CLASSES, resolve_name

    method = resolve_name(method, sorted(METHOD_CLASSES), suffix=" (--method)")
    import catembed

    est = getattr(catembed, METHOD_CLASSES[method])()
    params = est.get_params()
    updates: dict[str, Any] = {}
    if "random_state" in params:
        updates["random_state"] = seed
    if "categorical_features" in params:
        updates["categorical_features"] = "all"
    if "handle_unknown" in params:
        updates["handle_unknown"] = handle_unknown
    return est.set_params(**updates)


def _method_arg(text: str) -> str:
    """An argparse type: a method name of the command line, case-insensitive, refused with
    a "did you mean" for a near miss."""
    from .._utils._method_names import METHOD_NAMES, resolve_name, unknown_message

    try:
        return resolve_name(text, sorted(METHOD_NAMES))
    except CatEmbedError:
        message = unknown_message(text, sorted(METHOD_NAMES))
        raise argparse.ArgumentTypeError(f"invalid choice: {text!r}; "
                                         + message.split("; ", 1)[1]) from None


def _check_cost(est: Any, chunk: Any, categorical: list[str], n_rows: int | None) -> None:
    """The fit's memory and time guard (``CATEMBED_MAX_MEMORY``) from the first chunk of a
    streamed fit: its distinct values are a lower bound of the file's, so a file whose first
    chunk already exceeds the limit is refused before it is counted through."""
    check = getattr(est, "_check_cost_before_counting", None)
    if check is None or chunk is None or not categorical:
        return
    import numpy as np

    sizes = np.array([chunk[c].nunique(dropna=False) for c in categorical], dtype=np.int64)
    check(sizes, max(int(n_rows or 0), len(chunk)))


def _cmd_embed(args: argparse.Namespace) -> int:
    with progress_for(args, "embed") as progress:
        return _embed(args, progress)


def _embed(args: argparse.Namespace, progress: Any) -> int:
    from .. import io
    from ..evaluation.inputs import find_input
    from ..transform.streaming import write_chunks

    t0 = time.perf_counter()
    spec = resolve_input(find_input(args.input, args.data_dir))
    check_outputs(args, spec)  # a bad output path is refused before any work
    # the estimator before the fit: building it imports the method's modules (the
    # package's estimators, scikit-learn), which the printed fit time leaves out
    progress.step("loading the method")
    est = _make_estimator(args.method, args.seed, args.handle_unknown)
    freeze_imports()  # 30 x 20,000 text columns: 0.5 CPU s of collections (issue 55)
    progress.step(f"reading the columns of {spec.path.name}")
    columns = io.read_columns(spec.path)
    roles = column_roles(args, spec, columns)
    features, ids = roles.features, roles.ids
    numeric = set(roles.numeric)
    categorical = [c for c in features if c not in numeric]
    passthrough_after = [roles.target] if roles.target else []
    used = ids + features + passthrough_after
    text_cols = [c for c in used if c not in numeric]

    if args.numeric != "drop":
        if "numeric" not in est.get_params():
            raise CatEmbedError(f"method {args.method!r} has no numeric-column policy; use "
                                "--numeric drop or another --method.")
        est.set_params(numeric="discretize" if args.numeric == "auto" else args.numeric,
                       n_bins=args.n_bins, categorical_features=categorical)
        if roles.numeric and not args.quiet:  # the note of catembed cluster and report
            from ..evaluation.inputs import numeric_note
            from ..evaluation.roles import _note

            _note(numeric_note(roles.numeric, "kept" if args.numeric == "passthrough"
                               else "binned", args.n_bins, "leaves them out" if spec.meta
                               else "reads them as categories"))
    if args.n_components is not None:
        if "n_components" not in est.get_params():
            raise CatEmbedError(f"method {args.method!r} has no n_components parameter; "
                                "leave out --n-components or use another --method.")
        est.set_params(n_components=args.n_components)
    progress.step(f"counting the rows of {spec.path.name}")
    n_total = progress.rows = check_ragged(args, spec)
    if args.chunksize:
        def chunks_of() -> Any:  # the streamed fit (catembed.ValueEmbedder.fit_chunks)
            first: Any = None
            for i, chunk in enumerate(io.iter_chunks(spec.path, args.chunksize,
                                                     columns=features, text_columns=categorical)):
                if i == 0:
                    first = chunk
                elif i == 1:  # the fit has set itself up from the first chunk
                    _check_cost(est, first, categorical, n_total)
                    first = None
                yield chunk[features]

        t_start = time.perf_counter()
        est.fit_chunks(chunks_of)  # the streamed fit reads its chunks: counted in its time;
        t_fit = time.perf_counter() - t_start  # its passes report to the progress line
        chunks = io.iter_chunks(spec.path, args.chunksize, columns=used,
                                text_columns=text_cols)
    else:
        progress.step(f"reading {spec.path.name}")
        frame = io.read_table(spec.path, columns=used, text_columns=text_cols)
        progress.step(f"fitting {args.method}")
        t_start = time.perf_counter()
        est.fit(frame[features])
        t_fit = time.perf_counter() - t_start
        chunks = iter([frame])
    names = list(est.get_feature_names_out())
    progress.step("embedding and writing", unit="rows")
    # the model and the table are published together: each is written to a temporary file
    # beside its target, and both are renamed only once both are complete
    with contextlib.ExitStack() as publish:
        if args.save_model:
            est.save(publish.enter_context(io.atomic_output(args.save_model)))
        with io.TableWriter(args.output, index=False) as writer:
            write_chunks(est, chunks, writer, features=features, before=ids,
                         after=passthrough_after, progress=progress.update)
    progress.close()
    elapsed = time.perf_counter() - t0
    if not args.quiet:
        stats = est.stats_
        dropped = len(getattr(est, "dropped_features_", []))
        width = len(names)
        per = f" ({width // stats.n_features} per attribute)" if (
            getattr(est, "_combine", "concat") == "concat" and width % stats.n_features == 0
        ) else ""
        stream = sys.stdout if args.output else sys.stderr
        print(
            f"catembed embed: {args.method} on {spec.name}: {writer.rows} rows, "
            f"{stats.n_features} attributes"
            + (f" ({dropped} single-valued dropped)" if dropped else "")
            + f", {stats.n_values} values -> {width} dimensions{per}; "
            f"fit {t_fit:.2f} s, total {elapsed:.2f} s"
            + (f"; wrote {path_text(args.output)}" if args.output else "")
            + (f"; model saved to {path_text(args.save_model)}" if args.save_model else ""),
            file=stream,
        )
    return 0


def register(sub: Any) -> None:
    """Add the ``embed`` subcommand."""
    from .._utils._method_names import METHOD_NAMES

    p = sub.add_parser("embed", help="embed a categorical table",
                       description="Embed a categorical CSV/Parquet table and write the "
                       "numeric table, in the input's row order.",
                       epilog=EMBED_EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="CSV (also .csv.gz/.bz2/.xz/.zip) or Parquet file, data-set "
                   "folder (data.csv + meta.json), or bundled data-set name")
    p.add_argument("--data-dir", metavar="DIR",
                   help="folder to find a data set named by name in (default: $CATEMBED_DATA, "
                   "then $CATEMBED_SHARED/datasets, then the bundled sets), as evaluate and "
                   "report")
    p.add_argument("--method", default="cde", choices=sorted(METHOD_NAMES), type=_method_arg,
                   help="embedding method, in any case (default: cde)")
    p.add_argument("--target", metavar="COL",
                   help="class column: kept out of the fit, copied to the output (default: a "
                   "data-set folder's target)")
    p.add_argument("--drop", metavar="COLS", help="comma-separated columns to leave out")
    p.add_argument("--id", metavar="COLS",
                   help="comma-separated identifier columns: kept out of the fit, copied to the "
                   "output (a data-set folder's id columns are added)")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="output .csv, .tsv or .parquet, never the input (default: CSV on stdout)")
    p.add_argument("--save-model", metavar="FILE.npz",
                   help="save the fitted model to this .npz file (no pickle)")
    p.add_argument("--seed", type=int_in(0, MAX_SEED, "seed"), default=0, metavar="N",
                   help=f"random_state, 0 to {MAX_SEED} (default: 0)")
    p.add_argument("--chunksize", type=int_in(1, None, "chunksize"), metavar="N",
                   help="stream the input in chunks of N rows (N >= 1)")
    p.add_argument("--n-components", type=int_in(1, None, "n-components"), metavar="K",
                   help="compact output: the top K principal components of the method's "
                   "vectors, float32 (default: the paper's concatenation, float64)")
    p.add_argument("--numeric", default="drop",
                   choices=["drop", "auto", "discretize", "passthrough"],
                   help="numeric columns (a data-set folder's meta.json, or with another "
                   "policy than drop a plain file's all-number columns): leave out (default; "
                   "a plain file's columns are then all categories); auto: catembed cluster's "
                   "and report's rule, cut into quantile bins embedded as values except a "
                   "plain file's with fewer than 20 distinct numbers, each in two cells or more "
                   "on average (codes), read as categories; discretize: every one binned; "
                   "passthrough: standardise and append")
    p.add_argument("--n-bins", type=int_in(2, None, "n_bins"), default=5, metavar="N",
                   help="quantile bins per numeric column for --numeric discretize (default 5)")
    p.add_argument("--handle-unknown", default="error", choices=["error", "ignore", "warn"],
                   help="stored in the model (--save-model): what its transform does with a "
                   "value not seen in the fit: error (default), ignore (embed it as zeros) "
                   "or warn (zeros and a warning)")
    p.add_argument("--strict", action="store_true",
                   help="refuse a CSV whose rows have another number of fields than the "
                   "header (default: warn with the line numbers and read them)")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no summary, no notes, no progress line")
    p.set_defaults(func=_cmd_embed)
