"""The fitted embedding as named output: column names, and the value tables as frames.

An embedder's output columns are named ``{column}__{prefix}{k}`` per attribute and component
when value vectors are concatenated, ``{prefix}{k}`` when they are summed (and for the
``n_components`` projection), followed by any passed-through numeric column.
:func:`value_table_frame` and :func:`value_coordinates_frame` give the learned value tables
one row per ``(column, value)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._utils._validation import CatEmbedError

__all__ = ["component_names", "embedding_names", "output_names", "value_coordinates_frame",
           "value_table_frame"]


def component_names(prefix: str, k: int) -> list[str]:
    """Names of the ``k`` output components of the ``n_components`` projection."""
    return [f"{prefix}{i}" for i in range(k)]


def embedding_names(tables: Sequence[np.ndarray], combine: str, prefix: str,
                    feature_names: Sequence[str]) -> list[str]:
    """Names of the embedding columns (before any passed-through numeric column)."""
    if combine == "sum":
        return component_names(prefix, tables[0].shape[1] if tables else 0)
    names = []
    for f, t in zip(feature_names, tables, strict=True):
        names.extend(f"{f}__{prefix}{k}" for k in range(t.shape[1]))
    return names


def output_names(est: Any) -> np.ndarray:
    """A fitted embedder's output feature names: its components (``{prefix}{k}``) or its
    embedding columns, then the numeric columns passed through (``numeric="passthrough"``),
    which must not repeat an embedding name."""
    proj = getattr(est, "_projection", None)
    names = (component_names(est._feature_prefix, proj[0].shape[1]) if proj is not None
             else list(est._embedding_names()))
    extra = ([str(c) for c in getattr(est, "numeric_features_", [])]
             if est._numeric_policy() == "passthrough" else [])
    clash = [c for c in extra if c in set(names)]
    if clash:
        raise CatEmbedError(
            f"numeric column(s) {', '.join(map(repr, clash))} passed through "
            "(numeric='passthrough') have the name of an embedding column, so the output "
            "would have two columns of one name; rename them."
        )
    return np.asarray([*names, *extra], dtype=object)


def value_table_frame(tables: Sequence[np.ndarray], index: pd.MultiIndex,
                      prefix: str) -> pd.DataFrame:
    """The value tables stacked, each attribute's block padded with zeros to one width."""
    width = max(t.shape[1] for t in tables)
    rows = [np.hstack([t, np.zeros((t.shape[0], width - t.shape[1]))]) for t in tables]
    return pd.DataFrame(
        np.vstack(rows), index=index, columns=[f"{prefix}{k}" for k in range(width)],
    )


def value_coordinates_frame(tables: Sequence[np.ndarray], combine: str, names: list[str],
                            index: pd.MultiIndex) -> pd.DataFrame:
    """Each value's contribution to an object vector: its attribute's block with zeros
    elsewhere (concatenation), or its row of the value table (sum)."""
    if combine == "sum":
        data = np.vstack(tables)
    else:
        data = np.zeros((sum(t.shape[0] for t in tables), len(names)))
        r = c = 0
        for t in tables:
            data[r : r + t.shape[0], c : c + t.shape[1]] = t
            r, c = r + t.shape[0], c + t.shape[1]
    return pd.DataFrame(data, index=index, columns=names)
