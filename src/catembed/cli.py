"""The ``catembed`` command line.

``catembed embed`` turns a categorical CSV or Parquet file (or a data-set folder, or the
name of a bundled data set) into a numeric table. Other subcommands (``evaluate``,
``bench``...) come from plugin modules that define ``register(subparsers)``.

Errors in the input end the command with a one-line message and exit status 2; warnings
are printed as one line each on stderr; Ctrl-C prints one line and exits 130. Exit status 1
("internal error") means a bug in catembed. Every message is listed in ``docs/cli-errors.md``.

Start-up is kept light: this module and the plugin modules import no NumPy, pandas,
scikit-learn or PyTorch at their top, so ``catembed --version`` and ``--help`` answer at once.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._errors import CatEmbedError, CatEmbedWarning
from ._version import __version__

__all__ = ["main", "build_parser"]

#: modules that add subcommands: each defines ``register(subparsers)``
PLUGINS = ("catembed.evaluation.cli", "catembed.report", "catembed.transform_cli")

# A plugin module must not import NumPy, pandas, scikit-learn or PyTorch at its top (import
# them inside the command's function), so that building the parser stays fast.

#: subcommands defined here: running one of them does not import the plugin modules
BUILTIN_COMMANDS = ("embed",)

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

TOP_EXAMPLES = """\
examples:
  catembed embed data.csv --target class -o embedded.csv
  catembed embed lenses --method idf            (a bundled data set, CSV on stdout)
  catembed COMMAND --help                       (options and examples of a command)

exit status: 0 done, 2 refused input or usage (one-line message saying what to change),
130 interrupted, 1 internal error (a bug: please report it with --debug's traceback).
"""


@dataclass
class InputSpec:
    """Where the table is and what its metadata says."""

    path: Path
    name: str
    meta: dict = field(default_factory=dict)

    def kind(self, column: str) -> str | None:
        """The column kind from ``meta.json`` (None without metadata)."""
        return (self.meta.get("columns") or {}).get(column)


def resolve_input(text: str) -> InputSpec:
    """A table file, a data-set folder (``data.csv`` + ``meta.json``) or a bundled name."""
    from .datasets import dataset_path, read_meta

    p = Path(text)
    if p.is_file():
        meta = read_meta(p.parent) if (p.parent / "meta.json").exists() and \
            p.name == "data.csv" else {}
        return InputSpec(p, p.stem if p.name != "data.csv" else p.parent.name, meta)
    if p.is_dir() and not (p / "data.csv").exists():
        raise CatEmbedError(f"{p} is a directory without a data.csv; give a table file.")
    try:
        folder = dataset_path(text)
    except CatEmbedError:
        raise CatEmbedError(
            f"input not found: {text} (not a file, a data-set folder or a bundled data set)."
        ) from None
    return InputSpec(folder / "data.csv", folder.name, read_meta(folder))


def _split_list(text: str | None) -> list[str]:
    if not text:
        return []
    return [t.strip() for t in text.split(",") if t.strip()]


def _make_estimator(method: str, seed: int | None, handle_unknown: str) -> Any:
    from . import METHOD_CLASSES

    if method not in METHOD_CLASSES:
        raise CatEmbedError(
            f"unknown method {method!r}; choose --method from {', '.join(sorted(METHOD_CLASSES))}."
        )
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


def _progress(total: int | None, desc: str, quiet: bool) -> Any:
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="rows", unit_scale=True, file=sys.stderr,
                disable=True if quiet else None, leave=False)


def _note(text: str) -> None:
    print(f"catembed: note: {text}", file=sys.stderr)


@dataclass
class _Roles:
    """What ``embed`` does with each column of the input."""

    ids: list[str]  # copied to the output before the embedding
    features: list[str]  # embedded (categorical) or numeric (per --numeric)
    numeric: list[str]  # features handled by the numeric policy
    target: str | None  # copied to the output after the embedding


def _column_roles(args: argparse.Namespace, spec: InputSpec, columns: list[str]) -> _Roles:
    """Sort the columns into ids, features and target from the flags and ``meta.json``.

    A data-set folder's target and id columns are never features (nor its split columns);
    a plain file's columns are all categorical unless ``--numeric`` says otherwise.
    """
    from . import io

    drop, ids = _split_list(args.drop), _split_list(args.id)
    given = [("--id", c) for c in ids] + [("--drop", c) for c in drop]
    if args.target:
        given.append(("--target", args.target))
    unknown = [c for _, c in given if c not in columns]
    if unknown:
        raise CatEmbedError(
            f"column(s) not in {spec.path.name}: {', '.join(unknown)}. "
            f"Columns: {', '.join(columns[:20])}{' ...' if len(columns) > 20 else ''}"
        )
    seen: dict[str, str] = {}
    for flag, col in given:
        if col in seen and seen[col] != flag:
            raise CatEmbedError(f"column {col!r} is given to both {seen[col]} and {flag}; "
                                "give each column one role.")
        seen[col] = flag
    named = set(seen)
    notes: list[str] = []
    target = args.target
    meta_target = spec.meta.get("target") if spec.meta else None
    if meta_target in columns and meta_target not in named:
        if target is None:
            target = meta_target
            notes.append(f"the target {meta_target!r} (meta.json) is copied to the output, "
                         "not embedded")
        else:
            drop.append(meta_target)
            notes.append(f"leaving out meta.json's target {meta_target!r} (--target is "
                         f"{target!r})")
    meta_ids = list(spec.meta.get("id_columns") or []) + [
        c for c in columns if spec.kind(c) == "id"]
    for col in meta_ids:
        if col in columns and col not in named and col not in ids:
            ids.append(col)
    unnamed = [c for c in io.unnamed_columns(spec.path) if c not in named]
    if unnamed and unnamed[0] == columns[0]:
        ids.insert(0, unnamed.pop(0))
        notes.append(f"the first column has no name: taken for a row index ({ids[0]!r}), "
                     "copied to the output, not embedded")
    if unnamed:
        drop.extend(unnamed)
        notes.append(f"leaving out {len(unnamed)} column(s) with no name in the header: "
                     f"{', '.join(unnamed)} (name them in the header to use them)")
    rest = [c for c in columns if c not in drop and c not in ids and c != target]
    split_cols = [c for c in rest if spec.kind(c) in ("split", "target")]
    if spec.meta:
        numeric = [c for c in rest if spec.kind(c) == "numeric"]
    elif args.numeric != "drop":
        numeric = [c for c in io.numeric_columns(spec.path) if c in rest]
    else:
        numeric = []
    left_out = split_cols + (numeric if args.numeric == "drop" else [])
    if left_out:
        notes.append(
            f"leaving out {len(left_out)} column(s) that meta.json types "
            f"{'numeric or split' if args.numeric == 'drop' else 'split'}: {', '.join(left_out)}"
            + (" (use --numeric discretize or passthrough to use numeric columns)"
               if args.numeric == "drop" and numeric else "")
        )
    if not args.quiet:
        for text in notes:
            _note(text)
    features = [c for c in rest if c not in left_out]
    numeric = [c for c in numeric if c in features]
    if not [c for c in features if c not in numeric] and not (
            numeric and args.numeric == "discretize"):  # binned numbers are categories
        raise CatEmbedError(
            "no categorical columns left to embed after --target/--drop/--id"
            + (" (a data-set folder's numeric columns are used with --numeric discretize)"
               if spec.meta and numeric else "") + "."
        )
    return _Roles(ids, features, numeric, target)


def _check_ragged(args: argparse.Namespace, spec: InputSpec) -> int | None:
    """Rows of a CSV with another field count than the header: a warning naming their lines
    (a refusal with ``--strict``). Returns the row count (None for Parquet)."""
    from . import io

    if io.table_format(spec.path) != "csv":
        return io.count_rows(spec.path)
    scan = io.scan_csv(spec.path)
    if scan.n_ragged:
        what = (f"{spec.path.name}: {scan.describe()} with another number of fields than the "
                f"header ({scan.n_fields})")
        if args.strict:
            raise CatEmbedError(f"{what}; fix the file, or leave out --strict to read short "
                                "rows with missing values and ignore extra fields.")
        warnings.warn(f"{what}: short rows are read with missing values, extra fields are "
                      "ignored. Fix the file, or pass --strict to refuse such files.",
                      CatEmbedWarning, stacklevel=2)
    return scan.n_rows


def _check_outputs(args: argparse.Namespace, spec: InputSpec) -> None:
    """Refuse, before any work, outputs that are the input or cannot be written."""
    from . import io

    inputs = [spec.path]
    if args.output:
        io.check_output_path(args.output, inputs=inputs, flag="--output")
    if args.save_model:
        io.check_output_path(args.save_model, inputs=inputs, flag="--save-model",
                             suffixes=(".npz",))
        if args.output and Path(args.output).resolve() == Path(args.save_model).resolve():
            raise CatEmbedError("--output and --save-model name the same file; give two names.")


def _cmd_embed(args: argparse.Namespace) -> int:
    from . import io
    from .streaming import write_chunks

    t0 = time.perf_counter()
    spec = resolve_input(args.input)
    _check_outputs(args, spec)
    columns = io.read_columns(spec.path)
    roles = _column_roles(args, spec, columns)
    features, ids = roles.features, roles.ids
    categorical = [c for c in features if c not in roles.numeric]
    passthrough_after = [roles.target] if roles.target else []
    used = ids + features + passthrough_after
    text_cols = [c for c in used if c not in roles.numeric]

    est = _make_estimator(args.method, args.seed, args.handle_unknown)
    if args.numeric != "drop":
        if "numeric" not in est.get_params():
            raise CatEmbedError(f"method {args.method!r} has no numeric-column policy; use "
                                "--numeric drop or another --method.")
        est.set_params(numeric=args.numeric, n_bins=args.n_bins,
                       categorical_features=categorical)
    if args.n_components is not None:
        if "n_components" not in est.get_params():
            raise CatEmbedError(f"method {args.method!r} has no n_components parameter; "
                                "leave out --n-components or use another --method.")
        est.set_params(n_components=args.n_components)
    n_total = _check_ragged(args, spec)
    if args.chunksize:
        bar = _progress(n_total, "counting", args.quiet)

        def counted() -> Any:  # the streamed fit (catembed.ValueEmbedder.fit_chunks)
            for chunk in io.iter_chunks(spec.path, args.chunksize, columns=features,
                                        text_columns=categorical):
                yield chunk[features]
                bar.update(len(chunk))

        est.fit_chunks(counted)
        bar.close()
        chunks = io.iter_chunks(spec.path, args.chunksize, columns=used,
                                text_columns=text_cols)
    else:
        frame = io.read_table(spec.path, columns=used, text_columns=text_cols)
        est.fit(frame[features])
        chunks = iter([frame])
    t_fit = time.perf_counter() - t0
    if args.save_model:
        with io.atomic_output(args.save_model) as tmp:
            est.save(tmp)
    names = list(est.get_feature_names_out())
    bar = _progress(n_total, "embedding", args.quiet)
    with io.TableWriter(args.output, index=False) as writer:
        write_chunks(est, chunks, writer, features=features, before=ids,
                     after=passthrough_after, progress=bar.update)
    bar.close()
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
            + (f"; wrote {args.output}" if args.output else "")
            + (f"; model saved to {args.save_model}" if args.save_model else ""),
            file=stream,
        )
    return 0


def _int_in(low: int, high: int | None, what: str) -> Any:
    """An argparse type: an integer in ``[low, high]``, refused with a one-line reason."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise argparse.ArgumentTypeError(f"{text} is out of range: give an integer {bound}")
        return value

    parse.__name__ = what
    return parse


def _add_embed(sub: Any) -> None:
    from . import METHOD_NAMES

    p = sub.add_parser("embed", help="embed a categorical table",
                       description="Embed a categorical CSV/Parquet table and write the "
                       "numeric table, in the input's row order.",
                       epilog=EMBED_EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="CSV (also .csv.gz/.bz2/.xz/.zip) or Parquet file, data-set "
                   "folder (data.csv + meta.json), or bundled data-set name")
    p.add_argument("--method", default="cde", choices=sorted(METHOD_NAMES),
                   help="embedding method (default: cde)")
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
    p.add_argument("--seed", type=_int_in(0, MAX_SEED, "seed"), default=0, metavar="N",
                   help=f"random_state, 0 to {MAX_SEED} (default: 0)")
    p.add_argument("--chunksize", type=_int_in(1, None, "chunksize"), metavar="N",
                   help="stream the input in chunks of N rows (N >= 1)")
    p.add_argument("--n-components", type=_int_in(1, None, "n-components"), metavar="K",
                   help="compact output: the top K principal components of the method's "
                   "vectors, float32 (default: the paper's concatenation, float64)")
    p.add_argument("--numeric", default="drop", choices=["drop", "discretize", "passthrough"],
                   help="numeric columns (a data-set folder's meta.json, or with another "
                   "policy than drop a plain file's all-number columns): leave out (default; "
                   "a plain file's columns are then all categories), cut into quantile bins "
                   "embedded as values, or standardise and append")
    p.add_argument("--n-bins", type=_int_in(2, None, "n_bins"), default=5, metavar="N",
                   help="quantile bins per numeric column for --numeric discretize (default 5)")
    p.add_argument("--handle-unknown", default="error", choices=["error", "ignore", "warn"],
                   help="stored in the model (--save-model): what its transform does with a "
                   "value not seen in the fit: error (default), ignore (embed it as zeros) "
                   "or warn (zeros and a warning)")
    p.add_argument("--strict", action="store_true",
                   help="refuse a CSV whose rows have another number of fields than the "
                   "header (default: warn with the line numbers and read them)")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary, no progress bar")
    p.set_defaults(func=_cmd_embed)


def build_parser(plugins: bool = True) -> argparse.ArgumentParser:
    """The argument parser: ``embed`` and, with ``plugins``, every plugin's subcommands."""
    parser = argparse.ArgumentParser(
        prog="catembed",
        description="Embed categorical tables from value couplings (CDE, CDE++, UNTIE, ...).",
        epilog=TOP_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"catembed {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the Python traceback of unexpected errors (anywhere on the "
                        "command line)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    _add_embed(sub)
    for name in PLUGINS if plugins else ():
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue
            raise
        module.register(sub)
    return parser


def _showwarning(message: Any, category: Any, filename: Any, lineno: Any, file: Any = None,
                 line: Any = None) -> None:
    text = str(message).strip().replace("\n", " ")
    print(f"catembed: warning: {text}", file=sys.stderr)


def _command_of(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first argument not an option)."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    try:
        return _main(list(sys.argv[1:] if argv is None else argv))
    except KeyboardInterrupt:
        print("catembed: interrupted", file=sys.stderr)
        return 130


def _main(argv: list[str]) -> int:
    debug = "--debug" in argv  # accepted anywhere on the line
    argv = [a for a in argv if a != "--debug"]
    if argv[:1] == ["--version"]:
        print(f"catembed {__version__}")
        return 0
    old_show = warnings.showwarning
    warnings.showwarning = _showwarning
    try:
        parser = build_parser(plugins=_command_of(argv) not in BUILTIN_COMMANDS)
        args = parser.parse_args(argv)
        args.debug = debug
        return int(args.func(args) or 0)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:
        raise
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - never a bare traceback from the CLI
        return _report(exc, debug)
    finally:
        warnings.showwarning = old_show


def _report(exc: Exception, debug: bool) -> int:
    """The one line for an exception, and the exit status: 2 for input, 1 for a bug."""
    if isinstance(exc, CatEmbedError):
        print(f"catembed: error: {exc}", file=sys.stderr)
        return 2
    if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
        print(f"catembed: error: {exc.strerror or exc}: {exc.filename}", file=sys.stderr)
        return 2
    if isinstance(exc, MemoryError):
        print("catembed: error: out of memory; embed fewer rows or columns, stream with "
              "--chunksize, or leave out many-valued columns with --drop.", file=sys.stderr)
        return 2
    if isinstance(exc, OSError) and exc.errno is not None:
        print(f"catembed: error: {exc.strerror or exc}"
              + (f": {exc.filename}" if exc.filename else ""), file=sys.stderr)
        return 2
    if debug:
        raise exc
    print(f"catembed: internal error: {type(exc).__name__}: {exc} "
          "(rerun with --debug for the traceback)", file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
