"""issue 37 item 5: every file catembed opens for reading is checked to be a regular file
(of bounded size, for the side files) before it is opened: a FIFO given as the model, the
data, ``meta.json`` or a paper table is refused at once, where a read would wait forever."""

from __future__ import annotations

import os
import threading

import numpy as np
import pandas as pd
import pytest

import catembed
from catembed import CatEmbedError, IDFEmbedder
from catembed.cli import main

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def _outcome(fn, fifo):
    """What ``fn()`` raised (or returned), or a test failure if it blocked: the FIFO is
    then opened for writing and closed, which lets a blocked reader go."""
    result = {}

    def run():
        try:
            result["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - reported below
            result["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(20)
    if thread.is_alive():
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(20)
        pytest.fail(f"blocked reading the FIFO {fifo}")
    return result


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "fifo.npz"
    os.mkfifo(path)
    return path


def test_a_fifo_as_the_model_is_refused_by_load(fifo):
    for load in (catembed.load, IDFEmbedder.load, catembed.persist.read_model):
        got = _outcome(lambda load=load: load(fifo), fifo)
        assert isinstance(got.get("error"), CatEmbedError), got
        assert "is not a regular file (a FIFO, socket or device)" in str(got["error"])


def test_a_fifo_as_the_model_is_refused_by_catembed_transform(fifo, tmp_path, capsys):
    pd.DataFrame({"a": list("xyz")}).to_csv(tmp_path / "in.csv", index=False)
    argv = ["transform", str(fifo), str(tmp_path / "in.csv"), "-o", str(tmp_path / "o.csv")]
    got = _outcome(lambda: main(argv), fifo)
    assert got.get("value") == 2, got
    err = capsys.readouterr().err
    assert "is not a regular file" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.csv").exists()


def test_a_link_to_a_fifo_is_refused_and_a_link_to_a_model_loads(fifo, tmp_path):
    (tmp_path / "link.npz").symlink_to(fifo)
    got = _outcome(lambda: catembed.load(tmp_path / "link.npz"), fifo)
    assert "is not a regular file" in str(got.get("error"))
    df = pd.DataFrame({"a": list("xyzx"), "b": list("pqpq")})
    est = IDFEmbedder().fit(df)
    est.save(tmp_path / "m.npz")
    (tmp_path / "model.npz").symlink_to(tmp_path / "m.npz")
    np.testing.assert_array_equal(catembed.load(tmp_path / "model.npz").transform(df),
                                  est.transform(df))


def test_a_fifo_as_meta_json_is_refused(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    pd.DataFrame({"a": list("xyz"), "y": list("001")}).to_csv(folder / "data.csv", index=False)
    os.mkfifo(folder / "meta.json")
    from catembed.datasets import load_dataset

    got = _outcome(lambda: load_dataset(folder), folder / "meta.json")
    assert isinstance(got.get("error"), CatEmbedError), got
    assert "meta.json is not a regular file" in str(got["error"])


def test_a_fifo_as_a_paper_table_is_refused(tmp_path):
    from catembed.evaluation._table_file import load_table

    os.mkfifo(tmp_path / "table.json")
    got = _outcome(lambda: load_table(tmp_path / "table.json"), tmp_path / "table.json")
    assert isinstance(got.get("error"), CatEmbedError), got
    assert "is not a regular file" in str(got["error"])


@pytest.mark.parametrize("name", ["t.csv", "t.parquet", "t.csv.gz"])
def test_a_fifo_as_the_data_is_refused_by_every_reader(tmp_path, name):
    from catembed import io

    os.mkfifo(tmp_path / name)
    for read in (io.read_table, io.read_columns, io.count_rows, io.index_columns,
                 io.unnamed_columns):
        got = _outcome(lambda read=read: read(tmp_path / name), tmp_path / name)
        if read in (io.count_rows, io.unnamed_columns, io.index_columns) and "error" not in got:
            continue  # nothing to read for this format (e.g. the row count of a CSV)
        assert isinstance(got.get("error"), CatEmbedError), (read, got)
        assert "is not a regular file" in str(got["error"])


def test_a_side_file_above_its_bound_is_refused_before_it_is_read(tmp_path, monkeypatch):
    from catembed._utils import _files
    from catembed.datasets import read_meta

    (tmp_path / "meta.json").write_text('{"target": null}', encoding="utf-8")
    assert read_meta(tmp_path) == {"target": None}
    monkeypatch.setattr(_files, "MAX_TEXT_BYTES", 8)
    with pytest.raises(CatEmbedError, match="has 16 bytes; a meta.json file has at most 8"):
        read_meta(tmp_path)
