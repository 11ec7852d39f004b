"""Ship MathJax with the site, so that the equations are typeset without a network.

An MkDocs hook (``hooks:`` in ``mkdocs.yml``). MathJax 3 comes from a package registry at
install time: the ``docs`` extra installs ``django-static-mathjax``, a wheel that holds
MathJax's browser build and depends on nothing (Django is not needed to read its files).
When the site is built, the files the pages use are added to it under ``assets/mathjax/``:
``tex-mml-chtml.js`` (``extra_javascript`` loads it), the CommonHTML fonts, the TeX input
extensions and the menu's components that it loads on demand. Nothing is committed to
``docs/``, and the pages name no outside address.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

#: the distribution that holds MathJax, and where its browser build lies in it
DISTRIBUTION = "django-static-mathjax"
ES5 = "mathjax/static/mathjax/es5"
#: the site folder that receives it (``extra_javascript`` names ENTRY under it)
TARGET = "assets/mathjax"
ENTRY = "tex-mml-chtml.js"
#: the folders of es5/ that ENTRY loads from (fonts, \require'd TeX extensions, the menu's
#: accessibility components); the speech engine (sre/, 4 MB) and the SVG output are left out
FOLDERS = ("input", "output/chtml", "ui", "a11y", "adaptors")


def mathjax_root() -> Path:
    """The folder of MathJax's browser build (``es5/``) in the installed distribution."""
    from mkdocs.exceptions import PluginError

    try:
        root = Path(str(metadata.distribution(DISTRIBUTION).locate_file(ES5)))
    except metadata.PackageNotFoundError:
        root = None
    if root is None or not (root / ENTRY).is_file():
        raise PluginError(f"MathJax is not installed ({DISTRIBUTION}): "
                          'pip install -e ".[docs]"')
    return root


def asset_files(root: Path) -> list[Path]:
    """The files of ``root`` the site ships, relative to ``root``, sorted."""
    out = [Path(ENTRY)]
    for folder in FOLDERS:
        out += sorted(p.relative_to(root) for p in (root / folder).rglob("*")
                      if p.is_file() and p.name != "sre.js")
    return out


def on_files(files, config):  # MkDocs hook
    from mkdocs.structure.files import File

    root = mathjax_root()
    for rel in asset_files(root):
        files.append(File.generated(config, f"{TARGET}/{rel.as_posix()}",
                                    abs_src_path=str(root / rel)))
    return files
