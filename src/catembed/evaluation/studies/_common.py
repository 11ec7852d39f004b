"""What every study shares: its result (table, figure, notes), its registry entry, and the
context it runs in (where data sets are found, the seed, the runs, the progress log)."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from ..._utils._validation import CatEmbedError

__all__ = ["Study", "StudyResult", "_Ctx"]


@dataclass
class StudyResult:
    """What a study wrote: its table (also as CSV), figure, run time and notes."""

    name: str
    table: pd.DataFrame
    figure: Path | None = None
    table_path: Path | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"study": self.name, "figure": str(self.figure), "table": str(self.table_path),
                "seconds": round(self.seconds, 2), "notes": self.notes,
                "rows": json.loads(self.table.to_json(orient="records"))}

    def summary(self) -> str:
        lines = [f"study {self.name}: {self.seconds:.1f} s; figure {self.figure}; "
                 f"table {self.table_path}"]
        with pd.option_context("display.width", 120, "display.max_rows", 60):
            lines.append(self.table.to_string(index=False))
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


@dataclass
class Study:
    """A study: its title and the function that runs it."""

    name: str
    title: str
    run: Callable[..., tuple[pd.DataFrame, Any, list[str]]]


class _Ctx:
    """Where data sets are found, the seed, the runs, and the progress log."""

    def __init__(self, data_dir: str | None, seed: int, runs: int | None, quiet: bool,
                 datasets: list[str] | None = None):
        from ..inputs import data_roots

        self.roots = data_roots(data_dir)
        self.datasets = datasets
        self.seed = seed
        self.runs = runs
        self.quiet = quiet

    def log(self, text: str) -> None:
        if not self.quiet:
            print(f"[study] {text}", file=sys.stderr, flush=True)

    def find(self, names: list[str], notes: list[str], preset: str = "complete"
             ) -> list[Any]:
        from ...datasets import load_dataset

        found, missing = [], []
        if self.datasets:
            notes.append(f"data sets from --datasets instead of the paper's "
                         f"({', '.join(names)})")
            names = self.datasets
        for n in names:
            folder = next((r / n for r in self.roots if (r / n / "data.csv").exists()), None)
            if folder is None:
                missing.append(n)
                continue
            found.append(load_dataset(folder, preset=preset))
        if missing:
            notes.append(f"not found (searched {', '.join(map(str, self.roots))}): "
                         f"{', '.join(missing)}")
        if not found:
            raise CatEmbedError(f"none of the study's data sets ({', '.join(names)}) is in "
                                f"{', '.join(map(str, self.roots))}; give --data-dir DIR.")
        return found
