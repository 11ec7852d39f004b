"""Co-occurrence counts kept as their factor ``C = O^T O`` (issue 40, item 5: counting 30 rows
x 20,000 columns): the factored statistics equal the stored ones in every derived quantity,
add up by chunks, pool, subset and save; what cannot fit is refused with a clear error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import catembed
import catembed.stats._counting as counting
from catembed import CatEmbedError
from catembed.embed import IDFEmbedder
from catembed.stats import ValueStatistics, compute_statistics
from catembed.stats._counting import as_dense
from catembed.stats._gram import GramCounts
from catembed.transform._projection import object_pca


def _table(seed: int, n: int = 60, m: int = 9) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(2, 6, m)
    df = pd.DataFrame({f"c{j}": rng.integers(0, s, n).astype(str)
                       for j, s in enumerate(sizes)})
    df.iloc[::7, 1] = None  # missing values: a value of their own
    return df


def _factored(df: pd.DataFrame, monkeypatch: pytest.MonkeyPatch, **kw) -> ValueStatistics:
    """The statistics of ``df`` with the factor forced (the pairs 'do not fit')."""
    with monkeypatch.context() as mp:
        mp.setattr(counting, "memory_limit", lambda: 0.0)
        stats = ValueStatistics.from_frame(df, dense_limit=0, **kw)
    assert isinstance(stats.cooc, GramCounts)
    return stats


def test_hand_computed_factor():
    # rows (a, x), (a, y), (b, x): values a b | x y
    ids = np.array([[0, 2], [0, 3], [1, 2]])
    C = GramCounts(ids, np.array([2, 2]))
    expected = np.array([[2, 0, 1, 1], [0, 1, 1, 0], [1, 1, 2, 0], [1, 0, 0, 1]])
    np.testing.assert_array_equal(C.toarray(), expected)
    np.testing.assert_array_equal(C.tocsr().toarray(), expected)
    np.testing.assert_array_equal(np.asarray(C), expected)
    np.testing.assert_array_equal(C[[2, 0]].toarray(), expected[[2, 0]])
    B = np.arange(8).reshape(4, 2)
    np.testing.assert_array_equal(C @ B, expected @ B)
    np.testing.assert_array_equal(B.T @ C, B.T @ expected)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_factored_equals_stored(seed, monkeypatch):
    df = _table(seed)
    stored = ValueStatistics.from_frame(df, dense_limit=0)
    factored = _factored(df, monkeypatch)
    assert sp.issparse(stored.cooc)
    np.testing.assert_array_equal(factored.counts, stored.counts)
    dense = as_dense(stored.cooc)
    np.testing.assert_array_equal(factored.cooc_dense(), dense)
    assert (factored.cooc.tocsr() != stored.cooc).nnz == 0
    B = np.random.default_rng(seed).integers(-3, 4, (dense.shape[0], 3))
    np.testing.assert_array_equal(factored.cooc @ B, dense @ B)
    rows = [4, 0, 7]
    np.testing.assert_array_equal(factored.cooc[rows].toarray(), dense[rows])
    np.testing.assert_allclose(factored.mutual_information(), stored.mutual_information(),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(factored.conditional(), stored.conditional())


def test_factored_chunks_add_up_to_the_whole(monkeypatch):
    df = _table(3, n=80)
    first = df.iloc[:30].copy()
    first["c0"] = first["c0"].where(first["c0"] != "0", "1")  # a value first seen late
    whole_df = pd.concat([first, df.iloc[30:]])
    whole = ValueStatistics.from_frame(whole_df, dense_limit=0)
    a, b = _factored(first, monkeypatch), _factored(df.iloc[30:], monkeypatch)
    merged = a.merge(b, dense_limit=0)
    assert isinstance(merged.cooc, GramCounts)
    assert merged.n_rows == 80
    for ca, cb in zip(merged.categories, whole.categories, strict=True):
        assert list(ca) == list(cb)
    np.testing.assert_array_equal(merged.counts, whole.counts)
    np.testing.assert_array_equal(merged.cooc_dense(), as_dense(whole.cooc))
    # a factor beside stored pairs: the stored pairs of both
    mixed = a.merge(ValueStatistics.from_frame(df.iloc[30:], dense_limit=0), dense_limit=0)
    np.testing.assert_array_equal(mixed.cooc_dense(), as_dense(whole.cooc))


def test_factored_subset_pool_and_arrays(monkeypatch):
    df = _table(4, n=90)
    stored = ValueStatistics.from_frame(df, dense_limit=0)
    factored = _factored(df, monkeypatch)
    keep = [0, 2, 5]
    np.testing.assert_array_equal(factored.subset(keep).cooc_dense(),
                                  stored.subset(keep).cooc_dense())
    masks = stored.infrequent(min_frequency=20)
    assert sum(int(mk.sum()) for mk in masks) >= 2
    pf, ps = factored.pool(masks), stored.pool(masks)
    np.testing.assert_array_equal(pf.counts, ps.counts)
    np.testing.assert_array_equal(pf.cooc_dense(), as_dense(ps.cooc))
    back = ValueStatistics.from_arrays(factored.to_arrays(), factored.feature_names,
                                       factored.categories)
    assert isinstance(back.cooc, GramCounts)
    np.testing.assert_array_equal(back.cooc_dense(), as_dense(stored.cooc))


@pytest.mark.parametrize("combine", ["concat", "sum"])
def test_factored_object_pca_equals_stored(combine, monkeypatch):
    # fewer rows than a quarter of the values: the leading axes from the factor's products
    df = _table(5, n=12, m=30)
    stored = ValueStatistics.from_frame(df, dense_limit=0)
    factored = _factored(df, monkeypatch)
    rng = np.random.default_rng(1)
    if combine == "sum":
        tables = [rng.standard_normal((len(c), 6)) for c in stored.categories]
    else:
        tables = [rng.standard_normal((len(c), 2)) for c in stored.categories]
    got = object_pca(factored, tables, 2, combine=combine)
    want = object_pca(stored, tables, 2, combine=combine)
    assert 4 * stored.n_rows < stored.n_values
    np.testing.assert_allclose(got[0], want[0], atol=1e-9)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-9)
    assert got[3] == want[3]


def test_factored_statistics_saved_and_loaded(monkeypatch, tmp_path):
    df = _table(6, n=50)
    model = IDFEmbedder().fit_statistics(_factored(df, monkeypatch))
    path = tmp_path / "idf.catembed"
    catembed.save(model, path)
    loaded = catembed.load(path)
    assert isinstance(loaded.stats_.cooc, GramCounts)
    np.testing.assert_array_equal(loaded.stats_.cooc.ids, model.stats_.cooc.ids)
    np.testing.assert_array_equal(loaded.transform(df), model.transform(df))


def test_wide_table_is_counted_as_its_factor(monkeypatch):
    # issue 40, item 5: 30 rows x 20,000 columns of 3 values (60,000 values; the stored pairs
    # would need tens of GiB) were refused; they are counted, and only a step that needs
    # the whole matrix is refused, saying how much it would need
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "2G")
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, size=(30, 20_000))
    codes[:3] = np.arange(3)[:, None]  # every column holds its three values
    df = pd.DataFrame(codes.astype(str), columns=[f"c{j}" for j in range(20_000)])
    stats = compute_statistics(df)
    assert isinstance(stats.cooc, GramCounts)
    assert stats.n_values == 60_000 and stats.cooc.shape == (60_000, 60_000)
    np.testing.assert_array_equal(stats.counts.reshape(-1, 3).sum(axis=1), 30)
    # the row of value "1" of column 0 against column 1, counted by hand
    row = stats.cooc[[1]].toarray()[0]
    expected = [np.sum((codes[:, 0] == 1) & (codes[:, 1] == v)) for v in range(3)]
    np.testing.assert_array_equal(row[3:6], expected)
    assert row[1] == np.sum(codes[:, 0] == 1) and row[0] == row[2] == 0
    with pytest.raises(CatEmbedError, match=r"GiB .*limit 2\.0 GiB"):
        stats.cooc_dense()
    with pytest.raises(CatEmbedError, match="stored pairs"):
        stats.mutual_information()


@pytest.mark.parametrize("edit, message", [
    (lambda d: d.__setitem__("stats__cooc_ids", d["stats__cooc_ids"][:, ::-1].copy()),
     "one-hot rows are out of range"),
    (lambda d: d.__setitem__("stats__cooc_ids", d["stats__cooc_ids"][:-1]),
     r"factor \(one-hot rows\) has shape \(29, 9\)"),
    (lambda d: d.__setitem__("stats__cooc", np.zeros((2, 2), dtype=np.int64)),
     "two forms"),
])
def test_an_edited_factor_is_refused(edit, message, monkeypatch, tmp_path):
    from catembed.persist import _checksum

    df = _table(7, n=30)
    model = IDFEmbedder().fit_statistics(_factored(df, monkeypatch))
    model.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta_text = str(data.pop("__meta__"))
    data.pop("__checksum__")
    edit(data)
    np.savez(tmp_path / "bad.npz", __meta__=np.array(meta_text),
             __checksum__=np.array(_checksum(meta_text, data)), **data)
    with pytest.raises(CatEmbedError, match=message):
        catembed.load(tmp_path / "bad.npz")
