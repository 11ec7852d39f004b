"""catembed.io: header names, row scans, atomic writing, output checks."""

from __future__ import annotations

import gzip

import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed import io as cio


@pytest.mark.parametrize(
    ("text", "rows", "lines"),
    [
        ('a,b\nx,"multi\nline"\ny,z\n', 2, []),  # a quoted newline is one row
        ("a,b\nx,y,\nz,w,\n", 2, []),  # a trailing delimiter on the data rows only
        ("a,b,\nx,y,\nz,w,\n", 2, []),  # ... and on the header
        ("a,b\n\nx,y\n\n", 1, []),  # blank lines are not rows
        ("a,b\nx\ny,z\nu,v,w\n", 3, [2, 4]),  # one short, one long row
        ('a,b\n"p\nq",r,s\nt,u\n', 2, [2]),  # the line where the ragged row starts
    ],
)
def test_scan_counts_rows_and_names_ragged_lines(tmp_path, text, rows, lines):
    path = tmp_path / "t.csv"
    path.write_text(text)
    scan = cio.scan_csv(path)
    assert (scan.n_rows, scan.ragged_lines, scan.n_ragged) == (rows, lines, len(lines))
    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    assert cio.scan_csv(gz) == scan
    if not lines:  # pandas reads as many rows
        assert len(cio.read_table(path)) == rows


def test_header_names_are_stripped_and_unnamed_columns_named(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("\ufeff, a ,b c,\n0,x,y,\n1,z,w,\n")
    assert cio.read_columns(path) == ["Unnamed: 0", "a", "b c"]
    assert cio.unnamed_columns(path) == ["Unnamed: 0"]
    df = cio.read_table(path, columns=["b c", "a"], text_columns=["a", "b c"])
    assert df.to_dict("list") == {"b c": ["y", "w"], "a": ["x", "z"]}


def test_atomic_output_leaves_the_old_file_on_failure(tmp_path):
    target = tmp_path / "m.npz"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), cio.atomic_output(target) as tmp:
        tmp.write_bytes(b"half")
        raise RuntimeError
    assert target.read_bytes() == b"old" and list(tmp_path.iterdir()) == [target]
    with cio.atomic_output(target) as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".npz"
        tmp.write_bytes(b"new")
    assert target.read_bytes() == b"new" and list(tmp_path.iterdir()) == [target]


def test_table_writer_renames_only_on_success(tmp_path):
    out = tmp_path / "o.parquet"
    with pytest.raises(KeyboardInterrupt), cio.TableWriter(out) as w:
        w.write(pd.DataFrame({"x": [1.0]}))
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []
    with cio.TableWriter(out) as w:
        w.write(pd.DataFrame({"x": [1.0]}))
        w.write(pd.DataFrame({"x": [2.0]}))
    assert pd.read_parquet(out)["x"].tolist() == [1.0, 2.0]
    assert list(tmp_path.iterdir()) == [out]


def test_a_write_after_the_block_ended_creates_nothing(tmp_path):
    """A write that a signal orphaned (its helper thread started while the main thread was
    interrupted, so nobody waited for it) came after __exit__ had removed the temporary file
    and created it again: a CI run of the SIGHUP test found one 200-row block left."""
    out = tmp_path / "o.csv"
    with pytest.raises(KeyboardInterrupt), cio.TableWriter(out) as w:
        raise KeyboardInterrupt
    with pytest.raises(ValueError, match="block has ended"):
        w.write(pd.DataFrame({"x": [1.0]}))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("use", ["atomic_output", "TableWriter"])
def test_a_signal_just_after_the_temporary_file_is_made_leaves_nothing(tmp_path, monkeypatch,
                                                                       use):
    """The temporary name is kept before the file exists, so an interrupt between making
    the file and keeping its name (possible with tempfile.mkstemp) removes it too."""
    from catembed.io import _paths, _writers

    made = _paths._reserve

    def reserve_then_interrupt(tmp):
        made(tmp)
        if ".tmp" in tmp.name:  # not the folder's write probe of check_output_path
            raise KeyboardInterrupt
        return True

    monkeypatch.setattr(_paths, "_reserve", reserve_then_interrupt)
    monkeypatch.setattr(_writers, "_reserve", reserve_then_interrupt)
    out = tmp_path / "o.csv"
    with pytest.raises(KeyboardInterrupt):
        if use == "atomic_output":
            with cio.atomic_output(out):
                pass
        else:
            with cio.TableWriter(out):
                pass
    assert list(tmp_path.iterdir()) == []


def test_check_not_input_sees_links(tmp_path):
    src = tmp_path / "in.csv"
    src.write_text("a\nx\n")
    (tmp_path / "ln.csv").symlink_to(src)
    with pytest.raises(CatEmbedError, match="--output .* is the input file"):
        cio.check_not_input(tmp_path / "ln.csv", [src])
    cio.check_not_input(tmp_path / "other.csv", [src])  # a new file is fine
