"""Run every command and code block of ``docs/tutorial.md``, in order, so the docs cannot
drift.

``console`` blocks: each ``$ catembed ...`` line runs through :func:`catembed.cli.main`
in-process and must exit 0. ``python`` blocks run in one shared namespace. A block preceded
by ``<!-- tutorial: requires NAME -->`` runs only when ``NAME`` (a module, or a module
attribute such as ``catembed.transform_file``) exists; otherwise it is reported as skipped.
``text`` blocks are not run (installation), but one preceded by ``<!-- tutorial: prints -->``
is what the block before it prints: each of its lines (but ``...``) must appear, in order,
in that block's output, numbers within a small tolerance (timings not compared).
"""

from __future__ import annotations

import importlib
import re
import shlex
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")

from catembed.cli import main  # noqa: E402

TUTORIAL = Path(__file__).resolve().parents[1] / "docs" / "tutorial.md"
BLOCK = re.compile(r"(?:<!-- tutorial: (?:requires (?P<req>[\w.]+)|(?P<prints>prints)) -->\n)?"
                   r"```(?P<lang>\w+)\n(?P<body>.*?)```", re.S)
NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?")
TIMING = re.compile(r"\d+(?:\.\d+)? s(?=[,;])")


def _available(name: str) -> bool:
    """``catembed.attr``: the package has that attribute; anything else: a module name."""
    module, attr = name.rsplit(".", 1) if name.startswith("catembed.") else (name, "")
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return False
    return not attr or hasattr(mod, attr)


def blocks() -> list[tuple[str, str, str | None]]:
    """``(lang, body, requirement)``; a shown output has the language ``prints``."""
    return [("prints" if m["prints"] else m["lang"], m["body"], m["req"])
            for m in BLOCK.finditer(TUTORIAL.read_text(encoding="utf-8"))]


def _same_line(shown: str, printed: str) -> bool:
    """One shown line against one printed line: the same words, numbers within 0.05 + 1 %."""
    shown, printed = TIMING.sub("T s", shown.rstrip()), TIMING.sub("T s", printed.rstrip())
    if NUMBER.sub("#", shown) != NUMBER.sub("#", printed):
        return False
    pairs = zip(NUMBER.findall(shown), NUMBER.findall(printed), strict=True)
    return all(abs(float(a) - float(b)) <= 0.05 + 0.01 * abs(float(a)) for a, b in pairs)


def check_prints(shown: str, printed: str) -> str | None:
    """``None`` when every shown line (but ``...``) matches a printed line, in order."""
    lines = printed.splitlines()
    at = 0
    for want in shown.splitlines():
        if want.strip() in ("", "..."):
            continue
        hit = next((i for i in range(at, len(lines)) if _same_line(want, lines[i])), None)
        if hit is None:
            return f"shown line not printed: {want!r}\nprinted:\n{printed}"
        at = hit + 1
    return None


def test_check_prints_tolerates_timings_not_other_words():
    printed = "fit 1.26 s, total 1.47 s; 4 clusters\n[0.72 0.74]"
    assert check_prints("fit 9.9 s, total 12 s; 4 clusters\n...\n[0.72 0.75]", printed) is None
    assert check_prints("fit 1.26 s, total 1.47 s; 5 clusters", printed) is not None
    assert check_prints("[0.72 0.74]\nfit 1.26 s, total 1.47 s; 4 clusters", printed) is not None


def test_tutorial_has_runnable_blocks():
    langs = [b[0] for b in blocks()]
    assert langs.count("console") >= 4 and langs.count("python") >= 6


def test_tutorial_runs(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CATEMBED_DATA", raising=False)
    namespace: dict = {"__name__": "tutorial"}
    skipped = []
    output, checked = "", 0
    for i, (lang, body, req) in enumerate(blocks()):
        if req and not _available(req):
            skipped.append((i, req))
            continue
        if lang == "prints":
            problem = check_prints(body, output)
            assert problem is None, f"block {i}: {problem}"
            checked += 1
            continue
        capsys.readouterr()
        if lang == "console":
            for line in body.splitlines():
                if not line.startswith("$ "):
                    continue
                argv = shlex.split(line[2:])
                assert argv[0] == "catembed", line
                code = main(argv[1:])
                assert code == 0, f"block {i}: {line} exited {code}: {capsys.readouterr().err}"
        elif lang == "python":
            exec(compile(body, f"tutorial block {i}", "exec"), namespace)  # noqa: S102
        out = capsys.readouterr()
        output = out.out + out.err
    assert checked >= 4
    assert (tmp_path / "zoo_clusters.csv").exists()
    assert (tmp_path / "zoo_clusters.html").stat().st_size > 10_000
    assert (tmp_path / "zoo.html").stat().st_size > 10_000
    assert (tmp_path / "zoo_cde.csv").exists() and (tmp_path / "zoo.npz").exists()
    if skipped:
        import warnings

        warnings.warn(f"tutorial blocks skipped (requirement missing): {skipped}",
                      stacklevel=1)


def test_readme_usage_names_every_method():
    import catembed

    readme = (TUTORIAL.parents[1] / "README.md").read_text(encoding="utf-8")
    usage = readme[readme.index("`NAME` is one of"):][:300]
    assert all(f"`{m}`" in usage for m in catembed.METHODS), usage


def test_documented_registry_targets_exist():
    """The ``module:attribute`` targets the docs show in ``register_method`` examples."""
    from catembed.evaluation import methods

    docs = [TUTORIAL.parents[1] / "src" / "catembed" / "evaluation" / "tables" / "README.md"]
    text = "".join(p.read_text(encoding="utf-8") for p in docs) + (methods.__doc__ or "")
    targets = re.findall(r"=\"(catembed\.[\w.]+):(\w+)\"", text)
    assert len(targets) >= 3
    for module, attr in targets:
        assert hasattr(importlib.import_module(module), attr), f"{module}:{attr}"
