"""MGR and LSH-k-representatives (issue 39): hand-computed toy cases, scikit-learn's checks,
predict, pickling and refusals. The comparison with the survey's code and the authors'
package is in ``test_survey_oracle.py``."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CatEmbedError
from catembed.cluster import MGR, LSHKRepresentatives
from catembed.cluster.lshkreps import bucket_start, min_cut
from catembed.datasets import load_dataset
from catembed.evaluation.methods import get_method

_CATEGORICAL_ONLY = (
    "{} reads every column as categorical values; the check's continuous blobs give every "
    "row its own values, so all rows are equally (dis)similar and no categorical method "
    "can group them"
)


def _expected_failures(estimator):
    return {"check_clustering": _CATEGORICAL_ONLY.format(type(estimator).__name__)}


@parametrize_with_checks([MGR(), LSHKRepresentatives()],
                         expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    """issue 39: scikit-learn's common checks (categorical input tags)."""
    check(estimator)


# ------------------------------------------------------------------ MGR by hand
# a: x x x y y y (H = ln 2); b: p p q r r r. b determines a, so I(a; b) = H(a) and
# MGR(a) = I/H(a) = 1 > MGR(b) = I/H(b): split on a. Class y has b = r r r (entropy 0),
# class x has b = p p q (entropy > 0): y is the first cluster.
TOY = pd.DataFrame({"a": list("xxxyyy"), "b": list("ppqrrr")})


def test_mgr_toy_two_clusters():
    m = MGR(2).fit(TOY)
    assert m.labels_.tolist() == [1, 1, 1, 0, 0, 0]
    assert m.split_features_.tolist() == ["a"] and m.split_values_.tolist() == ["y"]
    p = np.array([2, 1, 3]) / 6  # b: p p q r r r
    h_b = -(p * np.log(p)).sum()
    np.testing.assert_allclose(m.mean_gain_ratios_[0], [1.0, np.log(2) / h_b], rtol=1e-12)


def test_mgr_toy_three_clusters_tie_goes_to_the_value_met_first():
    """Left: rows 0-2, where a is constant (dropped) and b = p p q: the only attribute
    splits; both classes have entropy 0 and p is met first."""
    m = MGR(3).fit(TOY)
    assert m.labels_.tolist() == [1, 1, 2, 0, 0, 0]
    assert m.split_features_.tolist() == ["a", "b"]
    assert m.split_values_.tolist() == ["y", "p"]
    assert np.isnan(m.mean_gain_ratios_[1, 0]) and m.mean_gain_ratios_[1, 1] == 0.0


def test_mgr_predict_is_the_decision_list():
    m = MGR(3).fit(TOY)
    assert m.predict(TOY).tolist() == m.labels_.tolist()
    new = pd.DataFrame({"a": ["y", "z", "x", "z"], "b": ["q", "p", "r", "zz"]})
    assert m.predict(new).tolist() == [0, 1, 2, 2]  # unseen values fall through


def test_mgr_identical_rows_left_warn():
    df = pd.DataFrame({"a": list("xxyy"), "b": list("uuvv")})
    with pytest.warns(ConvergenceWarning, match="2 cluster"):
        m = MGR(3).fit(df)
    assert adjusted_rand_score(m.labels_, [0, 0, 1, 1]) == 1.0


def test_mgr_zoo_is_the_survey_figure():
    """The survey's MGR row for Zoo: ARI .9555 (deterministic, every run)."""
    ds = load_dataset("zoo")
    X = ds.frame.drop(columns=["animal_name", "type"])
    m = MGR(7).fit(X)
    assert round(adjusted_rand_score(ds.frame["type"], m.labels_), 4) == 0.9555
    assert m.split_features_.tolist() == ["milk", "fins", "feathers", "hair", "backbone",
                                          "eggs"]


# ------------------------------------------------------------------ LSH-k-reps by hand
def test_min_cut_two_tight_pairs():
    w = np.full((4, 4), 1.0)
    w[0, 1] = w[1, 0] = w[2, 3] = w[3, 2] = 10.0
    cut, side = min_cut(w)
    assert cut == 4.0
    assert sorted(np.flatnonzero(side).tolist()) in ([0, 1], [2, 3])


def test_min_cut_single_vertex():
    w = np.array([[0, 5, 5], [5, 0, 1], [5, 1, 0.0]])
    cut, side = min_cut(w)  # {2} (or {1}) alone: 6; {0} alone: 10
    assert cut == 6.0 and side.sum() in (1, 2) and not (side.sum() == 1 and side[0])


def test_bucket_start_by_hand():
    """Buckets 5 (3 rows), 1 (2 rows) are the seeds; 0 = 000 is nearer 1 = 001 (one bit)
    than 5 = 101, 7 = 111 is nearer 5."""
    keys = np.array([5, 5, 5, 1, 1, 0, 7])
    assert bucket_start(keys, 2).tolist() == [0, 0, 0, 1, 1, 1, 0]
    assert bucket_start(np.array([3, 3, 3]), 2).tolist() == [0, 0, 0]  # seed 2 is hash 0


NOISY = pd.DataFrame({"A": list("aaabbb"), "B": list("aacbbb"), "C": list("aaabbc")})


def test_lsh_kreps_toy_cost_by_hand():
    """Clusters {0,1,2}, {3,4,5}: frequencies A a 1, B a 2/3 c 1/3, C a 1 (and the mirror);
    distances 1/3, 1/3, 2/3 per cluster: cost 8/3."""
    m = LSHKRepresentatives(2).fit(NOISY)
    assert adjusted_rand_score(m.labels_, [0, 0, 0, 1, 1, 1]) == 1.0
    assert m.cost_ == pytest.approx(8 / 3, rel=1e-12)
    c = m.labels_[0]
    np.testing.assert_allclose(m.frequencies_[1][c], [2 / 3, 0, 1 / 3], rtol=1e-12)
    assert m.predict(NOISY).tolist() == m.labels_.tolist()
    # an unseen value adds 1 to every distance: the row still goes by its other values
    assert m.predict(pd.DataFrame({"A": ["zz"], "B": ["a"], "C": ["a"]})).tolist() == [c]


def test_lsh_kreps_empty_cluster_is_filled_with_a_whole_row_group():
    """Two hash buckets for three clusters: the empty one takes a distinct row with all its
    copies (issue 52: it took one row, splitting identical rows)."""
    df = pd.DataFrame({"a": list("xxxxyyz"), "b": list("uuuuvvw")})
    m = LSHKRepresentatives(3).fit(df)
    assert adjusted_rand_score(m.labels_, [0, 0, 0, 0, 1, 1, 2]) == 1.0
    assert m.predict(df).tolist() == m.labels_.tolist()


def test_lsh_kreps_fewer_distinct_rows_than_clusters_warns():
    df = pd.DataFrame({"a": list("xxxxy"), "b": list("uuuuv")})
    with pytest.warns(ConvergenceWarning, match="2 cluster.*2 distinct row"):
        m = LSHKRepresentatives(3).fit(df)
    assert adjusted_rand_score(m.labels_, [0, 0, 0, 0, 1]) == 1.0


def test_lsh_kreps_hash_distances_differ_on_zoo():
    ds = load_dataset("zoo")
    X = ds.frame.drop(columns=["animal_name", "type"])
    ref = LSHKRepresentatives(7).fit(X)
    assert round(adjusted_rand_score(ds.frame["type"], ref.labels_), 4) == 0.6793
    hashed = ["feathers", "eggs", "milk", "breathes", "venomous", "fins", "domestic"]
    assert sorted(ref.hash_features_) == sorted(hashed)  # the package's bits (oracle run)
    assert ref.n_buckets_ == 16
    dil = LSHKRepresentatives(7, hash_distance="dilca").fit(X)
    assert sorted(dil.hash_features_) == sorted(
        ["backbone", "domestic", "feathers", "fins", "milk", "toothed", "venomous"])


# ------------------------------------------------------------------ both
@pytest.mark.parametrize("est", [MGR(2), LSHKRepresentatives(2)], ids=lambda e: type(e).__name__)
def test_pickle_round_trip(est):
    fitted = clone(est).fit(NOISY)
    back = pickle.loads(pickle.dumps(fitted))
    assert back.predict(NOISY).tolist() == fitted.predict(NOISY).tolist()


@pytest.mark.parametrize("cls", [MGR, LSHKRepresentatives])
def test_refusals(cls):
    with pytest.raises(CatEmbedError, match=r"n_samples=6 should be >= n_clusters=7"):
        cls(7).fit(NOISY)
    with pytest.raises(CatEmbedError, match="n_clusters must be a positive integer"):
        cls(0).fit(NOISY)
    with pytest.raises(CatEmbedError, match="handle_missing"):
        cls(2, handle_missing="drop").fit(NOISY)
    with pytest.raises(CatEmbedError, match="missing"):
        cls(2, handle_missing="error").fit(NOISY.assign(A=["a", None, "a", "b", "b", "b"]))
    fitted = cls(2).fit(NOISY)
    with pytest.raises(CatEmbedError, match="X has 2 features"):
        fitted.predict(NOISY.iloc[:, :2])


def test_lsh_kreps_parameter_refusals():
    with pytest.raises(CatEmbedError, match="hash_distance"):
        LSHKRepresentatives(2, hash_distance="cos").fit(NOISY)
    with pytest.raises(CatEmbedError, match="max_iter"):
        LSHKRepresentatives(2, max_iter=0).fit(NOISY)


@pytest.mark.parametrize("name", ["mgr", "lsh-kreps"])
def test_registered_for_evaluate(name):
    entry = get_method(name)
    labels = entry.resolve()(NOISY, 2, random_state=3)
    assert adjusted_rand_score(labels, [0, 0, 0, 1, 1, 1]) == 1.0 or name == "mgr"
    assert len(labels) == 6


@pytest.mark.parametrize("cls", [MGR, LSHKRepresentatives])
def test_cost_check_refuses_up_front(cls, monkeypatch):
    """issue 39: a fit over the memory or time limit is refused before the counting."""
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1K")
    with pytest.raises(CatEmbedError, match=rf"{cls.__name__} on 6 rows with 8 distinct "
                       r"values in 3 columns \(n_clusters=2\) would need about .*"
                       "CATEMBED_MAX_MEMORY"):
        cls(2).fit(NOISY)
    monkeypatch.delenv("CATEMBED_MAX_MEMORY")
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "1e-9")
    with pytest.raises(CatEmbedError, match="would take about .*CATEMBED_MAX_SECONDS"):
        cls(2).fit(NOISY)
