"""The house (issue 19): imports flow one way, from a higher layer of docs/design.md's table to
a lower one, with no import circles and no module over 500 lines. Imports inside functions
count too (they are read as text, nothing is imported)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "src" / "catembed"

#: docs/design.md, "Layers": a package or module below ``catembed`` -> its layer; the longest
#: dotted prefix of a module's name decides (``stats._pooling`` is 2, the rest of ``stats`` 1)
LAYERS = {
    "_utils": 0, "_version": 0, "io": 0,
    "stats": 1, "metrics": 1,
    "stats._numeric": 2, "stats._pooling": 2, "transform": 2, "plot.map2d": 2,
    "stats._profiles": 2, "datasets": 2,
    "base": 3, "persist": 3, "transform._saved_lookup": 3, "transform.streaming": 3,
    "embed": 4, "similarity": 4, "cluster": 4,
    "cluster.consensus": 5, "deep": 5,
    "evaluation": 6,
    "plot": 7,
    "report": 8,
    "cli": 9, "__main__": 9,
}

#: the package root: at most this many modules besides the subpackages (issue 43)
MAX_ROOT_MODULES = 12

#: issue 57: cluster/'s top level holds the classical clusterers and their helpers; the
#: default clusterer and every part only it uses are in cluster/consensus/
CLUSTER_TOP = {
    "__init__", "_coded", "_dask_fit", "_distributed", "_kmodes_core", "_kmodes_init",
    "_lca_core", "_lca_em", "_ocl_passes", "embedding_labels", "kmodes", "kprototypes", "lca",
    "lshkreps", "mgr", "mixed", "ocl", "spectral",
}


def _is_facade(path: Path) -> bool:
    """A package ``__init__`` that only re-exports (imports, ``__all__``, a lazy
    ``__getattr__``/``__dir__``): not a step. An ``__init__`` that holds the package's own
    code (``stats``, ``persist``, ``plot``, ``report``, ``cli``) is a module like any other."""
    if path.name != "__init__.py":
        return False
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return not any(isinstance(n, ast.FunctionDef | ast.ClassDef)
                   and n.name not in {"__getattr__", "__dir__"} for n in tree.body)


def _modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT.parent).with_suffix("").parts
        out[".".join(parts[:-1] if p.name == "__init__.py" else parts)] = p
    return out


def _imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        if _is_facade(p):  # package facades re-export; they are not a step
            continue
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(parts + ([node.module] if node.module else []))
                names = [base] + [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for n in names:
                if n in mods and n != m and not _is_facade(mods[n]):
                    graph[m].add(n)
    return graph


def _layer(module: str) -> int:
    parts = module.split(".")[1:]
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in LAYERS:
            return LAYERS[".".join(parts[:i])]
    raise KeyError(module)


def test_every_module_has_a_layer():
    missing = sorted({m.split(".")[1] for m in _modules() if "." in m} - set(LAYERS))
    assert not missing, f"add these to LAYERS and docs/design.md's layer table: {missing}"


def test_the_package_root_holds_few_modules():
    root = sorted(p.name for p in ROOT.glob("*.py"))
    assert len(root) <= MAX_ROOT_MODULES, root


def test_no_import_from_a_lower_layer_to_a_higher_one():
    graph = _imports(_modules())
    upward = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps
                    if _layer(d) > _layer(m))
    assert not upward, upward


def test_no_import_circles():
    graph = _imports(_modules())
    seen: dict[str, int] = {}  # 1 on the stack, 2 done

    def visit(m: str, path: list[str]) -> None:
        seen[m] = 1
        for d in graph[m]:
            if seen.get(d) == 1:
                pytest.fail("import circle: " + " -> ".join(path[path.index(d):] + [d]))
            if d not in seen:
                visit(d, path + [d])
        seen[m] = 2

    for m in graph:
        if m not in seen:
            visit(m, [m])


def test_no_module_over_500_lines():
    long = {str(p.relative_to(ROOT)): n for p in ROOT.rglob("*.py")
            if (n := p.read_text(encoding="utf-8").count("\n")) > 500}
    assert not long, long


def test_methods_are_imported_from_their_registry_not_the_package_root():
    pattern = re.compile(r"from (\.+|catembed) import [^\n]*\bMETHODS\b")
    offenders = sorted(str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py")
                       if p.name != "__init__.py" and pattern.search(p.read_text("utf-8")))
    assert not offenders, offenders


def test_only_report_and_cli_import_from_report():
    # issue 57: the cluster profiles live in stats/ (stats._profiles), below cluster and plot
    graph = _imports(_modules())
    outside = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps
                     if d.startswith("catembed.report") and not m.startswith(
                         ("catembed.report", "catembed.cli", "catembed.__main__")))
    assert not outside, outside


def test_cluster_top_level_holds_the_classical_clusterers_and_one_subpackage():
    top = {p.stem for p in (ROOT / "cluster").glob("*.py")}
    assert top == CLUSTER_TOP, sorted(top ^ CLUSTER_TOP)
    subpackages = sorted(p.name for p in (ROOT / "cluster").iterdir()
                         if p.is_dir() and (p / "__init__.py").exists())
    assert subpackages == ["consensus"]


def test_classical_clusterers_do_not_import_the_default_clusterer():
    graph = _imports(_modules())
    room = "catembed.cluster.consensus"
    upward = sorted(f"{m} -> {d}" for m, deps in graph.items() for d in deps
                    if m.startswith("catembed.cluster.") and not m.startswith(room)
                    and d.startswith(room))
    assert not upward, upward
