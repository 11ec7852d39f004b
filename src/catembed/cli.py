"""The ``catembed`` command line.

``catembed embed`` turns a categorical CSV or Parquet file (or a data-set folder, or the
name of a bundled data set) into a numeric table. Other subcommands (``evaluate``,
``bench``...) come from plugin modules that define ``register(subparsers)``.

Errors in the input end the command with a one-line message and exit status 2; warnings
are printed as one line each on stderr.
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

from ._validation import CatEmbedError
from ._version import __version__

__all__ = ["main", "build_parser"]

#: modules that add subcommands: each defines ``register(subparsers)``
PLUGINS = ("catembed.evaluation.cli", "catembed.transform_cli")


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
    from . import METHODS

    if method not in METHODS:
        raise CatEmbedError(
            f"unknown method {method!r}; choose from {', '.join(sorted(METHODS))}."
        )
    est = METHODS[method]()
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


def _cmd_embed(args: argparse.Namespace) -> int:
    from . import io

    t0 = time.perf_counter()
    if args.output:
        io.check_output_path(args.output)
    spec = resolve_input(args.input)
    columns = io.read_columns(spec.path)
    drop = _split_list(args.drop)
    ids = _split_list(args.id)
    for col in ids + [c for c in spec.meta.get("id_columns") or [] if c in columns]:
        if col not in ids:
            ids.append(col)
    unknown = [c for c in drop + ids + ([args.target] if args.target else []) if c not in columns]
    if unknown:
        raise CatEmbedError(
            f"column(s) not in {spec.path.name}: {', '.join(unknown)}. "
            f"Columns: {', '.join(columns[:20])}{' ...' if len(columns) > 20 else ''}"
        )
    candidates = [c for c in columns if c not in drop + ids and c != args.target]
    split_cols = [c for c in candidates if spec.kind(c) == "split"]
    if spec.meta:
        numeric_cols = [c for c in candidates if spec.kind(c) == "numeric"]
    elif args.numeric != "drop":
        numeric_cols = [c for c in io.numeric_columns(spec.path) if c in candidates]
    else:
        numeric_cols = []
    left_out = split_cols + (numeric_cols if args.numeric == "drop" else [])
    if left_out:
        print(f"catembed: note: leaving out {len(left_out)} column(s) that meta.json types "
              f"{'numeric or split' if args.numeric == 'drop' else 'split'}: "
              f"{', '.join(left_out)}"
              + (" (use --numeric discretize or passthrough to use numeric columns)"
                 if args.numeric == "drop" and numeric_cols else ""), file=sys.stderr)
    features = [c for c in candidates if c not in left_out]
    categorical = [c for c in features if c not in numeric_cols]
    if not categorical:
        raise CatEmbedError("no categorical columns left to embed after --target/--drop/--id.")
    passthrough_before = ids
    passthrough_after = [args.target] if args.target else []
    used = passthrough_before + features + passthrough_after
    text_cols = [c for c in used if c not in numeric_cols]

    est = _make_estimator(args.method, args.seed, args.handle_unknown)
    if args.numeric != "drop":
        if "numeric" not in est.get_params():
            raise CatEmbedError(f"method {args.method!r} has no numeric-column policy.")
        est.set_params(numeric=args.numeric, n_bins=args.n_bins,
                       categorical_features=categorical)
    if args.n_components is not None:
        if "n_components" not in est.get_params():
            raise CatEmbedError(f"method {args.method!r} has no n_components parameter.")
        est.set_params(n_components=args.n_components)
    n_total = io.count_rows(spec.path)
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
    names = list(est.get_feature_names_out())
    bar = _progress(n_total, "embedding", args.quiet)
    from .streaming import write_chunks

    with io.TableWriter(args.output, index=False) as writer:
        write_chunks(est, chunks, writer, features=features, before=passthrough_before,
                     after=passthrough_after, progress=bar.update)
    bar.close()
    if args.save_model:
        est.save(args.save_model)
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


def _is_default_index(index: Any) -> bool:
    import pandas as pd

    return isinstance(index, pd.RangeIndex) and index.name is None


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand registered."""
    from . import METHODS

    parser = argparse.ArgumentParser(
        prog="catembed",
        description="Embed categorical tables from value couplings (CDE, CDE++, UNTIE, ...).",
    )
    parser.add_argument("--version", action="version", version=f"catembed {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="show the Python traceback of unexpected errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    p = sub.add_parser("embed", help="embed a categorical table",
                       description="Embed a categorical CSV/Parquet table and write the "
                       "numeric table, in the input's row order.")
    p.add_argument("input", help="CSV or Parquet file, data-set folder, or bundled data-set name")
    p.add_argument("--method", default="cde", choices=sorted(METHODS),
                   help="embedding method (default: cde)")
    p.add_argument("--target", help="class column: kept out of the fit, copied to the output")
    p.add_argument("--drop", help="comma-separated columns to leave out")
    p.add_argument("--id", help="comma-separated identifier columns: kept out of the fit, "
                   "copied to the output (a data-set folder's id columns are added)")
    p.add_argument("--output", "-o", help="output .csv or .parquet (default: CSV on stdout)")
    p.add_argument("--save-model", help="save the fitted model (.npz, no pickle)")
    p.add_argument("--seed", type=int, default=0, help="random_state (default: 0)")
    p.add_argument("--chunksize", type=int, help="stream the input in chunks of N rows")
    p.add_argument("--n-components", type=int,
                   help="compact output: the top N principal components of the method's "
                   "vectors, float32 (default: the paper's concatenation, float64)")
    p.add_argument("--numeric", default="drop", choices=["drop", "discretize", "passthrough"],
                   help="numeric columns: leave out (default), cut into quantile bins embedded "
                   "as values, or standardise and append")
    p.add_argument("--n-bins", type=int, default=5,
                   help="quantile bins per numeric column for --numeric discretize (default 5)")
    p.add_argument("--handle-unknown", default="error", choices=["error", "ignore", "warn"],
                   help=argparse.SUPPRESS)
    p.add_argument("--quiet", "-q", action="store_true", help="no summary, no progress bar")
    p.set_defaults(func=_cmd_embed)

    for name in PLUGINS:
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


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    debug = "--debug" in (argv if argv is not None else sys.argv[1:])
    old_show = warnings.showwarning
    warnings.showwarning = _showwarning
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        return int(args.func(args) or 0)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return int(exc.code or 0) if isinstance(exc.code, int) else 2
    except CatEmbedError as exc:
        print(f"catembed: error: {exc}", file=sys.stderr)
        return 2
    except (FileNotFoundError, PermissionError, IsADirectoryError) as exc:
        print(f"catembed: error: {exc.strerror or exc}: {exc.filename}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("catembed: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - never a bare traceback from the CLI
        if debug:
            raise
        print(f"catembed: internal error: {type(exc).__name__}: {exc} "
              "(rerun with --debug for the traceback)", file=sys.stderr)
        return 1
    finally:
        warnings.showwarning = old_show


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
