"""What the command line reads, writes and prints (issue 52, items 4, 9, 10, 11, 12, 14):
bytes that are not UTF-8, a Parquet file's pandas index in ``cluster``'s labels, streams
that cannot take the text, pipes given as the table, long output names and spreadsheet
formulas in ``--profiles``."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from io import StringIO

import numpy as np
import pandas as pd
import pytest

from catembed.cli import main
from test_cli import run  # the command line run, its exit code, stdout and stderr


def _table(n=60, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.choice(list("xyz"), n)
    return pd.DataFrame({"a": a, "b": np.where(rng.random(n) < 0.8, np.char.add(a, "1"), "q"),
                         "c": rng.choice(list("uv"), n)})


# ------------------------------------------------------------------ item 4: bytes


def test_value_text_rule():
    from catembed._utils._text import value_text, value_texts

    assert value_text(b"\x00\xff") == "\\x00\\xff"
    assert value_text(b"caf\xc3\xa9") == "café"
    assert value_text("a\x00") == "a\x00" and value_text(3) == "3"
    got = value_texts(np.array([b"\xff", "a", None, 1.5, b"ok"], dtype=object))
    assert got[0] == "\\xff" and got[1] == "a" and got[3] == "1.5" and got[4] == "ok"
    assert list(value_texts(["p", "q"])) == ["p", "q"]


@pytest.fixture
def bytes_parquet(tmp_path):
    frame = _table()
    frame["raw"] = [b"\x00\xff" if x == "x" else b"ok" for x in frame["a"]]
    path = tmp_path / "bytes.parquet"
    frame.to_parquet(path)
    return path


def test_cluster_on_bytes_that_are_not_utf8(tmp_path, bytes_parquet, capsys):
    out, prof = tmp_path / "l.csv", tmp_path / "p.csv"
    code, stdout, err = run(["cluster", bytes_parquet, "-k", "3", "--members", "mca,onehot",
                             "-o", out, "--profiles", prof], capsys)
    assert code == 0, err
    assert len(pd.read_csv(out)) == 60
    profiles = pd.read_csv(prof, keep_default_na=False)
    assert "\\x00\\xff" in set(profiles.loc[profiles["column"] == "raw", "value"])
    assert "raw=\\x00\\xff" in stdout


def test_cluster_scores_a_bytes_target(bytes_parquet, capsys):
    code, _, err = run(["cluster", bytes_parquet, "-k", "2", "--members", "mca", "--target",
                        "raw"], capsys)
    assert code == 0, err
    assert "ARI with the target 'raw'" in err


def test_report_on_bytes_that_are_not_utf8(tmp_path, bytes_parquet, capsys):
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.html"
    code, _, err = run(["report", bytes_parquet, "-o", out, "--runs", "1"], capsys)
    assert code == 0, err
    assert "\\x00\\xff" in out.read_text(encoding="utf-8")
    code, _, err = run(["report", bytes_parquet, "--target", "raw", "-o", out, "--runs", "1"],
                       capsys)
    assert code == 0, err


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_bytes_id_column_copied_to_the_output(tmp_path, bytes_parquet, capsys, suffix):
    """A CSV holds the bytes as text by the same rule (pyarrow refused them: "Invalid UTF8
    payload"), on stdout too (pandas wrote ``b'ok'``); Parquet keeps the bytes."""
    for cmd in (["embed", bytes_parquet, "--id", "raw"],
                ["cluster", bytes_parquet, "--id", "raw", "-k", "2", "--members", "mca"]):
        out = tmp_path / f"o{suffix}"
        code, _, err = run([*cmd, "-q", "-o", out], capsys)
        assert code == 0, err
        if suffix == ".csv":
            got = pd.read_csv(out, keep_default_na=False)["raw"]
            assert set(got) == {"\\x00\\xff", "ok"}
        else:
            assert set(pd.read_parquet(out)["raw"]) == {b"\x00\xff", b"ok"}
        code, stdout, err = run([*cmd, "-q"], capsys)
        assert code == 0, err
        assert "\\x00\\xff" in stdout and "b'ok'" not in stdout


# ------------------------------------------------------------------ item 9: pandas index


@pytest.mark.parametrize("suffix", [".csv", ".parquet", None])
def test_cluster_keeps_a_parquet_index_as_embed_does(tmp_path, capsys, suffix):
    frame = _table().set_index(pd.Index([f"r{i}" for i in range(60)], name="rid"))
    src = tmp_path / "t.parquet"
    frame.to_parquet(src)
    got = {}
    for cmd in (["embed", src], ["cluster", src, "-k", "2", "--members", "mca"]):
        out = tmp_path / f"{cmd[0]}{suffix}" if suffix else None
        code, stdout, err = run([*cmd, "-q", *(["-o", out] if out else [])], capsys)
        assert code == 0, err
        if suffix == ".parquet":
            got[cmd[0]] = pd.read_parquet(out).index
        else:
            got[cmd[0]] = pd.read_csv(out if out else StringIO(stdout),
                                      index_col=0).index
    assert got["cluster"].name == "rid" and list(got["cluster"]) == list(frame.index)
    assert got["cluster"].equals(got["embed"])


def test_cluster_refuses_an_index_named_cluster(tmp_path, capsys):
    src = tmp_path / "t.parquet"
    _table().rename_axis("cluster").to_parquet(src)
    code, _, err = run(["cluster", src, "-k", "2", "--members", "mca", "-q"], capsys)
    assert code == 2 and "pandas index" in err


def test_cluster_without_a_stored_index_writes_none(tmp_path, capsys):
    src = tmp_path / "t.parquet"
    _table().to_parquet(src, index=False)
    code, stdout, err = run(["cluster", src, "-k", "2", "--members", "mca", "-q"], capsys)
    assert code == 0, err
    assert stdout.splitlines()[0] == "cluster"


# ------------------------------------------------------------------ item 10: streams


@pytest.fixture
def named_csv(tmp_path):
    path = tmp_path / "uni.csv"
    frame = _table().rename(columns={"a": "café"})
    frame.insert(0, "nº", [f"é{i}" for i in range(len(frame))])
    frame.to_csv(path, index=False)
    return path


class _Failing(io.TextIOBase):
    """A standard error on a full disk: every write raises ENOSPC."""

    def write(self, text):
        raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self):
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("command", ["embed", "cluster"])
def test_failing_stderr_never_loses_the_result(named_csv, capsys, monkeypatch, command):
    monkeypatch.setattr(sys, "stderr", _Failing())
    extra = ["--id", "nº", *(["-k", "2", "--members", "mca"] if command == "cluster" else [])]
    code = main([command, str(named_csv), *extra])
    out = capsys.readouterr().out
    assert code == 0
    assert len(pd.read_csv(StringIO(out))) == 60


@pytest.mark.parametrize("output", [False, True])
def test_ascii_streams_take_any_name(tmp_path, named_csv, monkeypatch, output):
    """The summary names 'café' on an ASCII stdout (-o) or stderr: written ``caf\\xe9``;
    a table on an ASCII stdout is UTF-8, as a CSV file is."""
    streams = {name: io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
               for name in ("stdout", "stderr")}
    for name, stream in streams.items():
        monkeypatch.setattr(sys, name, stream)
    out = tmp_path / "l.csv"
    code = main(["cluster", str(named_csv), "-k", "2", "--members", "mca", "--id", "nº",
                 *(["-o", str(out)] if output else [])])
    raw = {}
    for name, stream in streams.items():
        stream.flush()
        raw[name] = stream.buffer.getvalue()
    assert code == 0, raw["stderr"]
    summary = raw["stdout" if output else "stderr"]
    assert b"caf\\xe9=" in summary
    table = out.read_bytes() if output else raw["stdout"]
    assert pd.read_csv(io.BytesIO(table))["nº"].iloc[3] == "é3"
    assert streams["stdout"].errors == "strict"  # the streams are given back as they were


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_stderr_on_dev_full_as_a_command(named_csv):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "catembed", "cluster", str(named_csv),
                               "-k", "2", "--members", "mca", "--id", "nº"],
                              stdout=subprocess.PIPE, stderr=full, timeout=120,
                              env={**os.environ, "PYTHONIOENCODING": "ascii"})
    assert done.returncode == 0
    assert len(pd.read_csv(io.BytesIO(done.stdout))) == 60


# ------------------------------------------------------------------ item 11: pipes


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
@pytest.mark.parametrize("command", [["embed"], ["cluster", "-k", "2"], ["report", "--target", "b"],
                                     ["evaluate", "--target", "b"]])
def test_a_fifo_as_the_table_is_not_a_regular_file(tmp_path, capsys, command):
    fifo = tmp_path / "t.csv"
    os.mkfifo(fifo)
    code, _, err = run([command[0], fifo, *command[1:]], capsys)
    assert code == 2
    assert "is not a regular file (a FIFO, socket or device); give a table file" in err
    assert "not found" not in err


@pytest.mark.parametrize("command", [["embed"], ["cluster", "-k", "2"]])
def test_a_dash_says_standard_input_is_not_read(tmp_path, monkeypatch, capsys, command):
    monkeypatch.chdir(tmp_path)  # no file named '-' here
    code, _, err = run([command[0], "-", *command[1:]], capsys)
    assert code == 2
    assert "'-' (standard input) is not read" in err and "give that path" in err
    assert "not found" not in err


@pytest.mark.skipif(not os.path.exists("/dev/stdin"), reason="needs /dev/stdin")
def test_dev_stdin_from_a_pipe_is_not_a_regular_file(named_csv):
    done = subprocess.run([sys.executable, "-m", "catembed", "cluster", "/dev/stdin"],
                          input=named_csv.read_bytes(), capture_output=True, timeout=120)
    assert done.returncode == 2
    assert b"/dev/stdin is not a regular file" in done.stderr


# ------------------------------------------------------------------ item 12: long names


def _name(tmp_path, size, suffix, char="a"):
    """A file name of ``size`` bytes ending in ``suffix``."""
    stem = char * ((size - len(suffix.encode())) // len(char.encode()))
    name = stem + "a" * (size - len((stem + suffix).encode())) + suffix
    assert len(name.encode()) == size
    return tmp_path / name


@pytest.mark.parametrize("size", [238, 247, 255])
def test_output_names_up_to_name_max_are_written(tmp_path, named_csv, capsys, size):
    from catembed.io._paths import _name_max

    if _name_max(tmp_path) < 255:
        pytest.skip("a file system with shorter names")
    out, model = _name(tmp_path, size, ".csv"), _name(tmp_path, size, ".npz", "é")
    code, _, err = run(["embed", named_csv, "-q", "-o", out, "--save-model", model], capsys)
    assert code == 0, err
    labels, profiles = _name(tmp_path, size, ".parquet"), _name(tmp_path, size, ".csv", "p")
    code, _, err = run(["cluster", named_csv, "-q", "-k", "2", "--members", "mca", "-o", labels,
                        "--profiles", profiles], capsys)
    assert code == 0, err
    assert len(pd.read_csv(out)) == 60 and len(pd.read_parquet(labels)) == 60
    assert model.stat().st_size > 0 and len(pd.read_csv(profiles)) > 0
    # exactly the names given, nothing else left in the folder
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (named_csv, out, model, labels, profiles))


def test_temporary_names_fit_in_name_max(tmp_path):
    from catembed.io._paths import _name_max, _side_name, _temp_name

    most = _name_max(tmp_path)
    for char in ("a", "é", "\U0001f600"):
        for size in (9, 200, most - 20, most):
            path = _name(tmp_path, size, ".parquet", char)
            for tmp in (_temp_name(path), _side_name(path, "probe")):
                assert len(tmp.name.encode()) <= most
                assert tmp.name.startswith(".") and tmp.parent == tmp_path
                tmp.name.encode("utf-8")  # whole characters, never half of one
            assert _temp_name(path).name.endswith(".tmp.parquet")


def test_a_name_longer_than_name_max_is_refused_with_its_size(tmp_path, named_csv, capsys):
    from catembed.io._paths import _name_max

    out = _name(tmp_path, _name_max(tmp_path) + 1, ".csv")
    code, _, err = run(["embed", named_csv, "-q", "-o", out], capsys)
    assert code == 2
    assert f"has {_name_max(tmp_path) + 1} bytes" in err and "at most" in err


# ------------------------------------------------------------------ item 14: formulas


FORMULAS = ['=HYPERLINK("http://x.example/?a=1";"click")', "+cmd|' /C calc'!A0", "@SUM(1+1)",
            "-2+3", "\tx", "\r=1"]


def test_profiles_never_hold_a_formula(tmp_path, capsys):
    n = 60
    frame = pd.DataFrame({"=col": [FORMULAS[i % len(FORMULAS)] for i in range(n)],
                          "b": [("p", "q", "-1", "+2.5")[i % 4] for i in range(n)]})
    src, prof = tmp_path / "f.csv", tmp_path / "p.csv"
    frame.to_csv(src, index=False)
    code, _, err = run(["cluster", src, "-k", "2", "--members", "onehot", "-q", "--profiles",
                        prof, "--drop", "b"], capsys)
    assert code == 0, err
    got = pd.read_csv(prof, keep_default_na=False)
    got = got[got["kind"] != "paragon"]  # issue 54's paragon rows: row labels, no formula
    assert set(got["column"]) == {"'=col"}
    assert all(v.startswith("'") for v in got["value"])  # each one a formula as read
    assert {"'" + f for f in FORMULAS[:4]} & set(got["value"])
    code, _, err = run(["cluster", src, "-k", "2", "--members", "onehot", "-q", "--profiles",
                        prof, "--drop", "=col"], capsys)
    assert code == 0, err
    got = pd.read_csv(prof, keep_default_na=False, dtype=str)
    assert {"-1", "+2.5"} & set(got["value"])  # a plain number is not a formula


def test_spreadsheet_text_rule():
    from catembed._utils._text import spreadsheet_text

    assert [spreadsheet_text(f) for f in FORMULAS] == ["'" + f for f in FORMULAS]
    for plain in ("-1", "+2.5", "-3e-2", ".5", "a=b", "'=x", "", 3, None):
        assert spreadsheet_text(plain) == plain
