"""Start-up (issue 55, item 2): what ``import catembed`` and ``catembed cluster`` import.

Each check runs in a fresh interpreter and reads ``sys.modules``; the timings are
``benchmarks/bench_startup.py``'s."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

HEAVY = ("sklearn", "scipy", "matplotlib", "torch", "dask", "pyarrow", "numba", "pandas",
         "numpy")


def _modules_after(code: str) -> list[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                          "print(json.dumps(sorted(sys.modules)))"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def _top(mods: list[str]) -> set[str]:
    return {m.split(".")[0] for m in mods}


def test_import_catembed_imports_no_heavy_library():
    mods = _modules_after("import catembed\ncatembed.__version__, catembed.METHOD_NAMES")
    assert not _top(mods) & set(HEAVY), sorted(_top(mods) & set(HEAVY))


@pytest.mark.parametrize("package", ["catembed.cluster", "catembed.embed", "catembed.stats"])
def test_importing_a_package_imports_none_of_its_methods(package):
    mods = _modules_after(f"import {package}")
    assert not {"sklearn", "matplotlib", "torch"} & _top(mods)


def test_the_consensus_imports_neither_the_survey_clusterers_nor_plotting(tmp_path):
    """``catembed cluster`` (k chosen) imports the consensus, its members and LCA, not
    k-modes, the similarity measures, the survey clusterers, matplotlib or PyTorch."""
    path = tmp_path / "t.csv"
    path.write_text("a,b,c\n" + "".join(f"{'xy'[i % 2]},{'uvw'[i % 3]},{'pq'[i % 5 > 1]}\n"
                                        for i in range(40)), encoding="utf-8")
    mods = _modules_after(
        "from catembed.cli import main\n"
        f"assert main(['cluster', {str(path)!r}, '-q', '-o', {str(tmp_path / 'o.csv')!r}]) "
        "== 0")
    assert "catembed.cluster.lca" in mods
    unwanted = {"matplotlib", "torch", "catembed.similarity", "catembed.cluster.kmodes",
                "catembed.cluster.ocl", "catembed.cluster.mgr", "catembed.cluster.lshkreps",
                "catembed.cluster.spectral", "catembed.deep"}
    assert not unwanted & (set(mods) | _top(mods)), sorted(unwanted & set(mods))


def test_the_lazy_cluster_package_gives_every_name():
    import catembed.cluster as cl

    for name in cl.__all__:
        assert getattr(cl, name) is not None
    assert set(cl.__all__) <= set(dir(cl))
    with pytest.raises(AttributeError):
        cl.NoSuchClusterer  # noqa: B018
