"""``catembed embed`` never loses data and refuses bad input with one line (issue 11, defects
1-3): the input is never written over, outputs appear only when complete, a data-set
folder's target and id columns are never features, and awkward but valid files just work."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import catembed.cli as cli
import catembed.cli._embed as embed_cli
from catembed import io as cio
from catembed.cli import main


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def frame():
    rng = np.random.default_rng(0)
    n = 60
    a = rng.choice(list("xyz"), n)
    return pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.7, np.char.add(a, "1"), "q"),
                         "c": rng.choice(list("uv"), n)})


@pytest.fixture
def csv_file(tmp_path, frame):
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    return path


def embedded(path, capsys, *extra):
    """The embedding of ``path`` (CSV output read back) and stderr."""
    out = path.parent / f"out_{path.name.replace('.', '_')}.csv"
    code, _, err = run(["embed", path, "-q", "-o", out, *extra], capsys)
    assert code == 0, err
    return pd.read_csv(out, keep_default_na=False), err


# ------------------------------------------------------------------ defect 1: data loss

@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "relative"])
@pytest.mark.parametrize("chunked", [False, True])
def test_output_that_is_the_input_is_refused(tmp_path, csv_file, capsys, how, chunked,
                                             monkeypatch):
    before = csv_file.read_bytes()
    target = csv_file
    if how == "symlink":
        target = tmp_path / "link.csv"
        target.symlink_to(csv_file)
    elif how == "hardlink":
        target = tmp_path / "hard.csv"
        os.link(csv_file, target)
    elif how == "relative":
        monkeypatch.chdir(tmp_path)
        target = "./sub/../t.csv"
        (tmp_path / "sub").mkdir()
    code, _, err = run(["embed", csv_file, "-o", target]
                       + (["--chunksize", "7"] if chunked else []), capsys)
    assert code == 2
    assert "is the input file" in err and "--output" in err
    assert csv_file.read_bytes() == before


def test_model_path_that_is_the_input_or_the_output_is_refused(tmp_path, csv_file, capsys):
    model = tmp_path / "m.npz"
    model.write_bytes(b"not a model")
    code, _, err = run(["embed", model, "--save-model", model], capsys)
    assert code == 2 and model.read_bytes() == b"not a model"
    code, _, err = run(["embed", csv_file, "-o", tmp_path / "x.csv", "--save-model",
                        tmp_path / "x.csv"], capsys)
    assert code == 2 and "--save-model must end in .npz" in err


def test_failed_run_keeps_the_old_output_and_leaves_no_temporary_file(
        tmp_path, csv_file, capsys, monkeypatch):
    out = tmp_path / "out.parquet"
    out.write_bytes(b"old output")
    calls = []

    def boom(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    real = cio.TableWriter.write
    monkeypatch.setattr(cio.TableWriter, "write", boom)
    code, _, err = run(["embed", csv_file, "--chunksize", "10", "-o", out], capsys)
    assert code == 130 and err.strip() == "catembed: interrupted"
    assert out.read_bytes() == b"old output"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.parquet", "t.csv"]
    # and a complete run replaces it
    monkeypatch.undo()
    code, _, err = run(["embed", csv_file, "--chunksize", "10", "-q", "-o", out], capsys)
    assert code == 0, err
    assert len(pd.read_parquet(out)) == 60
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.parquet", "t.csv"]


def test_interrupt_during_start_up_is_one_line(monkeypatch, capsys):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    code, out, err = run(["embed", "lenses"], capsys)
    assert code == 130 and err == "catembed: interrupted\n"


@pytest.mark.parametrize("flag", ["-o", "--save-model"])
def test_output_paths_are_checked_before_the_fit(tmp_path, csv_file, capsys, flag,
                                                  monkeypatch):
    def no_fit(*args, **kwargs):  # the fit must not start
        raise AssertionError("fit started")

    monkeypatch.setattr(embed_cli, "_make_estimator", no_fit)
    name = "m.npz" if flag == "--save-model" else "o.csv"
    code, _, err = run(["embed", csv_file, flag, tmp_path / "missing" / name], capsys)
    assert code == 2 and "does not exist" in err
    code, _, err = run(["embed", csv_file, flag, tmp_path], capsys)
    assert code == 2 and "is a folder" in err
    assert not (tmp_path.parent / f"{tmp_path.name}.npz").exists()
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o555)
        try:
            code, _, err = run(["embed", csv_file, flag, locked / name], capsys)
            assert code == 2 and "cannot write in the folder" in err
        finally:
            locked.chmod(0o755)


def test_model_is_written_atomically_where_asked(tmp_path, csv_file, capsys):
    model = tmp_path / "m.npz"
    code, _, err = run(["embed", csv_file, "-q", "-o", tmp_path / "o.csv", "--save-model",
                        model], capsys)
    assert code == 0, err
    from catembed import load

    assert load(model).n_features_in_ == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz", "o.csv", "t.csv"]


# ------------------------------------------------------------------ defect 2: target leakage

@pytest.fixture
def folder(tmp_path, frame):
    d = tmp_path / "adultish"
    d.mkdir()
    df = frame.assign(income=np.where(frame["a"] == "x", ">50K", "<=50K"),
                      rid=[f"r{i}" for i in range(len(frame))])
    df.to_csv(d / "data.csv", index=False)
    meta = {"name": "adultish", "target": "income", "id_columns": ["rid"],
            "columns": {"a": "categorical", "b": "categorical", "c": "binary",
                        "income": "target", "rid": "id"}}
    (d / "meta.json").write_text(json.dumps(meta))
    return d, df


def test_folder_target_and_ids_are_never_features(folder, capsys):
    d, df = folder
    out = d.parent / "o.csv"
    code, stdout, err = run(["embed", d, "--method", "idf", "-o", out], capsys)
    assert code == 0, err
    res = pd.read_csv(out, keep_default_na=False)
    assert list(res.columns) == ["rid", "a__idf", "b__idf", "c__idf", "income"]
    assert list(res["income"]) == list(df["income"])
    assert "3 attributes" in stdout and "'income' (meta.json) is copied" in err
    # another --target: the folder's target is still not a feature
    code, _, err = run(["embed", d, "--method", "idf", "--target", "c", "-q", "-o", out],
                       capsys)
    assert code == 0, err
    assert list(pd.read_csv(out).columns) == ["rid", "a__idf", "b__idf", "c"]


# ------------------------------------------------------------------ defect 3: input shapes

def _write(kind, frame, path):
    if kind == "unnamed_index":
        frame.to_csv(path)
    elif kind == "trailing_delimiter":
        lines = frame.to_csv(index=False).splitlines()
        path.write_text("\n".join(line + "," for line in lines) + "\n")
    elif kind == "bom":
        path.write_text(frame.to_csv(index=False), encoding="utf-8-sig")
    elif kind == "spaces":
        path.write_text(frame.rename(columns={"a": " a ", "c": "c c"}).to_csv(index=False))
    elif kind in ("gz", "bz2", "xz", "zip"):
        frame.to_csv(path, index=False)
    elif kind == "crlf":
        path.write_bytes(frame.to_csv(index=False).replace("\n", "\r\n").encode())
    else:
        raise AssertionError(kind)


@pytest.mark.parametrize(
    ("kind", "name"),
    [("unnamed_index", "t.csv"), ("trailing_delimiter", "t.csv"), ("bom", "t.csv"),
     ("spaces", "t.csv"), ("gz", "t.csv.gz"), ("bz2", "t.csv.bz2"), ("xz", "t.csv.xz"),
     ("zip", "t.csv.zip"), ("crlf", "t.csv")],
)
def test_csv_shapes_give_the_plain_embedding(tmp_path, frame, csv_file, capsys, kind, name):
    plain, _ = embedded(csv_file, capsys)
    sub = tmp_path / kind
    sub.mkdir()
    path = sub / name
    _write(kind, frame, path)
    before = path.read_bytes()
    res, err = embedded(path, capsys)
    assert "warning" not in err
    if kind == "unnamed_index":  # pandas' index column is copied, not embedded
        assert res.columns[0] == "Unnamed: 0"
        assert list(res.iloc[:, 0]) == list(range(60))
        res = res.iloc[:, 1:]
    np.testing.assert_allclose(res.to_numpy(float), plain.to_numpy(float))
    assert path.read_bytes() == before


@pytest.mark.parametrize("unique", [True, False])
def test_parquet_named_index_is_row_labels(tmp_path, frame, csv_file, capsys, unique):
    plain, _ = embedded(csv_file, capsys)
    keys = [f"k{i if unique else i % 7}" for i in range(len(frame))]
    path = tmp_path / "t.parquet"
    frame.set_index(pd.Index(keys, name="key")).to_parquet(path)
    res, _ = embedded(path, capsys)
    assert res.columns[0] == "key" and list(res["key"]) == keys
    np.testing.assert_allclose(res.iloc[:, 1:].to_numpy(float), plain.to_numpy(float))


def test_parquet_multiindex_columns_and_nested_columns(tmp_path, frame, capsys):
    multi = frame.copy()
    multi.columns = pd.MultiIndex.from_tuples([("g", "a"), ("g", "b"), ("h", "c")])
    path = tmp_path / "m.parquet"
    multi.to_parquet(path)
    res, _ = embedded(path, capsys, "--method", "idf")
    assert list(res.columns) == ["('g', 'a')__idf", "('g', 'b')__idf", "('h', 'c')__idf"]
    nested = frame.assign(lst=[[1, 2]] * len(frame), st=[{"k": 1}] * len(frame))
    path = tmp_path / "n.parquet"
    nested.to_parquet(path)
    code, _, err = run(["embed", path, "-q"], capsys)
    assert code == 2 and "column 'lst'" in err and "--drop lst" in err
    res, _ = embedded(path, capsys, "--drop", "lst,st", "--method", "idf")
    assert list(res.columns) == ["a__idf", "b__idf", "c__idf"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--target", "a", "--id", "a"], "given to both --id and --target"),
        (["--drop", "b", "--id", "b"], "given to both --id and --drop"),
        (["--seed", "-1"], "--seed: -1 is out of range"),
        (["--seed", str(2**32)], "--seed: 4294967296 is out of range"),
        (["--seed", "1.5"], "not an integer"),
        (["--chunksize", "0"], "--chunksize: 0 is out of range"),
        (["--n-bins", "1"], "--n-bins: 1 is out of range"),
    ],
)
def test_bad_flags_are_refused(csv_file, capsys, argv, message):
    code, _, err = run(["embed", csv_file, *argv], capsys)
    assert code == 2 and message in err
    assert "Traceback" not in err


def test_largest_seed_is_accepted(csv_file, capsys):
    code, _, err = run(["embed", csv_file, "--seed", str(2**32 - 1), "-q"], capsys)
    assert code == 0, err


def test_ragged_rows_warn_with_line_numbers_or_are_refused(tmp_path, csv_file, capsys):
    path = tmp_path / "r.csv"
    path.write_text(csv_file.read_text() + "x,x1\nx,x1,u,extra\ny,y1,v\n")
    res, err = embedded(path, capsys)
    assert len(res) == 63
    assert "2 row(s) (lines 62, 63)" in err and "--strict" in err
    code, _, err = run(["embed", path, "--strict"], capsys)
    assert code == 2 and "lines 62, 63" in err


def test_not_utf8_is_refused_with_the_fix(tmp_path, capsys):
    path = tmp_path / "latin.csv"
    path.write_bytes("a,b\ncafé,x\nthé,y\n".encode("latin-1"))
    code, _, err = run(["embed", path], capsys)
    assert code == 2 and "not UTF-8" in err and "re-save it as UTF-8" in err


# ------------------------------------------------------------------ start-up, help

def test_start_up_imports_nothing_heavy():
    code = (
        "import sys, catembed, catembed.cli as c\n"
        "assert c.main(['--version']) == 0\n"
        "c.build_parser(plugins=False).parse_args(['embed', 'x.csv', '--method', 'untie'])\n"
        "heavy = [m for m in ('numpy', 'pandas', 'sklearn', 'scipy', 'torch') "
        "if m in sys.modules]\n"
        "assert not heavy, heavy\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("catembed ")
    from catembed import CDE, METHOD_NAMES, METHODS

    assert list(METHODS) == list(METHOD_NAMES) and METHODS["cde"] is CDE


def test_model_loads_when_only_one_class_was_imported(tmp_path):
    code = (
        "import sys, pandas as pd\n"
        "from catembed.embed.baselines import IDFEmbedder\n"
        "from catembed.persist import load, save\n"
        "X = pd.DataFrame({'a': list('xyxz'), 'b': list('uuvv')})\n"
        f"save(IDFEmbedder().fit(X), {str(tmp_path / 'm.npz')!r})\n"
        f"print(type(load({str(tmp_path / 'm.npz')!r})).__name__)\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "IDFEmbedder"


def test_help_has_examples_and_documents_handle_unknown(capsys):
    code, out, _ = run(["embed", "--help"], capsys)
    assert code == 0
    assert "examples:" in out and "catembed embed data.csv" in out
    assert "--handle-unknown" in out and "--strict" in out
    code, out, _ = run(["--help"], capsys)
    assert code == 0 and "examples:" in out and "exit status" in out


def test_console_entry_point_catches_ctrl_c_while_importing(monkeypatch, capsys):
    import catembed.__main__ as entry

    class Interrupted:
        def __getattr__(self, name):
            raise KeyboardInterrupt

    assert entry.main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("catembed ")
    monkeypatch.setitem(sys.modules, "catembed.cli", Interrupted())
    assert entry.main(["--version"]) == 130
    assert capsys.readouterr().err == "catembed: interrupted\n"
