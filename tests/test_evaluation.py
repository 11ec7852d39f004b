"""The evaluation protocol: clusterers, registry, runner, significance tests, bench."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.spatial.distance import pdist
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

from catembed import CatEmbedError
from catembed.cluster.embedding_labels import (
    gaussian_affinity,
    gaussian_spectral_labels,
    kmeans_labels,
    median_pairwise_distance,
    spectral_labels,
)
from catembed.datasets import load_dataset
from catembed.embed.cde import matlab_kmeans
from catembed.evaluation import MethodSpec, register_method, run_clustering
from catembed.evaluation.bench import format_markdown, load_table, run_table, table_ids
from catembed.evaluation.methods import _REGISTRY, get_method, method_names
from catembed.evaluation.significance import critical_difference, friedman_test, paired_t_test


@pytest.fixture(scope="module")
def soybean():
    d = load_dataset("soybean_small", preset="cde")
    return d.features, d.labels.to_numpy()


# ---------------------------------------------------------------- clusterers
def test_matlab_kmeans_is_the_one_in_cde():
    X, _ = make_blobs(60, centers=4, random_state=3)
    for seed in (0, 1, 7):
        assert np.array_equal(kmeans_labels(X, 4, seed), matlab_kmeans(X, 4, seed))
    a = kmeans_labels(X, 4, 5, init="sklearn")
    assert np.array_equal(a, kmeans_labels(X, 4, 5, init="sklearn"))
    with pytest.raises(CatEmbedError, match="init"):
        kmeans_labels(X, 4, 0, init="best")


def test_weighted_kmeans_matches_repeated_rows_partition():
    X = np.array([[0.0], [0.1], [5.0], [5.1]])
    labels = kmeans_labels(X, 2, 0, sample_weight=np.array([3, 1, 1, 2]))
    assert labels[0] == labels[1] != labels[2] == labels[3]


@pytest.mark.parametrize("n", [60, 61])
def test_median_pairwise_distance_weighted_equals_numpy(n):
    rs = np.random.RandomState(n)
    Z = rs.randint(0, 3, (n, 2)).astype(float)  # many duplicates
    assert median_pairwise_distance(Z) == pytest.approx(np.median(pdist(Z)))


def test_median_selection_path_for_many_distinct_rows():
    # more than 2000 distinct rows: the sampled bracket + one counting pass, still exact
    rs = np.random.RandomState(1)
    Z = rs.randint(0, 60, (5000, 2)).astype(float)
    assert len(np.unique(Z, axis=0)) > 2000
    assert median_pairwise_distance(Z) == pytest.approx(np.median(pdist(Z)))
    assert median_pairwise_distance(Z, dense_limit=100, random_state=0) > 0  # sampled


def test_spectral_with_counts_equals_expanded_graph():
    X, _ = make_blobs(40, centers=3, random_state=1)
    Xd = np.vstack([X, X[:10], X[:10]])
    sigma = median_pairwise_distance(Xd)
    full = spectral_labels(gaussian_affinity(Xd, sigma), 3, 0)
    dedup = gaussian_spectral_labels(Xd, 3, 0)
    assert adjusted_rand_score(full, dedup) == pytest.approx(1.0)


def test_gaussian_spectral_separates_blobs_dense_and_knn():
    X, y = make_blobs(120, centers=3, cluster_std=0.3, random_state=0)
    for limit in (6000, 50):  # the full affinity, then the sparse kNN graph
        labels = gaussian_spectral_labels(X, 3, 0, dense_limit=limit, large="knn")
        assert adjusted_rand_score(y, labels) == pytest.approx(1.0)


def test_gaussian_affinity_values():
    Z = np.array([[0.0, 0.0], [3.0, 4.0]])
    W = gaussian_affinity(Z, 5.0)
    assert W[0, 1] == pytest.approx(math.exp(-25 / 50)) and W[0, 0] == 1.0


# ---------------------------------------------------------------- registry and runner
def test_registry_has_the_cde_table_methods():
    assert {"cde", "cde-g", "onehot", "onehot-pca", "idf"} <= set(method_names())
    assert get_method("cde").random and not get_method("onehot").random
    with pytest.raises(CatEmbedError, match="unknown method 'nope'"):
        get_method("nope")


def test_protocol_on_soybean(soybean):
    X, y = soybean
    res = run_clustering(X, y, ["cde", "onehot", "idf"], runs=3, seed=0)
    cde, onehot, idf = res
    assert [r.status for r in res] == ["ok"] * 3
    assert cde.n_fits == 3 and onehot.n_fits == 1 and idf.n_fits == 1
    assert [r["seed"] for r in cde.runs] == [0, 1, 2]
    for r in res:
        s = r.summary()
        assert 0 <= s["f_score_mean"] <= 1 and s["runs"] == 3 and s["fit_seconds"] > 0
        assert set(s) >= {"f_score_std", "nmi_mean", "acc_mean", "ari_mean", "clusterer"}
    assert idf.n_dims == 21 and onehot.n_dims == 58
    again = run_clustering(X, y, ["cde"], runs=3, seed=0)[0]
    assert again.runs == cde.runs  # random_state alone decides


def test_refit_policies(soybean):
    X, y = soybean
    once, always = run_clustering(X, y, ["cde"], runs=2, refit="once")[0], run_clustering(
        X, y, ["idf"], runs=2, refit="always")[0]
    assert once.n_fits == 1 and always.n_fits == 2
    with pytest.raises(CatEmbedError, match="refit"):
        run_clustering(X, y, ["cde"], runs=1, refit="never")


def test_protocol_parallel_runs_equal_serial(soybean):
    X, y = soybean
    serial = run_clustering(X, y, ["onehot"], runs=2, seed=4)[0]
    parallel = run_clustering(X, y, ["onehot"], runs=2, seed=4, n_jobs=2)[0]
    assert serial.runs == parallel.runs


def test_cde_g_reaches_the_paper_on_soybean(soybean):
    X, y = soybean
    r = run_clustering(X, y, [MethodSpec("cde", "spectral", label="CDE-G")], runs=2)[0]
    assert r.clusterer == "spectral" and r.label == "CDE-G"
    assert r.mean("f_score") == pytest.approx(1.0)  # CDE Table 2: 1.000


def test_labels_affinity_and_unavailable_methods(soybean):
    X, y = soybean

    def first_value(frame, n_clusters, random_state=None):
        codes = pd.factorize(frame.iloc[:, 0])[0]
        return codes % n_clusters

    def overlap(frame, random_state=None):
        a = frame.to_numpy()
        return (a[:, None, :] == a[None, :, :]).mean(axis=2)

    register_method("_test_labels", labels=first_value)
    register_method("_test_affinity", affinity=overlap)
    register_method("_test_missing", embedding="catembed.not_built_yet:Thing", random=True)
    try:
        lab, aff, miss = run_clustering(
            X, y, ["_test_labels", "_test_affinity", "_test_missing"], runs=2)
        assert lab.status == "ok" and lab.clusterer == "_test_labels"
        assert aff.status == "ok" and aff.clusterer == "spectral"
        assert aff.mean("f_score") > 0.8
        assert miss.status == "unavailable" and "not available yet" in miss.message
    finally:
        for name in ("_test_labels", "_test_affinity", "_test_missing"):
            _REGISTRY.pop(name, None)


def test_labels_methods_get_the_seeding_only_when_they_take_it(soybean):
    X, y = soybean
    seen = {}

    def with_init(frame, n_clusters, random_state=None, init="none"):
        seen["with"] = init
        return np.arange(len(frame)) % n_clusters

    def without(frame, n_clusters, random_state=None, **kw):
        seen["without"] = kw
        return np.arange(len(frame)) % n_clusters

    register_method("_test_init", labels=with_init, takes_init=True)
    register_method("_test_noinit", labels=without)
    try:
        run_clustering(X, y, ["_test_init", "_test_noinit"], runs=1, init="sklearn")
        assert seen == {"with": "sklearn", "without": {}}
    finally:
        for name in ("_test_init", "_test_noinit"):
            _REGISTRY.pop(name, None)
    assert get_method("untie").takes_init and not get_method("kmodes-rough").takes_init


def test_register_method_needs_exactly_one_target():
    with pytest.raises(CatEmbedError, match="exactly one"):
        register_method("_bad")
    with pytest.raises(CatEmbedError, match="exactly one"):
        register_method("_bad", embedding="a:b", labels="c:d")


def test_protocol_errors(soybean):
    X, y = soybean
    with pytest.raises(CatEmbedError, match="runs"):
        run_clustering(X, y, ["onehot"], runs=0)
    with pytest.raises(CatEmbedError, match="rows"):
        run_clustering(X, y[:5], ["onehot"], runs=1)
    with pytest.raises(CatEmbedError, match="clusterer"):
        run_clustering(X, y, ["onehot"], runs=1, clusterer="dbscan")
    with pytest.raises(CatEmbedError, match="fewer than two classes"):
        run_clustering(X, np.zeros(len(X)), ["onehot"], runs=1)


# ---------------------------------------------------------------- significance
def test_paired_t_test_by_hand():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    b = np.array([0.5, 1.5, 3.5, 2.0])
    d = a - b
    t = d.mean() / (d.std(ddof=1) / math.sqrt(4))
    p = 2 * stats.t.sf(abs(t), 3)
    assert paired_t_test(a, b) == pytest.approx(p)
    assert paired_t_test([1, np.nan, 3, 4], [0.5, 1, 3.5, 2]) == pytest.approx(
        paired_t_test([1, 3, 4], [0.5, 3.5, 2]))
    assert math.isnan(paired_t_test([1, 2], [1, 2]))


def test_critical_differences_match_demsar_tables():
    # Demsar (2006) Table 5: q_0.05 Nemenyi k=4 2.569, k=5 2.728; Bonferroni-Dunn 2.394, 2.498
    for k, q_nem, q_bd in ((4, 2.569, 2.394), (5, 2.728, 2.498)):
        scale = math.sqrt(k * (k + 1) / (6 * 10))
        assert critical_difference(k, 10) == pytest.approx(q_nem * scale, abs=1e-3)
        assert critical_difference(k, 10, test="bonferroni-dunn") == pytest.approx(
            q_bd * scale, abs=1e-3)


def test_friedman_matches_scipy_and_ranks_by_hand():
    scores = pd.DataFrame({"A": [0.9, 0.8, 0.7, 0.6], "B": [0.8, 0.8, 0.6, 0.5],
                           "C": [0.1, 0.2, 0.3, 0.9]})
    r = friedman_test(scores)
    # ranks: A 1,1.5,1,2 -> 1.375; B 2,1.5,2,3 -> 2.125; C 3,3,3,1 -> 2.5
    assert r.average_ranks.to_dict() == pytest.approx({"A": 1.375, "B": 2.125, "C": 2.5})
    ref = stats.friedmanchisquare(scores.A, scores.B, scores.C)
    assert r.statistic == pytest.approx(ref.statistic)
    assert r.p_value == pytest.approx(ref.pvalue)


# ---------------------------------------------------------------- tables and bench
def test_every_shipped_table_is_well_formed():
    assert {"cde-1", "cde-2"} <= set(table_ids())
    for tid in table_ids():
        t = load_table(tid)
        labels = {c["label"] for c in t["columns"]}
        for d in t["datasets"]:
            assert set(d["scores"]) <= labels, (tid, d["name"])
        assert set(t.get("p_values", {})) <= labels
    t1 = load_table("cde-1")
    assert len(t1["datasets"]) == 10
    assert t1["datasets"][1]["scores"]["CDE"] == 0.915


def test_table_target_override_keeps_the_files_class_as_a_feature():
    # issue 53 (MHTC's Titanic: the passenger class is the class, survived a feature)
    table = {"id": "toy", "title": "toy", "paper": "none", "metric": "ari",
             "preset": {"columns": "features", "rows": "all"},
             "factors": [{"key": "n_features", "label": "m"}, {"key": "n_classes", "label": "k"}],
             "columns": [{"label": "0-1", "method": "onehot"}],
             "datasets": [{"name": "lenses", "target": "astigmatic", "scores": {}}]}
    row = run_table(table, runs=1).rows[0]
    assert row.status == "ok"
    assert row.factors["n_classes"] == 2 and row.factors["n_features"] == 4  # class in


def test_mhtc_tables_hold_the_published_figures():
    ari, acc = load_table("mhtc-ari"), load_table("mhtc-acc")
    assert len(ari["datasets"]) == 13 and [d["name"] for d in ari["datasets"]] == [
        d["name"] for d in acc["datasets"]]
    zoo = next(d for d in ari["datasets"] if d["name"] == "zoo")["scores"]
    assert zoo["k-modes"] == 0.6397 and zoo["MHTC"] == 0.7684  # PerformanceComparison-2025.mat
    titanic = next(d for d in ari["datasets"] if d["name"] == "titanic")
    assert titanic["target"] == "status"


def test_unknown_table_is_a_clear_error():
    with pytest.raises(CatEmbedError, match="no table 'cde-9'"):
        load_table("cde-9")


def test_bench_small_table_with_missing_set_and_unavailable_column():
    table = load_table("cde-1")
    table = {**table, "datasets": [d for d in table["datasets"]
                                   if d["name"] in ("soybean_small", "zoo", "dermatology")],
             "columns": table["columns"][1:3] + [{"label": "NEW", "method": "_not_registered"}]}
    res = run_table(table, runs=2)  # bundled sets: soybean_small and zoo, no dermatology
    status = {r.name: r.status for r in res.rows}
    assert status == {"soybean_small": "ok", "zoo": "ok", "dermatology": "missing"}
    soy = res.rows[0]
    assert soy.factors["n_rows"] == 47 and soy.factors["n_values"] == 58
    assert soy.results["NEW"].status == "unavailable"
    md = format_markdown(res)
    assert "| Dermatology |" in md and "missing" in md and "not yet available" in md
    assert "\\|O\\|" in md and "Average, 2 sets run" in md and "p-value vs CDE" not in md
    d = res.to_dict()
    assert d["average"]["datasets"] == ["soybean_small", "zoo"]
    assert d["rows"][0]["cells"]["0-1"]["paper"] == 0.829
    assert res.reproduced()["NEW"] == (0, 0)


def test_bench_friedman_significance():
    table = {"id": "toy", "title": "toy", "paper": "none", "metric": "f_score",
             "preset": "complete", "significance": {"test": "friedman", "alpha": 0.05},
             "columns": [{"label": "0-1", "method": "onehot"}, {"label": "IDF", "method": "idf"}],
             "datasets": [{"name": n, "scores": {}} for n in ("soybean_small", "zoo", "lenses")]}
    res = run_table(table, runs=1)
    sig = res.significance()["ours"]
    assert sig["n_datasets"] == 3 and set(sig["average_ranks"]) == {"0-1", "IDF"}
    assert sum(sig["average_ranks"].values()) == pytest.approx(3.0)  # ranks 1 + 2 per set
    assert "Friedman: chi2" in format_markdown(res)


def test_nystrom_with_every_row_a_landmark_is_the_exact_embedding():
    from catembed.cluster.embedding_labels import _gaussian_from_squared, nystrom_spectral_embedding

    X, _ = make_blobs(60, centers=3, random_state=2)
    counts = np.arange(1, 61) % 4 + 1.0
    sigma = 2.0
    W = _gaussian_from_squared(((X[:, None] - X[None]) ** 2).sum(-1), sigma)
    d = W @ counts
    S = W * (np.sqrt(counts) / np.sqrt(d))[:, None] * (np.sqrt(counts) / np.sqrt(d))[None, :]
    _, vecs = np.linalg.eigh(S)
    exact = vecs[:, -3:]
    approx = nystrom_spectral_embedding(X, sigma, 3, counts=counts, n_landmarks=60)
    # the same 3-dimensional eigenspace: projections agree
    np.testing.assert_allclose(approx @ approx.T, exact @ exact.T, atol=1e-6)


def test_nystrom_lanczos_path_with_every_row_a_landmark_is_exact():
    from catembed.cluster.embedding_labels import _gaussian_from_squared, nystrom_spectral_embedding

    X, _ = make_blobs(1100, centers=3, random_state=3)  # above 1000 rows: Lanczos
    sigma = 3.0
    W = _gaussian_from_squared(((X[:, None] - X[None]) ** 2).sum(-1), sigma)
    d = W.sum(axis=1)
    S = W / np.sqrt(d)[:, None] / np.sqrt(d)[None, :]
    exact = np.linalg.eigh(S)[1][:, -3:]
    approx = nystrom_spectral_embedding(X, sigma, 3, n_landmarks=1100, random_state=0)
    np.testing.assert_allclose(approx @ approx.T, exact @ exact.T, atol=1e-5)


def test_gaussian_spectral_nystrom_separates_blobs():
    X, y = make_blobs(300, centers=3, cluster_std=0.5, random_state=0)
    labels = gaussian_spectral_labels(X, 3, 0, dense_limit=50, n_landmarks=40)
    assert adjusted_rand_score(y, labels) == pytest.approx(1.0)


def test_average_ranks_by_hand():
    from catembed.evaluation.bench import BenchResult, DatasetRun
    from catembed.evaluation.protocol import MethodResult

    def res(label, score):
        r = MethodResult(label, label, "kmeans")
        r.runs = [{"f_score": score}]
        return r

    table = {"id": "toy", "metric": "f_score", "columns": [{"label": c, "method": c}
                                                           for c in ("A", "B", "C")],
             "datasets": [{"name": n, "scores": {}} for n in ("s1", "s2", "s3")]}
    rows = [DatasetRun("s1", "s1", "ok", results={"A": res("A", .9), "B": res("B", .8),
                                                    "C": res("C", .8)}),
            DatasetRun("s2", "s2", "ok", results={"A": res("A", .5), "B": res("B", .7),
                                                    "C": res("C", .6)}),
            DatasetRun("s3", "s3", "missing")]
    out = BenchResult(table, rows, 1, 0, "matlab", None).average_ranks()
    # s1: A 1, B 2.5, C 2.5; s2: B 1, C 2, A 3
    assert out["datasets"] == ["s1", "s2"]
    assert out["ranks"] == pytest.approx({"A": 2.0, "B": 1.75, "C": 2.25})
