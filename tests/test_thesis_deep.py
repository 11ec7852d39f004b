"""The finished thesis' deep mixed-type clustering (issue 20, part C): ThesisClusterer's
networks x clustering stages, its architecture rules and the ``thesis`` preset."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")

from catembed import CatEmbedError  # noqa: E402
from catembed.deep import ThesisClusterer  # noqa: E402
from catembed.deep.thesis import CLUSTERINGS, NETWORKS, THESIS_CHAIN  # noqa: E402


@pytest.fixture(scope="module")
def planted():
    rng = np.random.default_rng(0)
    n = 60
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame({
        "a": np.array(list("xyz"))[y],
        "b": rng.choice(list("pq"), n),
        "num": rng.normal(3.0 * y, 0.5),
        "noise": rng.normal(size=n),
    })
    return frame, y


@pytest.mark.parametrize("network", NETWORKS)
@pytest.mark.parametrize("clustering", CLUSTERINGS)
def test_every_network_and_clustering_fits(network, clustering, planted):
    X, _ = planted
    est = ThesisClusterer(3, network=network, clustering=clustering, epochs=1,
                          cluster_epochs=1, n_blocks=1, random_state=0).fit(X)
    assert est.labels_.shape == (len(X),)
    assert set(np.unique(est.labels_)) <= {0, 1, 2}
    assert est.transform(X).shape == (len(X), est.n_components_)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert len(est.pretrain_loss_) == 1
    # the thesis' protocol runs its notebook's chain: DEC after DCN, IDEC after DCN and DEC
    assert len(est.cluster_loss_) == len(THESIS_CHAIN.get(clustering, ()))


@pytest.mark.parametrize("network", ["ae", "ft-transformer"])
def test_same_seed_same_labels(network, planted):
    X, _ = planted
    kw = dict(network=network, clustering="idec", epochs=2, cluster_epochs=2, n_blocks=1)
    a = ThesisClusterer(3, random_state=5, **kw).fit(X)
    b = ThesisClusterer(3, random_state=5, **kw).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.transform(X), b.transform(X))


def test_dcn_objective_decreases_on_a_planted_table(planted):
    X, _ = planted
    est = ThesisClusterer(3, network="ae", clustering="dcn", epochs=10, cluster_epochs=10,
                          cluster_protocol="catembed", random_state=0).fit(X)
    loss = est.cluster_loss_
    assert len(loss) == 10 and loss[-1] < loss[0]
    # the thesis' rules (nearest-centre term, centroid pass after every epoch)
    est = ThesisClusterer(3, network="ae", clustering="dcn", epochs=10, cluster_epochs=30,
                          cluster_learning_rate=1e-3, cluster_protocol="thesis-single",
                          random_state=0).fit(X)
    loss = est.cluster_loss_
    assert len(loss) == 30 and np.mean(loss[-5:]) < np.mean(loss[:5])


def test_architecture_rules():
    from catembed.deep._thesis_nets import embedding_width, layer_widths

    widths = [embedding_width(v) for v in (1, 2, 3, 7, 49, 50, 100, 500)]
    assert widths == [1, 1, 2, 4, 25, 25, 25, 25]
    # d_in 5: round(log2 5) = 2 layers, latent round(5 / 4) = 1
    assert layer_widths(5, 5) == [5, 3, 1]
    # d_in 66: 6 layers shrinking by (66 - 16) / 6 each
    w = layer_widths(66, 66)
    assert w[0] == 66 and w[-1] == 16 and len(w) == 7
    assert all(a > b for a, b in zip(w[:-1], w[1:], strict=False))
    assert layer_widths(1, 1) == [1, 1]


def test_tokens_and_widths(planted):
    X, _ = planted
    # ae: a (3 values -> 2) + b (2 values -> 1) + 2 numbers = 5 -> latent 1
    assert ThesisClusterer(3, epochs=0, random_state=0).fit(X).n_components_ == 1
    # attention / transformer: 2 tokens x 32 + 2 numbers = 66 -> latent round(16.5) = 16
    att = ThesisClusterer(3, network="attention", epochs=0, random_state=0).fit(X)
    assert att.model_.front.width == 66 and att.n_components_ == 16
    # ft-transformer: 4 tokens x 32 = 128 -> latent 32
    ft = ThesisClusterer(3, network="ft-transformer", epochs=0, n_blocks=1,
                         random_state=0).fit(X)
    assert ft.model_.front.width == 128 and ft.n_components_ == 32


def test_bad_options(planted):
    X, _ = planted
    with pytest.raises(CatEmbedError, match="network"):
        ThesisClusterer(3, network="gru").fit(X)
    with pytest.raises(CatEmbedError, match="clustering"):
        ThesisClusterer(3, clustering="spectral").fit(X)
    with pytest.raises(CatEmbedError, match="n_heads"):
        ThesisClusterer(3, network="transformer", n_heads=5).fit(X)
    with pytest.raises(CatEmbedError, match="batch_order"):
        ThesisClusterer(3, batch_order="sorted").fit(X)


def test_fixed_batch_order_is_a_dataloader_without_shuffle():
    """One permutation, then the same consecutive batches every epoch, the last one short
    (``DataLoader(shuffle=False, drop_last=False)`` over a table shuffled once)."""
    from catembed.deep._batches import _FixedBatches

    b = _FixedBatches(10, 4, np.random.RandomState(3))
    perm = np.arange(10)
    np.random.RandomState(3).shuffle(perm)
    steps = -(-10 // 4)  # ThesisClusterer's steps an epoch
    for _ in range(3):  # three epochs, the same batches each time
        got = [b.next().tolist() for _ in range(steps)]
        assert got == [perm[:4].tolist(), perm[4:8].tolist(), perm[8:].tolist()]


def test_fixed_batch_order_fits_reproducibly(planted):
    X, _ = planted
    kw = dict(network="ae", clustering="idec", epochs=3, cluster_epochs=2)
    a = ThesisClusterer(3, random_state=1, batch_order="fixed", **kw).fit(X)
    b = ThesisClusterer(3, random_state=1, batch_order="fixed", **kw).fit(X)
    c = ThesisClusterer(3, random_state=1, batch_order="reshuffle", **kw).fit(X)
    d = ThesisClusterer(3, random_state=1, **kw).fit(X)  # the default is the thesis' order
    assert d.pretrain_loss_ == a.pretrain_loss_
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.pretrain_loss_ == b.pretrain_loss_
    # the first epoch sees every row once in both orders, later epochs differ
    assert a.pretrain_loss_ != c.pretrain_loss_


def test_thesis_preset(tmp_path):
    from catembed.datasets import Dataset, apply_preset, resolve_preset

    spec = resolve_preset("thesis", "bank_marketing")
    assert spec["columns"] == "mixed" and spec["rows"] == "complete"
    assert spec["sample"] == 5000 and spec["drop"] == ["age", "day", "month"]
    assert resolve_preset("thesis", "adult")["sample"] == 5000
    frame = pd.DataFrame({"c": ["a", "b", None, "a"], "x": [1.0, 2.0, 3.0, 4.0],
                          "k": ["u", "u", "u", "u"], "y": [0, 1, 0, 1]})
    data = Dataset("toy", frame, {"name": "toy", "target": "y", "columns": {
        "c": "categorical", "x": "numeric", "k": "categorical", "y": "target"}}, tmp_path)
    out = apply_preset(data, "thesis")
    assert len(out.frame) == 3  # complete rows
    assert out.column_kinds["x"] == "numeric" and "k" in out.frame.columns  # constant kept


def test_registered_methods():
    from catembed.evaluation.methods import get_method

    for net in NETWORKS:
        for clus in CLUSTERINGS:
            assert get_method(f"thesis-{net}-{clus}") is not None


def test_dcn_centroid_step_equals_the_row_by_row_rule():
    import torch

    from catembed.deep._thesis_nets import dcn_centroid_step

    g = torch.Generator().manual_seed(0)
    centers = torch.randn(3, 4, generator=g)
    counts = torch.tensor([5.0, 0.0, 2.0])
    rows = torch.randn(7, 4, generator=g)
    near = torch.tensor([0, 2, 0, 0, 2, 2, 0])  # centroid 1: count 0 and no row
    loop_c, loop_n = centers.clone(), counts.clone()
    for x, k in zip(rows, near.tolist(), strict=True):  # DCN Algorithm 1, one row at a time
        loop_n[k] += 1
        loop_c[k] -= (loop_c[k] - x) / loop_n[k]
    new = dcn_centroid_step(centers, counts, rows, near)
    assert torch.equal(new, torch.tensor([9.0, 0.0, 5.0]))
    assert torch.allclose(centers, loop_c, atol=1e-6)
    assert torch.equal(centers[1], loop_c[1])


def test_codes_held_compactly(planted):
    X, _ = planted
    est = ThesisClusterer(3, epochs=1, random_state=0)
    est.fit(X)
    from catembed.deep._data import apply_encoding, encode_compact

    codes, nums = est._local(encode_compact(est.encoding_, X))
    wide = apply_encoding(est.encoding_, X)[0] - est.encoding_.offsets[None, :]
    assert np.array_equal(codes, wide)
    assert codes.dtype == np.uint8 and nums.dtype == np.float32
    assert est.predict(X).shape == (len(X),)


def test_kmeans_on_a_sample_of_a_larger_table(planted, monkeypatch):
    import catembed.deep._thesis_stages as stages

    X, _ = planted
    monkeypatch.setattr(stages, "KMEANS_SAMPLE", 50)
    est = ThesisClusterer(3, epochs=2, random_state=0).fit(X)
    assert len(est.labels_) == len(X) > 50
    if not est.fallback_:  # every row at its nearest centre
        assert np.array_equal(est.labels_, est.predict(X))


def test_attention_modules_as_the_thesis_builds_them():
    """Single head: softmax(q k^T / sqrt(32)) v with bias-free maps and no output map; the
    Transformer block: bias-free q/k/v, an output map with bias, post-norm residuals; the
    shared embedding and the numeric tokenizer start uniform on [-1, 1]."""
    import torch

    from catembed.deep._thesis_nets import AttentionFront, _Block, _SelfAttention

    torch.manual_seed(0)
    att = _SelfAttention(32, 1, project=False)
    assert att.out is None and att.queries.bias is None and att.values.bias is None
    x = torch.randn(3, 5, 32)
    q, k, v = att.queries(x), att.keys(x), att.values(x)
    expect = torch.softmax(q @ k.transpose(1, 2) / 32 ** 0.5, dim=-1) @ v
    torch.testing.assert_close(att(x), expect)

    block = _Block(32, 8)
    assert block.attention.out.bias is not None and block.attention.keys.bias is None
    a = block.attention
    qh = a.queries(x).view(3, 5, 8, 4).transpose(1, 2)
    kh = a.keys(x).view(3, 5, 8, 4).transpose(1, 2)
    vh = a.values(x).view(3, 5, 8, 4).transpose(1, 2)
    heads = torch.softmax(qh @ kh.transpose(2, 3) / 2.0, dim=-1) @ vh
    h = block.norm1(a.out(heads.transpose(1, 2).reshape(3, 5, 32)) + x)
    torch.testing.assert_close(block(x), block.norm2(block.feed_forward(h) + h))

    front = AttentionFront([3, 4], 2, n_blocks=6, n_heads=8, numeric_tokens=True)
    tok = front.tokens
    assert tok.shared.shape == (4, 4) and tok.num_weight.shape == (2, 28)
    for p in (tok.shared, tok.num_weight, tok.num_bias):
        assert float(p.abs().max()) <= 1.0 and float(p.std()) > 0.3


@pytest.mark.parametrize("protocol", ["thesis-single", "catembed"])
@pytest.mark.parametrize("clustering", ["dec", "idec", "dcn"])
def test_single_stage_protocols(protocol, clustering, planted):
    X, _ = planted
    est = ThesisClusterer(3, clustering=clustering, cluster_protocol=protocol, epochs=2,
                          cluster_epochs=2, random_state=0).fit(X)
    assert len(est.cluster_loss_) == 2
    np.testing.assert_array_equal(est.predict(X), est.labels_)


def _settings(est):
    from catembed.deep._thesis_stages import dcn_lambda, stage_epochs, stage_lr

    return stage_epochs(est), stage_lr(est), dcn_lambda(est)


def test_cluster_protocol_defaults():
    """The thesis' code's settings (ClustPy's defaults as its notebook leaves them) unless
    given; the older rules with ``cluster_protocol="catembed"``."""
    est = ThesisClusterer(2)
    assert est.cluster_epochs is None and est.dcn_lambda is None
    assert _settings(est) == (150, 1e-4, 0.05)
    old = ThesisClusterer(2, cluster_protocol="catembed")
    assert _settings(old) == (100, 1e-3, 1.0)
    given = ThesisClusterer(2, cluster_epochs=7, cluster_learning_rate=0.5, dcn_lambda=2.0)
    assert _settings(given) == (7, 0.5, 2.0)
    with pytest.raises(CatEmbedError, match="cluster_protocol"):
        ThesisClusterer(2, cluster_protocol="clustpy").fit(pd.DataFrame({"a": list("xyxy")}))


def test_dec_batch_loss_by_hand():
    """q = [[.8, .2], [.4, .6]]: f = (1.2, .8); p_i ~ q_ij^2 / f_j, row-normalised."""
    import torch

    from catembed.deep._thesis_nets import dec_batch_loss

    q = torch.tensor([[0.8, 0.2], [0.4, 0.6]], dtype=torch.float64)
    w = np.array([[0.64 / 1.2, 0.04 / 0.8], [0.16 / 1.2, 0.36 / 0.8]])
    p = w / w.sum(axis=1, keepdims=True)
    want = -np.mean(np.sum(p * np.log(q.numpy() + 1e-8), axis=1))
    assert float(dec_batch_loss(q)) == pytest.approx(want, rel=1e-12)
    # the target is detached: the gradient is -(p / q) / n, not that of p log q in q too
    q.requires_grad_(True)
    dec_batch_loss(q).backward()
    np.testing.assert_allclose(q.grad.numpy(), -p / (q.detach().numpy() + 1e-8) / 2,
                               rtol=1e-10)


def test_one_idec_chain_gives_the_dcn_and_dec_cells(planted):
    """The thesis' notebook fits DCN, DEC, IDEC on one network: the labels after each stage
    of one ``"idec"`` fit equal the ``"dcn"`` and ``"dec"`` fits from the same seed."""
    X, _ = planted
    kw = dict(network="ae", epochs=3, cluster_epochs=2, random_state=4)
    chain = ThesisClusterer(3, clustering="idec", **kw).fit(X)
    assert sorted(chain.stage_labels_) == ["dcn", "dec", "idec", "kmeans"]
    np.testing.assert_array_equal(chain.stage_labels_["idec"], chain.labels_)
    for stage in ("kmeans", "dcn", "dec"):
        alone = ThesisClusterer(3, clustering=stage, **kw).fit(X)
        np.testing.assert_array_equal(chain.stage_labels_[stage], alone.labels_)
        assert chain.cluster_loss_[:len(alone.cluster_loss_)] == alone.cluster_loss_
        assert chain.pretrain_loss_ == alone.pretrain_loss_
