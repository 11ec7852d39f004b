"""Hostile inputs to Consensus, KModes, the F-score helpers and the CLI (sweep s9)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.cluster import Consensus

X = pd.DataFrame({
    "a": list("xyzxyzxyzxyzxyzxyzxy"),
    "b": list("ppqqppqqppqqppqqppqq"),
    "c": list("uvwwvuuvwwvuuvwwvuuv"),
})


def _consensus(**kw):
    return Consensus(**{"n_clusters": 3, "members": ["mca", "onehot"], "n_init": 2,
                        "random_state": 0, **kw})


def test_consensus_integer_column_names_matched_by_name_at_predict():
    Xi = X.set_axis([0, 1, 2], axis=1)
    model = _consensus().fit(Xi)
    shuffled = Xi[[2, 0, 1]]
    np.testing.assert_array_equal(model.predict(shuffled), model.labels_)
    np.testing.assert_array_equal(model.transform(shuffled), model.transform(Xi))


@pytest.mark.parametrize("seed", ["x", -1, 2**40, 1.5])
def test_consensus_bad_random_state_names_the_parameter(seed):
    with pytest.raises(CatEmbedError, match="random_state must be"):
        _consensus(random_state=seed).fit(X)


def test_consensus_sample_size_below_n_clusters_is_refused():
    with pytest.raises(CatEmbedError, match=r"sample_size must be an integer of at least 3 "
                       r"\(n_clusters\); got 2"):
        _consensus(sample_size=2).fit(X)


@pytest.mark.parametrize("seed", ["x", -1, 2**40])
def test_kmodes_bad_random_state_names_the_parameter(seed):
    from catembed.cluster import KModes, KPrototypes

    with pytest.raises(CatEmbedError, match="random_state must be"):
        KModes(n_clusters=2, init="huang", random_state=seed).fit(X)
    with pytest.raises(CatEmbedError, match="random_state must be"):
        KPrototypes(n_clusters=2, random_state=seed).fit(X.assign(n=np.arange(20.0)))


def test_cli_bench_output_folder_is_refused_before_the_run(tmp_path, capsys):
    from catembed.cli import main

    code = main(["bench", "--table", "cde-1", "--runs", "1", "--datasets", "soybean_small",
                 "--columns", "onehot", "-q", "-o", str(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == (f"catembed: error: --output {tmp_path} is a folder; give a file "
                           f"name inside it, e.g. {tmp_path / 'table.md'}.")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("y, p", [([0, 0, 1], [1, 1, 0, 0]), (np.array([[0], [1]]), [0, 1]),
                                  (None, None), ("ab", "ab")])
def test_match_clusters_refuses_bad_shapes_as_the_scores_do(y, p):
    from catembed.metrics import match_clusters

    with pytest.raises(CatEmbedError, match="must be 1-d and of one length"):
        match_clusters(y, p)


def test_match_clusters_with_none_cluster_ids():
    from catembed.metrics import match_clusters

    out = match_clusters(["a", "a", "b", "b"], [None, None, 1, 1])
    assert list(out) == ["a", "a", "b", "b"]


@pytest.mark.parametrize("definition", [["pairwise"], {"x": 1}])
def test_unhashable_f_score_definition_is_a_catembed_error(definition):
    from catembed.metrics import clustering_scores, f_score

    with pytest.raises(CatEmbedError, match="unknown F-score definition"):
        f_score([0, 1], [0, 1], definition)
    with pytest.raises(CatEmbedError, match="unknown F-score definition"):
        clustering_scores([0, 1], [0, 1], definition)


@pytest.mark.parametrize("members", [5, [["mca"]], [None], {"mca"}])
def test_consensus_members_of_the_wrong_type(members):
    with pytest.raises(CatEmbedError, match="members must be a method name or a list"):
        _consensus(members=members).fit(X)


@pytest.mark.parametrize("power", [np.inf, True])
def test_consensus_weight_power_infinite_or_bool_is_refused(power):
    with pytest.raises(CatEmbedError, match="weight_power must be a non-negative number"):
        _consensus(weight_power=power).fit(X)


def test_consensus_weight_power_numpy_float32_is_a_number():
    a = _consensus(weight_power=np.float32(0.5)).fit(X).labels_
    np.testing.assert_array_equal(a, _consensus(weight_power=0.5).fit(X).labels_)


@pytest.mark.parametrize("members", [",", ",,,", ""])
def test_cli_cluster_empty_members_is_refused(capsys, members):
    from catembed.cli import main

    code = main(["cluster", "lenses", "-k", "2", "-q", "--members", members])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == ("catembed: error: --members is empty: name at least one method, "
                           "e.g. --members mca.")


def test_consensus_more_clusters_than_rows_names_the_rows_not_sample_size():
    with pytest.raises(CatEmbedError, match="distinct row"):
        _consensus(n_clusters=30000).fit(X)


def test_handle_missing_error_on_an_all_missing_column_at_predict():
    from catembed import MCA
    from catembed.cluster import KModes

    row = pd.DataFrame({"a": [None], "b": ["p"], "c": ["u"]})
    message = r"column 'a' has 1 missing values .* handle_missing='error'"
    with pytest.raises(CatEmbedError, match=message):
        KModes(n_clusters=2, handle_missing="error").fit(X).predict(row)
    with pytest.raises(CatEmbedError, match=message):
        MCA(n_components=2, handle_missing="error").fit(X).transform(row)
    with pytest.raises(CatEmbedError, match=message):
        _consensus(handle_missing="error").fit(X).predict(row)


def test_cli_bench_never_writes_over_a_data_set_it_reads(tmp_path, capsys):
    import shutil

    from catembed.cli import main
    from catembed.evaluation.inputs import BUNDLED_DIR

    shutil.copytree(BUNDLED_DIR / "soybean_small", tmp_path / "soybean_small")
    data = tmp_path / "soybean_small" / "data.csv"
    before = data.read_bytes()
    code = main(["bench", "--table", "cde-1", "--runs", "1", "--datasets", "soybean_small",
                 "--columns", "onehot", "-q", "--data-dir", str(tmp_path), "-o", str(data)])
    err = capsys.readouterr().err
    assert code == 2
    assert "is the input file" in err and "would destroy the input" in err
    assert data.read_bytes() == before


@pytest.mark.parametrize("task", ["classify", "retrieve"])
def test_cli_evaluate_every_method_refused_is_status_2_not_internal_error(task, capsys):
    from catembed.cli import main

    # consensus gives labels, not vectors: refused by both tasks (exit 1 said "a bug" before)
    assert main(["evaluate", "soybean_small", "--task", task, "--methods", "consensus",
                 "--runs", "1"]) == 2
    err = capsys.readouterr().err
    assert "catembed: warning: consensus: error:" in err
    assert err.rstrip().endswith(
        "catembed: error: no method could run on this input; see the warnings above.")


def test_kmodes_one_row_names_kmodes_not_its_distance():
    from catembed.cluster import KModes

    with pytest.raises(CatEmbedError, match=r"^KModes needs at least 2 samples to fit; got "
                       r"n_samples = 1\.$"):
        KModes(n_clusters=1).fit(pd.DataFrame({"a": ["x"]}))


@pytest.mark.parametrize("argv", [
    ["evaluate", "zoo", "--methods", "idf", "--runs", "1", "--jobs", "0"],
    ["bench", "--table", "cde-1", "--jobs", "0"],
])
def test_cli_jobs_zero_is_refused_before_any_work(argv, capsys):
    from catembed.cli import main

    assert main(argv) == 2  # evaluate ran every method into joblib's error before (exit 1)
    assert capsys.readouterr().err.strip().endswith(
        "catembed: error: --jobs must be a number of processes (1 or more, or -1 for every "
        "core); got 0.")


def test_cli_bench_table_and_study_together_is_refused(capsys):
    from catembed.cli import main

    assert main(["bench", "--table", "cde-1", "--study", "untie-tsne"]) == 2
    assert "give --table ID or --study NAME, not both" in capsys.readouterr().err


def _arr():
    return np.array([["a", "b", "c"], ["a", "c", "c"], ["b", "b", "d"], ["b", "c", "d"]] * 3,
                    dtype=object)


@pytest.mark.parametrize("make", ["mca", "cde", "famd"])
def test_frame_with_names_after_a_fit_without_them_is_read_by_position(make):
    from catembed import CDE, MCA
    from catembed.embed import FAMD

    est = {"mca": lambda: MCA(n_components=2), "cde": lambda: CDE(random_state=0),
           "famd": lambda: FAMD(n_components=2)}[make]().fit(_arr())
    named = pd.DataFrame(_arr(), columns=["p", "q", "r"])
    # scikit-learn: a warning, then the columns by position (an error "lacks the fitted
    # column(s): x0, x1, x2" before)
    with pytest.warns(UserWarning, match="X has feature names, but .* was fitted without"):
        got = est.transform(named)
    np.testing.assert_array_equal(got, est.transform(_arr()))


def test_integer_labelled_fit_then_other_names_is_a_catembed_error_not_keyerror():
    from catembed.embed import FAMD

    rng = np.random.default_rng(0)
    X = pd.DataFrame({0: rng.choice(list("abc"), 40), 1: rng.normal(size=40),
                      2: rng.choice(list("xy"), 40)})
    est = FAMD(n_components=2).fit(X)  # a pandas KeyError '1' before
    with pytest.raises(CatEmbedError, match="feature names should match"):
        est.transform(X.set_axis(["p", "q", "r"], axis=1))


@pytest.mark.parametrize("flag", ["--id", "--target"])
def test_cli_cluster_input_column_named_cluster_is_refused(flag, tmp_path, capsys):
    from catembed.cli import main

    src = tmp_path / "t.csv"
    src.write_text("cluster,a,b\n1,x,p\n2,y,q\n3,x,q\n4,y,p\n5,x,p\n6,y,q\n", encoding="utf-8")
    out = tmp_path / "labels.csv"
    # the labels' column replaced the id column (or the target replaced the labels) before
    assert main(["cluster", str(src), "-k", "2", flag, "cluster", "-o", str(out)]) == 2
    assert "rename that column" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("kw", [{"l2_weight": -1}, {"sparsity_weight": -0.5},
                                {"l2_weight": float("inf")}, {"sparsity_weight": True}])
def test_autoencoder_negative_or_infinite_regulariser_weight_is_refused(kw):
    from catembed.embed import CDEPlusPlus

    name = next(iter(kw))
    with pytest.raises(CatEmbedError, match=f"{name} must be a (non-negative )?number"):
        CDEPlusPlus(random_state=0, max_epochs=2, **kw).fit(X)  # trained silently before


def test_fit_statistics_and_value_tables_refuse_a_table():
    from catembed import MCA, CatEmbedTypeError
    from catembed.similarity import value_tables

    with pytest.raises(CatEmbedTypeError, match=r"^fit_statistics takes a catembed.stats."
                       r"ValueStatistics .*got a DataFrame\. Give a table to fit\(X\)"):
        MCA().fit_statistics(X)  # AttributeError 'feature_names' before
    with pytest.raises(CatEmbedTypeError, match="^value_tables takes"):
        value_tables(X)


def test_classify_embedding_takes_one_classifier_name_as_a_string():
    from catembed.evaluation.classify import classify_embedding

    rng = np.random.default_rng(0)
    Z = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal(4, 1, (20, 2))])
    y = np.repeat([0, 1], 20)
    one = classify_embedding(Z, y, classifiers="svm", n_repeats=2, random_state=0)
    seq = classify_embedding(Z, y, classifiers=("svm",), n_repeats=2, random_state=0)
    assert list(one) == ["svm"]  # "unknown classifier 's'" before
    np.testing.assert_array_equal(one["svm"].accuracy, seq["svm"].accuracy)


@pytest.mark.parametrize("beta", ["a", float("nan"), True])
def test_dm_parameters_refuse_a_beta_that_is_no_finite_number(beta):
    from catembed.similarity.objects import dm_parameters
    from catembed.stats import compute_statistics

    with pytest.raises(CatEmbedError, match="^beta must be a finite number"):
        dm_parameters(compute_statistics(X), beta=beta)  # NaN was accepted, "a" a ValueError
