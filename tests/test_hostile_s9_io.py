"""Hostile inputs to catembed.io, catembed.datasets and the evaluate / bench command line
(sweep s9, tables in and out)."""

from __future__ import annotations

import json

import pytest

from catembed import CatEmbedError
from catembed.cli import main
from catembed.datasets import load_dataset

ROWS = "a,b,y\n" + "".join(f"{'xyz'[i % 3]},{'pq'[i % 2]},{'cd'[i % 2]}\n" for i in range(12))
META = {"target": "y", "columns": {"a": "categorical", "b": "categorical", "y": "target"}}


def _folder(tmp_path, data: bytes | str, meta=META, name="set"):
    d = tmp_path / name
    d.mkdir()
    (d / "data.csv").write_bytes(data if isinstance(data, bytes) else data.encode())
    if meta is not None:
        (d / "meta.json").write_text(json.dumps(meta))
    return d


@pytest.mark.parametrize("data, message", [
    (b"", r"data\.csv is empty"),
    (ROWS.replace("z,", "\xe9,").encode("latin-1"), r"it is not UTF-8 text"),
    ("a,b,y\n", r"has a header but no data rows"),
    (ROWS.replace("a,b,y", "a,a,y", 1), r"duplicate column names: a"),
])
def test_load_dataset_refuses_a_damaged_data_csv_naming_it(tmp_path, data, message):
    # these were a bare EmptyDataError / UnicodeDecodeError, an empty frame,
    # or a silently renamed 'a.1' column (left out as a feature: meta.json types 'a')
    folder = _folder(tmp_path, data, meta=dict(META, columns={"a": "categorical",
                                                              "y": "target"}))
    with pytest.raises(CatEmbedError, match=message):
        load_dataset(folder)


@pytest.mark.parametrize("meta, absent", [
    ({"target": "zz", "columns": {"a": "categorical", "b": "categorical"}}, "'zz'"),
    ({"target": "y", "columns": {"a": "categorical", "q": "categorical", "y": "target"}},
     "'q'"),
    (dict(META, id_columns=["row_id"]), "'row_id'"),
])
def test_meta_json_naming_a_column_data_csv_lacks_is_refused(tmp_path, capsys, meta, absent):
    # was: a target not in data.csv "has no target column in meta.json" (evaluate) or the
    # class column embedded as a feature (embed); a typed column not there silently ignored
    folder = _folder(tmp_path, ROWS, meta=meta)
    with pytest.raises(CatEmbedError, match=rf"meta\.json names column\(s\) that data\.csv "
                       rf"does not have: {absent}"):
        load_dataset(folder)
    for argv in (["evaluate", str(folder), "--methods", "onehot", "--runs", "1"],
                 ["embed", str(folder), "-o", str(tmp_path / "out.csv")]):
        assert main(argv) == 2
        assert f"does not have: {absent}" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


def test_load_dataset_reads_a_bom_crlf_and_quoted_newline_like_a_plain_file(tmp_path):
    text = ROWS.replace("x,p", '"x\nx",p', 1).replace("\n", "\r\n")
    text = text.replace('"x\r\nx"', '"x\nx"')
    frame = load_dataset(_folder(tmp_path, b"\xef\xbb\xbf" + text.encode())).frame
    assert list(frame.columns) == ["a", "b", "y"]
    assert frame.shape == (12, 3) and frame.iloc[0, 0] == "x\nx"


def test_evaluate_with_a_target_no_row_has_names_the_target(tmp_path, capsys):
    # was: "preset 'complete' leaves no attribute", about the attributes
    folder = _folder(tmp_path, ROWS.replace(",c\n", ",\n").replace(",d\n", ",\n"))
    assert main(["evaluate", str(folder), "--methods", "onehot", "--runs", "1"]) == 2
    assert "no row of set has a value in the target column 'y'" in capsys.readouterr().err


@pytest.mark.parametrize("plain", [True, False])
def test_evaluate_warns_of_ragged_rows_as_embed_does(tmp_path, capsys, plain):
    # was: a folder's extra field a bare ParserError (internal error); a plain file's extra
    # fields silently ignored, no warning (embed and cluster name the lines)
    folder = _folder(tmp_path, ROWS + "x,p,c,extra\n")
    argv = (["evaluate", str(folder / "data.csv"), "--target", "y"] if plain
            else ["evaluate", str(folder)])
    assert main(argv + ["--methods", "onehot", "--runs", "1"]) == 0
    err = capsys.readouterr().err
    assert ("warning: data.csv: 1 row(s) (line 14) with another number of fields than the "
            "header (3): short rows are read with missing values, extra fields are ignored. "
            "Fix the file.\n") in err
    assert "13 rows" in err


@pytest.mark.parametrize("seed, runs, high", [(-1, 1, 4294967295), (2**40, 1, 4294967295),
                                              (2**32 - 1, 2, 4294967294)])
def test_evaluate_and_bench_refuse_a_seed_numpy_cannot_take_naming_the_flag(capsys, seed,
                                                                            runs, high):
    # was: every method's runs failed on "ValueError: Seed must be between 0 and 2**32 - 1",
    # exit 1, after loading the data
    for argv in (["evaluate", "lenses", "--methods", "onehot"],
                 ["bench", "--table", "cde-1", "--datasets", "lenses", "--columns", "onehot"]):
        assert main(argv + ["--seed", str(seed), "--runs", str(runs)]) == 2
        err = capsys.readouterr().err
        assert f"--seed must be an integer from 0 to {high}" in err and f"got {seed}." in err
    # bench without --runs: the table's 50 runs
    assert main(["bench", "--table", "cde-1", "--seed", str(2**32 - 10)]) == 2
    assert "from 0 to 4294967246 (the 50 runs" in capsys.readouterr().err


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("second, message", [
    ("text", r"column 'id' of chunk 2 written to out\.\w+ holds large_string values that the "
             r"first chunk's type int64 cannot hold"),
    ("reordered", r"chunk 2 written to out\.\w+ has the columns z, id but the first chunk had "
                  r"id, z; every chunk needs the same columns"),
])
def test_table_writer_refuses_a_chunk_unlike_the_first_leaving_no_output(tmp_path, suffix,
                                                                         second, message):
    # was pyarrow's ArrowInvalid ("Failed to parse string") or ValueError ("Target schema's
    # field names are not matching")
    import pandas as pd

    from catembed.io import TableWriter

    first = pd.DataFrame({"id": [1, 2], "z": [0.5, 1.5]})
    later = first.assign(id=["a", "b"]) if second == "text" else first[["z", "id"]]
    out = tmp_path / f"out{suffix}"
    with pytest.raises(CatEmbedError, match=message), TableWriter(out) as writer:
        writer.write(first)
        writer.write(later)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
@pytest.mark.parametrize("columns, message", [
    ([], r"columns is empty: name at least one column of t\.\w+"),
    (["a", "b", "a"], r"columns names 'a' more than once"),
])
def test_read_table_refuses_an_empty_or_repeating_column_list(tmp_path, suffix, columns,
                                                              message):
    # was: a CSV "has a header but no data rows" (it has), a Parquet file a frame without
    # columns; a repeated name two columns named 'a'
    import pandas as pd

    from catembed import io

    path = tmp_path / f"t{suffix}"
    frame = pd.DataFrame({"a": ["x", "y"], "b": ["p", "q"]})
    frame.to_csv(path, index=False) if suffix == ".csv" else frame.to_parquet(path)
    with pytest.raises(CatEmbedError, match=message):
        io.read_table(path, columns=columns)
    with pytest.raises(CatEmbedError, match=message):
        list(io.iter_chunks(path, 1, columns=columns))


@pytest.mark.parametrize("meta", [
    {"target": "y", "columns": {"a": "categorical", "b": "categorical", "y": "categorical"}},
    {"target": "y", "id_columns": ["a"],
     "columns": {"a": "categorical", "b": "categorical", "y": "target"}},
])
def test_a_target_or_id_column_typed_categorical_is_never_a_feature(tmp_path, capsys, meta):
    # was: the target typed categorical an internal error ("The truth value of a Series is
    # ambiguous", it was a feature and the target); an id column embedded as a feature
    data = load_dataset(_folder(tmp_path, ROWS, meta=meta))
    assert data.feature_columns == (["b"] if meta.get("id_columns") else ["a", "b"])
    assert main(["evaluate", str(data.path), "--methods", "onehot", "--runs", "1"]) == 0
    attributes = "1 attributes" if meta.get("id_columns") else "2 attributes"
    assert f"12 rows, {attributes}" in capsys.readouterr().err


def test_meta_json_with_a_misspelt_kind_is_refused_and_a_bom_is_read(tmp_path):
    # was: the column of kind 'catgorical' silently left out; a byte-order mark refused
    bad = dict(META, columns={"a": "categorical", "b": "catgorical", "y": "target"})
    with pytest.raises(CatEmbedError, match=r"\"columns\" gives 'b' the kind 'catgorical'; "
                       r"kinds are categorical, binary, numeric, id, target, split"):
        load_dataset(_folder(tmp_path, ROWS, meta=bad))
    folder = _folder(tmp_path, ROWS, meta=None, name="bom")
    (folder / "meta.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(META).encode())
    assert load_dataset(folder).feature_columns == ["a", "b"]


def test_bench_reports_a_damaged_data_csv_in_its_row_and_goes_on(tmp_path, capsys):
    # was: a non-UTF-8 data.csv stopped the whole table on an internal UnicodeDecodeError
    import shutil

    from catembed.datasets import BUNDLED_DIR

    for name in ("zoo", "soybean_small"):
        shutil.copytree(BUNDLED_DIR / name, tmp_path / name)
    (tmp_path / "zoo" / "data.csv").write_bytes(b"animal_name,hair\n\xe9,1\n")
    assert main(["bench", "--table", "cde-1", "--data-dir", str(tmp_path), "--columns",
                 "onehot", "--datasets", "zoo,soybean_small", "--runs", "1", "-q"]) == 0
    out = capsys.readouterr().out
    assert "| Zoo |" in out and "data.csv: it is not UTF-8 text (byte 17)" in out
    assert "| Soybeansmall |" in out


def test_a_feature_missing_in_every_row_is_named_not_said_to_leave_no_attribute(tmp_path,
                                                                               capsys):
    # was: "preset 'complete' leaves no attribute" (every row was dropped, so every column
    # was constant)
    path = tmp_path / "t.csv"
    path.write_text("a,b,e,y\n" + "".join(f"{'xy'[i % 2]},{'pq'[i % 3 % 2]},,{i % 2}\n"
                                          for i in range(8)))
    argv = ["evaluate", str(path), "--target", "y", "--methods", "onehot", "--runs", "1"]
    assert main(argv) == 2
    assert ("every row of t misses a value of some attribute, and preset 'complete' keeps "
            "complete rows only ('e' missing in every row); use --preset categorical to keep "
            "missing as a value, or --drop e.") in capsys.readouterr().err
    assert main(argv + ["--drop", "e"]) == 0


def test_evaluate_says_rows_without_a_target_apart_from_the_presets_drops(tmp_path, capsys):
    # was: "4 row(s) with a missing value dropped by preset categorical (--preset
    # categorical keeps them, missing as a value)": rows without a class, which no preset keeps
    path = tmp_path / "t.csv"
    path.write_text("a,b,y\n" + "".join(f"{'xy'[i % 2]},{'pq'[i % 3 % 2]},"
                                        f"{'' if i % 3 == 0 else 'cd'[i % 2]}\n"
                                        for i in range(12)))
    argv = ["evaluate", str(path), "--target", "y", "--methods", "onehot", "--runs", "1"]
    assert main(argv + ["--preset", "categorical"]) == 0
    err = capsys.readouterr().err
    assert "8 rows, 2 attributes" in err and "; 4 row(s) without a target value dropped\n" in err


@pytest.mark.parametrize("preset, message", [
    ({"sample": -1}, r"preset sample must be None or a positive integer; got -1\."),
    ({"sample": "x"}, r"preset sample must be None or a positive integer; got 'x'\."),
    ({"sample": 0}, r"preset sample must be None or a positive integer; got 0\."),
    ({"drop": "hair"}, r"preset drop must be a list of column names; got 'hair'\."),
    ({"drop": None}, r"preset drop must be a list of column names; got None\."),
    ({"drop_constant": "no"}, r"preset drop_constant must be true or false; got 'no'\."),
])
def test_a_dict_preset_with_a_bad_value_is_refused_naming_the_key(preset, message):
    # was: pandas' "A negative number of rows requested", int()'s ValueError, a TypeError,
    # 'hair' dropped as the columns h, a, i, r; "no" (truthy) dropped constant columns
    with pytest.raises(CatEmbedError, match=message):
        load_dataset("zoo", preset=preset)


@pytest.mark.parametrize("change, message", [
    ({"columns": [{"method": "onehot"}]}, r"'columns' must be a non-empty list of objects, "
                                          r"each with 'label' and 'method'"),
    ({"columns": "onehot"}, r"'columns' must be a non-empty list"),
    ({"columns": []}, r"'columns' must be a non-empty list"),
    ({"datasets": ["zoo"]}, r"'datasets' must be a non-empty list of objects, each with "
                            r"'name'"),
    ({"protocol": 5}, r"'protocol' must be an object"),
])
def test_bench_refuses_a_table_file_of_the_wrong_shape(tmp_path, capsys, change, message):
    # was: KeyError 'label', "string indices must be integers", IndexError, AttributeError
    # ("'str' object has no attribute 'get'"): internal errors
    import re

    table = {"id": "t", "metric": "f_score", "columns": [{"method": "onehot", "label": "o"}],
             "datasets": [{"name": "zoo"}], **change}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(table))
    assert main(["bench", "--table", str(path), "--runs", "1", "-q"]) == 2
    assert re.search(rf"error: table t\.json: {message}", capsys.readouterr().err)


def test_bench_names_a_protocol_key_or_metric_the_task_does_not_know(tmp_path, capsys):
    # was: TypeError "run_clustering() got an unexpected keyword argument 'bogus'" and
    # KeyError 'bogus' (internal errors, the second after every run)
    table = {"id": "t", "metric": "f_score", "columns": [{"method": "onehot", "label": "o"}],
             "datasets": [{"name": "lenses"}], "protocol": {"bogus": 1}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(table))
    assert main(["bench", "--table", str(path), "--runs", "1", "-q"]) == 2
    assert ("table t: its protocol does not suit the cluster task (got an unexpected keyword "
            "argument 'bogus')") in capsys.readouterr().err
    path.write_text(json.dumps({**table, "protocol": {}, "metric": "bogus"}))
    assert main(["bench", "--table", str(path), "--runs", "1", "-q"]) == 0
    assert ("| lenses | error: table t: the cluster task gives no metric 'bogus' (it gives "
            "seed, f_score,") in capsys.readouterr().out


def test_evaluate_drop_leaves_out_a_nested_parquet_column_as_its_refusal_says(tmp_path,
                                                                              capsys):
    # was: "column 'l' ... holds lists ... Leave it out with --drop l", also with --drop l
    # (evaluate read every column, then dropped)
    import pandas as pd

    path = tmp_path / "t.parquet"
    pd.DataFrame({"a": list("xyxyxyxy"), "b": list("ppqqppqq"), "y": list("cdcdcdcd"),
                  "l": [[1, 2]] * 8}).to_parquet(path)
    argv = ["evaluate", str(path), "--target", "y", "--methods", "onehot", "--runs", "1"]
    assert main(argv) == 2
    assert "Leave it out with --drop l" in capsys.readouterr().err
    assert main(argv + ["--drop", "l"]) == 0
    assert "8 rows, 2 attributes" in capsys.readouterr().err
    assert main(argv + ["--drop", "l,zz"]) == 2
    assert "--drop names column(s) not in t: zz." in capsys.readouterr().err


@pytest.mark.parametrize("numeric", ["passthrough", "discretize"])
def test_a_numeric_column_holding_text_is_named(tmp_path, capsys, numeric):
    # was: NumPy's "could not convert string to float: 'x'" (internal error)
    meta = dict(META, columns={"a": "numeric", "b": "categorical", "y": "target"})
    folder = _folder(tmp_path, ROWS, meta=meta)
    assert main(["evaluate", str(folder), "--numeric", numeric, "--methods", "onehot",
                 "--runs", "1"]) == 2
    assert ("column 'a' is used as numbers (typed numeric in meta.json, or numeric in the "
            "first rows read by --numeric) but holds 'x'") in capsys.readouterr().err
