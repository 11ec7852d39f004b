"""Metrics: F-score, matched accuracy, NMI, ARI and the data factors FCI / VCI by hand."""

import math

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError, ValueStatistics
from catembed.metrics import (
    F_SCORES,
    ari,
    ari_codes,
    clustering_scores,
    f_score,
    fci,
    match_clusters,
    matched_accuracy,
    nmi,
    vci,
)


def test_f_score_and_accuracy_by_hand():
    y = list("aabbcc")
    p = [1, 1, 0, 0, 0, 2]
    # matching a<-1, b<-0, c<-2; predicted a a b b b c
    assert list(match_clusters(y, p)) == list("aabbbc")
    f1 = (1.0 + 2 * (2 / 3) / (2 / 3 + 1) + 2 * 0.5 / 1.5) / 3
    assert f_score(y, p) == pytest.approx(f1)
    assert matched_accuracy(y, p) == pytest.approx(5 / 6)


def test_more_clusters_than_classes():
    y = [0, 0, 0, 1, 1, 1]
    p = [0, 0, 1, 2, 2, 2]
    matched = match_clusters(y, p)
    assert matched[2] is None  # cluster 1 maps to no class: its object is an error
    assert f_score(y, p) == pytest.approx((0.8 + 1.0) / 2)
    assert matched_accuracy(y, p) == pytest.approx(5 / 6)


def test_fewer_clusters_than_classes():
    y = [0, 0, 1, 1, 2, 2]
    p = [0, 0, 0, 0, 1, 1]
    # one of classes 0/1 gets cluster 0 (P 1/2, R 1 -> 2/3), the other nothing, class 2 is 1
    assert f_score(y, p) == pytest.approx((2 / 3 + 0 + 1) / 3)
    assert matched_accuracy(y, p) == pytest.approx(4 / 6)


def test_nmi_by_hand():
    y = [0, 0, 1, 1]
    p = [0, 0, 0, 1]
    hy = math.log(2)
    hp = -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))
    h_y_given_p = 0.75 * -(2 / 3 * math.log(2 / 3) + 1 / 3 * math.log(1 / 3))
    mi = hy - h_y_given_p
    assert nmi(y, p) == pytest.approx(mi / ((hy + hp) / 2))
    assert nmi(list("xxyy"), [5, 5, 7, 7]) == pytest.approx(1.0)


def test_ari_by_hand():
    # pairs: 6; same-class pairs (0,1),(2,3); same-cluster pairs (0,2),(1,3); none shared
    # index 0, expected (2*2)/6 = 2/3, max 2 -> (0 - 2/3) / (2 - 2/3) = -0.5
    assert ari([0, 0, 1, 1], [0, 1, 0, 1]) == pytest.approx(-0.5)
    assert ari(list("aabb"), ["u", "u", "v", "v"]) == pytest.approx(1.0)


def test_label_length_mismatch_is_a_clear_error():
    with pytest.raises(CatEmbedError, match="one length"):
        nmi([0, 1], [0, 1, 1])


def test_clustering_scores_keys():
    s = clustering_scores([0, 0, 1, 1], [1, 1, 0, 0])
    assert s == {"f_score": 1.0, "acc": 1.0, "nmi": pytest.approx(1.0), "ari": 1.0,
                 "f_hungarian": 1.0, "f_best_match": 1.0, "f_pairwise": 1.0}


def test_fci_by_hand():
    X = pd.DataFrame({"a": list("xxyy"), "b": list("ppqq"), "c": list("pqpq")})
    # SU(a,b) = 1 (identical partitions), SU(a,c) = SU(b,c) = 0 (independent)
    assert fci(X) == pytest.approx(1 / 3)
    assert fci(ValueStatistics.from_frame(X)) == pytest.approx(1 / 3)
    assert fci(X[["a"]]) == 0.0


def test_fci_partial_dependence():
    X = pd.DataFrame({"a": list("xxyy"), "b": list("ppqr")})
    h_a = math.log(2)
    h_b = -(0.5 * math.log(0.5) + 2 * 0.25 * math.log(0.25))
    mi = h_a  # a is a function of b: I = H(a)
    assert fci(X) == pytest.approx(2 * mi / (h_a + h_b))


def test_vci_by_hand():
    X = pd.DataFrame({"a": list("xxyy"), "b": list("ppqq"), "c": list("pqpq")})
    # a, b: value sets of the classes disjoint -> 1; c: both classes {p, q} -> 0
    assert vci(X, [0, 0, 1, 1]) == pytest.approx(2 / 3)
    X2 = pd.DataFrame({"a": ["x", "y", "y", "z", "x", "x"]})
    y2 = [0, 0, 1, 1, 2, 2]
    # class value sets {x,y}, {y,z}, {x}: distances 2/3, 1/2, 1 -> max 1
    assert vci(X2, y2) == pytest.approx(1.0)
    y3 = [0, 0, 1, 1, 0, 0]
    # {x, y} vs {y, z}: 1 - 1/3
    assert vci(X2, y3) == pytest.approx(2 / 3)


def test_vci_one_class_and_bad_length():
    X = pd.DataFrame({"a": list("xy")})
    assert vci(X, [1, 1]) == 0.0
    with pytest.raises(CatEmbedError, match="rows"):
        vci(X, [1, 1, 1])


def test_scores_accept_string_and_numpy_labels():
    y = np.array(["b", "a", "b", "a"])
    p = np.array([3, 4, 3, 4])
    assert f_score(y, p) == 1.0 and matched_accuracy(y, p) == 1.0


def test_ari_codes_by_hand_and_equal_to_sklearn():
    from sklearn.metrics import adjusted_rand_score

    # a = {0,1},{2,3}, b = {0,1,2},{3}: pairs together in a 2, in b 3, in both 1 of 6;
    # ARI = (1 - 2*3/6) / ((2+3)/2 - 2*3/6) = 0 / 1.5 = 0
    assert ari_codes(np.array([0, 0, 1, 1]), np.array([0, 0, 0, 1])) == 0.0
    assert ari_codes(np.array([0, 0, 0]), np.array([1, 1, 1])) == 1.0  # one cluster each
    assert ari_codes(np.array([0, 1, 2]), np.array([2, 0, 1])) == 1.0  # singletons
    rng = np.random.default_rng(0)
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64):
        a = rng.integers(0, 4, 3001).astype(dtype)
        b = np.where(rng.random(3001) < 0.6, a, rng.integers(0, 6, 3001)).astype(dtype)
        # exact, also when the table is counted in chunks smaller than the input
        assert ari_codes(a, b, chunk=97) == adjusted_rand_score(a, b)
    # not non-negative integers: scikit-learn's own
    assert ari_codes(np.array([-1, -1, 2]), np.array([0, 0, 1])) == 1.0
    assert ari_codes(np.array(["x", "y", "y"]), np.array([1, 0, 0])) == 1.0
    with pytest.raises(CatEmbedError, match="labels"):
        ari_codes(np.array([0, 1]), np.array([0]))
    # sparse ids (a contingency table of 2**40 x 3 cells) and uint64 beyond int64: sklearn's
    assert ari_codes(np.array([2**40, 0, 2**40]), np.array([1, 2, 1])) == 1.0
    assert ari_codes(np.array([2**63, 1, 2**63], dtype=np.uint64), np.array([0, 1, 0])) == 1.0
    big = rng.integers(0, 2**40, 500)
    assert ari_codes(big, big % 7) == adjusted_rand_score(big, big % 7)
    with pytest.raises(CatEmbedError, match="1-D"):
        ari_codes(np.array([[0, 1]]), np.array([[0, 1]]))


def test_f_scores_and_accuracy_read_labels_as_nmi_does():
    """A class named None is a class (it was read as an unmatched cluster: F 0.5, accuracy
    2/3 for a perfect partition); a length mismatch or 2-D labels, and F-scores of no
    objects, are CatEmbedError, as for nmi / ari."""
    y, p = [None, "a", "a"], [0, 1, 1]
    assert f_score(y, p) == 1.0 and matched_accuracy(y, p) == 1.0
    assert nmi(y, p) == 1.0
    for func in (f_score, matched_accuracy, *F_SCORES.values()):
        with pytest.raises(CatEmbedError, match="1-d and of one length"):
            func([0, 1], [0, 1, 1])
        with pytest.raises(CatEmbedError, match="1-d"):
            func([[0, 1]], [[0, 1]])
    for func in F_SCORES.values():
        with pytest.raises(CatEmbedError, match="at least one labelled object"):
            func([], [])
    assert np.isnan(matched_accuracy([], []))
