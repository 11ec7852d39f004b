"""What each cluster means (issue 38 part 4): :func:`catembed.cluster.describe_clusters`,
:func:`attach_profiles` (a clusterer's ``profiles_``) and the printed block."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.cluster import Consensus, describe_clusters
from catembed.cluster.consensus._describe import PROFILE_COLUMNS, attach_profiles, profile_lines


@pytest.fixture
def planted():
    """Cluster 0: rows 0-3, cluster 1: rows 4-9. ``color``: red 4 of 10 overall, 3 of 4 in
    cluster 0; ``size``: 10-13 in cluster 0, about 30 in cluster 1 (one missing)."""
    df = pd.DataFrame({
        "color": ["red", "red", "red", "blue", "blue", "blue", "blue", "blue", "blue", "red"],
        "size": [10.0, 11.0, 12.0, 13.0, 30.0, 31.0, 29.0, 32.0, 30.0, np.nan],
    })
    return df, np.array([0] * 4 + [1] * 6)


def test_hand_computed_shares_lifts_and_medians(planted):
    df, labels = planted
    prof = describe_clusters(df, labels, numeric_features=["size"], min_support=0.0)
    assert list(prof.columns) == PROFILE_COLUMNS
    c0 = prof[prof["cluster"] == 0]
    assert (c0["size"] == 4).all() and (prof.loc[prof["cluster"] == 1, "size"] == 6).all()
    red = c0[c0["value"] == "red"].iloc[0]
    # P(red | 0) = 3/4, P(red) = 4/10: lift 1.875, the largest of cluster 0
    assert c0.iloc[0]["value"] == "red"
    assert red["share_in_cluster"] == pytest.approx(0.75)
    assert red["share_overall"] == pytest.approx(0.4)
    assert red["lift"] == pytest.approx(1.875)
    blue1 = prof[(prof["cluster"] == 1) & (prof["value"] == "blue")].iloc[0]
    assert blue1["lift"] == pytest.approx((5 / 6) / 0.6)
    # numbers: cluster 0 [10, 11, 12, 13], cluster 1 [29, 30, 30, 31, 32] (NaN left out),
    # overall the nine numbers: median 29, quartiles 12 and 30
    num = prof[prof["value"] == "median"].set_index("cluster")
    assert list(num["column"]) == ["size", "size"]
    assert num.loc[0, "median_in_cluster"] == pytest.approx(11.5)
    assert num.loc[0, "iqr_in_cluster"] == pytest.approx(1.5)
    assert num.loc[1, "median_in_cluster"] == pytest.approx(30.0)
    assert num.loc[1, "iqr_in_cluster"] == pytest.approx(1.0)
    assert (num["median_overall"] == 29.0).all() and (num["iqr_overall"] == 18.0).all()
    assert num.loc[0, "shift"] == pytest.approx((11.5 - 29) / 18)
    assert num["lift"].isna().all() and num["share_in_cluster"].isna().all()
    assert prof.loc[prof["value"] != "median", "median_in_cluster"].isna().all()
    # per cluster: its categorical rows first, then its numeric rows
    assert list(prof["cluster"]) == sorted(prof["cluster"])
    assert prof.groupby("cluster")["value"].last().eq("median").all()


def test_numeric_quantiles_match_numpy():
    rng = np.random.default_rng(3)
    n = 5000
    labels = rng.integers(0, 7, n)
    x = rng.normal(labels * 2.0, 1.0 + labels)
    x[rng.random(n) < 0.05] = np.nan
    prof = describe_clusters(pd.DataFrame({"x": x}), labels, numeric_features=["x"])
    for c, row in prof.set_index("cluster").iterrows():
        v = x[(labels == c) & ~np.isnan(x)]
        q1, med, q3 = np.quantile(v, [0.25, 0.5, 0.75])
        assert row["median_in_cluster"] == pytest.approx(med, rel=1e-12)
        assert row["iqr_in_cluster"] == pytest.approx(q3 - q1, rel=1e-12)
        assert row["median_overall"] == pytest.approx(np.nanmedian(x), rel=1e-12)


def test_default_numeric_columns_follow_consensus(planted):
    df, labels = planted
    # beside a text column, a float column is numeric
    assert set(describe_clusters(df, labels)["value"]) >= {"median"}
    # an all-number table: integer columns are codes (categorical), floats numbers
    codes = pd.DataFrame({"k": [1, 1, 2, 2, 2, 2, 2, 2, 1, 1], "size": df["size"]})
    prof = describe_clusters(codes, labels)
    assert set(prof.loc[prof["value"] == "median", "column"]) == {"size"}
    assert set(prof.loc[prof["column"] == "k", "value"]) <= {"1", "2"}


def test_top_and_refusals(planted):
    df, labels = planted
    prof = describe_clusters(df, labels, numeric_features=[], top=1)
    # top=1: per cluster its most over-represented value and its most under-represented one
    assert prof.groupby("cluster").size().tolist() == [2, 2]
    assert list(prof["value"]) == ["red", "blue", "blue", "red"]
    assert (np.sign(prof["v.test"]) == [1, -1, 1, -1]).all()
    with pytest.raises(CatEmbedError, match="one label per row"):
        describe_clusters(df, labels[:-1])
    with pytest.raises(CatEmbedError, match="not in the table: weight"):
        describe_clusters(df, labels, numeric_features=["weight"])
    with pytest.raises(CatEmbedError, match="do not hold numbers"):
        describe_clusters(df, labels, numeric_features=["color"])
    with pytest.raises(CatEmbedError, match="top must be"):
        describe_clusters(df, labels, top=0)
    with pytest.raises(CatEmbedError, match="proba must be"):
        describe_clusters(df, labels, proba=2.0)
    with pytest.raises(CatEmbedError, match="proba must be"):
        describe_clusters(df, labels, proba=True)
    assert len(describe_clusters(df, labels, proba=np.float32(0.5)))
    with pytest.raises(CatEmbedError, match="embedding must have one row per row"):
        describe_clusters(df, labels, embedding=np.zeros((3, 2)))
    with pytest.raises(CatEmbedError, match="centers must have one row per cluster"):
        describe_clusters(df, labels, embedding=np.zeros((10, 2)), centers=np.zeros((3, 2)))


def test_tests_ranking_and_filters(planted):
    df, labels = planted
    prof = describe_clusters(df, labels, numeric_features=["size"])
    # the 2 x 2 table [[3, 1], [1, 5]]: red is 3 of cluster 0's 4 rows, 4 of 10 overall;
    # X hypergeometric (10 rows, 4 red, 4 drawn): P(X < 3) = 185/210, P(X = 3) = 24/210,
    # P(X > 3) = 1/210, so p = (2 + 24) / 210 and v = Phi^-1(1 - 13/210)
    red = prof[(prof["cluster"] == 0) & (prof["value"] == "red")].iloc[0]
    assert red["kind"] == "category" and red["count"] == 3
    assert red["p.value"] == pytest.approx(26 / 210, rel=1e-12)
    assert red["v.test"] == pytest.approx(1.5389786, abs=1e-6)
    assert (red["Cla/Mod"], red["Mod/Cla"], red["Global"]) == pytest.approx((75, 75, 40))
    blue = prof[(prof["cluster"] == 0) & (prof["value"] == "blue")].iloc[0]
    assert blue["v.test"] == pytest.approx(-red["v.test"])  # under-represented: negative
    assert red["column_test"] == "chi2" and red["column_df"] == 1
    # per cluster: values by v-test (what it is first, what it is not last), then numbers
    assert list(prof.loc[prof["cluster"] == 0, "kind"]) == ["category", "category", "number"]
    assert prof.loc[prof["cluster"] == 0, "v.test"].iloc[:2].is_monotonic_decreasing
    num = prof[prof["kind"] == "number"].set_index("cluster")
    assert num.loc[0, "mean_in_cluster"] == pytest.approx(11.5)
    assert num.loc[1, "mean_in_cluster"] == pytest.approx(30.4)
    assert num["Eta2"].iloc[0] == pytest.approx(num["Eta2"].iloc[1])
    assert (num["column_test"] == "F").all() and num["v.test"].loc[0] < 0 < num["v.test"].loc[1]
    # proba keeps the significant rows only: here the number's (the colours' p is 0.124)
    kept = describe_clusters(df, labels, numeric_features=["size"], proba=0.05)
    assert set(kept["kind"]) == {"number"} and (kept["p.value"] <= 0.05).all()
    # min_support drops over-represented values held by few of the cluster
    few = describe_clusters(df[["color"]], labels, min_support=0.8)
    found = set(zip(few["cluster"], few["value"], strict=True))
    assert found == {(0, "blue"), (1, "blue"), (1, "red")}


def test_paragons(planted):
    df, labels = planted
    Z = np.c_[df["size"].fillna(20.0), np.zeros(len(df))]
    prof = describe_clusters(df, labels, numeric_features=["size"], embedding=Z,
                             n_paragons=2)
    para = prof[prof["kind"] == "paragon"]
    assert (para["column"] == "(paragon)").all()
    # centres: the cluster means 11.5 and 28.67; ties (rows 4 and 8 at 30) go to the earlier
    assert list(para["value"]) == ["1", "2", "6", "4"]
    np.testing.assert_allclose(para["distance"], [0.5, 0.5, 1 / 3, 4 / 3])
    given = describe_clusters(df, labels, numeric_features=[], embedding=Z,
                              centers=[[13.0, 0.0], [32.0, 0.0]], n_paragons=1)
    assert list(given.loc[given["kind"] == "paragon", "value"]) == ["3", "7"]
    # no embedding: no paragons
    assert "paragon" not in set(describe_clusters(df, labels)["kind"])


def test_profile_lines(planted):
    df, labels = planted
    prof = describe_clusters(df, labels, numeric_features=["size"])
    lines = profile_lines(prof, len(df))
    # the colours' p-value 0.124 is not significant: only the number is named
    assert lines[0] == "cluster 0 (n=4, 40%): size mean 11.5 (all 22, v=-2.8)"
    assert lines[1] == "cluster 1 (n=6, 60%): size mean 30.4 (all 22, v=+2.8)"
    assert profile_lines(prof, len(df), proba=0.2)[0] == (
        "cluster 0 (n=4, 40%): size mean 11.5 (all 22, v=-2.8), color=red (75% vs 40%, "
        "v=+1.5)")
    rng = np.random.default_rng(0)
    g = np.repeat([0, 1], 100)
    big = pd.DataFrame({"a": np.where(g == 0, "x", "y"), "b": np.where(g == 0, "p", "q"),
                        "c": rng.choice(["u", "w"], 200)})
    lines = profile_lines(describe_clusters(big, g), 200)
    # each column named once per cluster; what the cluster is not: none left (a, b used)
    assert lines[0] == ("cluster 0 (n=100, 50%): a=x (100% vs 50%, v=+16.3), b=p (100% vs "
                        "50%, v=+16.3)")
    none = profile_lines(describe_clusters(big[["c"]], g), 200)
    assert none[0] == "cluster 0 (n=100, 50%): no value stands out"


def test_attach_profiles_uses_the_estimators_numeric_columns():
    rng = np.random.default_rng(0)
    n = 200
    g = rng.integers(0, 2, n)
    df = pd.DataFrame({"a": np.where(g == 1, "x", "y"),
                       "b": rng.choice(list("pq"), n),
                       "num": g * 10.0 + rng.normal(0, 1, n)})
    model = Consensus(2, members=["idf", "onehot"], n_init=2, random_state=0).fit(df)
    assert model.numeric_features_ == ["num"]
    assert attach_profiles(model, df, model.labels_) is model
    expected = describe_clusters(df, model.labels_, numeric_features=["num"],
                                 embedding=model.transform(df),
                                 centers=model.cluster_centers_)
    pd.testing.assert_frame_equal(model.profiles_, expected)
    assert set(model.profiles_.loc[model.profiles_["kind"] == "number", "column"]) == {"num"}
    # the paragons: 5 rows of each cluster, nearest its centre first
    para = model.profiles_[model.profiles_["kind"] == "paragon"]
    assert para.groupby("cluster").size().tolist() == [5, 5]
    rows = para["value"].astype(int).to_numpy()
    np.testing.assert_array_equal(model.labels_[rows], para["cluster"].to_numpy())
    assert para.groupby("cluster")["distance"].apply(lambda d: d.is_monotonic_increasing).all()


def test_describe_classes_of_an_lca():
    from catembed.cluster import LCA, describe_classes

    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 300)
    df = pd.DataFrame({"a": np.where(rng.random(300) < 0.9, g, 1 - g).astype(str),
                       "b": np.where(rng.random(300) < 0.8, g, 1 - g).astype(str),
                       "c": rng.choice(list("xyz"), 300)})
    model = LCA(2, random_state=0, n_init=3).fit(df)
    out = describe_classes(model)
    assert list(out.columns) == ["cluster", "share", "column", "value", "probability",
                                 "overall", "lift"]
    assert len(out) == 2 * (2 + 2 + 3)
    np.testing.assert_allclose(out.groupby("cluster")["share"].first(), model.weights_)
    # each class's probabilities of one column sum to 1; the row for (class 1, b, value)
    # is the model's theta
    np.testing.assert_allclose(out.groupby(["cluster", "column"])["probability"].sum(), 1.0)
    row = out[(out["cluster"] == 1) & (out["column"] == "b")].iloc[0]
    j = model.feature_names_.index("b")
    v = list(model.categories_[j]).index(row["value"])
    assert row["probability"] == pytest.approx(model.probabilities_[j][1, v])
    assert row["overall"] == pytest.approx(model.weights_ @ model.probabilities_[j][:, v])
    assert 0.5 < out.attrs["entropy"] == model.entropy_ <= 1.0


def test_fit_profiles_reuse_the_fit_codes_as_describe_clusters_counts():
    """Issue 55: ``Consensus.fit``'s ``profiles_`` read the text columns' value counts from
    the fit's codes (where they are the profiles' own: no missing value, every category a
    ``str``, sorted as text) and its paragons from the coordinates it clustered; the frame is
    :func:`describe_clusters`' of the same labels, coordinates and centres, column for
    column, whichever columns take which path (missing, numbers as text, natural order,
    category dtype, numbers)."""
    from catembed.cluster.consensus._describe import _fit_codes

    rng = np.random.default_rng(1)
    n = 300
    g = rng.integers(0, 3, n)
    df = pd.DataFrame({
        "plain": np.where(g == 1, "x", rng.choice(["y", "z", "w"], n)),
        "gaps": np.where(rng.random(n) < 0.1, None, np.where(g == 2, "p", "q")),
        "empty": np.where(rng.random(n) < 0.1, "", np.where(g == 0, "s", "t")),
        "digits": np.where(g == 0, "10", rng.choice(["2", "9", "10"], n)),
        "natural": np.array(["v2", "v10", "v1"])[g],
        "cat": pd.Categorical(np.array(["m", "n", "o"])[rng.integers(0, 3, n)]),
        "num": g * 5.0 + rng.normal(0, 1, n),
    })
    for combine in ("select", "concat", "coassoc"):
        model = Consensus(3, members=["idf", "onehot", "mca"], n_init=2, combine=combine,
                          random_state=0).fit(df)
        assert "_fit_coordinates" not in vars(model)  # n long: not kept after the fit
        known = _fit_codes(model, df, model._codes_of(df), ["num"])
        assert "plain" in known and "natural" in known
        assert not {"gaps", "empty", "cat", "num"} & set(known)
        expected = describe_clusters(df, model.labels_, numeric_features=["num"],
                                     embedding=model.transform(df),
                                     centers=model.cluster_centers_)
        # (fit adds each cluster's stability columns after these)
        pd.testing.assert_frame_equal(model.profiles_[PROFILE_COLUMNS], expected)
