"""The table ``catembed cluster`` clusters and the Consensus it fits, for the command and for
``catembed report``'s consensus section (one code path, so that both give one answer for
one table and seed).

The column roles are :func:`catembed.cli._input.column_roles`', the columns that hold numbers
:func:`catembed.evaluation.inputs.numeric_roles`' (the one rule of ``cluster``, ``report``
and ``embed``). Light at import.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from .._utils._errors import CatEmbedError
from ._input import _note, check_ragged, column_roles

__all__ = ["ClusterTable", "cluster_roles", "cluster_table", "consensus_model",
           "read_numbers", "row_number_columns"]


@dataclass
class ClusterTable:
    """The rows to cluster and the columns' roles."""

    frame: Any  # ids, features and target, numeric columns as float64
    roles: Any  # catembed.cli._input.Roles
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

    from .._utils._errors import CatEmbedWarning
    from ..stats._pooling import identifier_columns, identifier_message

    sizes = [int(frame[c].nunique(dropna=False)) for c in categorical]
    found = identifier_columns(categorical, sizes, len(frame))
    if found:
        warnings.warn(identifier_message(found, flag="--drop or --id"), CatEmbedWarning,
                      stacklevel=2)
    rows = row_number_columns(frame, numeric)
    if rows:
        first = frame[rows[0]]
        warnings.warn(f"column(s) {', '.join(rows[:10])} count the rows ({rows[0]} goes "
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
    check_ragged(args, spec)
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
