"""The report's interactive view in headless Chromium, offline (skipped without chromium)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

pytest.importorskip("matplotlib")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")


def _dom(page, fragment=""):
    """The DOM after the page's script ran (no network: a file URL, proxies off)."""
    out = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-proxy-server",
         "--virtual-time-budget=2000", "--dump-dom", page.as_uri() + fragment],
        capture_output=True, text=True, timeout=90, check=True)
    return out.stdout


@pytest.fixture(scope="module")
def zoo_page(tmp_path_factory):
    from catembed.datasets import load_dataset
    from catembed.report import build_report, write_report

    d = load_dataset("zoo")
    data = build_report(d.frame[d.categorical_columns], d.frame[d.target].to_numpy(),
                        name="zoo", methods=["cde", "onehot"], runs=2, quiet=True)
    path = tmp_path_factory.mktemp("report") / "zoo.html"
    write_report(data, path)
    return path, data


def test_value_map_points_and_hover(zoo_page):
    path, data = zoo_page
    dom = _dom(path, "#hover=0")
    assert 'data-script="ran"' in dom
    n = len(data.value_points["x"])
    assert dom.count('class="pt') == n  # every value is a point, built by the script
    assert f'data-points="{n}"' in dom
    first = f'{data.value_points["columns"][data.value_points["column"][0]]} = ' \
            f'{data.value_points["value"][0]}'
    tip = re.search(r'<div id="vtip"[^>]*>([^<]*)</div>', dom)
    assert tip and tip.group(1).startswith(first)  # the hover label shows
    assert 'display: block' in dom


def test_sortable_table_resorts(zoo_page):
    path, _ = zoo_page

    def lifts(dom):
        table = re.search(r'<table class="profiles sortable">.*?</table>', dom, re.S).group(0)
        return [float(x) for x in re.findall(r'<td class="num">([\d.]+)</td></tr>', table)]

    before = lifts(_dom(path))
    after = lifts(_dom(path, "#sort=profiles:6:desc"))
    assert sorted(before, reverse=True) == after != before
    assert 'data-dir="desc"' in _dom(path, "#sort=profiles:6:desc")


def test_mixed_table_report_in_browser(tmp_path):
    from pathlib import Path

    folder = Path("/work/shared/datasets/heart_cleveland")
    if not folder.exists():
        pytest.skip("heart_cleveland is not in /work/shared/datasets")
    from catembed.evaluation.inputs import load_features
    from catembed.report import build_report, write_report

    name, X, y = load_features(str(folder), None, "complete", numeric="discretize")
    data = build_report(X, y, name=name, methods=[], quiet=True)
    path = tmp_path / "heart.html"
    write_report(data, path)
    dom = _dom(path)
    assert dom.count('class="pt') == len(data.value_points["x"]) > 20
