"""Packaging metadata: what a plain ``pip install catembed`` brings."""

import re
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _names(requirements):
    return {re.split(r"[\s\[<>=!~;]", req, maxsplit=1)[0].lower() for req in requirements}


def test_matplotlib_is_a_core_dependency():
    # `catembed report` and `catembed cluster --report` draw with matplotlib: the README's
    # first command (`pip install -e . && catembed cluster ...`) must be enough to run them.
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


def test_wheel_check_runs_the_readme_quick_start():
    """The quick start's first command (after the install) is what .ci/wheel_check.sh runs
    from the wheel, word for word, and it is the main job: ``catembed cluster``."""
    root = PYPROJECT.parent
    readme = (root / "README.md").read_text(encoding="utf-8")
    start = readme.index("<!-- --8<-- [start:quickstart] -->")
    first = re.search(r"```bash\n(.*?)\n```", readme[start:], re.S).group(1)
    install, command = first.split(" && ", 1)
    assert install == "pip install -e ."
    assert command.startswith("catembed cluster ")
    script = (root / ".ci" / "wheel_check.sh").read_text(encoding="utf-8")
    assert command in script.splitlines()
