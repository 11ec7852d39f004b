"""The ``catembed embed`` command: output order, streaming, models, one-line errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed.base import ValueEmbedder
from catembed.cli import main


@pytest.fixture
def table(tmp_path):
    rng = np.random.default_rng(0)
    n = 300
    a = rng.choice(list("abc"), n)
    df = pd.DataFrame({
        "row_id": [f"id{i}" for i in range(n)],
        "a": a,
        "b": np.where(rng.random(n) < 0.8, np.char.add(a, "x"), "zz"),
        "c": rng.choice(["u", "v", "w", ""], n),
        "label": rng.choice(["yes", "no"], n),
    })
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path, df


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("method", ["cde", "onehot", "onehot-pca", "idf"])
def test_embed_keeps_rows_ids_and_target(tmp_path, table, capsys, method):
    path, df = table
    out_path = tmp_path / "out.csv"
    code, out, err = run(["embed", path, "--method", method, "--target", "label",
                          "--id", "row_id", "-o", out_path], capsys)
    assert code == 0, err
    assert f"{method} on t: 300 rows, 3 attributes" in out
    res = pd.read_csv(out_path, keep_default_na=False)
    assert len(res) == 300
    assert res.columns[0] == "row_id" and res.columns[-1] == "label"
    assert list(res["row_id"]) == list(df["row_id"])
    assert list(res["label"]) == list(df["label"])
    assert np.isfinite(res.iloc[:, 1:-1].to_numpy(float)).all()


def test_chunked_equals_whole_and_parquet(tmp_path, table, capsys):
    path, df = table
    whole, chunked = tmp_path / "whole.csv", tmp_path / "chunked.parquet"
    args = ["embed", path, "--target", "label", "--drop", "row_id", "--seed", "3", "-q"]
    assert run([*args, "-o", whole], capsys)[0] == 0
    assert run([*args, "--chunksize", "70", "-o", chunked], capsys)[0] == 0
    a, b = pd.read_csv(whole), pd.read_parquet(chunked)
    assert list(a.columns) == list(b.columns)
    np.testing.assert_array_equal(a.drop(columns="label").to_numpy(),
                                  b.drop(columns="label").to_numpy())
    # a Parquet input streams too
    pq = tmp_path / "t.parquet"
    df.to_parquet(pq, index=False)
    out = tmp_path / "from_parquet.csv"
    assert run([*args[:1], pq, *args[2:], "--chunksize", "64", "-o", out], capsys)[0] == 0
    np.testing.assert_allclose(pd.read_csv(out).drop(columns="label").to_numpy(),
                               a.drop(columns="label").to_numpy())


def test_saved_model_reproduces_the_output(tmp_path, table, capsys):
    path, df = table
    out, model = tmp_path / "o.csv", tmp_path / "m.npz"
    code, _, err = run(["embed", path, "--drop", "row_id,label", "-o", out,
                        "--save-model", model, "-q"], capsys)
    assert code == 0, err
    est = ValueEmbedder.load(model)
    np.testing.assert_allclose(est.transform(df[["a", "b", "c"]].fillna("")),
                               pd.read_csv(out).to_numpy(), rtol=1e-12)


def test_bundled_dataset_to_stdout(capsys):
    code, out, err = run(["embed", "lenses", "--method", "idf", "--target", "class"], capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert lines[0].split(",")[-1] == "class"
    assert len(lines) == 1 + 24
    assert "idf on lenses: 24 rows" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["embed", "no/such/file.csv"], "no/such/file.csv"),
        (["embed", "{tmp}/empty.csv"], "empty"),
        (["embed", "{tmp}/dup.csv"], "duplicate column"),
        (["embed", "{table}", "--target", "nope"], "not in t.csv: nope"),
        (["embed", "{table}", "--drop", "row_id,a,b,c,label"], "no categorical columns"),
        (["embed", "{tmp}/one_value.csv"], "single value"),
        (["embed", "{table}", "--method", "magic"], "invalid choice"),
        (["embed", "{table}", "-o", "{tmp}/out.xlsx"], ".xlsx"),
    ],
)
def test_bad_input_gives_one_line_error(tmp_path, table, capsys, argv, message):
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "dup.csv").write_text("a,b,a\nx,y,z\ny,x,z\n")
    (tmp_path / "one_value.csv").write_text("a,b\nx,y\nx,y\nx,y\n")
    argv = [a.format(tmp=tmp_path, table=table[0]) for a in argv]
    code, out, err = run(argv, capsys)
    assert code == 2
    assert "Traceback" not in err
    assert message in err
    assert err.strip().splitlines()[-1].startswith(("catembed: error:", "catembed embed: error:"))


def test_id_like_column_warns_with_a_hint(tmp_path, table, capsys):
    path, _ = table
    code, out, err = run(["embed", path, "--target", "label", "-q", "-o",
                          tmp_path / "o.csv"], capsys)
    assert code == 0
    assert "catembed: warning:" in err and "row_id" in err and "--drop" in err


def test_numeric_columns_policy(tmp_path, capsys):
    df = pd.DataFrame({"a": list("xyxyxyxy"), "b": list("uuvvuuvv"),
                       "n": [1.0, 2, 3, 4, 5, 6, 7, 8]})
    path, out = tmp_path / "m.csv", tmp_path / "o.csv"
    df.to_csv(path, index=False)
    code, _, err = run(["embed", path, "--method", "idf", "--numeric", "passthrough", "-q",
                        "-o", out], capsys)
    assert code == 0, err
    res = pd.read_csv(out)
    assert list(res.columns) == ["a__idf", "b__idf", "n"]
    np.testing.assert_allclose(res["n"], (df["n"] - 4.5) / df["n"].std(ddof=0))
    code, _, err = run(["embed", path, "--method", "onehot", "--numeric", "discretize",
                        "--n-bins", "2", "-q", "-o", out], capsys)
    assert code == 0, err
    assert list(pd.read_csv(out).columns)[-2:] == ["n_b0: <= 4.5", "n_b1: > 4.5"]
    # without a policy a plain CSV's numbers are categories (read as text)
    code, _, err = run(["embed", path, "--method", "idf", "-q", "-o", out], capsys)
    assert list(pd.read_csv(out).columns) == ["a__idf", "b__idf", "n__idf"]
    # streamed: the bins come from exact value counts, so the output equals the whole-file one
    code, _, err = run(["embed", path, "--method", "onehot", "--numeric", "discretize",
                        "--n-bins", "2", "--chunksize", "3", "-q", "-o", out], capsys)
    assert code == 0, err
    assert list(pd.read_csv(out).columns)[-2:] == ["n_b0: <= 4.5", "n_b1: > 4.5"]
