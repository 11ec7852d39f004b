"""catembed.deep: label-free restarts (``n_init``) and the one-pass compact encoding."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError

torch = pytest.importorskip("torch")

from catembed.deep import IDEC, AttentionClusterer, AutoencoderKMeans, _data  # noqa: E402
from catembed.deep._batches import _Batches  # noqa: E402
from catembed.deep._data import (  # noqa: E402
    CodedNumbers,
    encode_compact,
    fit_encode_compact,
    fit_encoding,
)
from catembed.deep._nets import target_distribution  # noqa: E402
from test_deep import _one_thread, planted  # noqa: E402, F401 (autouse fixture)

KW = {"pretrain_steps": 60, "cluster_steps": 40, "update_interval": 10, "batch_size": 32}


@pytest.mark.parametrize("cls", [AutoencoderKMeans, IDEC, AttentionClusterer])
def test_restarts_keep_the_lowest_objective_and_are_reproducible(cls) -> None:
    X, _ = planted(120, seed=3)
    # the rule before issue 20 item 3, kept as restart_criterion="objective"
    a = cls(3, n_init=3, random_state=5, restart_criterion="objective", **KW).fit(X)
    assert not a.degenerate_.any() and not a.fallback_
    assert len(a.init_objectives_) == len(a.init_n_iter_) == 3
    assert a.best_init_ == int(np.argmin(a.init_objectives_))
    assert a.objective_ == min(a.init_objectives_)
    assert a.n_iter_ == a.init_n_iter_[a.best_init_]
    assert len(set(a.init_objectives_)) == 3  # three different initialisations
    b = cls(3, n_init=3, random_state=5, restart_criterion="objective", **KW).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.init_objectives_ == b.init_objectives_ and a.loss_history_ == b.loss_history_
    # restart r depends on the r-th seed only: n_init=1 is the first restart of n_init=3
    one = cls(3, n_init=1, random_state=5, restart_criterion="objective", **KW).fit(X)
    assert one.init_objectives_ == a.init_objectives_[:1]
    assert a.objective_ <= one.objective_
    assert a.labels_.dtype == np.int32


def test_objective_is_the_clean_idec_loss_of_the_kept_model() -> None:
    # oracle: L_rec + gamma * KL(P || Q) over all rows, from the fitted network in one piece
    X, _ = planted(90, seed=4)
    m = IDEC(3, n_init=2, gamma=0.3, random_state=1, **KW).fit(X)
    codes, nums = _data.apply_encoding(m.encoding_, X)
    with torch.no_grad():
        z, rec = m.model_.recon_loss(torch.from_numpy(codes), torch.from_numpy(nums))
        q = m.model_.soft_assign(z)
        p = target_distribution(q)
        kl = float((p * (p.log() - q.log())).sum()) / len(X)
    np.testing.assert_allclose(m.objective_, float(rec) + 0.3 * kl, rtol=1e-5)
    np.testing.assert_array_equal(m.labels_, q.argmax(dim=1).numpy())


def test_n_init_must_be_a_positive_integer() -> None:
    X, _ = planted(60)
    with pytest.raises(CatEmbedError, match="n_init"):
        IDEC(3, n_init=0, **KW).fit(X)


def test_batches_are_int32_permutations_every_epoch() -> None:
    b = _Batches(10, 5, np.random.RandomState(0))
    assert b.perm.dtype == np.int32
    for _ in range(3):  # every epoch (two batches) visits each row once
        epoch = np.concatenate([b.next(), b.next()])
        np.testing.assert_array_equal(np.sort(epoch), np.arange(10))


def test_one_pass_encoding_equals_count_then_encode(monkeypatch) -> None:
    monkeypatch.setattr(_data, "CHUNK", 7)  # counting chunks of 56 rows, values differ by chunk
    rng = np.random.RandomState(0)
    n = 200
    X = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n).astype(object),
                      "b": rng.randint(0, 5, n).astype(object),
                      "x": rng.randn(n) * 100 + 5, "w": rng.rand(n)})
    X.loc[150:, "b"] = X.loc[150:, "b"].astype(float)  # the last chunk has 1.0 for 1
    X.loc[3, "a"] = None
    X.loc[5, "x"] = np.nan
    X.loc[190, "a"] = "new"  # a value first seen in the last chunk sorts first
    enc, codes, nums = fit_encode_compact(X, ["a", "b"], ["x", "w"])
    ref = fit_encoding(X, ["a", "b"], ["x", "w"])
    ref_codes, ref_nums = encode_compact(ref, X)
    assert [list(map(str, c)) for c in enc.stats.categories] == \
        [list(map(str, c)) for c in ref.stats.categories]
    np.testing.assert_array_equal(enc.stats.counts, ref.stats.counts)
    np.testing.assert_array_equal(codes, ref_codes)
    assert codes.dtype == np.uint8 and isinstance(nums, CodedNumbers)  # 200 values or less
    assert nums.codes.dtype == np.uint8
    nums = np.asarray(nums)
    assert nums.dtype == np.float32
    np.testing.assert_allclose(enc.mean, np.nanmean(X[["x", "w"]].to_numpy(float), axis=0))
    np.testing.assert_allclose(enc.scale, np.nanstd(X[["x", "w"]].to_numpy(float), axis=0))
    np.testing.assert_allclose(nums, ref_nums, rtol=1e-6, atol=1e-6)


def test_a_diverged_restart_is_never_kept(monkeypatch) -> None:
    from catembed.deep import clustering

    original = clustering._DeepClusterer._final_objective
    calls = []

    def first_nan(self, *a):
        value, labels = original(self, *a)
        calls.append(value)
        return (float("nan") if len(calls) == 1 else value), labels

    monkeypatch.setattr(clustering._DeepClusterer, "_final_objective", first_nan)
    X, _ = planted(90, seed=2)
    m = AutoencoderKMeans(3, n_init=2, random_state=0, **KW).fit(X)
    assert np.isnan(m.init_objectives_[0]) and m.best_init_ == 1
    assert m.objective_ == m.init_objectives_[1]
