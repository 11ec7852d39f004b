"""Issue 53, item 1: no outlier group (a cluster under max(2, 1 % of the rows)) returned by
``Consensus`` as a cluster without a word (``catembed.cluster.consensus._degenerate``)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedWarning
from catembed.cluster.consensus import Consensus
from catembed.cluster.consensus import _degenerate as degenerate
from catembed.metrics import ari_codes
from conftest import cluster_stdout


def test_small_clusters_threshold():
    # 100 rows: the floor is 2 rows, so a cluster of 1 is small and one of 2 is not
    lab = np.r_[np.zeros(97, int), [1], [2, 2]]
    np.testing.assert_array_equal(degenerate.small_clusters(lab, 3), [1])
    # an empty cluster counts; rows labelled -1 are in no cluster
    np.testing.assert_array_equal(degenerate.small_clusters(lab, 4), [1, 3])
    # 1,000 rows: 1 % is 10 rows
    lab = np.r_[np.zeros(981, int), np.ones(9, int), np.full(10, 2)]
    np.testing.assert_array_equal(degenerate.small_clusters(lab, 3), [1])
    assert degenerate.outlier_message(np.r_[np.zeros(50, int), np.ones(50, int)], 2) is None
    text = degenerate.outlier_message(np.r_[np.zeros(99, int), [1]], 2)
    assert "cluster 1: 1 row)" in text and "max(2, 1 % of the rows) = 2 rows" in text


def _space(groups, seed, outlier_far=0.0):
    rs = np.random.RandomState(seed)
    Z = rs.normal(scale=0.1, size=(len(groups), 3))
    Z[:, 0] += 10.0 * groups
    Z[-1, 1] += outlier_far  # the last row: far from every group
    return Z.astype(np.float32)


def test_rare_rows():
    codes = np.zeros((300, 4), dtype=np.int64)
    codes[:, 0] = np.arange(300) % 3
    codes[-1, 1:] = [1, 2, 3]  # three of four values held by one row: a row of rare codes
    codes[-2, 1] = 4  # one rare value of four: not
    assert degenerate.rare_rows(codes, np.array([299]))
    assert not degenerate.rare_rows(codes, np.array([298, 299]))
    assert not degenerate.rare_rows(None, np.array([299]))


def test_guard_takes_the_best_candidate_when_the_refit_fails():
    groups = np.repeat([0, 1, 2], 60)
    spaces = [_space(groups, s) for s in range(3)]
    concat = groups.copy()
    concat[-1] = 3  # the pick (concat) spends a cluster on one row ...
    U = np.zeros((len(groups), 2))
    U[-1] = 5.0  # ... and its coordinates hold one point besides: no 4 clusters without it
    w = np.array([0.2, 0.3, 0.5])
    i, centres, labels, notes = degenerate.guarded_select(
        concat, np.zeros((4, 2)), U, spaces, w, 4, 1000, np.random.RandomState(0))
    # every member splits one group in two (4 clusters of 3 groups), none holds a small one
    assert notes["guard"] == "candidate" and i >= 0 and centres.shape == (4, 3)
    assert not len(degenerate.small_clusters(labels, 4))
    np.testing.assert_array_equal(notes["outlier_rows"], [179])


def test_guard_refits_without_the_outlier_rows():
    groups = np.repeat([0, 1], 100)
    spaces = [_space(groups, s, outlier_far=1000.0) for s in range(3)]
    U = np.hstack(spaces)
    concat = groups.copy()
    concat[-1] = 2  # the far row alone: k-means again on U without it
    i, centres, labels, notes = degenerate.guarded_select(
        concat, np.zeros((3, 9)), U, spaces, np.array([0.4, 0.3, 0.3]), 3, 1000,
        np.random.RandomState(0))
    assert notes["guard"] == "trimmed" and centres.shape[0] == 3
    np.testing.assert_array_equal(notes["outlier_rows"], [199])
    assert not len(degenerate.small_clusters(labels, 3))
    # the far row joins its nearest centre; the two groups stay apart
    assert ari_codes(groups[:-1], labels[:-1]) > 0.5


def _outlier_table(n_out):
    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 400)
    cols = {f"c{j}": np.where(rng.random(400) < 0.6, g, rng.integers(0, 2, 400)).astype(str)
            for j in range(8)}
    df = pd.DataFrame(cols)
    for r in range(n_out):
        df.loc[len(df)] = [f"rare{r}_{j}" for j in range(8)]
    return df, g


@pytest.mark.parametrize("n_out", [1, 3])
def test_consensus_sets_the_outlier_group_aside(n_out):
    # two planted groups and n_out rows of codes of their own: at k = 3 the side-by-side
    # partition spends its third cluster on them; the default takes a candidate without
    df, g = _outlier_table(n_out)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        concat = Consensus(3, combine="concat", random_state=0).fit(df)
        model = Consensus(3, random_state=0).fit(df)
    assert sorted(np.bincount(concat.labels_))[0] == n_out
    said = [str(w.message) for w in caught if issubclass(w.category, CatEmbedWarning)
            and "outlier group" in str(w.message)]
    assert len(said) == 1 and "combine='select'" in said[0]  # concat's, not the default's
    assert concat.diagnostics_["small_clusters"] == {int(np.argmin(np.bincount(
        concat.labels_))): n_out}
    assert not len(degenerate.small_clusters(model.labels_, 3))
    # the rows of rare codes set aside, the consensus fitted again without them
    assert model.diagnostics_["guard"] == "refit" and model.diagnostics_[
        "small_clusters"] == {}
    rows = model.diagnostics_["outlier_rows"]
    assert len(rows) and set(rows.tolist()) <= set(range(400, 400 + n_out))
    again = Consensus(3, random_state=0).fit(df.drop(index=rows).reset_index(drop=True))
    keep = np.setdiff1d(np.arange(len(df)), rows)
    np.testing.assert_array_equal(model.labels_[keep], again.labels_)
    np.testing.assert_array_equal(model.predict(df), model.labels_)


def test_labels_unchanged_without_a_small_cluster():
    # no row of rare codes, no small cluster: the usual pick, fitted once
    df, g = _outlier_table(0)
    model = Consensus(2, random_state=0).fit(df)
    assert model.diagnostics_["guard"] == "kept" and not len(model.diagnostics_["outlier_rows"])
    assert ari_codes(g, model.labels_) > 0.5


def test_a_row_of_rare_codes_is_set_aside_whatever_the_pick():
    # k = 2: the pick has no small cluster, but the one row of rare codes is an outlier
    # group: the consensus is fitted without it, as on the table without it
    df, g = _outlier_table(1)
    model = Consensus(2, random_state=0).fit(df)
    clean = Consensus(2, random_state=0).fit(df.iloc[:400])
    assert model.diagnostics_["guard"] == "refit"
    np.testing.assert_array_equal(model.diagnostics_["outlier_rows"], [400])
    np.testing.assert_array_equal(model.labels_[:400], clean.labels_)


def test_cli_says_why_the_pick_moved(tmp_path, capsys):
    df, _ = _outlier_table(1)
    out = cluster_stdout(df, tmp_path, capsys, 3)
    assert "partition: fitted again without 1 row(s) of rare codes" in out


def test_the_outlier_warning_after_a_refit_reads_the_labels_returned():
    # three rows, one of rare codes: the refit (two rows) had two one-row clusters and said
    # "2 of the 2 clusters ... (cluster 0: 1 row, cluster 1: 1 row)" while the rows
    # returned, the outlier taking its nearest centre, were in clusters of 2 and 1
    df = pd.DataFrame({"a": ["x", "x", "y"], "b": ["y", "z", "y"]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = Consensus(2, random_state=0).fit(df)
    assert model.diagnostics_["guard"] == "refit"
    sizes = np.bincount(model.labels_, minlength=2)
    said = [str(w.message) for w in caught if "outlier group" in str(w.message)]
    assert said == [degenerate.outlier_message(model.labels_, 2)]
    small = int(np.argmin(sizes))
    assert "1 of the 2 clusters holds" in said[0] and f"(cluster {small}: 1 row)" in said[0]
    assert model.diagnostics_["small_clusters"] == {small: 1}
