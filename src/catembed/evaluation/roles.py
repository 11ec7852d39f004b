"""The roles of a table's columns for the commands that read one (``catembed cluster``,
``embed``, ``report``'s consensus section): ids, features, target from the flags and
``meta.json``, the columns that hold numbers by the one rule
(:func:`catembed.evaluation.inputs.numeric_roles`), and the table ``catembed cluster``
clusters with the Consensus it fits (:func:`cluster_table`, :func:`consensus_model`: one
code path for the command and the report, so that both give one answer for one table and
seed).

Below the report and the command line (layer 6), so that both can use it; light at import
(no NumPy, pandas or scikit-learn: imported inside the functions).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from .._utils._errors import CatEmbedError
from .._utils._pathtext import path_text
from .._utils._progress import echo
from ..datasets import InputSpec, split_list

__all__ = ["NUMERIC_CHOICES", "NUMERIC_HELP", "ClusterTable", "Roles", "cluster_roles",
           "cluster_table", "column_roles", "consensus_model", "read_numbers",
           "row_number_columns"]

#: ``--numeric`` of the commands that read a table by the one column rule (cluster, report)
NUMERIC_CHOICES = ("auto", "drop", "discretize")
NUMERIC_HELP = ("columns holding numbers (a data-set folder's, or a plain file's whose values "
                "all parse as numbers), by catembed cluster's rule: auto (default): cut into 5 "
                "quantile bins clustered as values, except a plain file's with fewer than 20 "
                "distinct numbers, each in two cells or more on average (codes), read as "
                "categories; discretize: every one binned; "
                "drop: left out")


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


@dataclass
class ClusterTable:
    """The rows to cluster and the columns' roles."""

    frame: Any  # ids, features and target, numeric columns as float64
    roles: Any  # Roles
    features: list[str]  # the columns clustered
    numeric: list[str]  # the features clustered as numbers (binned by Consensus)
    categorical: list[str]  # the other features


def cluster_roles(args: argparse.Namespace, spec: Any, columns: list[str]) -> tuple[Any,
                                                                                    list[str]]:
    """The column roles under ``--numeric`` and the numeric columns clustered as numbers.

    ``auto`` (the default) and ``discretize`` give the numeric columns to Consensus as
    numbers (it cuts them into 5 quantile bins); ``drop`` leaves them out, a plain file's
    too (those whose values all parse as numbers). ``auto`` keeps a plain file's numeric
    column with few distinct values (fewer than 20: codes, counts) as categories
    (:func:`catembed.evaluation.inputs.numeric_roles`)."""
    from ..evaluation.inputs import numeric_note

    policy = "drop" if (args.numeric == "drop" and spec.meta) else (
        "auto" if args.numeric == "auto" else "discretize")
    roles = column_roles(argparse.Namespace(**{**vars(args), "numeric": policy}), spec, columns)
    if args.numeric == "drop":
        found = [c for c in roles.numeric if c in roles.features]
        roles.features = [c for c in roles.features if c not in set(found)]
        roles.numeric = []
        if found and not args.quiet:
            _note(numeric_note(found, "left out"))
        if not roles.features:
            raise CatEmbedError("no columns left to cluster: every feature is numeric and "
                                "--numeric drop leaves them out; leave out --numeric to bin "
                                "them.")
    return roles, list(roles.numeric)


def read_numbers(args: argparse.Namespace, spec: Any, used: list[str],
                 numeric: list[str]) -> Any:
    """The table, numeric columns as float64 (a value that is not a number is a missing
    number, with a warning), the others as text."""
    import warnings

    import pandas as pd

    from .. import io
    from .._utils._errors import CatEmbedWarning
    from ..evaluation.inputs import numeric_note

    frame = io.read_table(spec.path, columns=used,
                          text_columns=[c for c in used if c not in numeric])
    for c in numeric:  # numbers (Consensus cuts them into 5 quantile bins), never codes
        values = pd.to_numeric(frame[c], errors="coerce").astype("float64")
        bad = values.isna() & frame[c].notna()
        if bad.any():
            warnings.warn(f"column {c!r} holds numbers and {int(bad.sum())} value(s) that are "
                          f"not (first: {frame[c][bad].iloc[0]!r}): taken as missing numbers; "
                          "fix them, or --drop the column.", CatEmbedWarning, stacklevel=2)
        frame[c] = values
    if numeric and not args.quiet:
        _note(numeric_note(numeric, "binned"))
    return frame


def row_number_columns(frame: Any, numeric: list[str]) -> list[str]:
    """The numeric columns that count the rows: integers going up by exactly 1 from each
    row to the next, none missing, at least 10 rows (``obs`` 1, 2, ..., ``n``). A column of
    ranks in another order is a measurement and is not listed."""
    import numpy as np

    out = []
    for c in numeric:
        v = frame[c].to_numpy(dtype="float64", na_value=np.nan)
        if len(v) >= 10 and np.isfinite(v).all() and (np.diff(v) == 1).all():
            out.append(str(c))
    return out


def _warn_identifiers(frame: Any, categorical: list[str], numeric: list[str]) -> None:
    """The identifier warning ``embed`` gives
    (:func:`catembed.stats._pooling.identifier_columns`), and one for numeric row numbers,
    which would otherwise be cut into bins of file position (:func:`row_number_columns`)."""
    import warnings

    from .._utils._errors import CatEmbedWarning, named
    from ..stats._pooling import identifier_columns, identifier_message

    sizes = [int(frame[c].nunique(dropna=False)) for c in categorical]
    found = identifier_columns(categorical, sizes, len(frame))
    if found:
        warnings.warn(identifier_message(found, flag="--drop or --id"), CatEmbedWarning,
                      stacklevel=2)
    rows = row_number_columns(frame, numeric)
    if rows:
        first = frame[rows[0]]
        warnings.warn(f"column(s) {named(rows)} count the rows ({rows[0]} goes "
                      f"{first.iloc[0]:g}, {first.iloc[1]:g}, ... {first.iloc[-1]:g}, up by 1 "
                      "each row): as numbers they would be cut into bins of position in the "
                      "file, which groups neighbouring rows. If they are identifiers, drop "
                      "them (--drop or --id).", CatEmbedWarning, stacklevel=2)


def cluster_table(args: argparse.Namespace, spec: Any, progress: Any,
                  label_clash: str | None = None) -> ClusterTable:
    """Read the table ``catembed cluster`` clusters: the roles of the columns from the flags
    (``args.drop``, ``args.id``, ``args.target``, ``args.numeric``) and ``meta.json``, every
    row of the file, the identifier warnings. ``label_clash``: the refusal of an id or
    target column named ``cluster`` (the output's label column), when there is an output."""
    from .. import io

    columns = io.read_columns(spec.path)
    roles, numeric = cluster_roles(args, spec, columns)
    features = roles.features
    after = [roles.target] if roles.target else []
    if label_clash and "cluster" in roles.ids + after:  # one would replace the labels
        raise CatEmbedError(label_clash)
    used = roles.ids + features + after
    progress.step(f"counting the rows of {spec.path.name}")
    io.check_ragged_rows(spec.path, getattr(args, "strict", None))  # a warning naming lines
    progress.step(f"reading {spec.path.name}")
    frame = read_numbers(args, spec, used, numeric)
    categorical = [c for c in features if c not in set(numeric)]
    _warn_identifiers(frame, categorical, numeric)
    return ClusterTable(frame, roles, features, numeric, categorical)


def consensus_model(args: argparse.Namespace, table: ClusterTable,
                    members: list[str] | None = None) -> Any:
    """The command's :class:`catembed.cluster.Consensus` (not fitted): ``-k``, ``--members``,
    ``--n-init`` and ``--seed`` (``args.n_clusters``, ``args.n_init``, ``args.seed``) on the
    table's categorical and numeric columns; fit it on ``table.frame[table.features]``."""
    from ..cluster.consensus import Consensus

    return Consensus(args.n_clusters, members=members, n_init=args.n_init,
                     random_state=args.seed, categorical_features=table.categorical)
