"""File names that are not UTF-8 (valid on POSIX): read, written and shown (issue 37.4).

Python holds such a name as a ``str`` with a lone surrogate (``"out\\udcff.csv"``); pyarrow,
the report's HTML and the bench's Markdown could not encode it (exit 1, internal error).
"""

from __future__ import annotations

import os
import shutil
import sys

import pandas as pd
import pytest

from catembed._utils._pathtext import path_text
from catembed.cli import main
from catembed.datasets import BUNDLED_DIR


def _name(raw: bytes) -> str:
    """The file name ``raw`` as Python holds it (as ``sys.argv`` would)."""
    return os.fsdecode(raw)


@pytest.fixture
def odd(tmp_path):
    """A folder that takes a file name that is not UTF-8 (skips where the file system or
    platform refuses one, as macOS and Windows do)."""
    if sys.platform == "win32":
        pytest.skip("Windows file names are Unicode")
    try:
        (tmp_path / _name(b"probe\xff")).touch()
    except (OSError, UnicodeError):
        pytest.skip("the file system refuses names that are not UTF-8")
    os.remove(tmp_path / _name(b"probe\xff"))
    return tmp_path


def run(argv, capsys):
    code = main([os.fspath(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_path_text():
    assert path_text(_name(b"out\xff.csv")) == "out\\xff.csv"
    assert path_text(b"out\xff\xfe.csv") == "out\\xff\\xfe.csv"
    assert path_text("café/données.csv") == "café/données.csv"  # UTF-8: unchanged
    from pathlib import Path

    assert path_text(Path(_name(b"d\xff")) / "x.csv") == "d\\xff/x.csv"
    message = "cannot write " + _name(b"o\xff.csv") + "."  # a message holding a path
    assert path_text(message) == "cannot write o\\xff.csv."
    assert path_text("\ud800") == "\\ud800"  # a surrogate no byte stands for
    assert path_text(ValueError("x")) == "x"
    for text in (path_text(_name(b"a\xff")), path_text("\ud800")):
        text.encode("utf-8")  # never raises


@pytest.mark.parametrize("suffix", [".csv", ".tsv", ".parquet"])
def test_embed_writes_a_name_that_is_not_utf8(odd, capsys, suffix):
    out = odd / _name(b"out\xff" + suffix.encode())
    plain = odd / f"plain{suffix}"
    code, stdout, err = run(["embed", "lenses", "--method", "idf", "-o", out], capsys)
    assert code == 0, err
    assert f"wrote {odd}/out\\xff{suffix}" in stdout  # shown as the shell writes it
    assert run(["embed", "lenses", "--method", "idf", "-o", plain], capsys)[0] == 0
    assert out.read_bytes() == plain.read_bytes() or suffix == ".parquet"
    if suffix == ".parquet":  # the same table (a Parquet file's bytes hold its metadata)
        import pyarrow as pa
        import pyarrow.parquet as pq

        with pa.OSFile(os.fsencode(out)) as fh:
            pd.testing.assert_frame_equal(pq.read_table(fh).to_pandas(),
                                          pd.read_parquet(plain))
    assert sorted(p.name for p in odd.iterdir()) == sorted([out.name, plain.name])


def test_embed_chunked_reads_and_writes_such_names(odd, capsys):
    src = odd / _name(b"in\xff.csv")
    shutil.copy(BUNDLED_DIR / "lenses" / "data.csv", src)
    out = odd / _name(b"ch\xff.parquet")
    code, _, err = run(["embed", src, "--method", "idf", "--chunksize", "5", "-q",
                        "-o", out, "--save-model", odd / _name(b"m\xff.npz")], capsys)
    assert code == 0, err
    code, _, err = run(["transform", odd / _name(b"m\xff.npz"), src, "-q",
                        "-o", odd / _name(b"t\xff.csv")], capsys)
    assert code == 0, err
    # a Parquet input so named (pyarrow reads it by its bytes), and the gzip row count
    code, _, err = run(["embed", out, "--method", "idf", "-q", "-o", odd / "again.csv"],
                       capsys)
    assert code == 0, err
    # pyarrow's row count (the fast path of the ragged-row scan) opens such a name too,
    # decompressing as it does for a path: 24 rows, 6 fields
    import gzip

    from catembed.io._csv_text import _arrow_count

    with gzip.open(odd / _name(b"z\xff.csv.gz"), "wb") as fh:
        fh.write(src.read_bytes())
    assert _arrow_count(src, 6, 6) == 24
    assert _arrow_count(odd / _name(b"z\xff.csv.gz"), 6, 6) == 24


def test_cluster_writes_a_name_that_is_not_utf8(odd, capsys):
    out = odd / _name(b"c\xff.csv")
    code, stdout, err = run(["cluster", "lenses", "-k", "2", "--members", "cde", "-o", out],
                            capsys)
    assert code == 0, err
    assert len(pd.read_csv(out)) == 24
    assert "wrote " + str(odd) + "/c\\xff.csv" in stdout


def test_report_on_and_to_names_that_are_not_utf8(odd, capsys):
    src = odd / _name(b"bad\xff\xfe.csv")
    shutil.copy(BUNDLED_DIR / "lenses" / "data.csv", src)
    out = odd / _name(b"r\xff.html")
    code, _, err = run(["report", src, "--clusters", "3", "--no-consensus", "-o", out],
                       capsys)
    assert code == 0, err
    page = out.read_bytes().decode("utf-8")  # UTF-8 throughout
    assert "<title>catembed report: bad\\xff\\xfe" in page
    assert "wrote " in err and "r\\xff.html" in err


def test_errors_show_such_names_as_bytes(odd, capsys):
    code, _, err = run(["embed", "lenses", "-o", odd / _name(b"no\xff") / "o.csv"], capsys)
    assert code == 2 and "no\\xff does not exist" in err and "\\udc" not in err
    code, _, err = run(["transform", odd / _name(b"m\xff.npz"), "x.csv"], capsys)
    assert code == 2 and "m\\xff.npz" in err
    code, _, err = run(["report", "lenses", "-o", odd / _name(b"nd\xff") / "r.html"], capsys)
    assert code == 2 and "nd\\xff" in err and "\\udc" not in err
    code, _, err = run(["evaluate", _name(b"nope\xff"), "--target", "x"], capsys)
    assert code == 2 and "'nope\\xff'" in err


def test_bench_markdown_names_a_data_dir_that_is_not_utf8(odd, capsys):
    data_dir = odd / _name(b"dd\xff")
    data_dir.mkdir()
    shutil.copytree(BUNDLED_DIR / "soybean_small", data_dir / "soybean_small")
    out = odd / _name(b"b\xff.md")
    code, _, err = run(["bench", "--table", "cde-1", "--columns", "CDE", "--runs", "1",
                        "--data-dir", data_dir, "-q", "-o", out], capsys)
    assert code == 0, err
    text = out.read_bytes().decode("utf-8")
    assert "Searched: " in text and "dd\\xff" in text  # the data sets it did not find
