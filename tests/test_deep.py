"""catembed.deep: mixed-type deep clusterers and UNTIE's VAE_WD / BiGAN_WD (issue 13)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

from catembed import CatEmbedError

torch = pytest.importorskip("torch")

from catembed.deep import IDEC, VAEWD, AttentionClusterer, AutoencoderKMeans, BiGANWD  # noqa: E402
from catembed.deep._data import apply_encoding, fit_encoding  # noqa: E402
from catembed.deep._nets import target_distribution  # noqa: E402

FAST = {"pretrain_steps": 150, "cluster_steps": 100, "batch_size": 64}


@pytest.fixture(autouse=True)
def _one_thread():
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(old)


def planted(n: int = 240, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """Three clusters: two categorical columns that name the cluster 90% of the time (else
    a random value), one number with cluster means -3, 0, 3 (unit noise), one noise
    number."""
    rng = np.random.RandomState(seed)
    y = np.repeat(np.arange(3), n // 3)

    def cat(prefix: str) -> list[str]:
        return [f"{prefix}{t if rng.rand() < 0.9 else rng.randint(3)}" for t in y]

    return pd.DataFrame({"a": cat("a"), "b": cat("b"), "x": 3.0 * (y - 1) + rng.randn(n),
                         "w": rng.randn(n)}), y


def test_encoding_offsets_unseen_and_standardised() -> None:
    df = pd.DataFrame({"c": ["p", "q", "p", None], "d": ["u", "u", "v", "v"],
                       "x": [1.0, 2.0, 3.0, np.nan]})
    enc = fit_encoding(df, ["c", "d"], ["x"])
    # c has p, q, missing (3 values) + unseen row; d has u, v + unseen row
    assert enc.sizes.tolist() == [3, 2]
    assert enc.offsets.tolist() == [0, 4]
    assert enc.n_embeddings == 7
    codes, nums = apply_encoding(enc, df)
    assert codes.tolist() == [[0, 4], [1, 4], [0, 5], [2, 5]]
    np.testing.assert_allclose(nums[:, 0], [-np.sqrt(1.5), 0, np.sqrt(1.5), 0], rtol=1e-6)
    new = pd.DataFrame({"c": ["zz"], "d": ["v"], "x": [2.0]})
    codes2, _ = apply_encoding(enc, new)
    assert codes2.tolist() == [[3, 5]]  # the unseen row of c


def test_target_distribution_hand_computed() -> None:
    q = torch.tensor([[0.5, 0.5], [0.9, 0.1]])
    p = target_distribution(q).numpy()
    # f = (1.4, 0.6); row 0: (0.25/1.4, 0.25/0.6) normalised
    r0 = np.array([0.25 / 1.4, 0.25 / 0.6])
    r1 = np.array([0.81 / 1.4, 0.01 / 0.6])
    np.testing.assert_allclose(p, [r0 / r0.sum(), r1 / r1.sum()], rtol=1e-6)


@pytest.mark.parametrize("cls", [AutoencoderKMeans, IDEC, AttentionClusterer])
def test_planted_mixed_clusters_recovered(cls) -> None:
    X, y = planted()
    model = cls(3, random_state=0, **FAST).fit(X)
    assert adjusted_rand_score(y, model.labels_) > 0.9
    assert model.labels_.shape == (len(X),)
    np.testing.assert_array_equal(model.predict(X), model.predict(X))
    Z = model.transform(X)
    assert Z.shape == (len(X), model.n_components)
    assert list(model.get_feature_names_out()) == [f"latent{i}" for i in range(10)]


def test_loss_decreases() -> None:
    X, _ = planted()
    model = IDEC(3, random_state=0, **FAST).fit(X)
    pre = model.pretrain_loss_
    assert len(pre) == FAST["pretrain_steps"]
    assert np.mean(pre[-20:]) < 0.5 * np.mean(pre[:20])
    # the IDEC stage ran and kept the reconstruction low
    assert model.n_iter_ >= 1 and len(model.delta_label_) >= 1
    assert np.mean(model.cluster_loss_[-10:]) < np.mean(pre[:20])


@pytest.mark.parametrize("cls", [IDEC, AttentionClusterer])
def test_same_seed_same_labels(cls) -> None:
    X, _ = planted(120, seed=3)
    kw = {"pretrain_steps": 60, "cluster_steps": 40, "batch_size": 32}
    a = cls(3, random_state=7, **kw).fit(X)
    b = cls(3, random_state=7, **kw).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))
    assert a.loss_history_ == b.loss_history_
    c = cls(3, random_state=8, **kw).fit(X)
    assert c.loss_history_ != a.loss_history_


def test_attention_weights_per_cluster() -> None:
    X, _ = planted()
    model = AttentionClusterer(3, random_state=0, **FAST).fit(X)
    att = model.cluster_attention_
    assert list(att.columns) == ["a", "b", "x", "w"]
    assert att.shape == (3, 4)
    np.testing.assert_allclose(att.sum(axis=1), 1.0, rtol=1e-5)
    rows = model.attention_weights(X)
    np.testing.assert_allclose(rows.sum(axis=1), 1.0, rtol=1e-5)
    for k in range(3):  # the per-cluster table is the mean over the cluster's rows
        np.testing.assert_allclose(att.loc[k], rows[model.labels_ == k].mean(), rtol=1e-4)


def test_cde_value_init_copies_projected_vectors() -> None:
    X, y = planted()
    model = AttentionClusterer(3, random_state=0, value_init="cde", **FAST).fit(X)
    assert adjusted_rand_score(y, model.labels_) > 0.8
    from catembed.deep._training import initial_value_vectors

    rows = initial_value_vectors(model.encoding_, "cde", 16, random_state=0)
    assert rows.shape == (model.encoding_.n_embeddings, 16)
    # the unseen-value row of every column stays zero; the others have unit overall scale
    unseen = model.encoding_.offsets + model.encoding_.sizes
    assert np.all(rows[unseen] == 0)
    assert np.isclose(np.delete(rows, unseen, axis=0).std(), 1.0)


def test_numeric_only_and_categorical_only_tables() -> None:
    X, y = planted()
    num = AutoencoderKMeans(3, random_state=0, **FAST).fit(X[["x", "w"]])
    assert num.categorical_features_ == [] and num.numeric_features_ == ["x", "w"]
    cat = AttentionClusterer(3, random_state=0, **FAST).fit(X[["a", "b"]])
    assert cat.numeric_features_ == []
    assert adjusted_rand_score(y, cat.labels_) > 0.6


@pytest.mark.parametrize("bad, match", [
    ({"n_clusters": 0}, "n_clusters"),
    ({"corruption": 1.5}, "corruption"),
    ({"value_init": "pca"}, "value_init"),
    ({"hidden_sizes": ()}, "hidden_sizes"),
    ({"device": "tpu"}, "device"),
])
def test_bad_parameters_raise_catembed_error(bad, match) -> None:
    X, _ = planted(60)
    with pytest.raises(CatEmbedError, match=match):
        IDEC(**{"n_clusters": 3, **FAST, **bad}).fit(X)


def test_attention_heads_must_divide_width_and_text_numeric_column_errors() -> None:
    X, _ = planted(60)
    with pytest.raises(CatEmbedError, match="multiple of n_heads"):
        AttentionClusterer(3, embedding_dim=10, n_heads=3).fit(X)
    with pytest.raises(CatEmbedError, match="more than the"):
        IDEC(100, **FAST).fit(X)


@pytest.mark.parametrize("cls", [VAEWD, BiGANWD])
def test_wide_deep_embedders(cls, watermelon) -> None:
    est = cls(n_components=3, max_steps=80, batch_size=4, random_state=0).fit(watermelon)
    Z = est.transform(watermelon)
    assert Z.shape == (6, 3) and np.isfinite(Z).all()
    prefix = "vae" if cls is VAEWD else "bigan"
    assert list(est.get_feature_names_out()) == [f"{prefix}{i}" for i in range(3)]
    again = cls(n_components=3, max_steps=80, batch_size=4, random_state=0).fit(watermelon)
    np.testing.assert_array_equal(Z, again.transform(watermelon))
    out = est.set_output(transform="pandas").transform(watermelon)
    assert list(out.columns) == list(est.get_feature_names_out())


def test_vae_wd_loss_decreases_and_separates_planted() -> None:
    X, y = planted()
    est = VAEWD(n_components=4, max_steps=300, random_state=0).fit(X[["a", "b"]])
    h = est.loss_history_
    assert np.mean(h[-30:]) < 0.9 * np.mean(h[:30])
    from sklearn.cluster import KMeans

    labels = KMeans(3, n_init=10, random_state=0).fit_predict(est.transform(X[["a", "b"]]))
    assert adjusted_rand_score(y, labels) > 0.5


def test_registry_names_deep_methods() -> None:
    from catembed.evaluation.methods import get_method

    for name in ("deep-ae-kmeans", "deep-idec", "deep-attention", "vae-wd", "bigan-wd"):
        assert get_method(name).available
    assert get_method("vae-wd").kind == "embedding"
    assert get_method("deep-idec").kind == "labels"


def test_max_epochs_bounds_the_steps_of_a_small_table():
    """Issue 55: on a small table the step budgets are at most ``max_epochs`` passes over the
    rows (1000 steps of 256 rows were 394 passes over 650 rows); from 1,280 rows on the
    defaults run unchanged, and ``max_epochs=None`` keeps the fixed budgets."""
    from catembed.deep import AttentionClusterer
    from catembed.deep._training import stage_steps

    est = AttentionClusterer()
    assert est.max_epochs == 200
    assert stage_steps(est, 650) == (508, 508)  # ceil(200 * 650 / 256)
    assert stage_steps(est, 100) == (200, 200)  # batch = the 100 rows: 200 epochs
    assert stage_steps(est, 1280) == (1000, 1000)
    assert stage_steps(est.set_params(max_epochs=None), 650) == (1000, 1000)
    assert stage_steps(est.set_params(max_epochs=5, pretrain_steps=3), 650) == (3, 13)
    with pytest.raises(CatEmbedError, match="max_epochs"):
        AttentionClusterer(max_epochs=0).fit(pd.DataFrame({"a": list("abcabc")}))
