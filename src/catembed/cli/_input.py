"""What the command line reads and writes: the input a subcommand names (a table file, a
data-set folder or a bundled data set), the roles of its columns, the ragged-row check, the
output-path checks made before any work, and argparse value types.

Light at import (no NumPy, pandas, scikit-learn or PyTorch): the table functions of
:mod:`catembed.io` are imported inside the functions that use them.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._utils._errors import CatEmbedError
from .._utils._pathtext import path_text
from .._utils._progress import Progress, echo
from ..datasets import InputSpec, resolve_input, split_list

__all__ = ["InputSpec", "Roles", "check_outputs", "check_ragged", "column_roles", "int_in",
           "progress_for", "resolve_input", "split_list"]


def _note(text: str) -> None:
    echo(f"catembed: note: {path_text(text)}")


@dataclass
class Roles:
    """What ``embed`` does with each column of the input."""

    ids: list[str]  # copied to the output before the embedding
    features: list[str]  # embedded (categorical) or numeric (per --numeric)
    numeric: list[str]  # features handled by the numeric policy
    target: str | None  # copied to the output after the embedding


def column_roles(args: argparse.Namespace, spec: InputSpec, columns: list[str]) -> Roles:
    """Sort the columns into ids, features and target from the flags and ``meta.json``.

    A data-set folder's target and id columns are never features (nor its split columns);
    a plain file's columns are all categorical unless ``--numeric`` says otherwise; which
    columns hold numbers is :func:`catembed.evaluation.inputs.numeric_roles`' rule.
    """
    from .. import io
    from ..evaluation.inputs import numeric_roles

    drop, ids = split_list(args.drop), split_list(args.id)
    given = [("--id", c) for c in ids] + [("--drop", c) for c in drop]
    if args.target:
        given.append(("--target", args.target))
    unknown = [c for _, c in given if c not in columns]
    if unknown:
        raise CatEmbedError(
            f"column(s) not in {spec.path.name}: {', '.join(unknown)}. "
            f"Columns: {', '.join(columns[:20])}{' ...' if len(columns) > 20 else ''}"
        )
    twice = sorted({c for c in ids if ids.count(c) > 1})  # a handful of --id names
    if twice:
        raise CatEmbedError(f"--id names {', '.join(map(repr, twice))} more than once; give "
                            "each identifier column once.")
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
    skip = {*drop, *ids, target}
    rest = [c for c in columns if c not in skip]
    split_cols = [c for c in rest if spec.kind(c) in ("split", "target")]
    # which columns hold numbers: the one rule of cluster, report and embed (under --numeric
    # auto, a plain file's column with few distinct numbers is a code, read as categories)
    numeric = numeric_roles(spec, rest, args.numeric)[0] if (
        spec.meta or args.numeric != "drop") else []
    if not spec.meta and args.numeric == "drop" and not args.quiet:
        _hint_numeric(spec, rest)
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
    left_set = set(left_out)
    features = [c for c in rest if c not in left_set]
    numeric = [c for c in numeric if c not in left_set]
    numeric_set = set(numeric)
    if not [c for c in features if c not in numeric_set] and not (
            numeric and args.numeric in ("discretize", "auto")):  # binned: categories
        raise CatEmbedError(
            "no categorical columns left to embed after --target/--drop/--id"
            + (" (a data-set folder's numeric columns are used with --numeric discretize)"
               if spec.meta and numeric else "") + "."
        )
    return Roles(ids, features, numeric, target)


def _hint_numeric(spec: InputSpec, columns: list[str]) -> None:
    """Say once which columns of a plain file look numeric (read as categories) and which
    flag bins them (the rule of :func:`catembed.evaluation.inputs.numeric_looking`, on the
    first 10,000 rows)."""
    from .. import io
    from ..evaluation.inputs import numeric_hint, numeric_looking

    found = [c for c in io.numeric_columns(spec.path) if c in set(columns)]
    if not found:
        return
    head = next(iter(io.iter_chunks(spec.path, 10_000, columns=found)))
    many = numeric_looking(head, found)
    if many:
        _note(numeric_hint(many, len(head), id_flag="--drop or --id"))


def check_ragged(args: argparse.Namespace, spec: InputSpec) -> int | None:
    """Rows of a CSV with another field count than the header: a warning naming their lines
    (a refusal with ``--strict``; a command without that flag, ``args.strict`` absent, only
    warns). Returns the row count (None for Parquet). See :func:`catembed.io.check_ragged_rows`."""
    from .. import io

    return io.check_ragged_rows(spec.path, getattr(args, "strict", None))


def progress_for(args: argparse.Namespace, command: str) -> Progress:
    """The command's progress line on stderr: drawn when stderr is a terminal and not
    ``--quiet`` (:class:`catembed._utils._progress.Progress`), else a reporter that draws
    nothing."""
    return Progress(f"catembed {command}", enabled=False if args.quiet else None)


def check_outputs(args: argparse.Namespace, spec: InputSpec) -> None:
    """Refuse, before any work, outputs that are the input or cannot be written."""
    from .. import io

    inputs = [spec.path]
    if args.output:
        io.check_output_path(args.output, inputs=inputs, flag="--output")
    if args.save_model:
        io.check_output_path(args.save_model, inputs=inputs, flag="--save-model",
                             suffixes=(".npz",))
        if args.output and Path(args.output).resolve() == Path(args.save_model).resolve():
            raise CatEmbedError("--output and --save-model name the same file; give two names.")


def int_in(low: int, high: int | None, what: str) -> Any:
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
