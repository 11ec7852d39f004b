"""``catembed cluster`` (issue 38 parts 3, 4 and 6; issue 37 item 9): numeric columns of a
plain file binned by default and really dropped by ``--numeric drop``, ``--profiles`` and
the printed block, ``--target`` with missing values, the identifier warning; and
``catembed evaluate --numeric passthrough`` giving categorical-only methods the categorical
columns only."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

from catembed.cli import main
from catembed.cluster import Consensus, describe_clusters

MEMBERS = "idf,onehot,mca"


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def mixed(tmp_path):
    """Three groups: two text columns, a number with 300 distinct values that follows the
    group, a count with 3 distinct values (a code), and a class with 20 missing values."""
    rng = np.random.default_rng(1)
    n = 300
    g = rng.integers(0, 3, n)
    noisy = np.where(rng.random(n) < 0.2, rng.integers(0, 3, n), g)
    df = pd.DataFrame({
        "a": np.array(["x", "y", "z"])[noisy],
        "b": np.array(["p", "q", "r"])[np.where(rng.random(n) < 0.2, rng.integers(0, 3, n), g)],
        "amount": np.round(g * 10 + rng.normal(0, 2, n), 4),
        "legs": np.array([2, 4, 6])[noisy],
        "y": np.array(["u", "v", "w"])[g],
    })
    df["y"] = df["y"].astype(object)
    df.loc[:19, "y"] = None
    path = tmp_path / "mixed.csv"
    df.to_csv(path, index=False)
    return path, df


def _fit(frame, categorical):
    return Consensus(3, members=MEMBERS.split(","), n_init=2, random_state=0,
                     categorical_features=categorical).fit(frame).labels_


def test_default_bins_numbers_and_writes_profiles(tmp_path, mixed, capsys):
    path, df = mixed
    out, prof = tmp_path / "labels.csv", tmp_path / "profiles.csv"
    code, printed, err = run(["cluster", path, "-k", 3, "--members", MEMBERS, "--n-init", 2,
                              "--target", "y", "-o", out, "--profiles", prof], capsys)
    assert code == 0, err
    labels = pd.read_csv(out)["cluster"].to_numpy()
    # amount (300 distinct) given to Consensus as numbers (its 5 quantile bins); legs (3
    # distinct) read as text, a category
    frame = df[["a", "b", "amount", "legs"]].astype({"legs": str})
    np.testing.assert_array_equal(labels, _fit(frame, ["a", "b", "legs"]))
    assert "1 numeric column(s) cut into 5 quantile bins: amount" in err
    written = pd.read_csv(prof, keep_default_na=False, na_values=[""])
    expected = describe_clusters(frame, labels, numeric_features=["amount"])
    # and each cluster's resample Jaccard and its reading (issue 53)
    assert list(written.columns) == [*expected.columns, "jaccard", "stability"]
    assert set(written["stability"]) <= {"stable", "doubtful", "dissolved"}
    # every value and number (issue 54), then 5 paragons per cluster
    assert (written["kind"] != "paragon").sum() == len(expected)
    assert written.loc[written["kind"] == "paragon"].groupby("cluster").size().tolist() == [5] * 3
    stats = written[written["kind"] != "paragon"].reset_index(drop=True)
    for col in ["lift", "median_in_cluster", "v.test", "p.value", "Eta2"]:
        np.testing.assert_allclose(stats[col], expected[col].astype(float), err_msg=col)
    assert set(written["value"]) >= {"median"}
    # the printed block: a line per cluster, its size, its significant values by v-test
    lines = [s.strip() for s in printed.splitlines()]
    assert any(s.startswith("clusters (significant values, p <= 0.05") for s in lines)
    for c in range(3):
        n = int((labels == c).sum())
        assert any(s.startswith(f"cluster {c} (n={n}, ") for s in lines), printed
    assert any(" vs " in s and ", v=+" in s for s in lines if s.startswith("cluster 0"))
    assert not list(tmp_path.glob(".*"))  # no temporary file left


def test_numeric_drop_really_drops(tmp_path, mixed, capsys):
    path, df = mixed
    out = tmp_path / "labels.csv"
    code, _, err = run(["cluster", path, "-k", 3, "--members", MEMBERS, "--n-init", 2,
                        "--target", "y", "--numeric", "drop", "-o", out, "-q"], capsys)
    assert code == 0, err
    labels = pd.read_csv(out)["cluster"].to_numpy()
    np.testing.assert_array_equal(labels, _fit(df[["a", "b"]], ["a", "b"]))
    code, _, err = run(["cluster", path, "-k", 3, "--members", MEMBERS, "--numeric", "drop",
                        "--drop", "a,b,y", "-o", out], capsys)
    assert code == 2 and "every feature is numeric" in err


def test_numeric_discretize_bins_every_numeric_column(tmp_path, mixed, capsys):
    path, df = mixed
    out = tmp_path / "labels.csv"
    code, _, err = run(["cluster", path, "-k", 3, "--members", MEMBERS, "--n-init", 2,
                        "--target", "y", "--numeric", "discretize", "-o", out, "-q"], capsys)
    assert code == 0, err
    frame = df[["a", "b", "amount", "legs"]].astype({"legs": float})
    np.testing.assert_array_equal(pd.read_csv(out)["cluster"].to_numpy(),
                                  _fit(frame, ["a", "b"]))


def test_target_with_missing_values_scores_the_rows_that_have_one(tmp_path, mixed, capsys):
    """issue 37 item 9 / issue 38 part 6: exit 1 "Input contains NaN" before."""
    path, df = mixed
    out = tmp_path / "labels.csv"
    code, printed, err = run(["cluster", path, "-k", 3, "--members", MEMBERS, "--n-init", 2,
                              "--target", "y", "-o", out], capsys)
    assert code == 0, err
    table = pd.read_csv(out)
    assert table["y"].isna().sum() == 20 and len(table) == 300
    has = table["y"].notna()
    ari = adjusted_rand_score(table.loc[has, "y"], table.loc[has, "cluster"])
    assert f"on the 280 of 300 rows that have one): {ari:.3f}" in printed


def test_identifier_column_warning(tmp_path, mixed, capsys):
    path, df = mixed
    df.insert(0, "ref", [f"r{i}" for i in range(len(df))])
    src = tmp_path / "with_id.csv"
    df.head(60).to_csv(src, index=False)
    code, _, err = run(["cluster", src, "-k", 3, "--members", "idf", "--n-init", 2,
                        "--target", "y", "-q"], capsys)
    assert code == 0, err
    assert "column(s) ref look like identifiers" in err and "--drop or --id" in err
    code, _, err = run(["cluster", src, "-k", 3, "--members", "idf", "--n-init", 2,
                        "--target", "y", "--id", "ref", "-q"], capsys)
    assert code == 0 and "identifiers" not in err


def test_profiles_path_refusals(tmp_path, mixed, capsys):
    path, _ = mixed
    out = tmp_path / "labels.csv"
    for argv, message in ((["--profiles", out, "-o", out], "same file"),
                          (["--profiles", tmp_path / "p.parquet"], "--profiles must end in"),
                          (["--profiles", path], "--profiles")):
        code, _, err = run(["cluster", path, "-k", 3, "--members", "idf", *argv], capsys)
        assert code == 2 and message in err, err
    assert not out.exists()


def test_row_number_column_warning(tmp_path, mixed, capsys):
    """A numeric column 1, 2, ..., n (a row number) is named; a column of ranks in another
    order (a measurement) is not."""
    path, df = mixed
    df = df.head(60).copy()
    df.insert(0, "obs", np.arange(1, 61))
    df["rank"] = np.random.default_rng(0).permutation(60) + 1
    src = tmp_path / "with_obs.csv"
    df.to_csv(src, index=False)
    code, _, err = run(["cluster", src, "-k", 3, "--members", "idf", "--n-init", 2,
                        "--target", "y", "-q"], capsys)
    assert code == 0, err
    assert "column(s) obs count the rows (obs goes 1, 2, ... 60" in err
    assert "rank" not in err.split("count the rows")[0]
    code, _, err = run(["cluster", src, "-k", 3, "--members", "idf", "--n-init", 2,
                        "--target", "y", "--id", "obs", "-q"], capsys)
    assert code == 0 and "count the rows" not in err


def test_evaluate_passthrough_gives_categorical_methods_the_categories(tmp_path, mixed,
                                                                       capsys):
    path, df = mixed
    df = df.dropna(subset=["y"])
    path = tmp_path / "complete.csv"
    df.to_csv(path, index=False)
    base = ["evaluate", path, "--target", "y", "--runs", 1, "--json"]
    code, out, err = run([*base, "--numeric", "passthrough", "--methods", "idf,famd"], capsys)
    assert code == 0, err
    result = json.loads(out)
    # every column whose values parse as numbers is numeric under passthrough
    assert (result["n_features"], result["n_numeric"]) == (2, 2)
    idf, famd = result["results"]
    assert (idf["method"], idf["n_numeric_used"]) == ("idf", 0)
    assert (famd["method"], famd["n_numeric_used"]) == ("famd", 2)
    assert "idf take categorical columns only" in err and "(amount, legs)" in err
    assert "identifiers" not in err  # amount no longer read as 280 categories
    # idf saw what it sees with the numeric columns left out
    code, out, _ = run([*base, "--methods", "idf", "--drop", "amount,legs"], capsys)
    assert json.loads(out)["results"][0]["ari_mean"] == idf["ari_mean"]


def test_evaluate_passthrough_on_numbers_only_says_why_categorical_methods_fail(tmp_path,
                                                                                 capsys):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=40), "b": rng.normal(size=40),
                       "y": ["p", "q"] * 20})
    path = tmp_path / "numbers.csv"
    df.to_csv(path, index=False)
    code, out, err = run(["evaluate", path, "--target", "y", "--runs", 1, "--json",
                          "--numeric", "passthrough", "--methods", "idf,famd"], capsys)
    assert code == 0, err
    idf, famd = json.loads(out)["results"]
    assert (idf["status"], famd["status"]) == ("error", "ok")
    assert "every column is numeric, so idf" in err and "--numeric discretize" in err


def test_text_past_the_sampled_rows_is_a_missing_number_said(tmp_path, capsys):
    """A column typed numeric from its first 10,000 rows that holds text further down: its
    numbers still binned (not 12,000 categories), the text named in a warning."""
    rng = np.random.default_rng(0)
    n = 10_050
    df = pd.DataFrame({"a": rng.choice(list("xyz"), n),
                       "v": np.round(rng.normal(size=n), 3).astype(object)})
    df.loc[n - 1, "v"] = "oops"
    src = tmp_path / "late.csv"
    df.to_csv(src, index=False)
    code, _, err = run(["cluster", src, "-k", 2, "--members", "idf", "--n-init", 2, "-o",
                        tmp_path / "o.csv"], capsys)
    assert code == 0, err
    assert "column 'v' holds numbers and 1 value(s) that are not (first: 'oops')" in err
    assert "cut into 5 quantile bins: v" in err
