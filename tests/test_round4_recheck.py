"""An independent re-check of issue 52's 14 items on the merged main: each item as the issue
describes it plus nearby variants the fixes might have missed (id columns of other sizes and
every member, row permutations of small tables with ties, environment limits with spaces,
case and overflow, sockets and folders as the table, names of exactly 255 and 256 bytes,
polars Struct and List columns, formulas in column names)."""

from __future__ import annotations

import socket
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import adjusted_rand_score

from catembed import CatEmbedError, Consensus
from catembed._utils._limits import memory_limit, seconds_limit
from catembed.cluster.lshkreps import LSHKRepresentatives
from catembed.cluster.mgr import MGR
from catembed.cluster.ocl import OCL
from test_cli import run  # the command line run, its exit code, stdout and stderr


def _table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n),
                         "c": rng.choice(list("uvw"), n)})


# ----------------------------------------------------------- item 1: an id column


@pytest.mark.parametrize("n", [150, 250, 300])
@pytest.mark.parametrize("member", ["mca", "cde", "lcme", "idf", "onehot"])
def test_id_column_every_member(n, member):
    rng = np.random.default_rng(n)
    X = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "a": rng.choice(list("xyz"), n),
                      "b": rng.choice(list("pq"), n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Consensus(3, members=[member]).fit(X)
    assert model.members_ == [member]
    assert len(model.labels_) == n and len(np.unique(model.labels_)) == 3


# ------------------------------------------- item 3: LSH-k-representatives' ties


@pytest.mark.parametrize("k", [2, 3])
def test_lshk_identical_rows_one_cluster(k):
    X = pd.DataFrame({"a": ["x"] * 20, "b": ["y"] * 20})
    model = LSHKRepresentatives(k).fit(X)
    assert len(np.unique(model.labels_)) == 1
    np.testing.assert_array_equal(model.labels_, model.predict(X))


@pytest.mark.parametrize("k", [2, 3, 4])
def test_lshk_repeated_rows_never_split(k):
    X = pd.DataFrame({"a": ["x", "z"] * 10, "b": ["y", "w"] * 10})
    model = LSHKRepresentatives(k).fit(X)
    lab = model.labels_
    assert len(set(lab[::2])) == 1 and len(set(lab[1::2])) == 1 and lab[0] != lab[1]
    np.testing.assert_array_equal(lab, model.predict(X))


# -------------------------------------------------- item 5: row order and ties


def _worst_permuted_ari(cls, X, k, seed, tries=6):
    ref = cls(k).fit(X).labels_
    rng = np.random.default_rng(seed)
    worst = 1.0
    for _ in range(tries):
        p = rng.permutation(len(X))
        lab = cls(k).fit(X.iloc[p].reset_index(drop=True)).labels_
        back = np.empty_like(lab)
        back[p] = lab
        worst = min(worst, adjusted_rand_score(ref, back))
    return worst


def test_mgr_issue_table_any_row_order():
    X = pd.DataFrame({"c0": list("dbbaaabedfddfe"), "c1": list("dddfbeeacfdaee")})
    assert _worst_permuted_ari(MGR, X, 3, seed=1, tries=10) == 1.0


@pytest.mark.parametrize("cls", [MGR, LSHKRepresentatives])
@pytest.mark.parametrize("seed", range(5))
def test_small_tables_any_row_order(cls, seed):
    r = np.random.default_rng(100 + seed)
    n = int(r.integers(8, 30))
    letters = "abcdef"[:int(r.integers(2, 6))]
    X = pd.DataFrame({f"c{j}": r.choice(list(letters), n) for j in range(int(r.integers(2, 4)))})
    for k in (2, 3):
        assert _worst_permuted_ari(cls, X, k, seed=seed) == 1.0


# --------------------------------------------------- item 6: the environment


@pytest.mark.parametrize("text", ["nan", "inf", "lots", "-1", "-5G", "1e999", "0", "0x10"])
def test_memory_limit_refused(monkeypatch, text):
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", text)
    with pytest.raises(CatEmbedError, match=f"CATEMBED_MAX_MEMORY={text!r}"):
        memory_limit()


@pytest.mark.parametrize("text, value", [(" 8G ", 8 * 2**30), ("8g", 8 * 2**30),
                                         ("1.5e3M", 1500 * 2**20)])
def test_memory_limit_forms(monkeypatch, text, value):
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", text)
    assert memory_limit() == pytest.approx(value)


@pytest.mark.parametrize("text", ["ten", "nan", "inf", "-1", "0", "1e999", "10s"])
def test_seconds_limit_refused(monkeypatch, text):
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", text)
    with pytest.raises(CatEmbedError, match=f"CATEMBED_MAX_SECONDS={text!r}"):
        seconds_limit(None)


def test_seconds_limit_spaces(monkeypatch):
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", " 10 ")
    assert seconds_limit(None) == 10.0


def test_tiny_memory_limit_says_why_no_member_fits(monkeypatch):
    """A valid but tiny limit: every member refuses, and their warnings reach the user before
    "no consensus member could be fitted" (the outlier guard's recording swallowed them)."""
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1k")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(CatEmbedError, match="no consensus member could be fitted"):
            Consensus(2, members=["cde", "mca"]).fit(_table())
    said = [str(w.message) for w in caught]
    for name in ("cde", "mca"):
        assert any(f"member {name!r} left out" in s and "CATEMBED_MAX_MEMORY" in s
                   for s in said)


def test_tiny_memory_limit_cli_names_the_members(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1k")
    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    code, _, err = run(["cluster", path, "-k", "2", "--members", "mca,idf", "-q"], capsys)
    assert code == 2
    assert "member 'mca' left out" in err and "member 'idf' left out" in err
    assert err.rstrip().endswith("no consensus member could be fitted on this table.")


# ------------------------------------------------ items 11 and 12: paths


def test_socket_as_table(tmp_path, capsys):
    path = tmp_path / "sock"
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(path))
        code, _, err = run(["cluster", path, "-k", "2"], capsys)
    finally:
        s.close()
    assert code == 2 and "is not a regular file" in err


def test_folder_without_data_as_table(tmp_path, capsys):
    (tmp_path / "d").mkdir()
    code, _, err = run(["cluster", tmp_path / "d", "-k", "2"], capsys)
    assert code == 2 and "is a directory without a data.csv" in err


@pytest.mark.parametrize("flag, suffix", [("--profiles", ".csv"), ("--output", ".tsv")])
def test_name_of_255_bytes_written_256_refused(tmp_path, capsys, flag, suffix):
    """(--report's page takes 5 s to write; its name check is the same function.)"""
    src = tmp_path / "t.csv"
    _table().to_csv(src, index=False)
    ok = tmp_path / ("a" * (255 - len(suffix)) + suffix)
    code, _, err = run(["cluster", src, "-k", "2", "-q", "-o", tmp_path / "l.csv", flag, ok],
                       capsys)
    assert code == 0, err
    assert ok.is_file()
    long = tmp_path / ("b" * (256 - len(suffix)) + suffix)
    code, _, err = run(["cluster", src, "-k", "2", "-q", "-o", tmp_path / "m.csv", flag, long],
                       capsys)
    assert code == 2 and "has 256 bytes" in err and "at most 255" in err
    assert not (tmp_path / "m.csv").exists()


# ---------------------------------------------------- item 13: parameters


@pytest.mark.parametrize("rs", [-1, 2**32, 1.5, "x"])
def test_ocl_random_state_refused(rs):
    with pytest.raises(CatEmbedError, match="random_state"):
        OCL(2, random_state=rs).fit(_table())


@pytest.mark.parametrize("power", [1e6, float("inf"), float("nan"), -1])
def test_weight_power_refused(power):
    with pytest.raises(CatEmbedError, match="weight_power"):
        Consensus(2, weight_power=power).fit(_table())


@pytest.mark.parametrize("kind", ["Array", "List", "Struct"])
@pytest.mark.parametrize("cls", [MGR, LSHKRepresentatives, OCL])
def test_polars_nested_columns_refused(kind, cls):
    pl = pytest.importorskip("polars")
    col = {"Array": lambda: pl.Series("c", [[1, 2]] * 30, dtype=pl.Array(pl.Int64, 2)),
           "List": lambda: pl.Series("c", [[1, 2]] * 30),
           "Struct": lambda: pl.Series("c", [{"u": 1, "v": "a"}] * 30)}[kind]()
    df = pl.DataFrame({"a": list("xxyyzz") * 5}).with_columns(col)
    with pytest.raises(CatEmbedError, match="column 'c'"):
        cls(2).fit(df)


# ------------------------------------------- item 14: formulas in --profiles


def test_formula_in_a_column_name_and_values(tmp_path, capsys):
    frame = _table()
    n = len(frame)
    frame["a"] = np.where(np.arange(n) % 3 == 0, "\t=1+1",
                          np.where(np.arange(n) % 3 == 1, "-2+3", "\r=1"))
    frame = frame.rename(columns={"b": '=HYPERLINK("http://x")'})
    src, prof = tmp_path / "t.csv", tmp_path / "p.csv"
    frame.to_csv(src, index=False)
    code, _, err = run(["cluster", src, "-k", "2", "-q", "-o", tmp_path / "l.csv",
                        "--profiles", prof], capsys)
    assert code == 0, err
    got = pd.read_csv(prof, keep_default_na=False)
    columns = set(got["column"])
    assert '\'=HYPERLINK("http://x")' in columns and '=HYPERLINK("http://x")' not in columns
    values = set(got.loc[got["column"] == "a", "value"])
    assert {"'\t=1+1", "'-2+3"} <= values and len(values) == 3  # the CR may be read away
    assert all(v.startswith("'") for v in values)
