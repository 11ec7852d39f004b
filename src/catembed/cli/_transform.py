"""``catembed transform MODEL INPUT -o OUT``: embed new data with a saved model.

A CLI plugin (see ``PLUGINS`` in :mod:`catembed.cli`); the work is
:func:`catembed.transform.streaming.transform_file`. Module-level imports stay light so that the
command line starts fast.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from .._utils._pathtext import path_text
from ._input import int_in, progress_for

__all__ = ["register"]

_EXAMPLES = """examples:
  catembed embed adult.csv --target income --save-model cde.npz -o train.parquet
  catembed transform cde.npz new.csv -o new.parquet --id row_id --target income
  catembed transform cde.npz big.parquet -o out.parquet --chunksize 1000000
"""


def _split(text: str | None) -> list[str]:
    return [t.strip() for t in (text or "").split(",") if t.strip()]


def _cmd_transform(args: argparse.Namespace) -> int:
    t0 = time.perf_counter()
    with progress_for(args, "transform") as progress:
        progress.step("loading the model")
        from ..transform.streaming import transform_file

        rows = transform_file(  # the rows embedded shown by the progress line in use
            args.model, args.input, args.output, chunksize=args.chunksize,
            id_columns=_split(args.id), target=args.target,
            handle_unknown=args.handle_unknown,
        )
    if not args.quiet:
        print(f"catembed transform: {rows} rows in {time.perf_counter() - t0:.2f} s"
              + (f"; wrote {path_text(args.output)}" if args.output else ""),
              file=sys.stdout if args.output else sys.stderr)
    return 0


def register(subparsers: Any) -> None:
    """Add the ``transform`` subcommand."""
    p = subparsers.add_parser(
        "transform", help="embed a table with a saved model (streamed, bounded memory)",
        description="Embed a CSV/Parquet table with a model saved by `catembed embed "
        "--save-model` (or ValueEmbedder.save), chunk by chunk, in the input's row order.",
        epilog=_EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("model", help="model file (.npz) written by --save-model or .save()")
    p.add_argument("input", help="CSV or Parquet file with the model's input columns")
    p.add_argument("--output", "-o", help="output .parquet or .csv (default: CSV on stdout)")
    p.add_argument("--id", help="comma-separated columns copied before the embedding")
    p.add_argument("--target", help="a column copied after the embedding")
    p.add_argument("--chunksize", type=int_in(1, None, "chunksize"), metavar="N",
                   help="rows per chunk, N >= 1 (default: sized to bound the memory)")
    p.add_argument("--handle-unknown", choices=["error", "ignore", "warn"],
                   help="values the model never saw: error, or the zero vector (default: "
                   "the model's setting)")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary, no progress line")
    p.set_defaults(func=_cmd_transform)
