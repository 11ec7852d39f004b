"""``catembed report`` and :func:`catembed.report.cluster_profiles`."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from catembed.cli import main  # noqa: E402
from catembed.report import build_report, cluster_profiles, render_html  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")


def test_cluster_profiles_hand_computed():
    # cluster 0: rows 0-2 (a=x, x, y); cluster 1: rows 3-5 (a=y, y, y)
    df = pd.DataFrame({"a": list("xxyyyy"), "b": ["u", "v", "u", "v", "v", None]})
    prof = cluster_profiles(df, [0, 0, 0, 1, 1, 1], top=2, min_support=0.0)
    first = prof[prof["cluster"] == 0].iloc[0]
    # P(a=x | c0) = 2/3, P(a=x) = 2/6 -> lift 2
    assert (first["attribute"], first["value"]) == ("a", "x")
    assert first["in_cluster"] == pytest.approx(2 / 3) and first["lift"] == pytest.approx(2)
    c1 = prof[prof["cluster"] == 1]
    # P(a=y | c1) = 1, P(a=y) = 4/6 -> 1.5; P(b=(missing) | c1) = 1/3, P = 1/6 -> 2
    assert list(zip(c1["value"], c1["lift"].round(6), strict=True)) == [("(missing)", 2.0),
                                                                         ("y", 1.5)]
    assert (prof.groupby("cluster").size() == 2).all()
    # min_support drops values held by too few of the cluster
    assert "(missing)" not in set(cluster_profiles(df, [0, 0, 0, 1, 1, 1],
                                                   min_support=0.5)["value"])


def test_build_report_is_self_contained(capsys):
    from catembed.datasets import load_dataset

    data = load_dataset("soybean_small", preset="categorical")
    rep = build_report(data.features, data.labels.to_numpy(), name="soybean_small",
                       methods=["onehot", "idf"], runs=2, quiet=True)
    assert rep.summary["rows"] == 47 and rep.summary["clusters (k-means)"] == 4
    assert rep.summary["values"] == 58 and rep.summary["classes"] == 4
    assert [r["method"] for r in rep.comparison] == ["onehot", "idf"]
    assert set(rep.figures) == {"Value map", "Object map", "Cluster profiles",
                                "Methods side by side"}
    page = render_html(rep)
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # nothing fetched from a network
    pngs = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert len(pngs) == 4
    assert all(base64.b64decode(p)[:8] == b"\x89PNG\r\n\x1a\n" for p in pngs)
    # the paper's figure for the same set (CDE Table 1 lists Soybean small)
    assert "cde-1" in page


def test_report_cli_without_target(tmp_path, capsys):
    out = tmp_path / "lenses.html"
    assert main(["report", "lenses", "--no-target", "--clusters", "3", "-q", "-o",
                 str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert "Methods side by side" not in page and page.count("data:image/png") == 3
    assert not list(tmp_path.glob(".*.tmp"))
    assert main(["report", "lenses", "-o", str(tmp_path / "no" / "r.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


def _colourful_share(png: Path) -> float:
    """Share of screenshot pixels that are neither white-ish nor grey (drawn colour)."""
    from matplotlib.image import imread

    img = imread(png)[..., :3]
    spread = img.max(axis=2) - img.min(axis=2)
    return float((spread > 0.15).mean())


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Chromium not installed "
                    "(Debian: apt-get install chromium)")
def test_report_renders_in_headless_chromium(tmp_path):
    from catembed.datasets import load_dataset

    data = load_dataset("zoo", preset="categorical")
    rep = build_report(data.features, data.labels.to_numpy(), name="zoo",
                       methods=["onehot"], runs=1, quiet=True)
    page = tmp_path / "zoo.html"
    page.write_text(render_html(rep), encoding="utf-8")
    shot = tmp_path / "zoo.png"
    profile = tmp_path / "profile"
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           f"--user-data-dir={profile}", "--window-size=1200,3600",
           f"--screenshot={shot}", page.as_uri()]
    subprocess.run(cmd, check=True, capture_output=True, timeout=120)
    assert shot.exists()
    # the figures drew: coloured plot pixels fill a real part of the page
    assert _colourful_share(shot) > 0.01
    # every image decoded: the DOM after load reports their natural sizes
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace(
        "</body>", "<script>window.onload=()=>{document.title=[...document.images]"
        ".map(i=>i.complete&&i.naturalWidth>100?1:0).join('')}</script></body>"),
        encoding="utf-8")
    dom = subprocess.run([str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu",
                          f"--user-data-dir={profile}", "--virtual-time-budget=5000",
                          "--dump-dom", probe.as_uri()],
                         check=True, capture_output=True, text=True, timeout=120).stdout
    assert re.search(r"<title>1111</title>", dom), dom[:300]
    shutil.rmtree(profile, ignore_errors=True)


def test_plain_csv_report_reads_codes_as_categories(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.integers(1, 4, size=(40, 3)), columns=["p", "q", "r"])
    frame["y"] = rng.integers(0, 2, 40)
    csv = tmp_path / "coded.csv"
    frame.to_csv(csv, index=False)
    out = tmp_path / "coded.html"
    assert main(["report", str(csv), "--target", "y", "--methods", "onehot", "--runs", "1",
                 "-q", "-o", str(out)]) == 0
    text = re.sub(r"<[^>]+>", " ", out.read_text(encoding="utf-8"))
    assert re.search(r"attributes\s+3\s", text) and re.search(r"values\s+9\s", text)


def test_report_consensus_section():
    from catembed.datasets import load_dataset
    from catembed.report import consensus_summary

    data = load_dataset("soybean_small", preset="categorical")
    # n_clusters given: the consensus' k too (without it, k is chosen without labels, as
    # catembed cluster chooses it: tests/test_one_rule.py)
    rep = build_report(data.features, data.labels.to_numpy(), name="soybean_small",
                       methods=[], quiet=True, n_clusters=4)
    c = rep.consensus
    assert c["k"] == 4 and [m["member"] for m in c["members"]] == [
        "cde", "mca", "lcme", "idf", "onehot"]
    assert abs(sum(m["weight"] for m in c["members"]) - 1.0) < 1e-9
    assert all(0.0 <= m["stability"] <= 1.0 for m in c["members"])
    assert sum(c["sizes"]) == 47 and c["ari_target"] == 1.0  # soybean_small's 4 classes
    page = render_html(rep)
    assert "Label-free consensus (k = 4)" in page and "<table class=\"consensus" in page
    assert "ARI with the classes 1.000" in page
    assert c["warnings"] == [] and 'class="warn"' not in page  # four stable clusters
    # a table without groups at k = 3: the answer's warnings, in the Python spelling
    rng = np.random.default_rng(5)
    flat = pd.DataFrame(rng.integers(0, 3, (300, 5)).astype(str),
                        columns=[f"c{j}" for j in range(5)])
    c = consensus_summary(flat, 3, 0)
    assert any(m.startswith("no evidence of groups") for m in c["warnings"])
    assert any("n_clusters='auto'" in m for m in c["warnings"])
    # a table Consensus refuses: a note, not a failure
    one_row_kind = data.features.iloc[:, :1].assign(**{data.features.columns[0]: "a"})
    assert "error" in consensus_summary(one_row_kind, 3, 0)
    assert "consensus" not in build_report(data.features, name="s", methods=[], quiet=True,
                                           consensus=False).timings
