"""Value statistics: hand-computed counts and information measures, exact chunk merging."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from catembed import CatEmbedError
from catembed import io as cio
from catembed.stats import ValueStatistics, compute_statistics, encode

# Global value ids of the watermelon table (attributes in input order, values sorted):
# texture: 0 blurry, 1 clear; color: 2 black, 3 green, 4 white, 5 yellow;
# root: 6 curled, 7 slightly curled, 8 straight.
BLURRY, CLEAR, BLACK, GREEN, WHITE, YELLOW, CURLED, SLIGHTLY, STRAIGHT = range(9)


def assert_same_stats(a: ValueStatistics, b: ValueStatistics) -> None:
    assert a.feature_names == b.feature_names
    assert a.n_rows == b.n_rows
    assert len(a.categories) == len(b.categories)
    for ca, cb in zip(a.categories, b.categories, strict=True):
        assert pd.Index(ca).equals(pd.Index(cb))
    assert a.counts.dtype == b.counts.dtype == np.int64
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.cooc_dense(), b.cooc_dense())


def test_watermelon_value_index_and_counts(watermelon):
    stats = ValueStatistics.from_frame(watermelon)
    assert stats.feature_names == ("texture", "color", "root")
    assert stats.n_rows == 6
    assert list(stats.sizes) == [2, 4, 3]
    assert list(stats.offsets) == [0, 2, 6, 9]
    assert list(stats.value_index()[[BLURRY, YELLOW, SLIGHTLY]]) == [
        ("texture", "blurry"), ("color", "yellow"), ("root", "slightly curled")]
    np.testing.assert_array_equal(stats.counts, [3, 3, 1, 2, 1, 2, 2, 2, 2])
    c = stats.cooc_dense()
    np.testing.assert_array_equal(c, c.T)
    np.testing.assert_array_equal(np.diag(c), stats.counts)
    assert c[BLURRY, CLEAR] == 0  # two values of one attribute never co-occur
    assert c[BLURRY, YELLOW] == 2 and c[BLURRY, CURLED] == 2 and c[BLURRY, STRAIGHT] == 1
    assert c[BLURRY, SLIGHTLY] == 0 and c[GREEN, SLIGHTLY] == 1 and c[WHITE, STRAIGHT] == 1
    # each row adds one co-occurrence to every pair of its attributes
    offs = stats.offsets
    assert c[offs[0]:offs[1], offs[1]:offs[2]].sum() == 6
    p = stats.conditional()
    assert p[BLURRY, YELLOW] == pytest.approx(2 / 3)
    assert p[YELLOW, BLURRY] == pytest.approx(1.0)
    np.testing.assert_allclose(stats.probabilities()[[BLURRY, BLACK]], [0.5, 1 / 6])


def test_watermelon_entropy_and_mutual_information(watermelon):
    stats = ValueStatistics.from_frame(watermelon)
    ln = math.log
    h = stats.entropy()
    np.testing.assert_allclose(h, [ln(2), ln(6) / 3 + 2 * ln(3) / 3, ln(3)])
    mi = stats.mutual_information()
    np.testing.assert_allclose(np.diag(mi), h)
    assert mi[0, 2] == pytest.approx(2 / 3 * ln(2))           # I(texture; root)
    assert mi[1, 2] == pytest.approx(ln(3) / 3 + 2 / 3 * ln(1.5))  # I(color; root)
    assert mi[0, 1] == pytest.approx(2 / 3 * ln(2))  # I(texture; color)
    np.testing.assert_allclose(mi, mi.T)
    psi = stats.normalized_mutual_information()
    np.testing.assert_allclose(np.diag(psi), 1.0)
    assert psi[0, 2] == pytest.approx(2 * (2 / 3 * ln(2)) / (ln(2) + ln(3)))
    assert psi[0, 1] == pytest.approx(2 * mi[0, 1] / (h[0] + h[1]))


def test_constant_attribute_has_zero_psi():
    stats = ValueStatistics.from_frame(pd.DataFrame({"a": ["x", "x", "x"], "b": ["u", "v", "u"]}))
    psi = stats.normalized_mutual_information()
    assert psi[0, 1] == 0.0 and psi[0, 0] == 1.0


def test_missing_values_are_one_value_sorted_last():
    df = pd.DataFrame({"a": ["x", None, "", np.nan, "y"], "b": ["u", "u", "v", "v", "v"]})
    stats = ValueStatistics.from_frame(df)
    assert list(stats.categories[0][:2]) == ["x", "y"] and pd.isna(stats.categories[0][2])
    np.testing.assert_array_equal(stats.counts, [1, 1, 3, 2, 3])
    with pytest.raises(CatEmbedError, match="missing"):
        ValueStatistics.from_frame(df, handle_missing="error")


def test_encode_maps_unseen_to_minus_one(watermelon):
    stats = ValueStatistics.from_frame(watermelon)
    new = pd.DataFrame({"texture": ["clear", "soft"], "color": ["black", "green"],
                        "root": ["curled", "straight"]})
    codes = encode(new, list(stats.feature_names), stats.categories)
    np.testing.assert_array_equal(codes, [[1, 0, 0], [-1, 1, 2]])


def _random_table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({f"c{j}": rng.choice(list("abcdefg"[: 3 + j]), n) for j in range(4)})
    df.loc[rng.random(n) < 0.05, "c1"] = None
    return df


def test_chunks_add_up_exactly_including_values_first_seen_late():
    df = _random_table(500, 0)
    df.loc[450:, "c0"] = "zz_late"  # a value that only the last chunk has
    df.loc[:10, "c3"] = "0_early"   # a value that only the first chunk has
    whole = ValueStatistics.from_frame(df)
    chunks = [df.iloc[i:i + 97] for i in range(0, len(df), 97)]
    streamed = compute_statistics(iter(chunks))
    assert_same_stats(whole, streamed)
    # merging is order independent and a + b == merge
    a, b = ValueStatistics.from_frame(df.iloc[:200]), ValueStatistics.from_frame(df.iloc[200:])
    assert_same_stats(a + b, whole)
    assert_same_stats(b.merge(a), whole)


def test_sparse_storage_equals_dense():
    df = _random_table(300, 1)
    dense = ValueStatistics.from_frame(df)
    sparse = ValueStatistics.from_frame(df, dense_limit=0)
    assert isinstance(dense.cooc, np.ndarray) and sp.issparse(sparse.cooc)
    assert_same_stats(dense, sparse)
    np.testing.assert_allclose(dense.normalized_mutual_information(),
                               sparse.normalized_mutual_information())
    chunked = compute_statistics(iter([df.iloc[:100], df.iloc[100:]]), dense_limit=0)
    assert_same_stats(dense, chunked)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_file_chunks_equal_whole_frame(tmp_path, fmt):
    df = _random_table(1000, 2).fillna("")
    path = tmp_path / f"t.{fmt}"
    if fmt == "csv":
        df.to_csv(path, index=False)
    else:
        df.to_parquet(path, index=False, row_group_size=128)
    whole = ValueStatistics.from_frame(cio.read_table(path, text_columns=list(df.columns)))
    streamed = compute_statistics(cio.iter_chunks(path, 150, text_columns=list(df.columns)))
    assert streamed.n_rows == 1000
    assert_same_stats(whole, streamed)
    assert_same_stats(whole, ValueStatistics.from_frame(df))


def test_subset_and_array_roundtrip(watermelon):
    stats = ValueStatistics.from_frame(watermelon)
    sub = stats.subset([0, 2])
    assert_same_stats(sub, ValueStatistics.from_frame(watermelon[["texture", "root"]]))
    back = ValueStatistics.from_arrays(stats.to_arrays(), stats.feature_names, stats.categories)
    assert_same_stats(back, stats)


def test_merge_rejects_different_attributes(watermelon):
    a = ValueStatistics.from_frame(watermelon)
    b = ValueStatistics.from_frame(watermelon[["texture", "color"]])
    with pytest.raises(CatEmbedError):
        a.merge(b)


def test_empty_iterable_is_an_error():
    with pytest.raises(CatEmbedError, match="no rows"):
        compute_statistics(iter([]))


def test_dask_partitions_equal_whole():
    dd = pytest.importorskip("dask.dataframe")
    df = _random_table(400, 3)
    df.loc[390:, "c2"] = "only_in_last_partition"
    ddf = dd.from_pandas(df, npartitions=5)
    streamed = compute_statistics(ddf)
    assert_same_stats(streamed, ValueStatistics.from_frame(df))


def test_category_columns_code_as_their_values():
    # issue 40: a category column is coded from its own codes (one count per category);
    # the codes and values equal those of the same values as an object column: unused
    # categories dropped, the empty string and NA one missing value sorted last
    from catembed.stats import factorize

    rng = np.random.default_rng(3)
    for pool in (["b", "", "a", "zz", "c"], [f"v{i}" for i in range(300)], [7, 3, 11]):
        values = np.array(pool, dtype=object)[rng.integers(0, len(pool) - 1, 400)]
        values[::23] = None
        extra = ["unused"] if isinstance(pool[0], str) else [99]
        cat = pd.Series(pd.Categorical(values, categories=pool + extra), name="x")
        obj = pd.Series(values, dtype=object, name="x")
        codes, cats = factorize(cat)
        ref_codes, ref_cats = factorize(obj)
        assert codes.dtype == np.int32
        np.testing.assert_array_equal(codes, ref_codes)
        assert [str(v) for v in cats] == [str(v) for v in ref_cats]
        assert [type(v) for v in cats] == [type(v) for v in ref_cats]
        with pytest.raises(CatEmbedError, match=r"'x' has \d+ missing"):
            factorize(cat, "error")
        n_miss = int(pd.isna(values).sum() + np.sum(values == ""))
        with pytest.raises(CatEmbedError, match=rf"has {n_miss} missing"):
            factorize(cat, "error")


def test_pair_counts_by_row_blocks_equal_one_hot_product(monkeypatch):
    # issue 40: the pair keys go through one buffer, block of rows by block; a last short
    # block and a code -> value count path per column give the exact O^T O
    import catembed.stats._counting as counting

    monkeypatch.setattr(counting, "_PAIR_BLOCK", 7)
    monkeypatch.setattr(counting, "_ROW_BLOCK", 50)  # one column at a time
    rng = np.random.default_rng(4)
    sizes = np.array([3, 5, 2, 4])
    codes = np.asfortranarray(np.column_stack([rng.integers(0, s, 103) for s in sizes]))
    counts, cooc = counting.count_codes(codes.astype(np.int32), sizes, True)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    onehot = np.zeros((103, offsets[-1]), dtype=np.int64)
    for j in range(4):
        onehot[np.arange(103), offsets[j] + codes[:, j]] = 1
    ref = onehot.T @ onehot
    for j in range(4):  # two values of one attribute never co-occur
        ref[offsets[j]:offsets[j + 1], offsets[j]:offsets[j + 1]] = np.diag(
            np.diag(ref)[offsets[j]:offsets[j + 1]])
    np.testing.assert_array_equal(counts, onehot.sum(axis=0))
    np.testing.assert_array_equal(np.asarray(cooc), ref)
    bad = codes.astype(np.int32)
    bad[50, 1] = 5
    with pytest.raises(CatEmbedError, match="out of range"):
        counting.count_codes(bad, sizes, True)
