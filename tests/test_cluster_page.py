"""The cluster page's figures and HTML without a browser (issue 54 item 2): the overlap
figures against a direct computation, the page's sections, escaping, ``--report``'s
refusals and its atomic write."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("matplotlib")

from catembed.cli import main  # noqa: E402
from catembed.report._cluster_figures import NEAR, overlap  # noqa: E402


def test_overlap_equals_a_direct_computation():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(500, 4))
    C = rng.normal(size=(3, 4))
    d = np.sqrt(((Z[:, None, :] - C[None, :, :]) ** 2).sum(axis=2))  # n x k: fine in a test
    lab = rng.integers(0, 3, 500)  # not the nearest centre: negative silhouettes occur
    a = d[np.arange(500), lab]
    d[np.arange(500), lab] = np.inf
    b = d.min(axis=1)
    sil = (b - a) / np.maximum(a, b)
    got = overlap(Z, C, lab, chunk=97)  # several chunks
    assert got["silhouette"] == pytest.approx(sil.mean(), abs=1e-9)
    assert got["borderline"] == pytest.approx(np.mean(a >= NEAR * b), abs=1e-12)
    for c in range(3):
        assert got["cluster_silhouette"][c] == pytest.approx(sil[lab == c].mean(), abs=1e-9)
        mine = (lab == c) & (a >= NEAR * b)
        assert got["towards"][c] == np.bincount(d[mine].argmin(axis=1), minlength=3).argmax()


def test_overlap_of_one_cluster_is_none():
    got = overlap(np.zeros((5, 2)), np.zeros((1, 2)), np.zeros(5, dtype=int))
    assert got["borderline"] is None and got["silhouette"] is None


def _table(tmp_path):
    rng = np.random.default_rng(3)
    g = rng.integers(0, 3, 150)
    df = pd.DataFrame({
        "who": [f"<i>row{i}</i>" for i in range(150)],
        "colour": np.array(["red", "green", "<script>alert(1)</script>"])[g],
        "shape": np.array(["a", "b", "c"])[np.where(rng.random(150) < .15, 1, g)],
        "size": np.array(["s", "m", "l"])[np.where(rng.random(150) < .15, 2, g)]})
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path


def test_page_sections_and_escaping(tmp_path, capsys):
    path = _table(tmp_path)
    page = tmp_path / "p.html"
    assert main(["cluster", str(path), "-k", "3", "--id", "who", "--members", "mca,idf",
                 "--report", str(page), "-o", str(tmp_path / "l.csv")]) == 0
    assert f"and {page}" in capsys.readouterr().out  # the summary's "wrote ... and p.html"
    html = page.read_text(encoding="utf-8")
    for title in ("Clusters", "How k was decided", "How far to trust it", "Map of the rows",
                  "Profiles: what each cluster holds"):
        assert f"<h2>{title}</h2>" in html
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<i>row" not in html and "&lt;i&gt;row" in html  # the paragons by their id
    assert "k = 3 was given (-k)" in html  # the command line's spelling
    assert html.count("data:image/png;base64,") == 1  # the map (no BIC plot at k given)
    assert list(tmp_path.glob("*.tmp*")) == [] and len(list(tmp_path.iterdir())) == 3


def test_page_of_k_chosen_shows_the_criterion_and_stability(tmp_path):
    page = tmp_path / "zoo.html"
    assert main(["cluster", "zoo", "--members", "mca,idf", "-q", "--report", str(page),
                 "-o", str(tmp_path / "l.csv")]) == 0
    html = page.read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") == 2  # the BIC per k and the map
    assert "lowest latent class BIC" in html and "<th>stability</th>" in html
    assert any(s in html for s in (">stable<", ">doubtful<", ">dissolved<"))


def test_page_carries_the_warnings_of_the_answer(tmp_path, capsys):
    # no groups at k = 3 given: the page says what the command line says, in its spelling
    import html as html_lib
    import re

    rng = np.random.default_rng(5)
    path = tmp_path / "flat.csv"
    pd.DataFrame(rng.integers(0, 3, (300, 5)).astype(str),
                 columns=[f"c{j}" for j in range(5)]).to_csv(path, index=False)
    page = tmp_path / "flat.html"
    assert main(["cluster", str(path), "-k", "3", "--members", "mca,idf", "--report",
                 str(page), "-o", str(tmp_path / "l.csv")]) == 0
    said = capsys.readouterr().err
    html = page.read_text(encoding="utf-8")
    shown = [html_lib.unescape(m) for m in re.findall(r'<p class="warn">(.*?)</p>', html)]
    assert f"<h2>Warnings ({len(shown)})</h2>" in html
    assert any(m.startswith("no evidence of groups") for m in shown)
    assert all(f"catembed: warning: {m}" in said for m in shown)
    assert any("-k auto" in m for m in shown)  # the command line's spelling
    # a table with clear groups and stable clusters: no such section
    page = tmp_path / "soy.html"
    assert main(["cluster", "soybean_small", "-k", "4", "--members", "mca,onehot", "-q",
                 "--report", str(page), "-o", str(tmp_path / "l.csv")]) == 0
    assert "<h2>Warnings" not in page.read_text(encoding="utf-8")


def test_page_of_a_loaded_model_and_of_one_without_diagnostics(tmp_path):
    import warnings

    from catembed import CatEmbedError, load
    from catembed.cluster import Consensus
    from catembed.report import write_cluster_page

    X = pd.read_csv(_table(tmp_path)).drop(columns=["who"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Consensus(3, members=["mca", "idf"], random_state=0).fit(X)
    model.save(tmp_path / "m.npz")
    loaded = load(tmp_path / "m.npz")  # keeps diagnostics_: the page, its warnings
    write_cluster_page(model, X, tmp_path / "fit.html")
    write_cluster_page(loaded, X, tmp_path / "loaded.html")
    pages = [(tmp_path / f).read_text(encoding="utf-8") for f in ("fit.html", "loaded.html")]
    for page in pages:
        assert "<h2>Clusters</h2>" in page and "How far to trust it" in page
    assert [p.count('class="warn"') for p in pages] == [pages[0].count('class="warn"')] * 2
    # the same clusters table (sizes, stability, what each is, paragons)
    tables = [re.search(r'<table class="clusters.*?</table>', p, re.S).group(0) for p in pages]
    assert tables[0] == tables[1]
    del loaded.diagnostics_  # as a file saved by an older catembed loads
    with pytest.raises(CatEmbedError, match="which this model does not have"):
        write_cluster_page(loaded, X, tmp_path / "old.html")
    assert not (tmp_path / "old.html").exists()


@pytest.mark.parametrize("argv, message", [
    (["--report", "{d}/p.txt"], "--report must end in .html, .htm"),
    (["--report", "{d}/p.html", "-o", "{d}/p.html"], "--output must end in"),
    (["--report", "{d}/p.html", "--profiles", "{d}/p.html"], "must end in .csv"),
    (["--report", "{d}/missing/p.html"], "does not exist"),
])
def test_report_refusals(tmp_path, capsys, argv, message):
    path = _table(tmp_path)
    code = main(["cluster", str(path), "-k", "2", *[a.format(d=tmp_path) for a in argv]])
    assert code != 0
    assert message in capsys.readouterr().err
    assert not (tmp_path / "p.html").exists()
