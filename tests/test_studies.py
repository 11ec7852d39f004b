"""The papers' studies (:mod:`catembed.evaluation.studies`) and ``bench --study``."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.distance import cdist

pytest.importorskip("matplotlib")

from catembed.cli import main  # noqa: E402
from catembed.datasets import BUNDLED_DIR  # noqa: E402
from catembed.evaluation.studies import (  # noqa: E402
    STUDIES,
    epsilon_gamma_curve,
    inter_heterogeneity,
    intra_heterogeneity,
    run_study,
)


def test_intra_heterogeneity_extremes():
    y = np.array([0, 0, 1, 1])
    pure = pd.DataFrame({"a": ["x", "x", "y", "y"]})       # each value in one class
    even = pd.DataFrame({"a": ["x", "y", "x", "y"]})       # each value half and half
    assert intra_heterogeneity(pure, y) == pytest.approx(1.0)
    assert intra_heterogeneity(even, y) == pytest.approx(0.0)
    # mean over the attributes
    assert intra_heterogeneity(pd.concat([pure, even.rename(columns={"a": "b"})], axis=1),
                               y) == pytest.approx(0.5)


def test_inter_heterogeneity_matches_the_formula():
    df = pd.DataFrame({"a": list("xxyyz"), "b": list("uvuvv"), "c": list("ppqqq")})
    got = inter_heterogeneity(df)
    # oracle: Eq. 25 by loops, couplings = [p(v)] and p(v | u) per other attribute
    n = len(df)
    per = []
    for z in df.columns:
        vals = sorted(df[z].unique())
        reps = [np.array([[np.mean(df[z] == v)] for v in vals])]
        for o in df.columns.drop(z):
            us = sorted(df[o].unique())
            reps.append(np.array([[np.mean(df[z][df[o] == u] == v) for u in us]
                                  for v in vals]))
        mats = [cdist(r, r) for r in reps]
        s = sum(((a - b) ** 2).sum() / len(vals) ** 2 for a in mats for b in mats)
        per.append(np.sqrt(s / len(mats) ** 2))
    assert n == 5 and got == pytest.approx(np.mean(per))


def test_epsilon_gamma_curve_of_a_perfect_similarity():
    y = np.array([0, 0, 1, 1, 1])
    S = (y[:, None] == y[None, :]).astype(float)
    np.testing.assert_allclose(epsilon_gamma_curve(S, y, np.array([0.0, 0.5, 1.0])), 1.0)
    np.testing.assert_allclose(epsilon_gamma_curve(1 - S, y, np.array([0.0, 1.0])), -1.0)


def test_bench_study_writes_figure_and_table(tmp_path, capsys):
    data = tmp_path / "data"
    shutil.copytree(BUNDLED_DIR / "zoo", data / "zoo")
    out = tmp_path / "out"
    assert main(["bench", "--study", "untie-tsne", "--data-dir", str(data), "-o", str(out),
                 "--format", "svg", "-q"]) == 0
    assert (out / "untie-tsne.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    table = pd.read_csv(out / "untie-tsne.csv")
    assert list(table["method"]) == ["UNTIE", "CDE", "one-hot"]
    assert sorted(p.name for p in out.iterdir()) == ["untie-tsne.csv", "untie-tsne.svg"]
    text = capsys.readouterr().out
    assert "dermatology" in text and "not found" in text  # the paper's set is named missing
    assert main(["bench", "--list"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in STUDIES)
    assert main(["bench", "--study", "nope"]) == 2


def test_study_that_fails_to_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    import matplotlib.figure

    data = tmp_path / "data"
    shutil.copytree(BUNDLED_DIR / "zoo", data / "zoo")
    out = tmp_path / "out"

    def boom(self, fname, *args, **kwargs):  # writes half a file, then fails
        with open(fname, "wb") as fh:
            fh.write(b"<?xml")
        raise OSError("disk full")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", boom)
    with pytest.raises(OSError, match="disk full"):
        run_study("untie-tsne", out, data_dir=str(data), quiet=True)
    assert list(out.iterdir()) == []  # no ".untie-tsne.tmp.png" left behind
