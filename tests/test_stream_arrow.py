"""transform_file on Parquet: batches coded from their dictionaries, pipelined (issue 22 item 2).

Each case writes the same file twice, through the Arrow path and through the DataFrame path
it replaces (``_codes_lookup`` forced off), and asserts the same bytes, warnings and errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from catembed import CDE, UNTIE, CatEmbedError, OneHotEmbedder, transform_file
from catembed import io as cio
from catembed.base import ValueEmbedder
from catembed.transform import streaming
from catembed.transform._arrow_codes import DictionaryCodes


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(3):
        v = rng.integers(0, 6, n)
        cols[f"a{j}"] = np.array([f"v{k}" for k in range(6)], dtype=object)[v]
    return pd.DataFrame({"rid": np.arange(n) + 1000 * seed, **cols,
                         "x": rng.standard_normal(n), "label": cols["a0"]})


@pytest.fixture
def files(tmp_path):
    """A training table with missing values and a rare value; a Parquet file of four row
    groups whose dictionaries differ (order, size), with unknown values, nulls and empty
    strings."""
    train = _frame(400, 0)
    train.loc[:9, "a1"] = None
    train.loc[10:11, "a2"] = "rare"
    path = tmp_path / "new.parquet"
    with pq.ParquetWriter(path, pa.Table.from_pandas(_frame(1, 9), preserve_index=False)
                          .schema) as w:
        for g in range(4):
            part = _frame(120 + 7 * g, g + 1)
            if g == 1:
                part.loc[part.index[:4], "a0"] = "never-seen"
                part.loc[part.index[4:8], "a1"] = None
            if g == 2:
                part["a2"] = "v3"  # a one-value dictionary
                part.loc[part.index[:3], "a1"] = ""
            if g == 3:
                part = part.iloc[::-1]  # another dictionary order
            w.write_table(pa.Table.from_pandas(part, preserve_index=False))
    return train, path


def _both(monkeypatch, est, path, tmp_path, **kw):
    """Output bytes and warnings of the Arrow path and of the DataFrame path."""
    got = []
    for arrow in (True, False):
        if not arrow:
            monkeypatch.setattr(streaming, "_codes_lookup", lambda est: False)
        out = tmp_path / f"{'arrow' if arrow else 'frame'}.parquet"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            rows = transform_file(est, path, out, progress=False, **kw)
        got.append((out.read_bytes(), rows, [str(w.message) for w in caught]))
    monkeypatch.undo()
    return got


MODELS = {
    "cde-compact": lambda: CDE(random_state=0, n_components=4, handle_unknown="ignore"),
    "cde-concat": lambda: CDE(random_state=0, handle_unknown="ignore"),
    "onehot-pooled": lambda: OneHotEmbedder(min_frequency=5, handle_unknown="ignore"),
    "cde-warn": lambda: CDE(random_state=0, n_components=3, handle_unknown="warn"),
    "cde-numeric": lambda: CDE(random_state=0, n_components=3, handle_unknown="ignore",
                               numeric="passthrough"),
    "untie": lambda: UNTIE(random_state=0, handle_unknown="ignore", max_iter=5),
}


@pytest.mark.parametrize("name", list(MODELS))
@pytest.mark.parametrize(("chunksize", "block"), [(None, 1 << 26), (100, 1 << 26), (150, 2000)])
def test_arrow_path_writes_the_same_bytes(files, tmp_path, monkeypatch, name, chunksize, block):
    train, path = files
    feats = ["a0", "a1", "a2"] + (["x"] if name == "cde-numeric" else [])
    est = MODELS[name]().fit(train[feats])
    (a, rows_a, warn_a), (b, rows_b, warn_b) = _both(
        monkeypatch, est, path, tmp_path, chunksize=chunksize, id_columns=["rid"],
        target="label", max_block_bytes=block)
    assert rows_a == rows_b == 120 + 127 + 134 + 141
    assert a == b
    assert warn_a == warn_b
    if name == "cde-warn":
        assert any("never-seen" in w for w in warn_a)
    got = pd.read_parquet(tmp_path / "arrow.parquet")
    ref = est.transform(pd.read_parquet(path)[feats])
    np.testing.assert_array_equal(got.iloc[:, 1:-1].to_numpy(), ref)
    assert list(got["rid"]) == list(pd.read_parquet(path)["rid"])


def test_arrow_path_codes_without_a_frame(files, tmp_path, monkeypatch):
    """A clean file never builds a DataFrame of the features (only of the id column)."""
    train, path = files
    est = CDE(random_state=0, n_components=4, handle_unknown="ignore").fit(
        train[["a0", "a1", "a2"]])
    asked = []
    real = cio.batch_frame
    monkeypatch.setattr(cio, "batch_frame", lambda b, w: asked.append(list(w)) or real(b, w))
    embedded = []
    real_transform = ValueEmbedder._transform_array
    monkeypatch.setattr(ValueEmbedder, "_transform_array",
                        lambda self, X, out=None: embedded.append(len(X))
                        or real_transform(self, X, out))
    transform_file(est, path, tmp_path / "o.parquet", chunksize=64, id_columns=["rid"],
                   progress=False)
    assert asked and all(w == ["rid"] for w in asked)
    assert embedded == []
    monkeypatch.setattr(streaming, "_codes_lookup", lambda est: False)  # the spy works
    transform_file(est, path, tmp_path / "o.parquet", chunksize=64, progress=False)
    assert sum(embedded) == 120 + 127 + 134 + 141


@pytest.mark.parametrize(("params", "match"), [
    ({"handle_unknown": "error"}, "never-seen"),
    ({"handle_unknown": "ignore", "handle_missing": "error"}, "missing values"),
])
def test_arrow_path_raises_as_before(files, tmp_path, monkeypatch, params, match):
    train, path = files
    est = CDE(random_state=0, n_components=3, **params).fit(
        train[["a0", "a1", "a2"]].fillna({"a1": "v0"}))
    msgs = []
    for arrow in (True, False):
        if not arrow:
            monkeypatch.setattr(streaming, "_codes_lookup", lambda est: False)
        with pytest.raises(CatEmbedError, match=match) as err:
            transform_file(est, path, tmp_path / "o.parquet", progress=False)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]
    assert not (tmp_path / "o.parquet").exists()  # atomic: nothing published


def test_arrow_path_to_csv(files, tmp_path, monkeypatch):
    train, path = files
    est = CDE(random_state=0, n_components=3, handle_unknown="ignore").fit(
        train[["a0", "a1", "a2"]])
    got = []
    for arrow in (True, False):
        if not arrow:
            monkeypatch.setattr(streaming, "_codes_lookup", lambda est: False)
        out = tmp_path / f"{arrow}.csv"
        transform_file(est, path, out, chunksize=100, id_columns=["rid"], target="label",
                       progress=False)
        got.append(out.read_bytes())
    assert got[0] == got[1]
    assert got[0].count(b"\n") == 1 + 120 + 127 + 134 + 141


def test_arrow_path_with_a_stored_index(tmp_path, monkeypatch):
    train = _frame(300, 0)
    path = tmp_path / "indexed.parquet"
    new = _frame(200, 1)
    new["rid"] = np.random.default_rng(5).permutation(200) * 3  # not a range: a column
    new.set_index("rid").to_parquet(path)
    est = CDE(random_state=0, n_components=3).fit(train[["a0", "a1", "a2"]])
    (a, *_), (b, *_) = _both(monkeypatch, est, path, tmp_path, chunksize=64)
    assert a == b
    assert pd.read_parquet(tmp_path / "arrow.parquet").index.name == "rid"


def test_dictionary_codes_equal_the_frame_encoding():
    train = _frame(300, 0)
    train.loc[:3, "a1"] = None
    est = OneHotEmbedder(min_frequency=60).fit(train[["a0", "a1"]])
    new = pd.DataFrame({"a0": ["v1", "zz", None, "", "v5", "v1"],
                        "a1": ["v2", None, "v0", "v9", "", "v2"]})
    batch = pa.RecordBatch.from_pandas(new.astype("category"), preserve_index=False)
    dc = DictionaryCodes(est.feature_names_, est.categories_, est.infrequent_categories_,
                         est.handle_missing)
    ref = est._encode_values(new)
    np.testing.assert_array_equal(dc(batch), ref)
    np.testing.assert_array_equal(dc(batch.slice(2, 3)), ref[2:5])  # values met before
    assert dc(pa.RecordBatch.from_pandas(new, preserve_index=False)) is None  # plain strings


def test_dictionary_codes_keep_no_unknown_values():
    """Memory stays flat on a column of ever new values (identifiers, say): the values not
    seen in fit are kept for the current dictionary only (0.5M -> 4M distinct unknown
    values, chunks of 250k rows: peak RSS 288 -> 638 MB when all were kept, 280 -> 336 MB
    now; the DataFrame path 377 -> 406 MB), and the codes are still the frame encoding's."""
    train = _frame(300, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the pooling notice
        est = OneHotEmbedder(min_frequency=50).fit(train[["a0", "a1"]])  # pools in both
    dc = DictionaryCodes(est.feature_names_, est.categories_, est.infrequent_categories_,
                         est.handle_missing)
    for b in range(4):
        new = pd.DataFrame({"a0": [f"id{b}-{i}" for i in range(500)] + ["v1", None],
                            "a1": ["v2", "v0"] * 250 + [f"id{b}", "v3"]})
        batch = pa.RecordBatch.from_pandas(new.astype("category"), preserve_index=False)
        np.testing.assert_array_equal(dc(batch), est._encode_values(new))
        encode, dc._encode = dc._encode, None  # the same dictionary again: not matched again
        np.testing.assert_array_equal(dc(batch.slice(100, 402)),
                                      est._encode_values(new.iloc[100:]))
        dc._encode = encode
    fitted = [len(c) + (0 if i is None else len(i))
              for c, i in zip(est.categories_, est.infrequent_categories_, strict=True)]
    assert len(dc._known) == 2
    assert all(len(k) <= f for k, f in zip(dc._known, fitted, strict=True))
    assert all(len(u) <= 502 for u in dc._unseen)
    # a dictionary that grows batch by batch (a row group past its dictionary page): each
    # value not seen in fit is matched once
    asked = []
    encode = dc._encode
    dc._encode = lambda j, values: asked.append(len(values)) or encode(j, values)
    grown = [f"new{i}" for i in range(300)]
    for stop in (100, 200, 300):
        new = pd.DataFrame({"a0": grown[:stop], "a1": ["v0"] * stop})
        batch = pa.RecordBatch.from_pandas(new.astype("category"), preserve_index=False)
        np.testing.assert_array_equal(dc(batch), est._encode_values(new))
    assert asked == [100, 100, 100]


def test_prefetch_raises_the_readers_error_and_stops():
    def items():
        yield 1
        raise CatEmbedError("broken file")

    with streaming._prefetch(items()) as it, pytest.raises(CatEmbedError, match="broken"):
        list(it)
    with streaming._prefetch(iter(range(10**6)), depth=2) as it:  # consumer leaves early
        assert next(it) == 0


def test_pipeline_reads_without_arrows_thread_pool(files, tmp_path, monkeypatch):
    """Issue 40: the Parquet pipeline's reading thread decodes the columns itself, not with
    Arrow's pool of CPU threads too (whose hand-offs cost CPU that a busy machine lacks);
    the batches, and so the output bytes, are those of the pooled read."""
    train, path = files
    est = CDE(random_state=0, n_components=3, handle_unknown="ignore").fit(
        train[["a0", "a1", "a2"]])
    seen = []
    original = pq.ParquetFile.iter_batches

    def recording(self, *args, **kwargs):
        seen.append(kwargs.get("use_threads", True))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", recording)
    out = {}
    for threads in (False, True):
        monkeypatch.setattr(streaming, "READ_THREADS", threads)
        out[threads] = tmp_path / f"out_{threads}.parquet"
        transform_file(est, path, out[threads], chunksize=50)
    assert seen == [False, True]
    assert out[False].read_bytes() == out[True].read_bytes()
    # the reader's default is unchanged for its other callers
    seen.clear()
    assert sum(b.num_rows for b, _ in cio.iter_parquet_batches(path, 100)) == 522
    assert seen == [True]
