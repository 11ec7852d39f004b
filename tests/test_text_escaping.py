"""User text stays text (issue 37, items 1 and 3): markup in a value cannot change the report
page, TeX-like text never reaches matplotlib's mathtext, and the rendering modules send every
user string through the one function of its target (:mod:`catembed._utils._text`)."""

from __future__ import annotations

import ast
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.text import Text  # noqa: E402

import catembed  # noqa: E402
from catembed import plot  # noqa: E402
from catembed._utils._text import html_text, plot_text, script_json  # noqa: E402

SRC = Path(catembed.__file__).resolve().parent

HOSTILE = ["<!--<script>", "</script>", "$\\frac{1}{$", "$x^$", "a\u2028b\u2029c", "&amp;",
           "$\\undefinedcmd$", "a\\$b", "<b>&lt;", "\\"]


@pytest.fixture
def hostile_table():
    """Hostile values and column names; 24 rows, every value held by a few rows."""
    a = [HOSTILE[i % 4] for i in range(24)]
    b = [HOSTILE[4 + (i * 3) % 6] for i in range(24)]
    c = ["p", "q", "r"] * 8
    return pd.DataFrame({"<!--<script>": a, "$x^$": b, "&amp;\u2028": c})


def _shown(t: Text) -> tuple[str, object]:
    """What matplotlib draws for a text artist and whether it reads it as math."""
    return t._preprocess_math(t.get_text())


def _check_no_math(fig) -> list[str]:
    fig.canvas.draw()  # mathtext raised here before the fix
    shown = []
    for t in fig.findobj(Text):
        text, math = _shown(t)
        assert math is False, t.get_text()
        shown.append(text)
    return shown


# --- the three functions -------------------------------------------------------------------


@pytest.mark.parametrize("s", HOSTILE + ["$", "$$", "\\$", "\\\\$x$", "plain"])
def test_plot_text_is_drawn_as_written(s):
    assert _shown(Text(0, 0, plot_text(s))) == (s, False)


def test_plot_text_leaves_ordinary_text_alone():
    assert plot_text("cluster 0: colour=red (12%)") == "cluster 0: colour=red (12%)"


def test_script_json_round_trips_and_cannot_close_the_block():
    obj = {"value": HOSTILE, "columns": {"</script>": 1}, "x": [0.5, -1]}
    text = script_json(obj)
    assert not set(text) & {"<", ">", "&", "\u2028", "\u2029"}
    assert json.loads(text) == obj
    assert script_json({"a": [1, "b"]}) == '{"a":[1,"b"]}'  # compact, as before


def test_html_text_escapes_markup_and_quotes():
    assert html_text("<!--<script>\"'&") == "&lt;!--&lt;script&gt;&quot;&#x27;&amp;"
    assert html_text(3) == "3"


# --- the report page -----------------------------------------------------------------------


class _Cells(HTMLParser):
    def __init__(self):
        super().__init__()
        self.cells, self._in = [], False

    def handle_starttag(self, tag, attrs):
        self._in = tag in ("td", "th")

    def handle_endtag(self, tag):
        self._in = False

    def handle_data(self, data):
        if self._in:
            self.cells.append(data)


def test_comment_and_script_in_a_value_leave_the_page_script_alone():
    # the reproducer: "<!--<script>" in the JSON block swallowed the page's script
    from catembed.report import build_report, render_html

    df = pd.DataFrame({"a": ["<!--<script>", "x", "y"] * 4, "b": ["p", "q"] * 6})
    page = render_html(build_report(df, quiet=True, consensus=False, n_clusters=2))
    block = re.search(r'id="vdata">(.*?)</script>', page, re.S).group(1)
    assert "<" not in block and "<!--<script>" in json.loads(block)["value"]
    assert len(re.findall(r"<script", page, re.I)) == 2


def test_report_page_keeps_hostile_text_as_text(hostile_table):
    from catembed.report import build_report, render_html
    from catembed.report._html import _JS

    data = build_report(hostile_table, name="<!--<script>$x^$", quiet=True, consensus=False,
                        n_clusters=3)
    page = render_html(data)
    # the page's two scripts and nothing else: the data block, then the page's own script
    assert len(re.findall(r"<script", page, re.I)) == 2
    assert "<!--" not in page
    assert page.endswith(f"<script>{_JS}</script></body></html>")
    block = re.search(r'<script type="application/json" id="vdata">(.*?)</script>', page,
                      re.S).group(1)
    assert not set(block) & {"<", ">", "&", "\u2028", "\u2029"}
    points = json.loads(block)
    assert points == data.value_points
    assert set(points["columns"]) == set(hostile_table.columns)
    assert set(points["value"]) == set(hostile_table.stack().unique())
    # the tables parse back to the original strings
    parser = _Cells()
    parser.feed(page)
    cells = set(parser.cells)
    prof = data.profiles
    assert set(prof["attribute"]) <= cells and set(prof["value"]) <= cells
    assert any("$" in v for v in prof["value"]) and any("<" in v for v in prof["value"])


def test_report_cli_writes_a_page_for_tex_like_text(tmp_path, capsys):
    from catembed.cli import main

    src = tmp_path / "tex.csv"
    pd.DataFrame({"$x^$": ["$\\undefinedcmd$", "$\\frac{1}{$", "y"] * 4,
                  "b": ["$x^$", "q"] * 6}).to_csv(src, index=False)
    out = tmp_path / "tex.html"
    assert main(["report", str(src), "-q", "--no-consensus", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert page.count("data:image/png") == 3 and "$\\frac{1}{$" in page


# --- the plots -----------------------------------------------------------------------------


def test_value_map_draws_hostile_text_as_text(hostile_table):
    model = catembed.CDE(random_state=0).fit(hostile_table)
    ax = plot.values(model)
    shown = _check_no_math(ax.figure)
    coords = model.value_coordinates_.index
    expected = {f"{a}={v}" for a, v in zip(coords.get_level_values(0),
                                           coords.get_level_values(1), strict=True)}
    labels = [_shown(t)[0] for t in ax.texts if t.get_gid() == "value-label"]
    assert labels and set(labels) <= expected
    assert any("$" in s for s in labels)
    legend = [_shown(t)[0] for t in ax.get_legend().get_texts()]
    assert legend == list(hostile_table.columns)
    assert set(legend) <= set(shown)
    plt.close("all")


def test_profiles_and_objects_draw_hostile_text_as_text(hostile_table):
    from catembed.stats._profiles import cluster_profiles

    groups = np.array(["$x^$", "$\\frac{1}{$", "<!--<script>"] * 8)
    ax = plot.profiles(hostile_table, groups, top=3, kind="class")
    _check_no_math(ax.figure)
    prof = cluster_profiles(hostile_table, groups, top=3)
    ticks = [_shown(t)[0] for t in ax.get_yticklabels()]
    assert ticks == [f"class {k}: {a}={v}" for k, a, v in
                     zip(prof["cluster"], prof["attribute"], prof["value"], strict=True)]
    model = catembed.OneHotEmbedder().fit(hostile_table)
    ax = plot.objects(model, hostile_table, groups, title="$x^$ objects")
    _check_no_math(ax.figure)
    assert sorted(_shown(t)[0] for t in ax.get_legend().get_texts()) == sorted(set(groups))
    assert _shown(ax.title)[0] == "$x^$ objects"
    plt.close("all")


# --- the standing guard: no rendering module bypasses catembed._utils._text --------------------

RENDERING = ["report/__init__.py", "report/_html.py", "plot/__init__.py", "plot/map2d.py",
             "stats/_profiles.py", "evaluation/studies/untie_maps.py"]
# f-string fields in HTML that hold no user text: the page's own CSS and script, the version,
# fragments already built from html_text, the script_json block, base64 PNG
SAFE_HTML_NAMES = {"_CSS", "_JS", "__version__", "head", "body", "legend", "payload", "png"}
# matplotlib calls that draw text: the method -> positions of its text arguments
TEXT_CALLS = {"set_title": (0,), "set_xlabel": (0,), "set_ylabel": (0,), "suptitle": (0,),
              "annotate": (0,), "text": (2,), "set_text": (0,), "set_xticks": (1,),
              "set_yticks": (1,), "set_xticklabels": (0,), "set_yticklabels": (0,),
              "legend": ()}
TEXT_KEYWORDS = {"label", "labels", "title"}
# text arguments that are made with plot_text a few lines above (plot.values' labels, and
# their abbreviations)
SAFE_PLOT_ARGS = {"texts[i]", "shorts[i]", "shorts[i] if spot.short else texts[i]"}


def _tree(name):
    return ast.parse((SRC / name).read_text(encoding="utf-8"))


def _is_call_to(node, *names):
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in names)


@pytest.mark.parametrize("name", RENDERING)
def test_no_direct_escaping_in_rendering_modules(name):
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            assert (node.value.id, node.attr) not in {("html", "escape"), ("json", "dumps")}, \
                f"{name}:{node.lineno}: use catembed._utils._text (html_text / script_json)"


def test_every_html_field_goes_through_html_text():
    bad = []
    for node in ast.walk(_tree("report/_html.py")):
        if not isinstance(node, ast.JoinedStr):
            continue
        literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        if "<" not in literal and ">" not in literal:
            continue  # not HTML
        for v in node.values:
            if not isinstance(v, ast.FormattedValue):
                continue
            e = v.value
            ok = (_is_call_to(e, "html_text", "script_json") or v.format_spec is not None
                  or (isinstance(e, ast.Name) and e.id in SAFE_HTML_NAMES)
                  or (isinstance(e, ast.IfExp) and isinstance(e.body, ast.Constant)
                      and isinstance(e.orelse, ast.Constant)))
            if not ok:
                bad.append(f"{node.lineno}: {ast.unparse(e)}")
    assert not bad, bad


@pytest.mark.parametrize("name", ["plot/__init__.py", "report/__init__.py",
                                  "evaluation/studies/untie_maps.py"])
def test_every_plot_text_goes_through_plot_text(name):
    def ok(arg):
        if isinstance(arg, ast.Constant) or _is_call_to(arg, "plot_text"):
            return True
        if isinstance(arg, (ast.ListComp, ast.GeneratorExp)):
            return _is_call_to(arg.elt, "plot_text")
        return ast.unparse(arg) in SAFE_PLOT_ARGS

    bad = []
    for node in ast.walk(_tree(name)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        method = node.func.attr
        args = [node.args[i] for i in TEXT_CALLS.get(method, ()) if i < len(node.args)]
        # "title" is text for matplotlib calls only (catembed.plot escapes its own title)
        keys = TEXT_KEYWORDS if method in TEXT_CALLS or method in {
            "scatter", "plot", "bar", "barh"} else {"label", "labels"}
        args += [k.value for k in node.keywords if k.arg in keys]
        bad += [f"{name}:{a.lineno}: {ast.unparse(a)}" for a in args if not ok(a)]
    assert not bad, bad
