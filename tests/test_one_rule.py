"""One answer per table (issue 54 item 3): ``catembed cluster``, ``report`` and ``embed``
decide which columns hold numbers by one rule
(:func:`catembed.evaluation.inputs.numeric_roles`), print the same note about them, and the
report's consensus section is the ``catembed cluster`` partition for the same table, options
and seed."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

import catembed.report as report
from catembed.cli import main
from conftest import shared_dataset

NOTE = "catembed: note: 1 numeric column(s) cut into 5 quantile bins: amount (--numeric drop"


@pytest.fixture
def table(tmp_path):
    """Two groups: a number with many distinct values that follows the group, a text
    column, a binary column, a code (3 distinct numbers) and a class."""
    rng = np.random.default_rng(3)
    n = 120
    g = rng.integers(0, 2, n)
    flip = rng.random(n) < 0.15
    df = pd.DataFrame({
        "amount": np.round(g * 8 + rng.normal(0, 2, n), 3),
        "colour": np.array(["red", "blue"])[np.where(flip, 1 - g, g)],
        "smoker": np.array(["yes", "no"])[np.where(rng.random(n) < 0.2, 1 - g, g)],
        "legs": np.array([2, 4, 6])[rng.integers(0, 3, n)],
        "y": np.array(["u", "v"])[g],
    })
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path


def _report(argv, monkeypatch):
    """Run ``catembed report`` and return the data its page was written from."""
    got = {}
    write = report.write_report

    def keep(data, path):
        got["data"] = data
        return write(data, path)

    monkeypatch.setattr(report, "write_report", keep)
    assert main([str(a) for a in ["report", *argv]]) == 0
    return got["data"]


def test_numeric_roles_is_the_rule(table):
    from catembed.datasets import resolve_input
    from catembed.evaluation.inputs import numeric_roles

    spec = resolve_input(str(table))
    cols = ["amount", "colour", "smoker", "legs"]
    assert numeric_roles(spec, cols, "auto") == (["amount"], ["legs"])
    assert numeric_roles(spec, cols, "discretize") == (["amount", "legs"], [])
    assert numeric_roles(spec, cols, None) == ([], [])


def test_numbers_that_do_not_repeat_are_numbers_on_a_small_table(tmp_path, capsys):
    # 16 rows: a series with a number per row had fewer than 20 distinct numbers, so it was
    # read as a code of 16 categories (one per row), called an identifier, and its columns
    # looked independent ("no clear groups" on statsmodels' longley, r = .99 between them)
    from catembed.datasets import resolve_input
    from catembed.evaluation.inputs import number_counts, numeric_roles

    t = np.arange(16.0)
    df = pd.DataFrame({"gnp": 200 + 10 * t + t**1.5, "employed": 60 + 0.8 * t,
                       "grade": np.tile([1, 2, 3, 4], 4),  # a code: each number in 4 rows
                       "half": np.r_[np.arange(8), np.arange(8)]})  # 8 numbers, twice each
    df.loc[3, "employed"] = np.nan
    path = tmp_path / "series.csv"
    df.to_csv(path, index=False)
    spec = resolve_input(str(path))
    assert number_counts(path, list(df.columns)) == {
        "gnp": (16, 16), "employed": (15, 15), "grade": (4, 16), "half": (8, 16)}
    assert numeric_roles(spec, list(df.columns), "auto") == (["gnp", "employed"],
                                                              ["grade", "half"])
    assert main(["cluster", str(path), "-o", str(tmp_path / "l.csv")]) == 0
    err = capsys.readouterr().err
    assert "2 numeric column(s) cut into 5 quantile bins: gnp, employed" in err
    assert "identifiers" not in err


@pytest.mark.parametrize("extra", [[], ["--clusters", "3"], ["--target", "y"]])
def test_report_consensus_is_the_cluster_partition(tmp_path, table, monkeypatch, capsys,
                                                   extra):
    labels = tmp_path / "labels.csv"
    k = ["-k", "3"] if "--clusters" in extra else []
    target = ["--target", "y"] if "--target" in extra else []
    assert main([str(a) for a in ["cluster", table, "--seed", 0, "-o", labels, "-q", *k,
                                  *target]]) == 0
    ours = pd.read_csv(labels)["cluster"].to_numpy()
    data = _report([table, "--seed", 0, "--methods", "", "-q", "-o", tmp_path / "r.html",
                    *extra], monkeypatch)
    c = data.consensus
    assert "error" not in c
    assert adjusted_rand_score(ours, c["labels"]) == 1.0
    assert c["k"] == len(set(ours)) and sum(c["sizes"]) == len(ours) == 120
    assert c["numeric"] == ["amount"]  # binned by Consensus, the code 'legs' a category
    if "--target" in extra:  # the k-means part uses the classes; the consensus chooses k
        assert data.summary["clusters (k-means)"] == 2
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert f"Label-free consensus (k = {c['k']})" in page
    assert "the partition of catembed cluster for this table and seed" in page


def test_report_consensus_keeps_every_row(tmp_path, table, monkeypatch):
    """Rows with a missing value: the report's maps drop them (preset complete), its
    consensus section clusters them as catembed cluster does; the ARI with the maps' k-means
    clusters is on the rows both keep."""
    df = pd.read_csv(table)
    df.loc[:9, "colour"] = None
    df.to_csv(table, index=False)
    labels = tmp_path / "labels.csv"
    assert main(["cluster", str(table), "--seed", "1", "-o", str(labels), "-q"]) == 0
    data = _report([table, "--seed", 1, "--methods", "", "-q", "-o", tmp_path / "r.html"],
                   monkeypatch)
    c = data.consensus
    assert data.summary["rows"] == 110 and sum(c["sizes"]) == 120
    assert adjusted_rand_score(pd.read_csv(labels)["cluster"], c["labels"]) == 1.0
    kept = np.asarray(c["index"]) >= 10
    assert c["ari_kmeans"] == pytest.approx(adjusted_rand_score(
        np.asarray(data.clusters).astype(str), c["labels"][kept]))


def test_three_commands_describe_the_columns_alike(tmp_path, table, monkeypatch, capsys):
    assert main(["cluster", str(table), "-k", "2", "--members", "idf", "--n-init", "1",
                 "-o", str(tmp_path / "l.csv")]) == 0
    cluster_err = capsys.readouterr().err
    data = _report([table, "--methods", "", "--no-consensus", "-o", tmp_path / "r.html"],
                   monkeypatch)
    report_err = capsys.readouterr().err
    assert main(["embed", str(table), "--numeric", "auto", "--method", "idf",
                 "-o", str(tmp_path / "e.csv")]) == 0
    embed_out, embed_err = capsys.readouterr()
    for err in (cluster_err, report_err, embed_err):
        assert NOTE in err, err
        assert "legs" not in err  # a code: read as categories, not said to be binned
    # the report's maps and embed read the number in 5 bins, the code as its 3 values and
    # the class (no --target) as 2: 14 values, not 60 + 11
    assert data.summary["values"] == 5 + 2 + 2 + 3 + 2
    assert "5 attributes, 14 values" in embed_out


def test_report_iris_folder_bins_its_numbers(tmp_path, monkeypatch, capsys):
    """A folder whose features are all numeric: refused before (the preset left no
    attribute), now binned as ``catembed cluster`` bins them."""
    data = _report([shared_dataset("iris"), "--methods", "", "--no-consensus", "-q", "-o",
                    tmp_path / "i.html"], monkeypatch)
    assert data.summary["attributes"] == 4 and data.summary["values"] <= 20


def test_r_style_missing_numbers_are_numbers(tmp_path, capsys):
    # R's write.csv writes a missing number as NA: such a column was text, so a measurement
    # became one category per number ("look like identifiers"); in a column read as text NA
    # stays a value of its own (it may be a category: North America, sodium)
    from catembed import io
    from catembed.datasets import resolve_input
    from catembed.evaluation.inputs import numeric_roles

    rng = np.random.default_rng(0)
    n = 60
    g = rng.integers(0, 2, n)
    gnp = np.round(100 + 50 * g + rng.normal(0, 5, n), 2).astype(object)
    gnp[[3, 10, 40]] = "NA"
    df = pd.DataFrame({"gnp": gnp, "colour": np.where(g == 1, "red", "NA"),
                       "code": np.where(rng.random(n) < 0.1, "NA", g + 1).astype(str)})
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    assert io.numeric_columns(path) == ["gnp", "code"]
    spec = resolve_input(str(path))
    assert numeric_roles(spec, ["gnp", "colour", "code"], "auto") == (["gnp"], ["code"])
    frame = io.read_table(path, text_columns=["colour", "code"])
    assert frame["gnp"].dtype == np.float64 and frame["gnp"].isna().sum() == 3
    assert (frame["colour"] == "NA").sum() == (g == 0).sum()
    assert set(frame["code"]) <= {"1", "2", "NA"} and "NA" in set(frame["code"])
    assert main(["cluster", str(path), "-o", str(tmp_path / "l.csv")]) == 0
    err = capsys.readouterr().err
    assert "1 numeric column(s) cut into 5 quantile bins: gnp" in err
    assert "identifiers" not in err and "that are not" not in err
