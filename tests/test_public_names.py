"""Every documented public name imports (issue 43: the package root was grouped by the flow,
and no documented import may break).

The names come from three places: ``catembed.__all__``; every ``catembed.<dotted name>`` written
in the docs and the README (the API pages' ``::: catembed...`` directives included); and the
public module names of the old flat root, listed below, which stay importable.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import catembed

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]

#: documented imports of the flat root (before issue 43) that must keep working
OLD_PUBLIC = [
    "catembed.base.ValueEmbedder",
    "catembed.stats.ValueStatistics", "catembed.stats.compute_statistics",
    "catembed.stats.encode", "catembed.stats.encode_column", "catembed.stats.INFREQUENT",
    "catembed.persist.save", "catembed.persist.load", "catembed.persist.register",
    "catembed.transform.streaming.transform_file", "catembed.transform.streaming.write_chunks",
    "catembed.plot.values", "catembed.plot.objects", "catembed.plot.profiles",
    "catembed.plot.stacked_points", "catembed.plot.project_2d",
    "catembed.plot.map2d.coupling_axes", "catembed.plot.map2d.column_dependence",
    "catembed.plot.map2d.arrange_labels", "catembed.report.cluster_profiles",
    "catembed.metrics.f_score", "catembed.metrics.matched_accuracy",
    "catembed.report.register", "catembed.cli.main", "catembed.cli.build_parser",
    "catembed.io.read_table", "catembed.io.iter_chunks", "catembed.io.check_output_path",
    "catembed.datasets.load_dataset",
]


def _resolve(name: str) -> object:
    """Import the longest module prefix of ``name``, then get the remaining attributes."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:i]))
        except ModuleNotFoundError as exc:
            if exc.name and ".".join(parts[:i]).startswith(exc.name):
                continue
            raise
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(name)


def _documented() -> list[str]:
    found = set()
    for path in DOCS:
        for m in re.finditer(r"\bcatembed(?:\.[A-Za-z_]\w*)+", path.read_text(encoding="utf-8")):
            found.add(m.group(0))
    return sorted(found)


def test_the_docs_name_many_public_paths():
    names = _documented()
    assert len(names) > 100 and "catembed.stats.ValueStatistics" in names


@pytest.mark.parametrize("name", sorted(catembed.__all__))
def test_every_root_name_imports(name):
    assert getattr(catembed, name) is not None


@pytest.mark.parametrize("name", OLD_PUBLIC + _documented())
def test_every_documented_name_imports(name):
    if name.startswith("catembed.deep"):
        pytest.importorskip("torch")
    assert _resolve(name) is not None


@pytest.mark.parametrize("old", ["streaming", "map2d", "profiles"])
def test_old_module_names_are_gone(old):
    # issue 57: the aliases of issue 43's moves were removed (the library was not released);
    # the current names are catembed.transform.streaming, catembed.plot.map2d and
    # catembed.report.cluster_profiles
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(f"catembed.{old}")
