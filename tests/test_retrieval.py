"""precision@k with every object as a query: a hand-computed case, brute force, duplicates."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import cdist

from catembed import CatEmbedError
from catembed.evaluation.retrieval import precision_at_k, retrieval_curve


def test_hand_computed_line():
    X = np.array([[0.0], [1.0], [10.0], [11.0], [20.0]])
    y = ["a", "a", "b", "b", "a"]
    # P@1: 0->1 ok, 1->0 ok, 10->11 ok, 11->10 ok, 20->11 no
    # P@2: second neighbours 10, 10, 1, 20, 10 are all of the other class
    curve = retrieval_curve(X, y, k=[1, 2])
    assert curve[1] == pytest.approx(4 / 5)
    assert curve[2] == pytest.approx((4 * 0.5 + 0) / 5)
    assert precision_at_k(X, y, 1) == pytest.approx(0.8)


@pytest.mark.parametrize("batch_size", [3, 1000])
def test_matches_brute_force(batch_size):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 4))
    y = rng.integers(0, 3, 60)
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    order = np.argsort(D, axis=1)
    for k in (1, 7, 59):
        expected = np.mean((y[order[:, :k]] == y[:, None]).mean(axis=1))
        assert precision_at_k(X, y, k, batch_size=batch_size) == pytest.approx(expected)


def test_duplicates_are_other_objects_not_the_query():
    X = np.array([[0.0]] * 4 + [[5.0]])
    y = [1, 1, 1, 1, 2]
    # each duplicate's nearest other object is another duplicate (same class);
    # more duplicates (3) than k + 1 = 2 exercises the "query not returned" branch
    assert retrieval_curve(X, y, k=[1])[1] == pytest.approx(4 / 5)
    assert retrieval_curve(X, y, k=[3])[3] == pytest.approx(4 / 5)


def test_errors():
    X = np.zeros((3, 2))
    with pytest.raises(CatEmbedError, match="at least 4 objects"):
        precision_at_k(X, [0, 1, 0], 3)
    with pytest.raises(CatEmbedError, match="rows"):
        precision_at_k(X, [0, 1], 1)
    with pytest.raises(CatEmbedError, match="positive"):
        retrieval_curve(X, [0, 1, 0], k=[0])


def test_retrieve_task_runner():
    import pandas as pd

    from catembed import UNTIE, OneHotEmbedder
    from catembed.evaluation.methods import _REGISTRY, register_method
    from catembed.evaluation.protocol import TASKS
    from catembed.evaluation.retrieval import run_retrieval, text_table

    assert TASKS["retrieve"] is run_retrieval
    rng = np.random.default_rng(1)
    y = np.repeat(["a", "b"], 30)
    X = pd.DataFrame({f"c{j}": np.where(rng.random(60) < 0.8, y, rng.choice(["a", "b"], 60))
                      for j in range(5)})
    register_method("_test-untie", embedding=UNTIE, params={"kernels": ["poly:1"]})
    try:
        res = run_retrieval(X, y, ["onehot", "_test-untie"], k=[1, 5, 100], runs=3)
    finally:
        _REGISTRY.pop("_test-untie", None)
    expected = retrieval_curve(OneHotEmbedder().fit_transform(X), y, [1, 5])
    assert res[0].status == "ok" and res[0].ks == (1, 5)  # 100 > n - 1 is left out
    assert res[0].mean("p@1") == pytest.approx(expected[1])
    assert res[0].n_fits == 1 and len(res[0].runs) == 1  # deterministic: fitted once
    assert res[1].status == "ok" and 0.5 < res[1].mean("p@5") <= 1
    summary = res[0].summary()
    assert summary["p@5_mean"] == pytest.approx(expected[5], abs=1e-6)
    assert "p@1" in text_table(res)


def test_cli_evaluate_task_retrieve(capsys):
    import json

    from catembed.cli import main
    from catembed.datasets import load_dataset

    code = main(["evaluate", "zoo", "--task", "retrieve", "--methods", "onehot,couplings",
                 "--runs", "1", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["task"] == "retrieve"
    res = {r["method"]: r for r in out["results"]}
    ds = load_dataset("zoo", preset="complete")
    from catembed import OneHotEmbedder

    est = OneHotEmbedder(categorical_features="all")
    expected = retrieval_curve(est.fit_transform(ds.features), ds.labels, [10])
    assert res["onehot"]["p@10_mean"] == pytest.approx(expected[10], abs=1e-6)
    assert 0 < res["couplings"]["p@1_mean"] <= 1
    assert main(["evaluate", "zoo", "--task", "retrieve", "--methods", "untie", "--runs",
                 "1"]) == 2  # a labels method gives no vectors: refused, exit 2
    text = capsys.readouterr()
    assert "p@1" in text.out and "retrieval needs vectors" in text.err


def test_ties_give_the_expected_precision_whatever_the_other_ks():
    X = np.array([[0.0], [1.0], [-1.0], [5.0]])
    y = ["a", "a", "b", "b"]
    # query 0 has two neighbours at distance 1, one relevant: expected precision@1 = 1/2
    assert precision_at_k(X, y, 1) == pytest.approx((0.5 + 1 + 0 + 0) / 4)
    assert retrieval_curve(X, y, [1, 3])[1] == pytest.approx(0.375)
    # a tie group larger than the neighbours fetched: 30 objects at one distance
    rng = np.random.default_rng(3)
    X = np.vstack([[[0.0, 0.0]], np.repeat([[1.0, 0.0]], 30, axis=0), [[9.0, 9.0]]])
    y = np.concatenate([[1], rng.integers(0, 2, 30), [0]])
    rel = np.mean(y[1:31] == 1)
    curve = retrieval_curve(X, y, [1, 5], batch_size=7)
    # query 0 (class 1) and the far query (class 0) see the whole group tied, for k <= 30;
    # each group member sees its 29 twins tied at distance 0, for k <= 29
    p_group = [np.mean(np.delete(y[1:31], i) == y[1 + i]) for i in range(30)]
    expected = (rel + np.sum(p_group) + np.mean(y[1:31] == 0)) / 32
    for k in (1, 5):
        assert curve[k] == pytest.approx(expected)
    arbitrary = retrieval_curve(X, y, [5], ties="arbitrary")
    assert 0 <= arbitrary[5] <= 1


def test_exact_duplicates_tie_whatever_the_rounding():
    # Regression (scikit-learn 1.9): brute-force Euclidean distances of exact duplicates come
    # out as ~1e-6 instead of 0, and a radius search at distance 0 then found nothing.
    rng = np.random.default_rng(0)
    for trial in range(20):
        a = rng.normal(size=40) * 10 ** rng.uniform(0, 4)
        b = rng.normal(size=40) * 10 ** rng.uniform(0, 4)
        if trial not in (12, 13, 14, 16):  # the draws that failed before the fix
            continue
        X = np.vstack([np.tile(a, (20, 1)), np.tile(b, (20, 1))])
        y = np.repeat([0, 1], 20)
        assert retrieval_curve(X, y, [1, 5]).tolist() == [1.0, 1.0]
