"""The ``evaluate`` and ``bench`` subcommands, run in-process."""

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from catembed.cli import main
from catembed.datasets import BUNDLED_DIR, load_dataset


def test_evaluate_bundled_json(capsys):
    code = main(["evaluate", "soybean_small", "--preset", "cde", "--runs", "2", "--json",
                 "--methods", "onehot,idf"])
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)  # pure JSON on stdout
    assert data["dataset"] == "soybean_small" and data["n_rows"] == 47
    assert data["n_values"] == 58 and data["runs"] == 2
    assert [r["method"] for r in data["results"]] == ["onehot", "idf"]
    r = data["results"][0]
    for key in ("clusterer", "f_score_mean", "f_score_std", "nmi_mean", "acc_mean",
                "ari_mean", "fit_seconds"):
        assert key in r
    assert r["clusterer"] == "kmeans"


def test_evaluate_text_output(capsys):
    code = main(["evaluate", "zoo", "--runs", "2", "--methods", "onehot", "--seed", "3"])
    out, err = capsys.readouterr()
    assert code == 0
    assert "zoo [preset complete]: 101 rows" in err
    assert out.splitlines()[0].split()[:3] == ["method", "clusterer", "F-score"]
    assert out.splitlines()[2].startswith("onehot")


def test_evaluate_plain_csv_needs_target(tmp_path, capsys):
    frame = load_dataset("zoo").frame.drop(columns=["animal_name"])
    path = tmp_path / "zoo.csv"
    frame.to_csv(path, index=False)
    assert main(["evaluate", str(path), "--runs", "1"]) == 2
    assert "--target" in capsys.readouterr().err
    # the 0/1 columns are numbers in a plain file: the raw preset keeps them as categories
    code = main(["evaluate", str(path), "--target", "type", "--preset", "raw", "--runs", "1",
                 "--methods", "onehot", "--json"])
    out, _ = capsys.readouterr()
    assert code == 0 and json.loads(out)["n_values"] == 36
    assert main(["evaluate", str(path), "--target", "kind", "--runs", "1"]) == 2
    assert "not a column" in capsys.readouterr().err


def test_evaluate_user_errors(capsys):
    assert main(["evaluate", "zoo", "--methods", "nope"]) == 2
    assert "unknown method 'nope'" in capsys.readouterr().err
    assert main(["evaluate", "zoo", "--runs", "0"]) == 2
    assert main(["evaluate", "no_such_set"]) == 2
    assert "catembed: error:" in capsys.readouterr().err


def test_bench_on_a_folder_with_one_set(tmp_path, capsys):
    shutil.copytree(BUNDLED_DIR / "zoo", tmp_path / "data" / "zoo")
    report = tmp_path / "report.md"
    code = main(["bench", "--table", "cde-1", "--data-dir", str(tmp_path / "data"),
                 "--runs", "2", "--columns", "0-1,IDF", "--output", str(report)])
    out, err = capsys.readouterr()
    assert code == 0
    assert "[5/10] zoo" in err and "Mushroom: missing" in err
    text = report.read_text()
    assert text == out
    assert "| Zoo | 101 | 30 |" in text
    assert "Missing data sets (not in the data directory): Wisconsin, Soybeansmall" in text


def test_bench_json_and_errors(tmp_path, capsys):
    code = main(["bench", "--table", "cde-2", "--runs", "1", "--datasets", "soybean_small",
                 "--columns", "CDE-G", "--json"])
    out, err = capsys.readouterr()
    assert code == 0
    data = json.loads(out)  # stdout holds the JSON alone; progress goes to stderr
    assert err.startswith("[1/1] ") and "CDE-G" in err
    cell = data["rows"][0]["cells"]["CDE-G"]
    assert cell["ours"]["clusterer"] == "spectral" and cell["paper"] == 1.0
    assert main(["bench", "--table", "cde-2", "--runs", "1", "--datasets", "soybean_small",
                 "--columns", "CDE-G", "--json", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["rows"] and err == ""
    assert main(["bench", "--table", "nope"]) == 2
    assert "no table 'nope'" in capsys.readouterr().err
    assert main(["bench", "--table", "cde-1", "--data-dir", str(tmp_path / "x")]) == 2


def test_bench_table_file_with_a_method_not_built_yet(tmp_path, capsys):
    table = {"id": "toy", "title": "toy", "paper": "none", "metric": "nmi",
             "columns": [{"label": "0-1", "method": "onehot"},
                         {"label": "Future", "method": "not-built-yet"}],
             "datasets": [{"name": "lenses", "scores": {"0-1": 0.5, "Future": 0.9}}]}
    path = tmp_path / "toy.json"
    path.write_text(json.dumps(table))
    assert main(["bench", "--table", str(path), "--runs", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "| lenses |" in out and "not yet available" in out
    assert "Not yet available (method not registered or not importable): Future." in out


@pytest.mark.parametrize("cmd", ["evaluate", "bench"])
def test_help(cmd, capsys):
    assert main([cmd, "--help"]) == 0
    assert "--runs" in capsys.readouterr().out


def test_evaluate_data_dir(tmp_path, capsys):
    shutil.copytree(BUNDLED_DIR / "lenses", tmp_path / "lenses")
    code = main(["evaluate", "lenses", "--data-dir", str(tmp_path), "--runs", "1",
                 "--methods", "idf", "--json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["n_rows"] == 24
    assert main(["evaluate", "zoo", "--data-dir", str(tmp_path), "--runs", "1"]) == 2
    assert f"no file or data set 'zoo': searched {tmp_path}." in capsys.readouterr().err


def _integer_coded_csv(path):
    """Categories coded 1, 2, 3 (as many UCI tables): a plain CSV, no meta.json."""
    rng = np.random.default_rng(0)
    y = rng.integers(1, 4, 60)
    frame = pd.DataFrame({f"a{j}": np.where(rng.random(60) < 0.8, y, rng.integers(1, 4, 60))
                          for j in range(4)})
    frame["class"] = y
    frame.to_csv(path, index=False)
    return path


def test_evaluate_integer_coded_csv_is_categorical(tmp_path, capsys):
    csv = _integer_coded_csv(tmp_path / "coded.csv")
    code = main(["evaluate", str(csv), "--target", "class", "--runs", "1", "--methods",
                 "onehot", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["n_features"] == 4 and out["n_values"] == 12
    # --numeric drop leaves out the number columns: the refusal names the flags that fix it
    assert main(["evaluate", str(csv), "--target", "class", "--runs", "1",
                 "--numeric", "drop"]) == 2
    err = capsys.readouterr().err
    assert "leaves no attribute" in err and "leave out --numeric" in err
    # --numeric discretize: quantile bins as categories
    assert main(["evaluate", str(csv), "--target", "class", "--runs", "1", "--methods",
                 "onehot", "--numeric", "discretize", "--n-bins", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_features"] == 4


def test_missing_data_set_names_the_folders_searched(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("CATEMBED_DATA", str(tmp_path))
    assert main(["evaluate", "no_such_set", "--runs", "1"]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "CATEMBED_DATA" in err
    monkeypatch.delenv("CATEMBED_DATA")
    shutil.copytree(BUNDLED_DIR / "zoo", tmp_path / "datasets" / "zoo")
    monkeypatch.setenv("CATEMBED_SHARED", str(tmp_path))
    assert main(["bench", "--table", "cde-1", "--runs", "1", "--columns", "onehot",
                 "--datasets", "zoo,hepatitis", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "missing data set(s)" in captured.err and str(tmp_path / "datasets") in captured.err


@pytest.mark.parametrize("cmd", ["evaluate", "bench"])
def test_help_has_examples(cmd, capsys):
    assert main([cmd, "--help"]) == 0
    out = capsys.readouterr().out
    assert "examples:" in out and f"catembed {cmd} " in out.split("examples:")[1]
