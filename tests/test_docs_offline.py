"""The documentation site renders with no network: three pages in headless Chromium, offline.

The site is built once for the module (``mkdocs build --strict`` into a temporary folder,
about 20-40 s), or taken from ``$CATEMBED_DOCS_SITE`` when CI has built it already. Skipped
without Chromium, and without MkDocs unless ``$CATEMBED_DOCS_SITE`` names a built site.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
BUILT = os.environ.get("CATEMBED_DOCS_SITE")

pytestmark = [
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed"),
    pytest.mark.skipif(not BUILT and importlib.util.find_spec("mkdocs") is None,
                       reason='mkdocs is not installed (pip install -e ".[docs]")'),
]

#: what the browser may not reach: every host name resolves to nothing, and any proxied
#: request goes to a closed port
OFFLINE = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    if BUILT:
        return Path(BUILT)
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                          str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    return out


def _dom(page: Path) -> str:
    """The page's DOM once its scripts ran, in headless Chromium with no network."""
    assert page.is_file(), page
    out = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", *OFFLINE,
         "--virtual-time-budget=5000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True)
    return out.stdout


def _loads_nothing_from_outside(html: str) -> None:
    """No script, stylesheet, font or image of the page comes from another host."""
    outside = re.findall(r'<(?:script|link|img)\b[^>]*\b(?:src|href)="((?:https?:)?//[^"]+)"',
                         html)
    assert outside == []


def test_method_page_equations_are_typeset_offline(site):
    page = site / "methods" / "cde" / "index.html"
    html = page.read_text(encoding="utf-8")
    _loads_nothing_from_outside(html)
    n_math = html.count('class="arithmatex"')
    assert n_math >= 10  # the page's equations, as pymdownx.arithmatex writes them
    assert (site / "assets" / "mathjax" / "tex-mml-chtml.js").is_file()
    dom = _dom(page)
    blocks = re.findall(r'<(span|div) class="arithmatex">(.*?)</\1>', dom, re.S)
    assert len(blocks) == n_math
    # each one typeset by MathJax (CommonHTML output), none left as TeX, none in error
    assert all("<mjx-container" in body for _, body in blocks)
    assert not any(re.search(r"\\[(\[]", body.split("<mjx-assistive-mml")[0])
                   for _, body in blocks)
    assert "<mjx-merror" not in dom
    assert 'mjx-c' in dom  # glyphs drawn by MathJax's own fonts


def test_api_page_roles_are_links_not_markup(site):
    page = site / "api" / "cluster" / "index.html"
    html = page.read_text(encoding="utf-8")
    _loads_nothing_from_outside(html)
    assert not re.search(r":(?:func|class|meth|attr|mod|data):", html)
    assert "&lt;autoref" not in html
    # KPrototypes' ":class:`KModes`" is a link to the KModes section of the same page
    assert re.search(r'<a class="autorefs autorefs-internal"[^>]*'
                     r'href="#catembed\.cluster\.kmodes\.KModes"[^>]*>\s*<code>KModes</code>',
                     html)
    # on a parameter's type line, shown as code, the role is the bare name
    assert "as in KModes" in html
    dom = _dom(page)
    assert 'id="catembed.cluster.kmodes.KModes"' in dom


def test_gallery_page_figures_are_in_the_site(site):
    page = site / "gallery" / "index.html"
    html = page.read_text(encoding="utf-8")
    _loads_nothing_from_outside(html)
    images = re.findall(r'<img [^>]*src="([^"]+\.png)"', _dom(page))
    assert len(images) == 6
    assert all((page.parent / src).resolve().is_file() for src in images)
