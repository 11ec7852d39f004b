"""Hostile inputs to the deep estimators, the mixed clusterers and ``report`` (sweep s9-deep)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError

X = pd.DataFrame({
    "a": list("xyzxyzxyzxyzxyzxyzxy"),
    "b": list("ppqqppqqppqqppqqppqq"),
    "x": np.linspace(-1.0, 1.0, 20),
})

DEEP = {
    "ThesisClusterer": {"n_clusters": 2, "epochs": 1, "batch_size": 8},
    "AutoencoderKMeans": {"n_clusters": 2, "pretrain_steps": 1, "cluster_steps": 1},
    "IDEC": {"n_clusters": 2, "pretrain_steps": 1, "cluster_steps": 1},
    "AttentionClusterer": {"n_clusters": 2, "pretrain_steps": 1, "cluster_steps": 1},
    "VAEWD": {"max_steps": 1},
    "BiGANWD": {"max_steps": 1},
}


def _deep(name, **kw):
    pytest.importorskip("torch")
    import catembed.deep as deep

    return getattr(deep, name)(**{**DEEP[name], "random_state": 0, **kw})


@pytest.mark.parametrize("name", sorted(DEEP))
@pytest.mark.parametrize("seed", ["x", -1, 2**40, 1.5])
def test_deep_bad_random_state_names_the_parameter(name, seed):
    with pytest.raises(CatEmbedError, match="random_state must be"):
        _deep(name, random_state=seed).fit(X)


@pytest.mark.parametrize("name", sorted(DEEP))
@pytest.mark.parametrize("threads", [0, -2, "x"])
def test_deep_bad_n_threads_names_the_parameter(name, threads):
    with pytest.raises(CatEmbedError, match="n_threads must be"):
        _deep(name, n_threads=threads).fit(X)


@pytest.mark.parametrize("name", ["AutoencoderKMeans", "IDEC", "AttentionClusterer"])
@pytest.mark.parametrize("param", ["corruption", "gamma"])
def test_deep_text_where_a_number_belongs_is_a_catembed_error(name, param):
    with pytest.raises(CatEmbedError, match=f"{param} must"):
        _deep(name, **{param: "x"}).fit(X)


def test_thesis_guard_must_be_a_bool():
    with pytest.raises(CatEmbedError, match="guard must be True or False"):
        _deep("ThesisClusterer", guard="yes").fit(X)


@pytest.mark.parametrize("name", ["AutoencoderKMeans", "VAEWD"])
def test_deep_bool_hidden_size_is_refused(name):
    with pytest.raises(CatEmbedError, match="hidden_sizes must be"):
        _deep(name, hidden_sizes=(True,)).fit(X)


def _cluster(name, **kw):
    from catembed import cluster

    return getattr(cluster, name)(**{"n_clusters": 2, **kw})


CATS = X[["a", "b"]]


@pytest.mark.parametrize("name", ["LCA", "SimilaritySpectral", "NaiveKMeans", "OneHotKMeans"])
@pytest.mark.parametrize("seed", ["x", -1, 2**40, 1.5])
def test_cluster_bad_random_state_names_the_parameter(name, seed):
    with pytest.raises(CatEmbedError, match="random_state must be"):
        _cluster(name, random_state=seed).fit(CATS)


@pytest.mark.parametrize("name", ["SimilaritySpectral", "NaiveKMeans", "OneHotKMeans",
                                  "GowerAgglomerative"])
@pytest.mark.parametrize("k", [0, -1, 2.0, True, "2", None])
def test_cluster_bad_n_clusters_names_the_parameter(name, k):
    with pytest.raises(CatEmbedError, match="n_clusters must be a positive integer"):
        _cluster(name, n_clusters=k).fit(X)


@pytest.mark.parametrize("name", ["NaiveKMeans", "OneHotKMeans", "GowerAgglomerative"])
def test_mixed_clusterers_more_clusters_than_rows(name):
    with pytest.raises(CatEmbedError, match=r"n_samples=3 should be >= n_clusters=5"):
        _cluster(name, n_clusters=5).fit(X.iloc[:3])


@pytest.mark.parametrize("name", ["NaiveKMeans", "OneHotKMeans"])
@pytest.mark.parametrize("n_init", [0, -1, "x"])
def test_kmeans_baselines_bad_n_init(name, n_init):
    with pytest.raises(CatEmbedError, match="n_init must be a positive integer or 'auto'"):
        _cluster(name, n_init=n_init).fit(X)


def test_gower_max_rows_zero_is_a_parameter_error():
    with pytest.raises(CatEmbedError, match="max_rows must be a positive integer"):
        _cluster("GowerAgglomerative", max_rows=0).fit(X)


@pytest.mark.parametrize("param", ["n_neighbors", "full_limit"])
def test_spectral_text_limits_are_refused(param):
    with pytest.raises(CatEmbedError, match=f"{param} must be"):
        _cluster("SimilaritySpectral", **{param: "x"}).fit(CATS)


def test_kprototypes_integer_column_names_matched_by_name_at_predict():
    from catembed.cluster import KPrototypes

    rng = np.random.RandomState(0)
    Xi = pd.DataFrame({0: list("xyz") * 8, 1: np.repeat(list("pq"), 12),
                       2: 3.0 * rng.randn(24), 3: rng.randn(24)})
    model = KPrototypes(n_clusters=3, random_state=0).fit(Xi)
    np.testing.assert_array_equal(model.predict(Xi[[0, 1, 3, 2]]), model.labels_)
    np.testing.assert_array_equal(model.predict(Xi[[3, 2, 1, 0]]), model.labels_)
    np.testing.assert_array_equal(model.predict(Xi.to_numpy(dtype=object)), model.labels_)


@pytest.mark.parametrize(("argv", "message"), [
    (["--clusters", "0"], "--clusters must be at least 1; got 0."),  # was: the default
    (["--clusters", "-1"], "--clusters must be at least 1; got -1."),  # was: internal error
    (["--seed", "-1"], "--seed must be an integer from 0 to 4294967295; got -1."),
    (["--seed", str(2**32)], "--seed must be an integer from 0 to 4294967295; got 4294967296."),
])
def test_cli_report_bad_flags_are_refused_before_any_work(tmp_path, capsys, argv, message):
    from catembed.cli import main

    out = tmp_path / "r.html"
    assert main(["report", "lenses", "-o", str(out), "-q", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_cli_report_small_run_writes_only_its_page(tmp_path, capsys):
    from catembed.cli import main

    data = tmp_path / "t.csv"
    X[["a", "b"]].assign(c=list("uvuvuvuvuvvuvuvuvuvu")).to_csv(data, index=False)
    before = data.read_bytes()
    out = tmp_path / "r.html"
    assert main(["report", str(data), "-o", str(out), "-q", "--methods", "",
                 "--no-consensus", "--clusters", "2"]) == 0, capsys.readouterr().err
    assert data.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.html", "t.csv"]
    assert out.read_text().lstrip().lower().startswith("<!doctype html")


def test_save_of_a_fitted_clusterer_says_what_save_writes(tmp_path):
    import catembed
    from catembed.cluster import KPrototypes

    model = KPrototypes(n_clusters=2, random_state=0).fit(X)
    with pytest.raises(CatEmbedError, match="writes the value embedders and Consensus only, "
                       "not KPrototypes"):  # was: NotFittedError on a fitted model
        catembed.save(model, tmp_path / "m.npz")
    assert list(tmp_path.iterdir()) == []
