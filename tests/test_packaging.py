"""Packaging metadata: what a plain ``pip install catembed`` brings."""

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _names(requirements):
    return {re.split(r"[\s\[<>=!~;]", req, maxsplit=1)[0].lower() for req in requirements}


def test_matplotlib_is_a_core_dependency():
    # `catembed report` draws with matplotlib: the README's first command
    # (`pip install -e . && catembed embed ...`) must be enough to run it.
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    assert "matplotlib" in _names(project["dependencies"])
    # the old install line "catembed[plot]" keeps working
    assert "matplotlib" in _names(project["optional-dependencies"]["plot"])


def test_version_comes_from_one_place():
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    assert "version" in config["project"]["dynamic"]
    assert "version" not in config["project"]
    attr = config["tool"]["setuptools"]["dynamic"]["version"]["attr"]
    assert attr == "catembed._version.__version__"
