"""Wide tables (issue 37 item 6, issue 40 item 5): no per-column or per-pair Python step on
the counting path, and every joint path equal to the one-column-at-a-time one.

Not timed: each test checks the result against the old path on small tables, and that the
per-column / per-pair functions are not called once per column or per pair of columns.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import catembed.stats._counting as counting
import catembed.stats._encoding as encoding
import catembed.stats._frame_codes as frame_codes
import catembed.stats._value_statistics as value_statistics
from catembed import CDE, CatEmbedError, CatEmbedWarning
from catembed.stats import compute_statistics
from catembed.stats._gram import GramCounts


def _table(n: int, seed: int, width: int = 10) -> pd.DataFrame:
    """``width`` columns of each kind: text with missing values and empty strings, pandas
    strings, integers, booleans, categoricals, mixed objects, floats, non-ASCII text."""
    rng = np.random.default_rng(seed)
    cols = {}
    for j in range(8 * width):
        kind = j % 8
        if kind == 0:
            v = rng.choice(np.array(["b", "a", "", "c", None, np.nan], dtype=object), n)
        elif kind == 1:
            v = pd.array(rng.choice(["x", "y", "zz", None], n), dtype="str")
        elif kind == 2:
            v = rng.integers(-3, 3 + j, n)
        elif kind == 3:
            v = rng.random(n) < 0.5
        elif kind == 4:
            v = pd.Categorical(rng.choice(["p", "q", "r", None], n),
                               categories=["r", "q", "p", "s"])
        elif kind == 5:
            v = rng.choice(np.array([1, "1", 2.5, True, "a"], dtype=object), n)
        elif kind == 6:
            v = rng.choice([0.5, 1.0, np.nan], n)
        else:
            v = rng.choice(np.array(["é", "Z", "a", "ä", "aa"], dtype=object), n)
        cols[f"c{j}"] = v
    return pd.DataFrame(cols)


def _same_categories(a: np.ndarray, b: np.ndarray) -> bool:
    return a.dtype == b.dtype and len(a) == len(b) and all(
        type(x) is type(y) and (x == y or (x != x and y != y))
        for x, y in zip(a.tolist(), b.tolist(), strict=True))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("chunk_cells", [1 << 22, 50, 1])  # one pass; 2 columns; 1 column
def test_factorize_frame_equals_one_column_at_a_time(seed, chunk_cells, monkeypatch):
    # a tall table's text columns are coded a few at a time (bounded memory): the same
    monkeypatch.setattr(frame_codes, "CHUNK_CELLS", chunk_cells)
    df = _table(23 + seed, seed)
    names = list(df.columns)
    with mock.patch.object(encoding, "factorize", wraps=encoding.factorize) as one:
        codes, cats = encoding.factorize_frame(df, names)
    # text (3 kinds), integer and boolean columns are coded jointly; the others one by one
    assert one.call_count == 3 * 10
    assert codes.dtype == np.int32 and codes.flags.f_contiguous
    for j, name in enumerate(names):
        c, k = encoding.factorize(df[name])
        assert np.array_equal(codes[:, j], c), name
        assert _same_categories(cats[j], k), name


@pytest.mark.parametrize("chunk_cells", [1 << 22, 7])
def test_joint_text_path_with_pd_na_nat_and_all_missing_columns(chunk_cells, monkeypatch):
    monkeypatch.setattr(frame_codes, "CHUNK_CELLS", chunk_cells)
    values = {
        "none": [None] * 5, "empty": [""] * 5,
        "string": pd.array([pd.NA, "a", "b", pd.NA, ""], dtype="string"),
        "str": pd.array([np.nan, "a", "b", None, ""], dtype="str"),
        "nat": np.array([pd.NaT, "x", float("nan"), "y", "x"], dtype=object),
    }
    df = pd.DataFrame({f"{k}{i}": v for i in range(2) for k, v in values.items()})
    names = list(df.columns)
    with mock.patch.object(encoding, "factorize", wraps=encoding.factorize) as one:
        codes, cats = encoding.factorize_frame(df, names)
    assert one.call_count == 0
    coded = encoding.encode_frame(df, names, cats)
    for j, name in enumerate(names):
        c, k = encoding.factorize(df[name])
        assert np.array_equal(codes[:, j], c) and _same_categories(cats[j], k), name
        assert np.array_equal(coded[:, j], encoding.encode_column(df[name], cats[j])), name


def test_factorize_frame_first_error_as_one_by_one():
    df = _table(20, 3)
    with pytest.raises(CatEmbedError, match="column 'c0' has .* missing values"):
        encoding.factorize_frame(df, list(df.columns), "error")
    df["c2"] = [[1]] * len(df)  # an unhashable column before the first missing one
    with pytest.raises(CatEmbedError, match="column 'c0' has"):
        encoding.factorize_frame(df, list(df.columns), "error")
    with pytest.raises(CatEmbedError, match="'c2' holds list values"):
        encoding.factorize_frame(df, list(df.columns))
    with pytest.raises(CatEmbedError, match="column 'nope' is not in the input"):
        encoding.factorize_frame(df, ["c1", "nope", "c2"])


@pytest.mark.parametrize("dtype", [np.int8, np.int32])
@pytest.mark.parametrize("chunk_cells", [1 << 22, 70])
def test_encode_frame_equals_one_column_at_a_time(dtype, chunk_cells, monkeypatch):
    monkeypatch.setattr(frame_codes, "CHUNK_CELLS", chunk_cells)
    fit, new = _table(25, 4), _table(31, 5)
    names = list(fit.columns)
    _, cats = encoding.factorize_frame(fit, names)
    with mock.patch.object(encoding, "encode_column", wraps=encoding.encode_column) as one:
        codes = encoding.encode_frame(new, names, cats, dtype=dtype)
    assert one.call_count < len(names) - 20  # the text columns went together
    assert codes.dtype == dtype
    for j, name in enumerate(names):
        assert np.array_equal(codes[:, j], encoding.encode_column(new[name], cats[j])), name
    with pytest.raises(CatEmbedError, match="column 'c0' has .* handle_missing='error'"):
        encoding.encode_frame(new, names, cats, "error")


def _loop_only(codes, sizes, dense):
    """Reference counts: the one-hot product computed in integers, assembled as the
    per-pair path assembles them."""
    n, m = codes.shape
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    onehot = np.zeros((n, int(offsets[-1])), dtype=np.int64)
    onehot[np.arange(n)[:, None], codes + offsets[:-1]] = 1
    full = onehot.T @ onehot
    counts = onehot.sum(axis=0)
    if dense:
        return counts, full
    r, c = np.nonzero(np.triu(full, k=1))
    return counts, counting._assemble_sparse([r], [c], [full[r, c]], counts)


@pytest.mark.parametrize("n, m, top", [(30, 120, 4), (7, 60, 9), (1, 20, 3), (40, 3, 5)])
@pytest.mark.parametrize("dense", [True, False])
def test_count_codes_wide_paths_equal_the_pair_counts(n, m, top, dense):
    rng = np.random.default_rng(n * m)
    sizes = rng.integers(1, top + 1, m)
    codes = np.asfortranarray((rng.random((n, m)) * sizes).astype(np.int32))
    with mock.patch.object(np, "bincount", wraps=np.bincount) as bc:
        counts, cooc = counting.count_codes(codes, sizes, dense)
    if m > 50:  # wide: no step per pair of columns
        assert bc.call_count <= 2 * m + 1  # the pair loop: m (m - 1) / 2 + m
    ref_counts, ref = _loop_only(codes, sizes, dense)
    assert np.array_equal(counts, ref_counts) and counts.dtype == np.int64
    if dense:
        assert isinstance(cooc, np.ndarray) and cooc.dtype == np.int64
        assert np.array_equal(cooc, ref)
    else:
        assert sp.issparse(cooc) and cooc.dtype == np.int64
        for part in ("indptr", "indices", "data"):
            assert np.array_equal(getattr(cooc, part), getattr(ref, part)), part
            assert getattr(cooc, part).dtype == getattr(ref, part).dtype, part


def test_count_codes_range_check_on_every_path():
    for m in (2, 200):
        codes = np.zeros((3, m), dtype=np.int32, order="F")
        codes[1, -1] = 2
        for dense in (True, False):
            with pytest.raises(CatEmbedError, match="out of range"):
                counting.count_codes(codes, np.full(m, 2), dense)
            with pytest.raises(CatEmbedError, match="out of range"):
                counting.count_codes(-codes, np.full(m, 2), dense)


def test_sparse_counts_beyond_the_memory_limit_are_kept_as_their_factor(monkeypatch):
    # were refused before counting; issue 40 (item 5): kept as the one-hot rows, the pairs
    # never counted, and a step that needs them refused with the memory it would take
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1M")
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.choice(["a", "b", "c", "d"], (30, 1200)).astype(object),
                      columns=[f"c{j}" for j in range(1200)])
    with mock.patch.object(counting, "_count_wide_sparse") as wide:
        stats = compute_statistics(df)
    assert not wide.called
    assert isinstance(stats.cooc, GramCounts) and stats.cooc.ids.shape == (30, 1200)
    with pytest.raises(CatEmbedError, match="co-occurrence counts of 4[0-9]+ values in 1200 "
                                            "columns as stored pairs: about .* GiB"):
        stats.mutual_information()


def test_cde_on_a_wide_table_is_refused_after_a_joint_factorisation(monkeypatch):
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1G")
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.choice(["a", "b", "c", "d"], (30, 3000)).astype(object),
                      columns=[f"c{j}" for j in range(3000)])
    with mock.patch.object(encoding, "factorize", wraps=encoding.factorize) as one:
        with pytest.raises(CatEmbedError, match="CDE on 1[0-9]+ distinct values in 3000 columns "
                                                "would need about"):
            CDE().fit(df)
    assert one.call_count == 0


@pytest.mark.parametrize("dense_limit", [4096, 50])
def test_mutual_information_of_many_columns_in_one_pass(monkeypatch, dense_limit):
    rng = np.random.default_rng(2)
    df = pd.DataFrame(rng.choice(["a", "b", "c"], (40, 30)).astype(object),
                      columns=[f"c{j}" for j in range(30)])
    df["c1"] = df["c0"]  # a pair with high information
    stats = compute_statistics(df, dense_limit=dense_limit)
    loop = stats.mutual_information()
    stats._cache.clear()
    monkeypatch.setattr(value_statistics, "_MI_LOOP_COLUMNS", 10)
    joint = stats.mutual_information()
    np.testing.assert_allclose(joint, loop, rtol=1e-12, atol=1e-15)
    assert np.array_equal(joint, joint.T)
    assert joint[0, 1] == pytest.approx(stats.entropy()[0])


def test_deep_decoder_loss_of_many_columns_by_column_size(monkeypatch):
    torch = pytest.importorskip("torch")
    import catembed.deep._nets as nets

    torch.manual_seed(0)
    sizes = [3, 4, 3, 5, 4, 2, 3] * 3
    decoder = nets.MixedDecoder(4, [6], 2, sizes)
    z = torch.randn(9, 4, requires_grad=True)
    nums = torch.randn(9, 2)
    rng = np.random.default_rng(0)
    targets = torch.as_tensor(np.stack([rng.integers(0, s + 1, 9) for s in sizes], axis=1))
    targets[:, 4] = sizes[4]  # a column whose values were all unseen: no term
    loop = decoder.loss(z, targets, nums)
    (grad_loop,) = torch.autograd.grad(loop, z)
    monkeypatch.setattr(nets, "WIDE_COLUMNS", 3)
    with mock.patch.object(nets.F, "cross_entropy", wraps=nets.F.cross_entropy) as ce:
        grouped = decoder.loss(z, targets, nums)
    assert ce.call_count == len(set(sizes))  # one step per column size, not per column
    (grad_grouped,) = torch.autograd.grad(grouped, z)
    assert grouped.item() == pytest.approx(loop.item(), rel=1e-6)
    np.testing.assert_allclose(grad_grouped.numpy(), grad_loop.numpy(), atol=1e-7)


@pytest.mark.parametrize("dense_limit", [4096, 50])
def test_output_pca_of_few_rows_and_many_values_by_lanczos(dense_limit):
    from catembed.transform import _projection

    rng = np.random.default_rng(3)
    df = pd.DataFrame(rng.choice(["a", "b", "c", "d"], (12, 60)).astype(object),
                      columns=[f"c{j}" for j in range(60)])
    stats = compute_statistics(df, dense_limit=dense_limit)  # 12 rows, ~230 values
    tables = [np.eye(len(c)) for c in stats.categories]
    with mock.patch("scipy.linalg.eigh", side_effect=AssertionError), \
            mock.patch.object(np.linalg, "eigh", side_effect=AssertionError):
        comp, mean, var, rank = _projection.object_pca(stats, tables, 5)
    with mock.patch.object(_projection, "_leading_axes", return_value=None):  # dense path
        ref_comp, ref_mean, ref_var, _ = _projection.object_pca(stats, tables, 5)
    assert rank == 5 and comp.shape == (stats.n_values, 5)
    np.testing.assert_allclose(var, ref_var, rtol=1e-10)
    np.testing.assert_allclose(comp, ref_comp, atol=1e-9)
    assert np.array_equal(mean, ref_mean)


def test_column_selection_reads_the_dtypes_once():
    from catembed._utils._validation import select_categorical
    from catembed.stats._numeric import select_columns

    df = _table(6, 7, width=2)
    expected = [c for c in df.columns if df[c].dtype == object or isinstance(
        df[c].dtype, (pd.StringDtype, pd.CategoricalDtype)) or df[c].dtype == bool]
    with mock.patch.object(pd.DataFrame, "__getitem__", side_effect=AssertionError):
        cat, other = select_categorical(df)
        assert select_categorical(df, list(df.columns)[::-1])[0] == list(df.columns)[::-1]
    assert cat == expected and other == [c for c in df.columns if c not in expected]
    with pytest.warns(Warning):  # integer columns dropped under the "drop" policy
        assert select_columns(df, "auto", "drop", "CDE") == (cat, [])
    counted, numeric = select_columns(df, "auto", "discretize", "CDE")
    assert counted == list(df.columns) and numeric == other


def _three_groups_wide(seed: int) -> pd.DataFrame:
    """30 rows x 1,100 four-valued columns (4,400 values), three planted groups."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, 30)
    pref = rng.integers(0, 4, (3, 1100))
    codes = np.where(rng.random((30, 1100)) < 0.6, pref[g], rng.integers(0, 4, (30, 1100)))
    return pd.DataFrame(np.array(list("abcd"), dtype=object)[codes],
                      columns=[f"c{j}" for j in range(1100)])


def test_consensus_wide_portfolio_counts_the_factor_not_the_pairs(monkeypatch, tmp_path):
    """On a wide table the default portfolio (one-hot, IDF) reads no co-occurrence, so the
    counts are kept as their factor; the labels are those of the stored pairs. The model
    saves and loads (its file was refused as damaged: the members are not the defaults)."""
    import catembed.cluster.consensus._estimator as cons_mod
    import catembed.cluster.consensus._runs as runs_mod
    from catembed.cluster import Consensus

    df = _three_groups_wide(seed=0)
    seen = []
    real = cons_mod.ValueStatistics.from_codes

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        if "factor" in kwargs:  # the consensus' own count, not the dependence test's
            seen.append(isinstance(out.cooc, GramCounts))
        return out

    monkeypatch.setattr(cons_mod.ValueStatistics, "from_codes", spy)
    with pytest.warns(CatEmbedWarning, match="only onehot, idf are fitted"):
        model = Consensus(3, random_state=0).fit(df)
    factored = model.labels_
    model.save(tmp_path / "wide.npz")
    loaded = Consensus.load(tmp_path / "wide.npz")
    assert loaded.members_ == ["onehot", "idf"]
    assert loaded.predict(df).tolist() == factored.tolist()
    real_wide = runs_mod.wide_table_members
    monkeypatch.setattr(cons_mod, "wide_table_members",
                        lambda *a: (*real_wide(*a)[:2], False))
    with pytest.warns(CatEmbedWarning):
        stored = Consensus(3, random_state=0).fit(df).labels_
    assert seen == [True, False]
    assert factored.tolist() == stored.tolist()


@pytest.mark.parametrize("cls", ["IDFEmbedder", "OneHotEmbedder"])
def test_count_only_embedders_keep_a_wide_tables_factor(cls, monkeypatch):
    """IDF and one-hot read the value counts only: on 30 rows x 1,100 four-valued columns
    (4,400 values) the co-occurrences are their factor, and the embedding is the one of the
    stored pairs."""
    import catembed.embed as em

    rng = np.random.default_rng(1)
    df = pd.DataFrame(np.array(list("abcd"), dtype=object)[rng.integers(0, 4, (30, 1100))],
                      columns=[f"c{j}" for j in range(1100)])
    model = getattr(em, cls)().fit(df)
    assert isinstance(model.stats_.cooc, GramCounts)
    monkeypatch.setattr(getattr(em, cls), "_prefers_factor", False)
    stored = getattr(em, cls)().fit(df)
    assert not isinstance(stored.stats_.cooc, GramCounts)
    np.testing.assert_array_equal(model.transform(df), stored.transform(df))


def test_kmodes_hamming_keeps_a_wide_tables_factor(monkeypatch):
    """Hamming's tables read the value counts only: k-modes on 30 x 1,100 four-valued
    columns counts the factor, with the labels of the stored pairs."""
    from catembed.cluster import KModes
    from catembed.similarity import CategoricalDistance

    df = _three_groups_wide(seed=2)
    assert CategoricalDistance(metric="hamming")._prefers_factor
    assert not CategoricalDistance(metric="dilca")._prefers_factor
    factored = KModes(3, random_state=0).fit(df)
    assert isinstance(factored.distance_.stats_.cooc, GramCounts)
    monkeypatch.setattr(CategoricalDistance, "_prefers_factor", property(lambda self: False))
    stored = KModes(3, random_state=0).fit(df)
    assert not isinstance(stored.distance_.stats_.cooc, GramCounts)
    np.testing.assert_array_equal(factored.labels_, stored.labels_)


def test_tall_text_columns_take_the_per_column_path_with_the_same_codes():
    """Above JOINT_TEXT_MAX_ROWS rows the text columns are factorised one by one (issue 55:
    the joint path walked every cell in Python, 5x slower at 200,000 x 20), with the codes
    and categories of the joint path."""
    from catembed.stats import _frame_codes
    from catembed.stats._encoding import factorize_frame

    rng = np.random.default_rng(3)
    n = _frame_codes.JOINT_TEXT_MAX_ROWS + 1
    df = pd.DataFrame({f"c{j}": np.array(["x", "y", "z", None], dtype=object)[
        rng.integers(0, 4, n)] for j in range(9)})
    assert _frame_codes.block_groups(df, list(df.columns))[0] == []
    assert _frame_codes.block_groups(df.iloc[:-1], list(df.columns))[0] == list(range(9))
    tall = factorize_frame(df, list(df.columns))
    short = factorize_frame(df.iloc[:-1], list(df.columns))
    np.testing.assert_array_equal(tall[0][:-1], short[0])
    for a, b in zip(tall[1], short[1], strict=True):
        assert [str(v) for v in a] == [str(v) for v in b]
