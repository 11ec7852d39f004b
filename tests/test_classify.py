"""Classification on an embedding (CDE++ Table 5 / UNTIE Table V protocol)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError, CatEmbedWarning, OneHotEmbedder
from catembed.evaluation.classify import (
    CLASSIFIERS,
    PROTOCOLS,
    classify,
    classify_embedding,
    make_classifier,
    results_table,
)


def _separable(n_per=20, seed=0):
    rng = np.random.default_rng(seed)
    Z = np.vstack([rng.normal(c, 0.1, (n_per, 2)) for c in ([0, 0], [3, 0], [0, 3])])
    y = np.repeat(["a", "b", "c"], n_per)
    return Z, y


def test_separable_classes_score_one_for_every_classifier():
    Z, y = _separable()
    res = classify_embedding(Z, y, classifiers=CLASSIFIERS, n_repeats=4, random_state=0)
    assert list(res) == list(CLASSIFIERS)
    for r in res.values():
        np.testing.assert_array_equal(r.accuracy, 1.0)
        np.testing.assert_array_equal(r.f1_macro, 1.0)
        assert r.stratified and r.test_size == 0.25
    table = results_table(res)
    assert list(table.index) == list(CLASSIFIERS)
    assert table.loc["svm", "accuracy_mean"] == 1.0 and table.loc["svm", "n_splits"] == 4


def test_scores_by_hand_on_a_constant_feature():
    # a constant embedding: every classifier predicts the majority class of the training
    # split. Stratified 75/25 of 12 a / 4 b: the test split has 3 a and 1 b, so
    # accuracy = 3/4 and macro-F1 = (F1_a + F1_b) / 2 = (2*3/(3+4) + 0) / 2 = 3/7.
    Z = np.zeros((16, 1))
    y = np.array(["a"] * 12 + ["b"] * 4)
    res = classify_embedding(Z, y, classifiers=("rf", "lr"), n_repeats=3, random_state=1)
    for r in res.values():
        np.testing.assert_allclose(r.accuracy, 0.75)
        np.testing.assert_allclose(r.f1_macro, 3 / 7)


def test_same_seed_same_splits_and_the_protocols():
    Z, y = _separable(seed=1)
    Z = Z + np.random.default_rng(5).normal(0, 1.0, Z.shape)  # make it noisy
    a = classify_embedding(Z, y, classifiers=("rf", "svm"), random_state=7)
    b = classify_embedding(Z, y, classifiers=("rf", "svm"), random_state=7)
    np.testing.assert_array_equal(a["rf"].accuracy, b["rf"].accuracy)
    np.testing.assert_array_equal(a["svm"].f1_macro, b["svm"].f1_macro)
    assert PROTOCOLS["cdepp"] == {"test_size": 0.25, "n_repeats": 10}
    assert PROTOCOLS["untie"] == {"test_size": 0.10, "n_repeats": 20}
    u = classify_embedding(Z, y, classifiers=("knn",), random_state=0, **PROTOCOLS["untie"])
    assert len(u["knn"].accuracy) == 20
    # 90/10 of 60 objects: 6 test objects, so each accuracy is a multiple of 1/6
    np.testing.assert_allclose(u["knn"].accuracy * 6, np.round(u["knn"].accuracy * 6))


def test_classify_fits_the_embedder(watermelon):
    X = pd.concat([watermelon] * 4, ignore_index=True)
    y = np.tile(["sweet", "sour", "sour", "sweet", "sour", "sweet"], 4)
    res = classify(OneHotEmbedder(), X, y, classifiers=("svm",), n_repeats=3, random_state=0)
    # identical rows share their label, so a linear SVM on one-hot codes is exact
    np.testing.assert_array_equal(res["svm"].accuracy, 1.0)
    per_split = classify(OneHotEmbedder(), X, y, classifiers=("svm",), n_repeats=3,
                         random_state=0, fit_on="train")
    assert per_split["svm"].accuracy.shape == (3,)


def test_tiny_classes_fall_back_to_plain_splits():
    Z, y = _separable()
    y = y.copy()
    y[0] = "lonely"
    with pytest.warns(CatEmbedWarning, match="cannot stratify"):
        res = classify_embedding(Z, y, classifiers=("knn",), n_repeats=2, random_state=0)
    assert not res["knn"].stratified


def test_bad_input_raises():
    Z, y = _separable()
    with pytest.raises(CatEmbedError, match="unknown classifier"):
        classify_embedding(Z, y, classifiers=("xgboost",))
    with pytest.raises(CatEmbedError, match="one label per object"):
        classify_embedding(Z, y[:-1])
    with pytest.raises(CatEmbedError, match="single class"):
        classify_embedding(Z, np.zeros(len(y)))
    with pytest.raises(CatEmbedError, match="test_size"):
        classify_embedding(Z, y, test_size=1.5)
    with pytest.raises(CatEmbedError, match="fit_on"):
        classify(OneHotEmbedder(), pd.DataFrame({"a": ["x"] * 60}), y, fit_on="test")
    with pytest.raises(CatEmbedError, match="classifier"):
        make_classifier("nope")


def test_summary_is_plain_json():
    import json

    Z, y = _separable()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = classify_embedding(Z, y, classifiers=("lr",), n_repeats=2, random_state=0)
    s = res["lr"].summary()
    assert json.loads(json.dumps(s)) == s
    assert s["accuracy_mean"] == 1.0 and s["accuracy_std"] == 0.0


def test_run_classification_task(watermelon):
    import json

    from catembed.evaluation import TASKS
    from catembed.evaluation.classify import run_classification
    from catembed.evaluation.protocol import MethodSpec

    assert TASKS["classify"] is run_classification
    X = pd.concat([watermelon] * 4, ignore_index=True)
    y = np.tile(["sweet", "sour", "sour", "sweet", "sour", "sweet"], 4)
    out = run_classification(
        X, y, ["onehot", MethodSpec("onehot", "knn", {}, "1-HOT-KNN"), "dilca", "no-such"],
        runs=2, n_repeats=3, seed=0, init="matlab",
    )
    one, knn, dilca, missing = out
    assert one.status == "ok" and one.clusterer == "svm"
    assert len(one.runs) == 6 and one.n_fits == 1  # deterministic: fitted once, 2 x 3 splits
    assert one.mean("acc") == 1.0 and one.mean("f_score") == 1.0
    assert knn.clusterer == "knn" and knn.label == "1-HOT-KNN"
    assert dilca.status == "error" and "no embedding" in dilca.message
    assert missing.status == "error"
    assert json.loads(json.dumps(one.summary()))["acc_mean"] == 1.0
    # the same splits as classify_embedding with the run's seed
    Z = OneHotEmbedder(categorical_features="all").fit_transform(X)
    direct = classify_embedding(Z, y, n_repeats=3, random_state=1)["svm"]
    np.testing.assert_array_equal([r["acc"] for r in one.runs[3:]], direct.accuracy)


def test_cli_evaluate_task_classify(capsys):
    import json

    from catembed.cli import main

    code = main(["evaluate", "lenses", "--task", "classify", "--methods", "onehot,idf",
                 "--runs", "1", "--repeats", "3", "--classifier", "lr", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["task"] == "classify"
    res = {r["method"]: r for r in out["results"]}
    assert res["onehot"]["clusterer"] == "lr" and res["onehot"]["runs"] == 3
    assert 0 <= res["idf"]["acc_mean"] <= 1
    code = main(["evaluate", "lenses", "--task", "classify", "--methods", "onehot",
                 "--runs", "1", "--repeats", "2"])
    assert code == 0
    assert "accuracy" in capsys.readouterr().out
