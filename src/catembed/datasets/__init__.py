"""Data sets in the shared format: a folder with ``data.csv`` and ``meta.json``.

:func:`load_dataset` reads a folder given by path, by name from the directory in the
``CATEMBED_DATA`` environment variable, or by name from the small copies bundled with the
package (``soybean_small``, ``zoo``, ``lenses``). Columns that are not numeric are read as
text, so integer-coded categorical attributes stay categorical.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .._validation import CatEmbedError

__all__ = ["Dataset", "bundled_datasets", "dataset_path", "load_dataset"]

BUNDLED_DIR = Path(__file__).resolve().parent / "data"


@dataclass
class Dataset:
    """A table with its metadata.

    Attributes
    ----------
    name : str
    frame : DataFrame
        Every column of ``data.csv``, in file order; non-numeric columns as text.
    meta : dict
        The parsed ``meta.json``.
    path : Path
        The folder it was read from.
    """

    name: str
    frame: pd.DataFrame
    meta: dict = field(repr=False)
    path: Path

    @property
    def target(self) -> str | None:
        """The class column, or None."""
        return self.meta.get("target")

    @property
    def id_columns(self) -> list[str]:
        """Identifier columns (not features, not the target)."""
        return list(self.meta.get("id_columns") or [])

    @property
    def column_kinds(self) -> dict[str, str]:
        """Column -> ``categorical``, ``binary``, ``numeric``, ``id``, ``target`` or ``split``."""
        return dict(self.meta.get("columns") or {})

    @property
    def feature_columns(self) -> list[str]:
        """Columns whose kind is categorical, binary or numeric."""
        kinds = self.column_kinds
        return [c for c in self.frame.columns if kinds.get(c) in ("categorical", "binary",
                                                                    "numeric")]

    @property
    def categorical_columns(self) -> list[str]:
        """Feature columns whose kind is categorical or binary."""
        kinds = self.column_kinds
        return [c for c in self.frame.columns if kinds.get(c) in ("categorical", "binary")]

    @property
    def numeric_columns(self) -> list[str]:
        """Feature columns whose kind is numeric."""
        kinds = self.column_kinds
        return [c for c in self.frame.columns if kinds.get(c) == "numeric"]


def bundled_datasets() -> list[str]:
    """Names of the data sets shipped inside the package."""
    return sorted(p.name for p in BUNDLED_DIR.iterdir() if (p / "data.csv").exists())


def dataset_path(name_or_path: str | os.PathLike, data_dir: str | os.PathLike | None = None
                 ) -> Path:
    """Resolve a data set folder: a path, a name in ``data_dir`` or ``$CATEMBED_DATA``, or a
    bundled name (searched in that order)."""
    p = Path(name_or_path)
    if (p / "data.csv").exists():
        return p
    roots = [Path(d) for d in (data_dir, os.environ.get("CATEMBED_DATA")) if d]
    roots.append(BUNDLED_DIR)
    for root in roots:
        if (root / str(name_or_path) / "data.csv").exists():
            return root / str(name_or_path)
    raise CatEmbedError(
        f"no data set {str(name_or_path)!r}: not a folder with data.csv, and not found in "
        f"{', '.join(str(r) for r in roots)}. Bundled: {', '.join(bundled_datasets())}."
    )


def read_meta(folder: str | os.PathLike) -> dict[str, Any]:
    """The parsed ``meta.json`` of a data set folder ({} when it has none)."""
    f = Path(folder) / "meta.json"
    if not f.exists():
        return {}
    try:
        return json.loads(f.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CatEmbedError(f"{f} is not valid JSON: {exc}") from None


def load_dataset(name_or_path: str | os.PathLike, *, data_dir: str | os.PathLike | None = None
                 ) -> Dataset:
    """Read a data set folder in the shared format.

    Empty fields, and only those, are missing; every column that ``meta.json`` does not type
    ``numeric`` is read as text.
    """
    folder = dataset_path(name_or_path, data_dir)
    meta = read_meta(folder)
    kinds = meta.get("columns") or {}
    dtype = {c: str for c, k in kinds.items() if k != "numeric"} if kinds else str
    frame = pd.read_csv(folder / "data.csv", keep_default_na=False, na_values=[""],
                        dtype=dtype)
    return Dataset(meta.get("name", folder.name), frame, meta, folder)
