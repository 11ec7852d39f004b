"""Paper tables as files: :func:`load_table` reads one (an id in ``tables/`` or a path) and
checks its shape (format: ``tables/README.md``), so that a user's table file with a wrong
shape is refused in one line rather than failing deep in :func:`.bench.run_table`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .._utils._files import read_text_file
from .._utils._validation import CatEmbedError

__all__ = ["TABLES_DIR", "load_table", "table_ids"]

TABLES_DIR = Path(__file__).resolve().parent / "tables"


def table_ids() -> list[str]:
    """The tables shipped in ``tables/``."""
    return sorted(p.stem for p in TABLES_DIR.glob("*.json"))


def load_table(table: str | os.PathLike) -> dict[str, Any]:
    """A table by id (``cde-1``) or by the path of a JSON file in the same format."""
    p = Path(table)
    if not p.suffix == ".json":
        p = TABLES_DIR / f"{table}.json"
    if not p.exists():
        raise CatEmbedError(f"no table {str(table)!r}; known: {', '.join(table_ids())}.")
    try:
        spec = json.loads(read_text_file(p, kind="paper table file"))
    except json.JSONDecodeError as exc:
        raise CatEmbedError(f"{p} is not valid JSON: {exc}") from None
    if not isinstance(spec, dict):
        raise CatEmbedError(f"table {p.name} must hold a JSON object; see "
                            "evaluation/tables/README.md.")
    for key in ("id", "metric", "columns", "datasets"):
        if key not in spec:
            raise CatEmbedError(f"table {p.name} lacks the key {key!r}.")
    # a user's table file: its shape is checked here (KeyError, TypeError... otherwise)
    for key, needs in (("columns", ("label", "method")), ("datasets", ("name",))):
        items = spec[key]
        if not (isinstance(items, list) and items and all(
                isinstance(e, dict) and all(isinstance(e.get(k), str) for k in needs)
                for e in items)):
            raise CatEmbedError(
                f"table {p.name}: {key!r} must be a non-empty list of objects, each with "
                f"{' and '.join(map(repr, needs))} (strings); see evaluation/tables/README.md.")
    if not isinstance(spec.get("protocol") or {}, dict):
        raise CatEmbedError(f"table {p.name}: 'protocol' must be an object.")
    return spec
