"""Consensus: k chosen without labels, the members' agreement weights, the trust signals
and the profiles (issue 38)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError, CatEmbedWarning
from catembed.cluster import Consensus
from catembed.cluster.consensus._auto_k import (
    DEPENDENCE_Z,
    _independence_loglik,
    choose_k,
    dependence_z,
    lca_bic_table,
    parse_k_range,
)
from catembed.cluster.consensus._runs import agreement_with_others, member_weights
from catembed.cluster.consensus._trust import _nmi_codes, messages
from catembed.metrics import ari_codes

FAST = dict(members=["mca", "onehot"], n_init=3, random_state=0)


def planted(n: int, k: int, n_cols: int, n_values: int, purity: float, seed: int):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, k, n)
    pref = np.stack([rng.permutation(n_values)[:k] for _ in range(n_cols)], axis=1)
    take = rng.random((n, n_cols)) < purity
    codes = np.where(take, pref[g], rng.integers(0, n_values, (n, n_cols)))
    return pd.DataFrame({f"c{j}": [f"v{v}" for v in codes[:, j]] for j in range(n_cols)}), g


def independent(n: int, n_cols: int, n_values: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"c{j}": [f"v{v}" for v in rng.integers(0, n_values, n)]
                         for j in range(n_cols)})


# ---------------------------------------------------------------- the k range
def test_k_ranges():
    assert parse_k_range(4, 100) is None
    assert parse_k_range("auto", 100) == list(range(1, 11))
    assert parse_k_range("auto", 3) == [1, 2, 3]  # capped at the distinct rows
    assert parse_k_range("2:6", 100) == [2, 3, 4, 5, 6]
    assert parse_k_range((3, 4), 100) == [3, 4]
    for bad in ("two", "2:", "5:2", "0:3", "1:2:3"):
        with pytest.raises(CatEmbedError):
            parse_k_range(bad, 100)
    with pytest.raises(CatEmbedError):
        Consensus("many").fit(independent(50, 3, 3, 0))


def test_bic_by_hand():
    codes = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
    # independence: every value has share 1/2, 8 cells
    assert _independence_loglik(codes) == pytest.approx(8 * np.log(0.5))
    t = lca_bic_table(codes, [1], np.random.RandomState(0))
    # p = (K - 1) + K * sum_j (l_j - 1) = 0 + 1 * 2
    assert t.loc[1, "n_parameters"] == 2
    assert t.loc[1, "bic"] == pytest.approx(-2 * 8 * np.log(0.5) + 2 * np.log(4))


def test_bic_table_stops_after_two_rises_in_a_row(monkeypatch):
    """k >= 2 are fitted until the BIC has risen at two consecutive k; the k after are
    listed as not fitted, and their seeds are still drawn (the stream ends where a full
    table leaves it)."""
    from catembed.cluster.consensus import _auto_k

    lls = {2: -100.0, 3: -90.0, 4: -95.0, 5: -60.0, 6: -70.0, 7: -76.0, 8: 0.0, 9: 0.0}
    fitted = []

    def fake(uniq, weights, offsets, k, *args, **kwargs):
        fitted.append(k)
        return lls[k]

    monkeypatch.setattr(_auto_k, "_screened_loglik", fake)
    codes = np.array([[a, b] for a in range(3) for b in range(3)] * 4)
    rs = np.random.RandomState(0)
    t = lca_bic_table(codes, list(range(1, 10)), rs)
    # n_parameters = (k - 1) + 4 k: BIC rises from 3 to 4 (one rise, then 5 falls),
    # from 5 to 6 and 6 to 7 (two in a row): stop after 7
    assert fitted == [2, 3, 4, 5, 6, 7]
    assert list(t.index) == [1, 2, 3, 4, 5, 6, 7] and t.attrs["not_fitted"] == [8, 9]
    assert choose_k(t, z=DEPENDENCE_Z + 1) == 5
    ref = np.random.RandomState(0)
    for _ in range(8):  # one seed per k >= 2, fitted or not
        ref.randint(2**31 - 1)
    assert rs.randint(2**31 - 1) == ref.randint(2**31 - 1)


# ---------------------------------------------------------------- auto k
def test_choose_k_by_hand():
    scores = pd.DataFrame({"bic": [100.0, 120.0, 110.0, 130.0]}, index=[1, 2, 3, 4])
    assert choose_k(scores, z=DEPENDENCE_Z - 0.1) == 1  # independent columns: no groups
    assert choose_k(scores, z=DEPENDENCE_Z + 0.1) == 3  # dependent: the best k >= 2
    assert choose_k(scores.loc[[2, 3, 4]], z=0.0) == 3  # 1 not in the range asked for


def test_dependence_of_planted_and_independent_columns():
    rs = np.random.RandomState(0)
    df, _ = planted(300, 3, 6, 4, 0.7, seed=1)
    codes = np.column_stack([pd.factorize(df[c])[0] for c in df.columns])
    assert dependence_z(codes, rs) > 3 * DEPENDENCE_Z
    null = independent(300, 6, 4, seed=1)
    codes = np.column_stack([pd.factorize(null[c])[0] for c in null.columns])
    assert dependence_z(codes, rs) < DEPENDENCE_Z
    assert dependence_z(codes[:, :1], rs) == 0.0  # one column: nothing to depend on


@pytest.mark.parametrize("k", [2, 3, 5])
def test_auto_finds_the_planted_k(k):
    df, g = planted(500, k, 8, 5, 0.8, seed=k)
    m = Consensus("1:6", **FAST).fit(df)
    assert m.n_clusters_ == k
    assert int(m.k_scores_["bic"].idxmin()) == k
    fitted, skipped = list(m.k_scores_.index), m.k_scores_.attrs["not_fitted"]
    assert fitted + skipped == list(range(1, 7)) and max(fitted) >= min(k + 2, 6)
    assert len(np.unique(m.labels_)) == k


def test_auto_gives_the_labels_of_the_chosen_k():
    # the k search draws from a copy of the random stream: Consensus("auto") choosing k and
    # Consensus(k) with the same seed fit the same members the same way (noisy groups, so the
    # members' runs matter)
    df, _ = planted(400, 3, 6, 4, 0.6, seed=4)
    auto = Consensus("1:5", **FAST).fit(df)
    fixed = Consensus(auto.n_clusters_, **FAST).fit(df)
    np.testing.assert_array_equal(auto.labels_, fixed.labels_)
    np.testing.assert_array_equal(auto.member_weights_, fixed.member_weights_)


def test_no_clear_groups_is_an_answer():
    df = independent(500, 8, 4, seed=1)
    with pytest.warns(CatEmbedWarning, match="no clear groups"):
        m = Consensus("1:4", **FAST).fit(df)
    assert m.n_clusters_ == 1
    assert (m.labels_ == 0).all()
    np.testing.assert_array_equal(m.predict(df.iloc[:7]), np.zeros(7, dtype=np.int64))


def test_a_given_k_is_not_chosen():
    df, _ = planted(300, 3, 6, 4, 0.8, seed=0)
    m = Consensus(2, **FAST).fit(df)
    assert m.n_clusters_ == 2 and not hasattr(m, "k_scores_")
    assert m.dependence_z_ > 4  # the dependence test runs at k given too (issue 53)


def test_auto_model_saves_and_loads():
    df, _ = planted(400, 3, 6, 4, 0.8, seed=4)
    m = Consensus("2:4", **FAST).fit(df)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.npz")
        m.save(path)
        again = Consensus.load(path)
    assert again.n_clusters_ == m.n_clusters_ == 3
    np.testing.assert_array_equal(again.predict(df), m.labels_)
    # what the fit said about its answer is kept: the BIC per k, the diagnostics, the z
    pd.testing.assert_frame_equal(again.k_scores_, m.k_scores_)
    assert again.k_scores_.attrs == m.k_scores_.attrs and again.dependence_z_ == m.dependence_z_
    for key, value in m.diagnostics_.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(again.diagnostics_[key], value)
        else:
            assert again.diagnostics_[key] == value, key


def test_saved_fit_notes_checked_and_optional(tmp_path):
    import json

    from catembed.persist import _checksum

    df, _ = planted(300, 3, 6, 4, 0.8, seed=0)
    m = Consensus(3, **FAST).fit(df)
    m.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta = json.loads(str(data["__meta__"]))

    def rewrite(notes):
        meta["composite"]["fit_notes"] = notes
        out = dict(data, __meta__=np.array(json.dumps(meta)))
        arrays = {k: v for k, v in out.items() if k not in ("__meta__", "__checksum__")}
        out["__checksum__"] = np.array(_checksum(str(out["__meta__"]), arrays))
        np.savez(tmp_path / "edited.npz", **out)
        return tmp_path / "edited.npz"

    notes = meta["composite"]["fit_notes"]
    assert notes["k_scores"] is None and len(notes["diagnostics"]["cluster_jaccard"]) == 3
    again = Consensus.load(rewrite(notes))
    assert not hasattr(again, "k_scores_") and again.dependence_z_ == m.dependence_z_
    # a file saved before the notes were kept: it loads, without diagnostics_
    old = Consensus.load(rewrite(None))
    assert not hasattr(old, "diagnostics_")
    np.testing.assert_array_equal(old.predict(df), m.labels_)
    # damaged notes: refused with the reason
    for bad in ({**notes, "diagnostics": {**notes["diagnostics"], "cluster_jaccard": [0.5]}},
                {**notes, "diagnostics": {**notes["diagnostics"], "cluster_status": ["x"] * 3}},
                {**notes, "diagnostics": {**notes["diagnostics"], "outlier_rows": [10**6]}},
                {**notes, "dependence_z_": "many"}, {"diagnostics": None}):
        with pytest.raises(CatEmbedError, match="diagnostics .* cannot be read"):
            Consensus.load(rewrite(bad))


# ---------------------------------------------------------------- weights
def test_agreement_weights_by_hand():
    a = np.array([0, 0, 1, 1, 2, 2])
    b = np.array([1, 1, 0, 0, 2, 2])  # a renumbering of a
    c = np.array([0, 1, 0, 1, 0, 1])  # unrelated to both
    runs = [[a, a], [b, b], [c, c]]
    w = agreement_with_others(runs, np.random.RandomState(0))
    assert w[0] == pytest.approx(w[1]) and w[0] > w[2]
    np.testing.assert_array_equal(member_weights("equal", np.array([0.2, 0.9, 0.5]), runs,
                                                 np.random.RandomState(0), 1.0), np.ones(3))
    np.testing.assert_allclose(member_weights("stability", np.array([0.2, 0.9, 0.5]), runs,
                                              np.random.RandomState(0), 2.0),
                               [0.04, 0.81, 0.25])


def test_a_lone_member_agrees_with_itself():
    assert agreement_with_others([[np.arange(4)]], np.random.RandomState(0)).tolist() == [1.0]


def test_weights_parameter_is_checked():
    with pytest.raises(CatEmbedError):
        Consensus(2, weights="votes").fit(independent(50, 3, 3, 0))


# ---------------------------------------------------------------- trust
def test_nmi_by_hand():
    a = np.array([0, 0, 1, 1])
    assert _nmi_codes(a, np.array([5, 5, 7, 7]) - 5) == pytest.approx(1.0)
    assert _nmi_codes(a, np.array([0, 1, 0, 1])) == pytest.approx(0.0)
    assert _nmi_codes(a, np.array([-1, -1, 0, 0])) == pytest.approx(1.0)  # missing = a value


def test_a_one_column_split_is_named():
    rng = np.random.default_rng(0)
    df = independent(400, 5, 3, seed=2)
    df["kind"] = rng.choice(["x", "y"], 400)
    df["twin"] = df["kind"].map({"x": "p", "y": "q"})  # two copies: the only structure
    with pytest.warns(CatEmbedWarning, match="follow the values of one column"):
        m = Consensus(2, **FAST).fit(df)
    d = m.diagnostics_
    assert d["split_column"] in ("kind", "twin") and d["split_nmi"] > 0.99
    assert set(d) == {"stability", "member_agreement", "split_column", "split_nmi",
                      "cluster_jaccard", "cluster_dissolved", "cluster_status",
                      "dependence_z", "guard", "outlier_rows", "small_clusters"}


def test_messages_say_what_is_weak():
    d = {"stability": 0.1, "member_agreement": 0.05, "split_column": "a", "split_nmi": 0.3}
    text = " ".join(messages(d, 3))
    assert "disagree" in text and "weak structure" in text and "one column" not in text
    assert messages({"stability": 0.9, "member_agreement": 0.8, "split_column": "a",
                     "split_nmi": 0.5}, 3) == []


def test_clear_groups_fit_without_a_warning():
    df, g = planted(600, 3, 8, 5, 0.85, seed=7)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatEmbedWarning)
        m = Consensus(3, **FAST).fit(df)
    assert m.diagnostics_["stability"] > 0.8


# ---------------------------------------------------------------- profiles
def test_profiles_after_fit():
    df, _ = planted(300, 3, 4, 4, 0.9, seed=3)
    m = Consensus(3, **FAST).fit(df)
    p = m.profiles_
    sizes = p.groupby("cluster")["size"].first()
    assert sizes.sum() == 300
    assert sizes.tolist() == np.bincount(m.labels_).tolist()
    cats = p[p["kind"] == "category"]
    assert (cats["lift"] >= 0).all() and cats["v.test"].notna().all()
    # each cluster's first row: its most over-represented value (issue 54: ranked by v-test)
    assert (cats.groupby("cluster")["lift"].first() > 1).all()
    assert (p["kind"] == "paragon").sum() == 15


# ---------------------------------------------------------------- the command line
def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "catembed", *args], capture_output=True,
                          text=True, timeout=300)


def test_cli_chooses_k_and_prints_the_criteria(tmp_path):
    df, _ = planted(500, 3, 6, 4, 0.85, seed=5)
    src = tmp_path / "t.csv"
    df.to_csv(src, index=False)
    out = tmp_path / "labels.csv"
    r = _cli("cluster", str(src), "-k", "2:4", "--members", "mca,onehot", "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "k chosen without labels: k = 3" in r.stdout
    assert "structure: 3 stable of 3 clusters" in r.stdout
    assert pd.read_csv(out)["cluster"].nunique() == 3


@pytest.mark.parametrize("bad", ["0:3", "5:2", "x", "1"])
def test_cli_refuses_a_bad_k(tmp_path, bad):
    src = tmp_path / "t.csv"
    independent(30, 3, 3, 0).to_csv(src, index=False)
    r = _cli("cluster", str(src), "-k", bad)
    assert r.returncode == 2 and "n-clusters" in r.stderr


# ---------------------------------------------------------------- wide tables
def test_wide_table_fits_the_cheap_members():
    """Fewer rows than a quarter of the values, over 3,000 values: CDE, MCA and LCME would
    cost O(l^2) or more whatever the rows (30 x 2,000: no answer in 200 s); the default
    portfolio becomes one-hot and IDF at full width, with a warning."""
    rng = np.random.default_rng(0)
    g = np.repeat([0, 1], 15)
    df = pd.DataFrame({f"c{j}": np.where(rng.random(30) < 0.8, [f"g{x}" for x in g],
                                         rng.choice(["a", "b"], 30)) for j in range(800)})
    with pytest.warns(CatEmbedWarning, match="only onehot, idf are fitted"):
        m = Consensus(2, random_state=0).fit(df)
    assert m.members_ == ["onehot", "idf"]
    assert ari_codes(g, m.labels_) == pytest.approx(1.0)
    np.testing.assert_array_equal(m.predict(df), m.labels_)
    named = Consensus(2, members=["idf"], random_state=0).fit(df)  # a user's choice is kept
    assert named.members_ == ["idf"]
