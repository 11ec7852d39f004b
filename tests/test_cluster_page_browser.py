"""``catembed cluster TABLE --report page.html`` in headless Chromium, offline (issue 54 item
2; skipped without chromium): no console message, no network request from the page, the
page's sections built and its profile table sortable."""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

pytest.importorskip("matplotlib")

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")

SECTIONS = ["Clusters", "How k was decided", "How far to trust it", "Map of the rows",
            "Profiles: what each cluster holds"]


def _open(page, tmp_path, fragment=""):
    """The DOM after the page's script ran, the browser's console lines, and the URLs the
    page asked the network for (Chromium's net log: the requests whose network isolation
    key is the file:// page; the browser's own service requests are not the page's)."""
    net = tmp_path / "net.json"
    out = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-proxy-server",
         "--enable-logging=stderr", "--v=0", f"--log-net-log={net}",
         "--virtual-time-budget=2000", "--dump-dom", page.as_uri() + fragment],
        capture_output=True, text=True, timeout=90, check=True)
    console = [line for line in out.stderr.splitlines() if ":CONSOLE" in line]
    events = json.loads(net.read_text(encoding="utf-8"))["events"]
    pages = {e["source"]["id"] for e in events
             if str(e.get("params", {}).get("network_isolation_key", "")).startswith("file:")}
    asked = {e["params"]["url"] for e in events
             if e["source"]["id"] in pages and "url" in e.get("params", {})}
    return out.stdout, console, sorted(u for u in asked if not u.startswith(("file:", "data:")))


@pytest.fixture(scope="module")
def zoo_page(tmp_path_factory):
    from catembed.cli import main

    folder = tmp_path_factory.mktemp("page")
    path = folder / "zoo.html"
    assert main(["cluster", "zoo", "--report", str(path), "-o", str(folder / "labels.csv"),
                 "-q", "--members", "mca,idf,onehot"]) == 0
    return path


def test_page_offline_without_console_messages(zoo_page, tmp_path):
    dom, console, asked = _open(zoo_page, tmp_path)
    assert 'data-script="ran"' in dom  # the script ran to its end
    assert console == []  # not one console line, errors included
    assert asked == []  # nothing asked of the network
    html = zoo_page.read_text(encoding="utf-8")
    assert not re.search(r'(?:src|href)="(?!data:|#)', html)  # every resource inline
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in dom
    assert dom.count("<img class=\"figure\"") == 2  # the BIC per k and the map
    assert "borderline" in dom and "centroid silhouette" in dom  # the overlap in words
    assert "Against the target 'type'" in dom  # the bundled set's class, not fitted


def test_profile_table_sorts_in_the_browser(zoo_page, tmp_path):
    def vtests(dom):
        table = re.search(r'<table class="profiles sortable">.*?</table>', dom, re.S).group(0)
        return [float(v) for v in re.findall(r'<td class="num">([+-][\d.]+)</td>', table)]

    before = vtests(_open(zoo_page, tmp_path)[0])
    dom = _open(zoo_page, tmp_path, "#sort=profiles:5:desc")[0]
    after = vtests(dom)
    assert len(after) > 20 and after == sorted(before, reverse=True) != before
    assert 'data-dir="desc"' in dom


def test_mixed_table_page_in_the_browser(tmp_path):
    """A table of numbers and categories: the numbers' table is there, nothing asked."""
    import numpy as np
    import pandas as pd

    from catembed.cli import main

    rng = np.random.default_rng(0)
    g = rng.integers(0, 3, 240)
    pd.DataFrame({"colour": np.array(["red", "green", "<b>blue</b>"])[g],
                  "shape": np.array(["a", "b", "c"])[np.where(rng.random(240) < .2, 0, g)],
                  "weight": np.round(g * 5 + rng.normal(0, 1, 240), 3)}).to_csv(
        tmp_path / "mixed.csv", index=False)
    page = tmp_path / "mixed.html"
    assert main(["cluster", str(tmp_path / "mixed.csv"), "-k", "3", "--report", str(page),
                 "-o", str(tmp_path / "labels.csv"), "-q", "--members", "mca,idf"]) == 0
    dom, console, asked = _open(page, tmp_path)
    assert console == [] and asked == []
    assert '<table class="numbers sortable">' in dom and ">weight<" in dom
    assert "<b>blue</b>" not in dom and "&lt;b&gt;blue&lt;/b&gt;" in dom  # escaped


def test_cluster_filter_in_the_browser(zoo_page, tmp_path):
    dom = _open(zoo_page, tmp_path, "#show=2")[0]
    assert 'data-filter="ran"' in dom
    table = re.search(r'<table class="profiles sortable">.*?<tbody>(.*?)</tbody>', dom,
                      re.S).group(1)
    rows = re.findall(r'<tr( style="display: none;")?><td[^>]*><span[^>]*></span>(\d+)</td>',
                      table)
    shown = {c for hidden, c in rows if not hidden}
    assert len(rows) > 20 and shown == {"2"}
    assert {c for hidden, c in rows if hidden} == {"0", "1", "3"}
