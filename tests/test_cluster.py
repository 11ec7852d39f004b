"""k-modes / k-prototypes by hand, initialisations, spectral and the thesis baselines."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import ConvergenceWarning

from catembed import CatEmbedError
from catembed.cluster import (
    GowerAgglomerative,
    KModes,
    KPrototypes,
    NaiveKMeans,
    OneHotKMeans,
    SimilaritySpectral,
    init_cao,
    init_huang,
    thesis_preprocess,
)
from catembed.cluster._kmodes_core import _cat_distances, _fill_empty, _padded_tables
from catembed.datasets import load_dataset
from catembed.metrics import f_score
from catembed.similarity import CategoricalDistance

TOY = pd.DataFrame(
    {"c0": list("aaabbc"), "c1": list("xxyzzz"), "c2": list("pqprsr")}
)


def _ptabs(df, metric="hamming"):
    cd = CategoricalDistance(metric=metric).fit(df)
    return cd.encode(df).astype(np.int64), _padded_tables(cd.tables_)


def test_cao_init_by_hand():
    # densities (sum of value counts): rows 0 and 3 have 7, the others 6; row 0 first
    # (first of the tie), then argmax d(x, row0) * Dens(x): row 3 (3 * 7 = 21)
    codes, ptabs = _ptabs(TOY)
    assert init_cao(codes, 2, ptabs).tolist() == [0, 3]


def test_kmodes_by_hand():
    km = KModes(n_clusters=2, init="cao").fit(TOY)
    assert km.labels_.tolist() == [0, 0, 0, 1, 1, 1]
    assert km.cluster_centroids_.tolist() == [["a", "x", "p"], ["b", "z", "r"]]
    assert km.cost_ == 4.0  # 0 + 1 + 1 + 0 + 1 + 1 mismatches
    assert km.n_iter_ == 2
    assert km.predict(TOY).tolist() == km.labels_.tolist()


def test_kmodes_explicit_init_modes():
    km = KModes(n_clusters=2, init=np.array([["c", "z", "r"], ["a", "y", "p"]],
                                            dtype=object)).fit(TOY)
    assert km.labels_.tolist() == [1, 1, 1, 0, 0, 0]
    with pytest.raises(CatEmbedError, match="not seen"):
        KModes(n_clusters=2, init=np.array([["q", "z", "r"], ["a", "y", "p"]])).fit(TOY)


@pytest.mark.parametrize("metric", ["hamming", "ahmad", "dilca", "cos", "dm", "rough",
                                    "rough-cluster"])
def test_cost_is_sum_of_distances_to_modes(metric):
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.choice(list("abc"), size=(60, 5)), columns=list("vwxyz"))
    km = KModes(n_clusters=3, metric=metric, init="huang", n_init=2, random_state=0).fit(df)
    assert sorted(np.unique(km.labels_)) == [0, 1, 2]
    if metric != "rough-cluster":
        cd = km.distance_
        vt = cd.tables_
        codes = cd.encode(df)
        d = sum(t[codes[:, j], km.modes_[km.labels_, j]] ** vt.power
                for j, t in enumerate(vt.tables))
        assert km.cost_ == pytest.approx(float(d.sum()))
        # a local minimum: no row is closer to another mode
        assert (km.predict(df) == km.labels_).all()


def test_rough_dissimilarity_by_hand():
    # one attribute, values 0 (cnt 4) and 1 (cnt 2); cluster 0 holds three 0s
    codes = np.array([[0], [1]])
    modes = np.array([[0], [1]])
    ptabs = [1 - np.eye(3)]
    hist = [np.array([[3.0, 0.0, 0.0], [1.0, 2.0, 0.0]])]
    cnt = [np.array([4.0, 2.0, 0.0])]
    d = _cat_distances(codes, modes, ptabs, (hist, cnt))
    # row 0 vs mode 0: match, 1 - 3/4; vs mode 1: mismatch 1
    # row 1 vs mode 0: mismatch; vs mode 1: match, 1 - 2/2 = 0
    np.testing.assert_allclose(d, [[0.25, 1.0], [1.0, 0.0]])


def test_init_never_fails_on_duplicates():
    df = pd.DataFrame({"a": list("xyz") * 20, "b": list("uuv") * 20})
    for init in ("cao", "huang", "random"):
        km = KModes(n_clusters=3, init=init, random_state=0).fit(df)
        assert len(set(map(tuple, km.cluster_centroids_))) == 3
        assert km.cost_ == 0.0
    # fewer distinct rows than clusters: a ConvergenceWarning, as scikit-learn's KMeans gives
    with pytest.warns(ConvergenceWarning, match="only 3 distinct"):
        KModes(n_clusters=4).fit(df)


def test_huang_init_distinct_rows_and_seeded():
    codes, ptabs = _ptabs(TOY)
    a = init_huang(codes, 3, ptabs, random_state=0)
    b = init_huang(codes, 3, ptabs, random_state=0)
    assert a.tolist() == b.tolist()
    assert len({tuple(codes[i]) for i in a}) == 3


def test_empty_cluster_is_reseeded():
    labels = np.array([0, 0, 0, 1])
    dist = np.array([[0.0, 5, 5], [1, 5, 5], [3, 5, 5], [5, 0, 5]])
    assert _fill_empty(labels, dist, 3).tolist() == [0, 0, 2, 1]


def test_random_state_decides():
    rng = np.random.default_rng(2)
    df = pd.DataFrame(rng.choice(list("abcd"), size=(80, 6)), columns=list("pqrstu"))
    a = KModes(n_clusters=4, init="random", n_init=3, random_state=7).fit(df)
    b = KModes(n_clusters=4, init="random", n_init=3, random_state=7).fit(df)
    assert a.labels_.tolist() == b.labels_.tolist() and a.cost_ == b.cost_


def test_predict_unknown_policy():
    km = KModes(n_clusters=2, handle_unknown="ignore").fit(TOY)
    new = pd.DataFrame({"c0": ["zzz"], "c1": ["z"], "c2": ["r"]})
    assert km.predict(new).tolist() == [1]
    with pytest.raises(CatEmbedError, match="not seen during fit"):
        KModes(n_clusters=2).fit(TOY).predict(new)


def test_bad_parameters():
    with pytest.raises(CatEmbedError, match="n_clusters"):
        KModes(n_clusters=0).fit(TOY)
    with pytest.raises(CatEmbedError, match="init"):
        KModes(init="kmeans++").fit(TOY)
    with pytest.raises(CatEmbedError, match="metric"):
        KModes(metric="nope").fit(TOY)


MIXED = pd.DataFrame(
    {
        "c": list("aaabbb"),
        "d": list("xxxyyx"),
        "v": [0.0, 0.1, 0.2, 5.0, 5.1, 5.2],
    }
)


def test_kprototypes_by_hand():
    kp = KPrototypes(n_clusters=2, gamma=1.0).fit(MIXED)
    assert kp.labels_.tolist() in ([0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0])
    lab = kp.labels_
    # cost: squared deviations from the means (0.01 + 0 + 0.01 per group) + 1 mismatch
    assert kp.cost_ == pytest.approx(0.04 + 1.0)
    np.testing.assert_allclose(np.sort(kp.centers_.ravel()), [0.1, 5.1])
    assert kp.cluster_centroids_[lab[0]].tolist()[1:] == ["a", "x"]
    assert kp.predict(MIXED).tolist() == lab.tolist()
    assert KPrototypes(n_clusters=2).fit(MIXED).gamma_ == pytest.approx(
        0.5 * MIXED["v"].std(ddof=0))
    # no numeric column: k-prototypes is k-modes (issue 21 item 13)
    assert (KPrototypes(n_clusters=2).fit(TOY).labels_.tolist()
            == KModes(n_clusters=2).fit(TOY).labels_.tolist())


@pytest.mark.filterwarnings("ignore")
def test_spectral_on_soybean_small():
    ds = load_dataset("soybean_small")
    X = ds.frame[ds.categorical_columns].astype(str)
    y = ds.frame[ds.target]
    for graph in ("full", "knn"):
        sc = SimilaritySpectral(n_clusters=4, metric="cos", graph=graph, n_neighbors=10,
                                random_state=0)
        sc.fit(X)
        assert f_score(y, sc.labels_) > 0.9
    assert sc.n_distinct_ == len(X.drop_duplicates())


def test_spectral_merges_duplicate_rows():
    df = pd.DataFrame({"a": list("xxxxyyyy") * 3, "b": list("uuuvwwwz") * 3})
    sc = SimilaritySpectral(n_clusters=2, metric="ahmad", graph="full", random_state=0)
    sc.fit(df)
    assert sc.n_distinct_ == 4
    assert sc.affinity_matrix_.shape == (4, 4)
    assert len(set(sc.labels_[df["a"] == "x"])) == 1


def test_thesis_baselines_on_separated_mixed_data():
    rng = np.random.default_rng(0)
    n = 40
    df = pd.DataFrame(
        {
            "c": np.where(np.arange(n) < n // 2, "a", "b"),
            "d": rng.choice(list("pq"), n),
            "v": np.r_[rng.normal(0, 0.1, n // 2), rng.normal(3, 0.1, n // 2)],
        }
    )
    truth = (np.arange(n) >= n // 2).astype(int)
    for est in (NaiveKMeans(n_clusters=2, random_state=0),
                OneHotKMeans(n_clusters=2, random_state=0),
                GowerAgglomerative(n_clusters=2),
                KPrototypes(n_clusters=2, random_state=0)):
        assert f_score(truth, est.fit(df).labels_) == 1.0, type(est).__name__
    with pytest.raises(CatEmbedError, match="max_rows"):
        GowerAgglomerative(max_rows=10).fit(df)


def test_thesis_preprocess():
    df = pd.DataFrame({"c": ["a", None, "b", "a"], "v": [1.0, 2.0, np.nan, 3.0]})
    out = thesis_preprocess(df, ["c"], ["v"])
    assert out.index.tolist() == [0, 3]
    np.testing.assert_allclose(out["v"], [-1.0, 1.0])
    assert out["c"].tolist() == ["a", "a"]


def test_protocol_hooks():
    from catembed.cluster import kmodes_labels, similarity_spectral_labels

    lab = kmodes_labels(TOY, 2, random_state=0, metric="cos")
    assert sorted(set(lab)) == [0, 1]
    lab = similarity_spectral_labels(TOY, 2, random_state=0, metric="ahmad")
    assert len(lab) == 6


def test_kprototypes_more_clusters_than_categorical_rows():
    # one categorical column with 2 values, 5 clusters: rows are distinct on the numeric part
    df = pd.DataFrame({"c": list("ab") * 10, "v": np.arange(20, dtype=float)})
    for init in ("cao", "huang", "random"):
        kp = KPrototypes(n_clusters=5, init=init, random_state=0).fit(df)
        assert len(np.unique(kp.labels_)) == 5


def test_mixed_preset_keeps_numbers_and_samples():
    from catembed.datasets import apply_preset

    ds = load_dataset("zoo")
    num = [c for c, k in ds.column_kinds.items() if k == "numeric"]
    out = apply_preset(ds, {"columns": "mixed", "rows": "all", "sample": 50})
    assert len(out.frame) == 50
    assert out.frame.index.is_monotonic_increasing
    for c in num:
        if c in out.frame:
            assert out.frame[c].dtype.kind in "if"


def test_connect_components_joins_by_shortest_links():
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    from catembed.cluster import connect_components
    from catembed.similarity.objects import kneighbors_graph_from_codes

    df = pd.DataFrame({"a": list("xxxyyyzz"), "b": list("uuvwwqrr")})
    cd = CategoricalDistance().fit(df)
    codes = np.unique(cd.encode(df), axis=0)
    g = kneighbors_graph_from_codes(codes, cd.tables_, 1)
    assert connected_components(g, directed=False)[0] > 1
    joined = connect_components(g, codes, cd.tables_)
    assert connected_components(joined, directed=False)[0] == 1
    added = sp.csr_array(joined - g)
    assert (added.data > 0).all()
