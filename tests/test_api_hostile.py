"""Hostile inputs through the API and the command line (issue 21, round two)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import catembed
from catembed import CatEmbedError
from catembed._utils._errors import CatEmbedTypeError
from catembed.embed.mca import FAMD

ALL = [*catembed.METHODS.values(), FAMD]
X = pd.DataFrame({"a": list("abcabcabca"), "b": list("xyxyxyxyxy"), "c": list("ppqqppqqpp")})


def _fast(cls, **kw):
    params = cls().get_params()
    if "max_epochs" in params:
        kw.setdefault("max_epochs", 2)
    return cls(**kw)


class _Result:
    def __init__(self, returncode, stderr):
        self.returncode, self.stderr = returncode, stderr


@pytest.fixture
def cli(capsys):
    from catembed.cli import main

    def run(*args):
        code = main([str(a) for a in args])
        return _Result(code, capsys.readouterr().err)

    return run


# ---------------------------------------------------------------- item 4
def test_passthrough_refuses_non_finite_numbers_issue21_item4():
    """issue 21 item 4: +-inf and numbers whose square overflows, in fit and transform,
    whole and chunked, name the column."""
    good = X.assign(n=np.arange(10.0))
    for bad in (np.inf, -np.inf, 1e200):
        X_bad = good.assign(n=[1.0, 2, bad, 3, 4, 5, 6, 7, 8, 9])
        with pytest.raises(CatEmbedError, match="numeric column 'n' holds .* at fit"):
            catembed.OneHotEmbedder(numeric="passthrough").fit(X_bad)
        with pytest.raises(CatEmbedError, match="numeric column 'n'"):
            catembed.OneHotEmbedder(numeric="passthrough").fit_chunks(
                lambda X_bad=X_bad: [X_bad.iloc[:5], X_bad.iloc[5:]])
    est = catembed.OneHotEmbedder(numeric="passthrough").fit(good)
    with pytest.raises(CatEmbedError, match="numeric column 'n' holds inf at transform"):
        est.transform(good.assign(n=np.r_[np.inf, np.arange(9.0)]))
    # NaN stays a missing number (0 after standardising), and 1e100 is still fine
    out = est.transform(good.assign(n=np.r_[np.nan, np.arange(9.0)]))
    assert out[0, -1] == 0.0 and np.isfinite(out).all()
    catembed.OneHotEmbedder(numeric="passthrough").fit(good.assign(n=np.r_[1e100, np.ones(9)]))


def test_cli_passthrough_inf_whole_and_chunked_issue21_item4(tmp_path, cli):
    """issue 21 item 4: the CLI refuses inf with --numeric passthrough, with and without
    --chunksize (which it accepts), exit 2 and one error line."""
    path = tmp_path / "t.csv"
    path.write_text("a,b,n\nx,p,1\ny,q,2\nx,q,inf\ny,p,3\nx,p,5\n")
    for extra in ([], ["--chunksize", "2"]):
        r = cli("embed", path, "--numeric", "passthrough", *extra, "-o", tmp_path / "o.csv")
        assert r.returncode == 2, r.stderr
        assert "catembed: error: numeric column 'n' holds inf" in r.stderr
        assert "Traceback" not in r.stderr


# ---------------------------------------------------------------- item 5
@pytest.mark.filterwarnings("ignore::catembed.CatEmbedWarning")  # n looks like an id
def test_size_parameters_checked_before_allocating_issue21_item5(monkeypatch):
    """issue 21 item 5: n_bins beyond the numbers is clipped (same bins as n_bins = number
    of numbers); n_components / hidden_size of 10**9 are refused by the cost guard."""
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1G")
    mixed = X.assign(n=np.arange(10.0))
    big = catembed.OneHotEmbedder(numeric="discretize", n_bins=10**9).fit(mixed)
    ten = catembed.OneHotEmbedder(numeric="discretize", n_bins=10).fit(mixed)
    np.testing.assert_array_equal(big.numeric_bins_["n"], ten.numeric_bins_["n"])
    assert len(big.numeric_bins_["n"]) == 9
    chunked = catembed.OneHotEmbedder(numeric="discretize", n_bins=10**9).fit_chunks(
        lambda: [mixed.iloc[:4], mixed.iloc[4:]])
    np.testing.assert_allclose(chunked.numeric_bins_["n"], ten.numeric_bins_["n"], rtol=1e-15)
    for cls in catembed.METHODS.values():
        if cls in (catembed.MCA, catembed.OneHotPCA):  # clip n_components to the rank
            continue
        with pytest.raises(CatEmbedError, match="n_components=1000000000 would need about"):
            _fast(cls, n_components=10**9).fit(X)
    with pytest.raises(CatEmbedError, match="hidden_size=1000000000"):
        catembed.CDEPlusPlus(hidden_size=10**9).fit(X)
    # MCA and OneHotPCA keep clipping n_components to the rank
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert catembed.MCA(n_components=10**9).fit_transform(X).shape == (10, 4)  # J - Q = 7 - 3


def test_cli_huge_n_bins_issue21_item5(tmp_path, cli):
    """issue 21 item 5: --n-bins 1000000000 on a small CSV runs (clipped), no 21 GB."""
    path = tmp_path / "t.csv"
    path.write_text("a,n\n" + "".join(f"{'xy'[i % 2]},{i}\n" for i in range(30)))
    r = cli("embed", path, "--numeric", "discretize", "--n-bins", "1000000000", "--method",
             "onehot", "-o", tmp_path / "o.csv")
    assert r.returncode == 0, r.stderr
    assert pd.read_csv(tmp_path / "o.csv").shape == (30, 32)
    r = cli("evaluate", path, "--target", "a", "--numeric", "discretize", "--n-bins",
            "1000000000", "--methods", "onehot", "--runs", "1")
    assert r.returncode == 0, r.stderr


def test_quantile_edges_clip_n_bins_issue21_item5():
    """issue 21 item 5: one rule for quantile bins (fit, evaluate, LCA's protocol): n_bins
    beyond the count of numbers is clipped, so the edges equal those of n_bins = n."""
    from catembed.stats._numeric import quantile_edges

    x = np.array([3.0, 1.0, np.nan, 2.0, 5.0, np.inf])
    np.testing.assert_array_equal(quantile_edges(x, 10**9), quantile_edges(x, 4))
    np.testing.assert_array_equal(quantile_edges(x, 2), [2.5])
    assert quantile_edges(np.array([np.nan]), 5).size == 0


# ---------------------------------------------------------------- item 7
@pytest.mark.parametrize("dtype", ["string", "string[pyarrow]", "object", "category"])
def test_all_null_string_column_issue21_item7(dtype):
    """issue 21 item 7: an all-null string column is one missing category (dropped as
    constant), or refused clearly with handle_missing='error'."""
    pytest.importorskip("pyarrow")
    df = X.assign(e=pd.Series([None] * 10, dtype=dtype))
    with pytest.warns(catembed.CatEmbedWarning, match="single value.*: e"):
        est = catembed.OneHotEmbedder().fit(df)
    assert list(est.feature_names_) == ["a", "b", "c"]
    assert est.transform(df).shape == (10, 7)
    with pytest.raises(CatEmbedError, match="column 'e' has 10 missing values"):
        catembed.OneHotEmbedder(handle_missing="error").fit(df)


def test_cli_all_null_parquet_column_issue21_item7(tmp_path, cli):
    """issue 21 item 7: a Parquet string column of nulls read by the CLI (IndexError before)."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"a": list("abcab"), "b": list("xxyyx"),
                             "e": pa.array([None] * 5, type=pa.string())}),
                   tmp_path / "t.parquet")
    r = cli("embed", tmp_path / "t.parquet", "--method", "onehot", "-o", tmp_path / "o.csv")
    assert r.returncode == 0, r.stderr
    assert pd.read_csv(tmp_path / "o.csv").shape == (5, 5)


def test_classify_too_few_objects_issue21_item7(tmp_path, cli):
    """issue 21 item 7: classify on 2 rows is a CatEmbedError saying what a split needs;
    the CLI exits 2 with a catembed: error: line."""
    from catembed.evaluation.classify import classify_embedding

    with pytest.raises(CatEmbedError, match="at least 2 objects per class.*at least 5 objects"):
        classify_embedding(np.eye(2), ["u", "v"])
    path = tmp_path / "t.csv"
    path.write_text("a,b,y\nx,p,c1\nz,q,c2\n")
    r = cli("evaluate", path, "--task", "classify", "--target", "y", "--methods", "onehot")
    assert r.returncode == 2
    assert "catembed: error: too few objects to classify: 2 objects in 2 classes" in r.stderr


# ---------------------------------------------------------------- item 9
BAD_TABLES = {
    "sparse": (sp.csr_matrix(np.eye(3)), TypeError, "sparse matrix"),
    "1-D": (np.array(["a", "b"]), ValueError, "got 1D array"),
    "3-D": (np.zeros((2, 2, 2), dtype=object), ValueError, "3 dimensions"),
    "None": (None, TypeError, "got None"),
    "str": ("abc", TypeError, "got a str"),
    "dict": ({"a": [1, 2]}, TypeError, "got a dict"),
    "iterator": (iter([["a", "b"], ["c", "d"]]), TypeError, "got an iterator"),
}


@pytest.mark.parametrize("cls", ALL, ids=lambda c: c.__name__)
def test_non_tables_are_catembed_errors_issue21_item9(cls):
    """issue 21 item 9: every embedder refuses non-tables with a CatEmbedError, catchable as
    the TypeError / ValueError scikit-learn raises."""
    for name, (value, kind, text) in BAD_TABLES.items():
        with pytest.raises(CatEmbedError, match=text) as info:
            _fast(cls).fit(value)
        assert isinstance(info.value, kind), name
        if kind is TypeError:
            assert isinstance(info.value, CatEmbedTypeError)


@pytest.mark.parametrize("cls", [c for c in ALL if "random_state" in c().get_params()],
                         ids=lambda c: c.__name__)
def test_invalid_random_state_issue21_item9(cls):
    """issue 21 item 9: random_state 'x', -1, 2**40, 1.5 name the parameter."""
    for rs in ("x", -1, 2**40, 1.5, True):
        with pytest.raises(CatEmbedError, match="random_state must be None, an integer"):
            _fast(cls, random_state=rs).fit(X)


def test_famd_non_finite_numbers_issue21_item9():
    """issue 21 item 9: FAMD with inf or 1e200 names the column (SciPy's error before)."""
    for bad in (np.inf, 1e200):
        df = pd.DataFrame({"a": list("abab"), "n": [1.0, 2.0, bad, 3.0]})
        with pytest.raises(CatEmbedError, match="numeric column 'n' holds"):
            FAMD(2).fit(df)
    ok = FAMD(2).fit(pd.DataFrame({"a": list("abab"), "n": [1.0, 2.0, 5.0, 3.0]}))
    with pytest.raises(CatEmbedError, match="'n' holds inf at transform"):
        ok.transform(pd.DataFrame({"a": list("abab"), "n": [1.0, np.inf, 5.0, 3.0]}))


def test_error_classes_issue21_item9():
    """issue 21 item 9: the error family subclasses the built-in errors users catch."""
    assert issubclass(CatEmbedError, ValueError)
    assert issubclass(CatEmbedTypeError, CatEmbedError)
    assert issubclass(CatEmbedTypeError, TypeError)


# ---------------------------------------------------------------- item 10
@pytest.mark.parametrize("sel", [[0, 0, 1], ["a", "a"], [0, "a"], [-3, "a"]])
def test_duplicate_categorical_features_issue21_item10(sel):
    """issue 21 item 10: a column named twice (index, name, or both) is refused."""
    with pytest.raises(CatEmbedError, match="names column\\(s\\) 'a' more than once"):
        catembed.OneHotEmbedder(categorical_features=sel).fit(X)
    with pytest.raises(CatEmbedError, match="more than once"):
        FAMD(categorical_features=sel).fit(X)


# ---------------------------------------------------------------- item 13
def test_value_embedder_is_abstract_issue21_item13():
    """issue 21 item 13: ValueEmbedder().fit says to use a subclass (AttributeError before)."""
    with pytest.raises(TypeError, match="abstract base class.*catembed.CDE"):
        catembed.ValueEmbedder().fit(X)


# ---------------------------------------------------------------- item 15
def _recorded(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return caught


@pytest.mark.parametrize("cls", [catembed.CDE, catembed.MCA, catembed.IDFEmbedder,
                                 catembed.OneHotPCA], ids=lambda c: c.__name__)
def test_warnings_name_the_users_line_issue21_item15(cls):
    """issue 21 item 15: pooling, a constant column, an id-like column, an unknown value
    (handle_unknown='warn') and n_components beyond the rank warn at the test's line."""
    n = 300
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"many": [f"v{i % 150}" for i in range(n)], "const": ["k"] * n,
                       "idl": [f"id{i}" for i in range(n)], "a": rng.choice(list("abc"), n),
                       "b": rng.choice(list("xy"), n)})
    est = cls(max_categories=100, handle_unknown="warn")
    caught = _recorded(lambda: est.fit(df))
    texts = " | ".join(str(w.message) for w in caught)
    for part in ("pooled rare values", "single value", "look like identifiers"):
        assert part in texts
    unknown = df.iloc[:3].copy()
    unknown.loc[0, "a"] = "zzz"
    caught += _recorded(lambda: est.transform(unknown))
    assert "not seen during fit" in str(caught[-1].message)
    if cls is not catembed.OneHotPCA:  # which clips n_components silently
        caught += _recorded(lambda: cls(n_components=50).fit(df[["a", "b"]]))
        assert "n_components=50" in str(caught[-1].message)
    assert caught
    for w in caught:
        assert w.filename == __file__, (str(w.message), w.filename)
