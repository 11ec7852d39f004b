"""catembed.deep fits in memory flat in n: chunked encoding, streamed passes (issue 13)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

torch = pytest.importorskip("torch")

from catembed.deep import IDEC, AttentionClusterer, AutoencoderKMeans, _data, _objectives  # noqa: E402
from catembed.deep._data import (  # noqa: E402
    apply_encoding,
    code_dtype,
    encode_compact,
    fit_encoding,
)
from catembed.deep._nets import target_distribution  # noqa: E402
from catembed.stats import ValueStatistics  # noqa: E402
from test_deep import FAST, _one_thread, planted  # noqa: E402, F401 (autouse fixture)


@pytest.fixture
def small_chunks(monkeypatch):
    """Chunks of 7 rows, so that every pass crosses many chunk borders."""
    monkeypatch.setattr(_data, "CHUNK", 7)


def test_batch_target_with_column_sums_equals_full_table_target() -> None:
    # DEC Eq. 3 on a batch of rows, given f over all rows, is the full target's rows
    q = torch.tensor([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    full = target_distribution(q)
    idx = torch.tensor([3, 1])
    np.testing.assert_allclose(target_distribution(q[idx], q.sum(dim=0)), full[idx], rtol=1e-6)


def test_chunked_encoding_equals_one_pass(small_chunks) -> None:
    X, _ = planted(51)
    X.loc[3, "a"] = None
    X.loc[5, "x"] = np.nan
    enc = fit_encoding(X, ["a", "b"], ["x", "w"])  # statistics counted in chunks of 56 rows
    whole = ValueStatistics.from_frame(X, columns=["a", "b"])
    assert [list(map(str, c)) for c in enc.stats.categories] == \
        [list(map(str, c)) for c in whole.categories]
    np.testing.assert_array_equal(enc.stats.counts, whole.counts)
    np.testing.assert_allclose(enc.mean, np.nanmean(X[["x", "w"]].to_numpy(float), axis=0))
    np.testing.assert_allclose(enc.scale, np.nanstd(X[["x", "w"]].to_numpy(float), axis=0))
    codes, nums = encode_compact(enc, X)
    ref_codes, ref_nums = apply_encoding(enc, X)
    assert codes.dtype == np.uint8 and nums.dtype == np.float32
    np.testing.assert_array_equal(codes, ref_codes)
    np.testing.assert_array_equal(nums, ref_nums)


def test_code_dtype_widens_with_the_number_of_values() -> None:
    def enc_with(n_values: int):
        return fit_encoding(pd.DataFrame({"c": np.arange(n_values).astype(str)}), ["c"], [])

    assert code_dtype(enc_with(255)) == np.uint8   # 255 values + the unseen row = 256 ids
    assert code_dtype(enc_with(256)) == np.int16
    assert code_dtype(enc_with(40000)) == np.int32


@pytest.mark.parametrize("cls", [AutoencoderKMeans, IDEC])
def test_kmeans_on_a_sample_then_nearest_centre(cls, monkeypatch) -> None:
    X, y = planted()
    monkeypatch.setattr(_objectives, "KMEANS_SAMPLE", 60)
    a = cls(3, random_state=0, **FAST).fit(X)
    assert adjusted_rand_score(y, a.labels_) > 0.9
    # every row is in its most probable cluster (the nearest centre), sampled or not
    np.testing.assert_array_equal(a.labels_, a.predict(X))
    b = cls(3, random_state=0, **FAST).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_streamed_passes_do_not_depend_on_the_chunk_size(monkeypatch) -> None:
    X, _ = planted(120, seed=1)
    kw = {"pretrain_steps": 60, "cluster_steps": 40, "update_interval": 10, "batch_size": 32}
    big = AttentionClusterer(3, random_state=2, **kw).fit(X)
    monkeypatch.setattr(_data, "CHUNK", 7)
    small = AttentionClusterer(3, random_state=2, **kw).fit(X)
    np.testing.assert_array_equal(big.labels_, small.labels_)
    assert big.delta_label_ == pytest.approx(small.delta_label_)
    np.testing.assert_allclose(big.cluster_attention_, small.cluster_attention_, rtol=1e-4)
    rows = small.attention_weights(X)
    for k in range(3):  # accumulated chunk by chunk = the mean over the cluster's rows
        np.testing.assert_allclose(small.cluster_attention_.loc[k],
                                   rows[small.labels_ == k].mean(), rtol=1e-4)
    np.testing.assert_allclose(small.transform(X), big.transform(X), rtol=1e-5, atol=1e-6)
