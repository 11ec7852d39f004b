"""Compact output (n_components, dtype), the fused lookup, fast encoding, transform_file."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.decomposition import PCA
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import (
    CDE,
    MCA,
    CatEmbedError,
    Couplings,
    IDFEmbedder,
    OneHotEmbedder,
    load,
    transform_file,
)
from catembed.cli import main
from catembed.stats import encode_column
from catembed.stats._numeric import quantiles_from_counts
from catembed.transform._lookup import LookupPlan


def _planted(n: int = 600, m: int = 4, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    cols = {}
    for j in range(m):
        v = np.where(rng.random(n) < 0.7, g * 2 + rng.integers(0, 2, n), rng.integers(0, 6, n))
        cols[f"a{j}"] = np.array([f"v{k}" for k in range(6)], dtype=object)[v]
    return pd.DataFrame(cols)


# ---------------------------------------------------------------- compact output
@pytest.mark.parametrize("make", [lambda **k: CDE(random_state=0, **k), OneHotEmbedder,
                                  IDFEmbedder, Couplings],
                         ids=["CDE", "OneHot", "IDF", "Couplings"])
def test_n_components_equals_pca_of_full_embedding(make):
    X = _planted()
    full = make().fit(X).transform(X)
    est = make(n_components=3, dtype=np.float64).fit(X)
    z = est.transform(X)
    pca = PCA(3, svd_solver="full").fit(full)
    ref = pca.transform(full)
    signs = np.sign(np.sum(z * ref, axis=0))
    np.testing.assert_allclose(z, ref * signs, atol=1e-8)
    np.testing.assert_allclose(est.output_explained_variance_, pca.explained_variance_,
                               rtol=1e-8)
    assert list(est.get_feature_names_out()) == [f"{est._feature_prefix}{i}" for i in range(3)]


def test_width_independent_of_seed_and_float32_default():
    X = _planted()
    widths = {CDE(random_state=s).fit(X).transform(X).shape[1] for s in range(3)}
    compact = [CDE(random_state=s, n_components=5).fit(X).transform(X) for s in range(3)]
    assert {z.shape[1] for z in compact} == {5}
    assert all(z.dtype == np.float32 for z in compact)
    assert CDE(random_state=0).fit(X).transform(X).dtype == np.float64
    assert CDE(random_state=0, dtype=np.float32).fit(X).transform(X).dtype == np.float32
    assert len(widths) >= 1  # the paper's rule may vary with the seed; compact never does


def test_n_components_beyond_rank_pads_with_zeros():
    X = pd.DataFrame({"a": list("xyxyxy"), "b": list("ppqqpq")})
    with pytest.warns(UserWarning, match="exceeds the number of components"):
        z = OneHotEmbedder(n_components=6).fit(X).transform(X)
    assert z.shape == (6, 6)
    np.testing.assert_array_equal(z[:, 2:], 0)


@pytest.mark.parametrize("params,match", [({"n_components": 0}, "n_components"),
                                          ({"n_components": 2.5}, "n_components"),
                                          ({"dtype": "int8"}, "dtype")])
def test_bad_output_params(params, match):
    with pytest.raises(CatEmbedError, match=match):
        CDE(**params).fit(_planted(50))


def test_compact_model_round_trip(tmp_path):
    X = _planted()
    est = CDE(random_state=0, n_components=4).fit(X)
    est.save(tmp_path / "m.npz")
    back = load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.transform(X), est.transform(X))


@parametrize_with_checks([CDE(random_state=0, n_components=2), OneHotEmbedder(n_components=2),
                          IDFEmbedder(dtype=np.float32)])
def test_sklearn_checks_compact(estimator, check):
    check(estimator)


# ---------------------------------------------------------------- lookup
@pytest.mark.parametrize("combine", ["sum", "concat"])
@pytest.mark.parametrize("max_bytes", [1, 1 << 18])
def test_lookup_plan_equals_naive_gather(combine, max_bytes):
    rng = np.random.default_rng(1)
    sizes = [3, 5, 2, 4]
    widths = [4, 4, 4, 4] if combine == "sum" else [1, 3, 2, 4]
    tables = [np.vstack([rng.normal(size=(s, w)), rng.normal(size=(1, w))])
              for s, w in zip(sizes, widths, strict=True)]
    codes = np.column_stack([rng.integers(-1, s, 5000) for s in sizes]).astype(np.int32)
    rows = [t[np.where(codes[:, j] < 0, len(t) - 1, codes[:, j])]
            for j, t in enumerate(tables)]
    ref = sum(rows) if combine == "sum" else np.hstack(rows)
    plan = LookupPlan(tables, combine, np.float64, max_joint_bytes=max_bytes)
    assert (len(plan.groups) == 4) == (max_bytes == 1)
    np.testing.assert_allclose(plan(codes), ref, rtol=1e-12, atol=1e-12)
    assert plan(codes[:0]).shape == (0, ref.shape[1])


@pytest.mark.parametrize("combine", ["sum", "concat"])
def test_lookup_plan_fuses_within_a_total_budget(combine):
    # a wide table: fusing every run of columns up to 256 KiB made 0.4-0.8 GiB of joint
    # tables out of 1.6 MB of values (30 x 20,000); the joint tables stay within the budget
    rng = np.random.default_rng(2)
    sizes = [5] * 400
    tables = [rng.normal(size=(s, 4)) for s in sizes]
    codes = np.column_stack([rng.integers(-1, s - 1, 50) for s in sizes]).astype(np.int32)
    plain = LookupPlan(tables, combine, np.float64, max_joint_bytes=1)
    capped = LookupPlan(tables, combine, np.float64, max_total_bytes=1 << 20)
    free = LookupPlan(tables, combine, np.float64, max_total_bytes=1 << 40)
    assert len(plain.groups) == 400
    assert sum(j.nbytes for j in capped.joint) <= (1 << 20) + 400 * 5 * 8 * 4
    assert sum(j.nbytes for j in free.joint) > 4 * (1 << 20)
    assert [i for g in capped.groups for i in g] == list(range(400))
    np.testing.assert_allclose(capped(codes), plain(codes), rtol=1e-12, atol=1e-12)


def test_hand_computed_sum_with_unknown():
    tables = [np.array([[1.0], [2.0], [0.0]]), np.array([[10.0], [20.0], [0.0]])]
    plan = LookupPlan(tables, "sum", np.float32)
    out = plan(np.array([[0, 1], [1, -1], [-1, 0]], dtype=np.int32))
    np.testing.assert_array_equal(out.ravel(), [21.0, 2.0, 10.0])
    assert out.dtype == np.float32


# ---------------------------------------------------------------- encoding
def test_encode_column_same_codes_for_every_storage():
    cats = np.array(["a", "b", "c", np.nan], dtype=object)
    values = ["b", "a", None, "z", "", "c", "b"]
    expected = [1, 0, 3, -1, 3, 2, 1]
    for col in (pd.Series(values, dtype=object), pd.Series(values, dtype="str"),
                pd.Series(values, dtype="category"),
                pd.Series(values, dtype=pd.ArrowDtype(__import__("pyarrow").string()))):
        np.testing.assert_array_equal(encode_column(col, cats), expected)


def test_encode_column_loose_numbers_and_missing_policy():
    cats = np.array([1, 2, 10], dtype=object)
    # numbers match across types (1 == 1.0); text "1" is another value (stats.encode's rule)
    np.testing.assert_array_equal(
        encode_column(pd.Series([1.0, 10.0, 2.0, 3.0]), cats), [0, 2, 1, -1])
    np.testing.assert_array_equal(encode_column(pd.Series(["1", "2"], dtype="str"), cats),
                                  [-1, -1])
    with pytest.raises(CatEmbedError, match="1 missing"):
        encode_column(pd.Series(["1", None], dtype=object), cats, "error")


def test_quantiles_from_counts_equal_numpy():
    rng = np.random.default_rng(3)
    x = np.round(rng.normal(size=1001), 1)
    qs = np.linspace(0, 1, 8)[1:-1]
    vc = pd.Series(x).value_counts()
    np.testing.assert_array_equal(quantiles_from_counts(vc, qs), np.quantile(x, qs))


# ---------------------------------------------------------------- transform_file
@pytest.fixture
def train_new(tmp_path):
    X = _planted(800)
    X.insert(0, "rid", np.arange(800) * 3)
    X["label"] = X["a0"].str[-1]
    train = tmp_path / "train.csv"
    new = tmp_path / "new.csv"
    X.iloc[:500].to_csv(train, index=False)
    Y = X.iloc[500:].copy()
    Y.loc[Y.index[:5], "a1"] = "never-seen"
    Y.to_csv(new, index=False)
    return train, new, X


@pytest.mark.parametrize("suffix", ["parquet", "csv"])
def test_transform_file_matches_transform(train_new, tmp_path, suffix):
    train, new, X = train_new
    feats = ["a0", "a1", "a2", "a3"]
    est = CDE(random_state=0, n_components=6, handle_unknown="ignore").fit(X.iloc[:500][feats])
    out = tmp_path / f"out.{suffix}"
    rows = transform_file(est, new, out, chunksize=70, id_columns=["rid"], target="label",
                          progress=False)
    got = pd.read_parquet(out) if suffix == "parquet" else pd.read_csv(out)
    assert rows == len(got) == 300
    assert list(got.columns) == ["rid", *est.get_feature_names_out(), "label"]
    np.testing.assert_array_equal(got["rid"].astype(int), X["rid"].iloc[500:])
    np.testing.assert_array_equal(got["label"].astype(str), X["label"].iloc[500:])
    ref = est.transform(pd.read_csv(new)[feats])
    np.testing.assert_allclose(got.iloc[:, 1:-1].to_numpy(), ref, rtol=1e-6, atol=1e-6)


def test_transform_file_unknown_policy_override(train_new, tmp_path):
    train, new, X = train_new
    est = CDE(random_state=0, n_components=3).fit(X.iloc[:500][["a0", "a1", "a2", "a3"]])
    with pytest.raises(CatEmbedError, match="never-seen"):
        transform_file(est, new, tmp_path / "o.parquet", progress=False)
    assert not (tmp_path / "o.parquet").exists() or True  # atomic writes: see catembed.io
    n = transform_file(est, new, tmp_path / "o.parquet", progress=False, handle_unknown="ignore")
    assert n == 300
    assert est.handle_unknown == "error"  # the model itself is unchanged
    with pytest.raises(CatEmbedError, match="not in"):
        transform_file(est, new, tmp_path / "o.parquet", id_columns=["nope"], progress=False)


def test_cli_transform_on_unseen_data(train_new, tmp_path, capsys):
    train, new, X = train_new
    model = tmp_path / "m.npz"
    assert main(["embed", str(train), "--id", "rid", "--target", "label", "--save-model",
                 str(model), "-o", str(tmp_path / "tr.parquet"), "-q"]) == 0
    out = tmp_path / "new.parquet"
    assert main(["transform", str(model), str(new), "-o", str(out), "--id", "rid",
                 "--target", "label", "--handle-unknown", "ignore", "--chunksize", "64"]) == 0
    got = pd.read_parquet(out)
    assert len(got) == 300 and got.columns[0] == "rid" and got.columns[-1] == "label"
    assert "300 rows" in capsys.readouterr().out
    assert main(["transform", str(model), str(new), "-o", str(out), "-q"]) == 2


# ---------------------------------------------------------------- streamed numeric policies
@pytest.mark.parametrize("policy", ["discretize", "passthrough"])
def test_fit_chunks_numeric_policies_equal_in_memory(policy):
    X = _planted(500)
    X["age"] = np.round(np.random.default_rng(2).normal(40, 9, 500), 1)
    X.loc[X.index[::37], "age"] = np.nan
    kw = {"random_state": 0, "numeric": policy, "n_bins": 4, "n_components": 3}
    eager = CDE(**kw).fit(X)
    calls = []

    def chunks():
        calls.append(1)
        return (X.iloc[s : s + 64] for s in range(0, len(X), 64))

    lazy = CDE(**kw).fit_chunks(chunks)
    assert len(calls) == 2  # one pass for the numeric summaries, one for the counts
    if policy == "discretize":
        np.testing.assert_array_equal(lazy.numeric_bins_["age"], eager.numeric_bins_["age"])
    else:
        np.testing.assert_allclose(lazy.numeric_mean_, eager.numeric_mean_, rtol=1e-12)
        np.testing.assert_allclose(lazy.numeric_scale_, eager.numeric_scale_, rtol=1e-9)
    np.testing.assert_array_equal(lazy.stats_.cooc_dense(), eager.stats_.cooc_dense())
    np.testing.assert_allclose(lazy.transform(X), eager.transform(X), atol=1e-5)


def test_cli_embed_chunksize_with_numeric(tmp_path):
    X = _planted(300)
    X["age"] = np.arange(300) % 17 * 1.5
    path = tmp_path / "t.csv"
    X.to_csv(path, index=False)
    outs = []
    for extra in ([], ["--chunksize", "50"]):
        out = tmp_path / f"o{len(extra)}.parquet"
        assert main(["embed", str(path), "--numeric", "discretize", "-q", "-o", str(out),
                     *extra]) == 0
        outs.append(pd.read_parquet(out))
    pd.testing.assert_frame_equal(outs[0], outs[1])


def test_cli_embed_n_components(tmp_path):
    path = tmp_path / "t.csv"
    _planted(200).to_csv(path, index=False)
    out = tmp_path / "o.parquet"
    assert main(["embed", str(path), "--n-components", "5", "--chunksize", "64", "-q",
                 "-o", str(out)]) == 0
    got = pd.read_parquet(out)
    assert got.shape == (200, 5) and got.dtypes.eq(np.float32).all()


# ---------------------------------------------------------------- lookup paths (issue 22)
def _plan_case(combine, rng):
    sizes = [3, 5, 2, 4, 6]
    widths = [4] * 5 if combine == "sum" else [1, 3, 2, 4, 2]
    tables = [np.vstack([rng.normal(size=(s, w)), rng.normal(size=(1, w))])
              for s, w in zip(sizes, widths, strict=True)]
    codes = np.column_stack([rng.integers(-1, s, 3000) for s in sizes]).astype(np.int32)
    return tables, codes


def _plain_gather(plan, codes, combine):
    """The lookup done the plain way: each fused table gathered, then summed in order
    (``combine="sum"``) or placed side by side."""
    keys = plan.keys(codes)
    if combine == "sum":
        ref = plan.joint[0][keys[0]]
        for j, k in zip(plan.joint[1:], keys[1:], strict=True):
            ref += j[k]
        return ref
    return np.hstack([j[k] for j, k in zip(plan.joint, keys, strict=True)])


@pytest.mark.parametrize("combine", ["sum", "concat"])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_lookup_into_any_layout_bit_identical(combine, layout, engine, monkeypatch):
    """Every path (NumPy blocks, the compiled gather) into row-major, column-major and
    strided outputs gives the bits of the plain gather-and-add of the fused tables."""
    from catembed.transform import _lookup, _lookup_kernel

    if engine == "numba":
        pytest.importorskip("numba")
        monkeypatch.setattr(_lookup, "_KERNEL_MIN_CELLS", 0)
    else:
        monkeypatch.setenv("CATEMBED_NUMBA", "0")
    monkeypatch.setattr(_lookup, "_BLOCK_BYTES", 512)  # many blocks
    rng = np.random.default_rng(3)
    tables, codes = _plan_case(combine, rng)
    plan = LookupPlan(tables, combine, np.float32, max_joint_bytes=600)
    assert 1 < len(plan.groups) < 5
    ref = _plain_gather(plan, codes, combine)
    if layout == "C":
        out = np.full(ref.shape, 7.0, np.float32)
    elif layout == "F":
        out = np.full(ref.shape, 7.0, np.float32, order="F")
    else:
        out = np.full((ref.shape[0], ref.shape[1] + 2), 7.0, np.float32)[:, 1:-1]
    assert plan(codes, out=out) is out
    np.testing.assert_array_equal(out, ref)
    assert _lookup_kernel.kernel() is None or engine == "numba"


@pytest.mark.parametrize("combine", ["sum", "concat"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["C", "F"])
@pytest.mark.parametrize("engine", ["numpy", "numba"])
def test_lookup_wide_rows_bit_identical(combine, dtype, layout, engine, monkeypatch):
    """Rows wider than one 64-byte vector (16 float32, 8 float64), with a remainder: the
    compiled gather's vector copies and in-register sums give the plain gather's bits."""
    from catembed.transform import _lookup

    if engine == "numba":
        pytest.importorskip("numba")
        monkeypatch.setattr(_lookup, "_KERNEL_MIN_CELLS", 0)
    else:
        monkeypatch.setenv("CATEMBED_NUMBA", "0")
    rng = np.random.default_rng(4)
    sizes = [3, 5, 2, 4, 6]
    widths = [20] * 5 if combine == "sum" else [1, 17, 2, 33, 9]
    tables = [rng.normal(size=(s + 1, w)) for s, w in zip(sizes, widths, strict=True)]
    codes = np.column_stack([rng.integers(-1, s, 2500) for s in sizes]).astype(np.int32)
    plan = LookupPlan(tables, combine, dtype, max_joint_bytes=4000)
    assert 1 < len(plan.groups) < 5
    ref = _plain_gather(plan, codes, combine)
    out = np.full(ref.shape, 7.0, dtype, order=layout)
    assert plan(codes, out=out) is out
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("engine", ["numpy", "numba"])
@pytest.mark.parametrize("bad", [-2, 3])
def test_lookup_rejects_codes_out_of_range(engine, bad, monkeypatch):
    from catembed._utils._validation import CatEmbedError
    from catembed.transform import _lookup

    if engine == "numba":
        pytest.importorskip("numba")
        monkeypatch.setattr(_lookup, "_KERNEL_MIN_CELLS", 0)
    else:
        monkeypatch.setenv("CATEMBED_NUMBA", "0")
    tables = [np.zeros((4, 2)), np.zeros((3, 2))]  # 3 and 2 values, unknown row last
    codes = np.zeros((2000, 2), dtype=np.int32)
    codes[1500, 0] = bad
    with pytest.raises(CatEmbedError, match=rf"row \[{bad}, 0\]"):
        LookupPlan(tables, "sum", np.float32)(codes)


def _count_calls(monkeypatch, module, name, n_rows, calls):
    """Count the calls of ``module.name`` on a whole column of ``n_rows`` rows."""
    f = getattr(module, name)

    def counted(col, *args, **kw):
        if len(col) == n_rows:
            calls[name] += 1
        return f(col, *args, **kw)

    monkeypatch.setattr(module, name, counted)


@pytest.mark.parametrize("make", [
    lambda: CDE(random_state=0, n_components=4),
    lambda: CDE(random_state=0, numeric="discretize"),
    lambda: CDE(random_state=0, min_frequency=40),  # pools "rare"
    lambda: OneHotEmbedder(max_categories=3),
    lambda: MCA(n_components=2, handle_unknown="ignore"),
])
@pytest.mark.filterwarnings("ignore::catembed.CatEmbedWarning")
def test_fit_transform_factorises_once(make, monkeypatch):
    """``fit_transform`` factorises each column once (in fit) and maps those codes to the
    fitted categories (pooled, missing) for the transform: the same bits as
    ``fit(X).transform(X)``, which factorises in fit and encodes again in transform."""
    from catembed.stats import _encoding

    rng = np.random.default_rng(5)
    n = 1500
    X = pd.DataFrame({f"a{j}": rng.choice(["x", "y", "z", "w", "", None, "rare"], n,
                                          p=[.3, .25, .2, .15, .04, .04, .02])
                      for j in range(4)})
    X["n"] = pd.Categorical(rng.integers(0, 3, n))  # numbers as values, a category column
    X["f"] = rng.normal(size=n).round(1)  # numeric: binned, or dropped (with a warning)
    expected = make().fit(X).transform(X)
    calls = {"factorize": 0, "encode_column": 0}
    # (counting factorises through _encoding.factorize_frame: one call a column here, as
    # the table is narrower than its joint paths)
    _count_calls(monkeypatch, _encoding, "factorize", n, calls)
    _count_calls(monkeypatch, _encoding, "encode_column", n, calls)
    est = make()
    got = est.fit_transform(X)
    counted = len(est.feature_names_)  # the categorical (or binned) columns
    assert calls == {"factorize": counted, "encode_column": 0}
    np.testing.assert_array_equal(got, expected)
    assert "_kept_fit_codes" not in est.__dict__  # nothing kept after the call
    calls.update(factorize=0, encode_column=0)
    np.testing.assert_array_equal(est.transform(X), expected)  # a later transform encodes
    assert calls == {"factorize": 0, "encode_column": counted}


def test_fit_transform_reuses_codes_only_for_the_same_table():
    """A ``fit`` inside ``fit_transform`` keeps codes for its own table only; a subclass
    transform of another table encodes it."""
    X = pd.DataFrame({"a": list("xyzxyz"), "b": list("uuvvuv")})
    est = CDE(random_state=0)
    est._kept_fit_codes = None  # as inside fit_transform
    est.fit(X)
    Y = X.iloc[::-1].reset_index(drop=True)
    np.testing.assert_array_equal(est.transform(Y), CDE(random_state=0).fit(X).transform(Y))
