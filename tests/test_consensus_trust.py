"""How far to trust a Consensus answer at any k (issue 53, items 2 to 4): the per-cluster
resample Jaccard, the dependence test at k given, the printed reasoning behind k, the
spelling of the options in the warnings."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedWarning
from catembed._utils._spelling import cli_spelling, k_asked, rows_below_k, spell
from catembed._utils._validation import CatEmbedError
from catembed.cli import main
from catembed.cluster import Consensus
from catembed.cluster.consensus._clusterwise import (
    DISSOLVED,
    STABLE,
    choice_lines,
    cluster_jaccard,
    cluster_messages,
    evidence_messages,
    reading,
)
from test_consensus_auto import FAST, independent, planted  # the planted tables of issue 38


def _fit(df, k, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = Consensus(k, **{**FAST, **kw}).fit(df)
    return m, [str(w.message) for w in caught if issubclass(w.category, CatEmbedWarning)]


# ---------------------------------------------------------------- the Jaccard itself
def test_cluster_jaccard_by_hand():
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    same = labels.copy()
    # run 2 moves one row of cluster 0 into cluster 1: J(0) = 3/4, J(1) = 4/5
    moved = np.array([0, 0, 0, 1, 1, 1, 1, 1])
    jac, gone = cluster_jaccard(labels, 2, [[same, moved]], np.array([1.0]))
    np.testing.assert_allclose(jac, [(1 + 3 / 4) / 2, (1 + 4 / 5) / 2])
    np.testing.assert_allclose(gone, [0.0, 0.0])
    # a run that puts every row in one cluster: J = 4/8 for both, a dissolution (<= .5)
    flat = np.zeros(8, dtype=int)
    jac, gone = cluster_jaccard(labels, 2, [[flat]], np.array([1.0]))
    np.testing.assert_allclose(jac, [0.5, 0.5])
    np.testing.assert_allclose(gone, [1.0, 1.0])
    # two members weighted 3:1
    jac, _ = cluster_jaccard(labels, 2, [[same], [flat]], np.array([3.0, 1.0]))
    np.testing.assert_allclose(jac, [0.75 + 0.125, 0.75 + 0.125])


def test_reading_uses_clusterboots_cut_offs():
    assert (STABLE, DISSOLVED) == (0.75, 0.5)
    assert [reading(j) for j in (0.9, 0.75, 0.74, 0.51, 0.5, 0.2, np.nan)] == [
        "stable", "stable", "doubtful", "doubtful", "dissolved", "dissolved", "empty"]


# ---------------------------------------------------------------- planted and independent
def test_planted_groups_are_stable_without_a_warning():
    df, g = planted(600, 3, 8, 5, 0.85, seed=7)
    m, said = _fit(df, 3)
    d = m.diagnostics_
    assert d["cluster_status"] == ["stable"] * 3, d["cluster_jaccard"]
    assert (d["cluster_jaccard"] > 0.9).all() and (d["cluster_dissolved"] < 0.25).all()
    assert d["dependence_z"] > 100 and said == []
    prof = m.profiles_
    assert {"jaccard", "stability"} <= set(prof.columns)
    first = prof.groupby("cluster")["jaccard"].first().to_numpy()
    np.testing.assert_allclose(first, d["cluster_jaccard"])


def test_independent_columns_warn_at_k_given():
    df = independent(500, 8, 4, seed=1)
    m, said = _fit(df, 3)
    assert m.n_clusters_ == 3 and len(np.unique(m.labels_)) == 3  # labels still returned
    assert m.dependence_z_ < 4
    text = " ".join(said)
    assert "no evidence of groups" in text and "n_clusters='auto'" in text
    assert "-k auto" not in text
    assert any(s in ("doubtful", "dissolved") for s in m.diagnostics_["cluster_status"])
    assert "not reproduced by the members' resampled runs" in text


def test_k_given_labels_are_those_of_a_fit_without_the_test():
    # the dependence test draws from a copy of the random stream: the labels do not move
    df, _ = planted(300, 3, 6, 4, 0.8, seed=0)
    a = Consensus(3, **FAST).fit(df).labels_
    b = Consensus("3:3", **FAST).fit(df).labels_
    np.testing.assert_array_equal(a, b)


def test_one_column_has_no_dependence_test():
    df = pd.DataFrame({"a": list("xyzxyzxyzx") * 10})
    m, said = _fit(df, 3)
    assert np.isnan(m.dependence_z_)
    assert not any("evidence of groups" in s for s in said)


# ---------------------------------------------------------------- the reasoning behind k
def test_k_1_says_the_evidence_honestly():
    df = independent(500, 8, 4, seed=1)
    m, said = _fit(df, "1:4")
    assert m.n_clusters_ == 1
    [msg] = [s for s in said if s.startswith("no clear groups")]
    assert "short of the 4 above them" in msg and "as good as independent" not in msg
    lines = choice_lines(m)
    assert "decided by the dependence test" in lines[0]
    assert "lowest wins" not in " ".join(lines) and "not what decided" in lines[1]
    # a search that stopped early says so at k = 1 too
    scores = pd.DataFrame({"bic": [100.0, 110.0, 120.0, 130.0]}, index=[1, 2, 3, 4])
    scores.attrs["not_fitted"] = [5, 6]
    stub = SimpleNamespace(dependence_z_=1.0, n_clusters_=1, k_scores_=scores)
    assert choice_lines(stub)[2] == ("  k = 5-6 not fitted: the BIC rose at k = 3 and 4 "
                                     "(the search stops after two rises in a row)")


def test_the_bic_line_marks_lowest_only_where_it_decides():
    df, _ = planted(500, 3, 6, 4, 0.85, seed=5)
    m, _ = _fit(df, "auto")
    assert m.n_clusters_ == 3
    lines = choice_lines(m)
    assert "dependence test" in lines[0] and "4 or more above" in lines[0]
    bic_line = lines[1]
    assert bic_line.startswith("  latent class BIC per k >= 2 (lowest wins): 2: ")
    among = m.k_scores_["bic"].drop(index=1)
    assert int(among.idxmin()) == 3 and "3*:" in bic_line
    assert "k = 1 (independence)" in bic_line
    # the k not fitted, after two rises of the BIC in a row, are named with those rises
    skipped = m.k_scores_.attrs["not_fitted"]
    fitted = [int(c) for c in among.index]
    assert skipped == list(range(max(fitted) + 1, 11)) and max(fitted) >= 5
    assert among.loc[fitted[-3]] < among.loc[fitted[-2]] < among.loc[fitted[-1]]
    assert lines[2] == (f"  k = {skipped[0]}-10 not fitted: the BIC rose at k = "
                        f"{fitted[-2]} and {fitted[-1]} (the search stops after two rises "
                        "in a row)")


def test_figures_are_printed_on_their_side_of_the_thresholds():
    from catembed.cluster.consensus._clusterwise import figure

    assert figure(0.2996, 0.3) == "0.2996"  # not "0.30 (below 0.3)"
    assert figure(0.7496, 0.75, 0.5) == "0.7496" and figure(0.5004, 0.75, 0.5) == "0.5004"
    assert figure(0.296, 0.3) == "0.296" and figure(0.75, 0.75, 0.5) == "0.75"
    assert figure(0.8612, 0.75, 0.5) == "0.86" and figure(0.1234) == "0.12"
    assert figure(float("nan"), 0.3) == "nan"
    assert figure(3.96, 4.0, digits=1) == "3.96" and figure(4.04, 4.0, digits=1) == "4.04"
    assert figure(3.9, 4.0, digits=1) == "3.9" and figure(81.93, 4.0, digits=1) == "81.9"


def test_one_weak_or_small_cluster_is_singular():
    from catembed.cluster.consensus._degenerate import outlier_message

    d = {"cluster_jaccard": [0.9, 0.4], "cluster_status": ["stable", "dissolved"]}
    assert cluster_messages(d, 2)[0].startswith("1 of the 2 clusters is not reproduced by ")
    d = {"cluster_jaccard": [0.6, 0.4], "cluster_status": ["doubtful", "dissolved"]}
    assert cluster_messages(d, 2)[0].startswith("2 of the 2 clusters are not reproduced by ")
    labels = np.array([0] * 150 + [1] * 149 + [2])
    assert outlier_message(labels, 3).startswith("1 of the 3 clusters holds fewer than ")


def test_a_range_of_one_k_has_no_lowest():
    scores = pd.DataFrame({"bic": [1560.0]}, index=[5])
    stub = SimpleNamespace(dependence_z_=9.0, n_clusters_=5, k_scores_=scores)
    lines = choice_lines(stub)
    assert lines[0].startswith("  k chosen without labels: k = 5, the only k >= 2 in the "
                               "range (k >= 2 by the range); dependence test")
    assert lines[1:] == ["  latent class BIC per k >= 2: 5*: 1560.0"]


def test_top_of_the_range_says_how_to_widen_it():
    df, _ = planted(600, 5, 8, 6, 0.9, seed=3)
    m, said = _fit(df, "2:3")
    assert m.n_clusters_ == 3
    [msg] = [s for s in said if "top of the range" in s]
    assert "n_clusters='2:6'" in msg
    with cli_spelling():
        assert "-k 2:6" in evidence_messages(m.diagnostics_, 3, [2, 3],
                                             m.k_scores_["bic"])[0]
        assert choice_lines(m)[-1] == ("  k = 3 is the top of the range tried and the BIC "
                                       "still falls there: widen it (-k 2:6)")
    assert choice_lines(m)[-1].endswith("(n_clusters='2:6')")
    # a k below the top: no such line
    m, said = _fit(df, "2:8")
    assert not any("top of the range" in s for s in said)
    assert not any("top of the range" in line for line in choice_lines(m))


def test_spelling_follows_the_interface():
    assert spell("n_clusters='auto'", "-k auto") == "n_clusters='auto'"
    with cli_spelling():
        assert spell("n_clusters='auto'", "-k auto") == "-k auto"
    assert spell("a", "b") == "a"


# ---------------------------------------------------------------- the command line
def test_cli_prints_per_cluster_stability_and_names_cli_options(tmp_path, capsys):
    df = independent(400, 6, 4, seed=4)
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    prof = tmp_path / "p.csv"
    code = main(["cluster", str(src), "-k", "3", "--members", "mca,onehot", "--n-init", "3",
                 "-o", str(tmp_path / "l.csv"), "--profiles", str(prof)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "  dependence test: the columns' total mutual information is" in out
    assert "structure: " in out and "clusters (weakest: cluster" in out
    assert ", Jaccard 0." in out  # on every cluster line
    assert "no evidence of groups" in err and "-k auto" in err
    assert "n_clusters='auto'" not in err
    written = pd.read_csv(prof)
    assert written["stability"].isin(["stable", "doubtful", "dissolved"]).all()
    assert written["jaccard"].between(0, 1).all()


def test_evaluate_and_report_name_catembed_clusters_options(tmp_path, capsys):
    # catembed evaluate has --drop but no -k: the warnings name "catembed cluster -k auto"
    df = independent(400, 6, 4, seed=4)
    df["y"] = np.random.default_rng(0).integers(0, 3, len(df)).astype(str)
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    code = main(["evaluate", str(src), "--target", "y", "--methods", "consensus",
                 "--runs", "1"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "(catembed cluster -k auto would answer" in err
    assert "n_clusters=" not in err and "diagnostics_" not in err
    with cli_spelling("evaluate"):
        assert spell("drop it from X", "--drop c", command=None) == "--drop c"
        assert spell("n_clusters", "-k") == "catembed cluster -k"
        assert spell("x", "the summary", elsewhere="catembed cluster's summary") == (
            "catembed cluster's summary")
    with cli_spelling():
        assert spell("n_clusters", "-k") == "-k"
    assert spell("n_clusters", "-k") == "n_clusters"


def test_evaluate_with_jobs_says_the_workers_warnings_as_one_process_does(tmp_path, capfd):
    # --jobs 2 ran the runs in worker processes, which printed their warnings themselves:
    # Python's format (a file name and a source line), the Python spelling, each run apart
    df = independent(400, 6, 4, seed=4)
    df["y"] = np.random.default_rng(0).integers(0, 3, len(df)).astype(str)
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    err = {}
    for jobs in ("1", "2"):
        code = main(["evaluate", str(src), "--target", "y", "--methods", "consensus",
                     "--runs", "2", "--jobs", jobs])
        out, err[jobs] = capfd.readouterr()
        assert code == 0, err[jobs]
    assert err["2"] == err["1"]
    assert "(catembed cluster -k auto would answer" in err["2"]
    lines = err["2"].splitlines()
    assert all(line.startswith("catembed") for line in lines), lines

def test_too_many_clusters_is_refused_in_the_spelling_of_the_interface(tmp_path, capsys):
    df = pd.DataFrame({"a": ["x", "x", "y", "x"], "b": ["y", "z", "y", "y"],
                       "y": ["1", "2", "3", "4"]})
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    with pytest.raises(CatEmbedError, match=r"fewer than n_clusters=5; use fewer"):
        Consensus(5).fit(df[["a", "b"]])
    assert main(["cluster", str(src), "--drop", "y", "-k", "5"]) == 2
    assert "3 distinct row(s), fewer than -k 5; use fewer clusters" in capsys.readouterr().err
    assert main(["evaluate", str(src), "--target", "y", "--methods",
                 "consensus,lca,kmodes-hamming,kprototypes", "--runs", "1"]) == 0
    err = capsys.readouterr().err  # consensus and lca refuse, KModes warns
    assert err.count("fewer than k = 4 (the number of classes)") == 3, err
    assert "n_clusters" not in err and "n_samples" not in err
    # a refusal keeps its own words; only an unexpected error is named by its type
    assert "consensus: error: the table has only 3 distinct row(s)" in err
    assert "CatEmbedError" not in err
    with cli_spelling("report"):
        assert k_asked(3) == "--clusters 3"
        assert rows_below_k(2, 3) == "the table has only 2 row(s), fewer than --clusters 3"
    assert rows_below_k(2, 3) == "n_samples=2 should be >= n_clusters=3"


def test_bench_names_catembed_clusters_options(capsys):
    # catembed bench has no --drop and no -k: its warnings said "drop it from X" and
    # "n_clusters=" (the Python spelling), then "--drop age" (an option it does not have)
    code = main(["bench", "--table", "mhtc-ari", "--runs", "1", "--datasets", "lenses",
                 "--columns", "Consensus", "-q"])
    err = capsys.readouterr().err
    assert code == 0, err
    assert "leave the column out (catembed cluster --drop age)" in err
    assert "drop it from X" not in err and "n_clusters" not in err
    with cli_spelling("bench"):
        assert spell("drop it from X", "--drop c", command=None) == "catembed cluster --drop c"
        assert k_asked(3) == "k = 3 (the number of classes)"


def test_cli_k_1_prints_no_stability_figures(tmp_path, capsys):
    df = independent(400, 6, 4, seed=4)
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    code = main(["cluster", str(src), "--members", "mca,onehot", "--n-init", "3",
                 "-o", str(tmp_path / "l.csv")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "no clear groups (k = 1), decided by the dependence test" in out
    assert "stability 1.00" not in out and "member     stability" not in out
    assert "say nothing: the evidence is the dependence test above" in out


@pytest.mark.parametrize("k", ["auto", "3"])
def test_cli_planted_is_stable(tmp_path, capsys, k):
    df, _ = planted(500, 3, 6, 4, 0.85, seed=5)
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    code = main(["cluster", str(src), "-k", k, "--members", "mca,onehot", "--n-init", "3",
                 "-o", str(tmp_path / "l.csv")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "structure: 3 stable of 3 clusters" in out
    assert "warning" not in err


# ---------------------------------------------------------------- the bootstrap LRT (--blrt)
def _codes(df: pd.DataFrame) -> np.ndarray:
    return df.apply(lambda c: c.str[1:].astype(int)).to_numpy()


def test_blrt_finds_the_planted_classes_and_no_more():
    from catembed.cluster.consensus._blrt import lca_blrt

    df, _ = planted(400, 3, 6, 4, 0.8, seed=0)
    p = {k: lca_blrt(_codes(df), k, np.random.RandomState(0), n_boot=9)["p_value"]
         for k in (2, 3)}
    assert p[2] == pytest.approx(0.1)  # the smallest p of 9 tables: 3 beats 2 every time
    assert p[3] > 0.3  # a fourth class is within the 3-class model's noise
    ind = _codes(independent(400, 6, 4, seed=1))
    r = lca_blrt(ind, 1, np.random.RandomState(0), n_boot=9)
    assert r["p_value"] > 0.2 and r["n_rows"] == 400 and len(r["null_lr"]) == 9


def test_cli_blrt_prints_the_test(tmp_path, capsys):
    df, _ = planted(300, 3, 6, 4, 0.85, seed=5)
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    code = main(["cluster", str(src), "-k", "3", "--members", "mca,onehot", "--n-init", "2",
                 "--blrt", "-o", str(tmp_path / "l.csv")])
    out, err = capsys.readouterr()
    assert code == 0, err
    [line] = [x for x in out.splitlines() if "bootstrap likelihood-ratio test" in x]
    assert "k = 3 against 4" in line and "19 tables drawn from the 3-class model" in line
