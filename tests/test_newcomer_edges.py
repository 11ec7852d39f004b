"""Issue 23 item 5: the rough edges a newcomer met on the command line (numeric-looking
columns, warnings said once, the same rows in evaluate and report, embed --data-dir, the
evaluate table, LCA's default starts)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from catembed.cli import main


@pytest.fixture
def numeric_csv(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({"age": rng.integers(18, 90, n),  # ~60 distinct numbers
                          "code": rng.integers(1, 4, n),  # numbers, few values: a category
                          "colour": np.where(y == 1, "red", rng.choice(["red", "blue"], n)),
                          "label": np.where(y == 1, "yes", "no")})
    frame.loc[[3, 7], "colour"] = None  # two incomplete rows
    path = tmp_path / "t.csv"
    frame.to_csv(path, index=False)
    return path


def test_numeric_looking_rule():
    from catembed.evaluation.inputs import numeric_hint, numeric_looking

    frame = pd.DataFrame({"n": [str(i) for i in range(30)], "few": ["1", "2"] * 15,
                          "mixed": [str(i) for i in range(29)] + ["x"],
                          "f": np.arange(30) / 7})
    assert numeric_looking(frame) == {"n": 30, "f": 30}
    text = numeric_hint({"n": 30})
    assert "n (30 distinct)" in text and "--numeric discretize" in text


def test_embed_says_once_which_columns_look_numeric(numeric_csv, tmp_path, capsys):
    out = tmp_path / "e.csv"
    assert main(["embed", str(numeric_csv), "--target", "label", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.count("--numeric discretize") == 1
    assert "age (" in err and "code (" not in err


def test_evaluate_and_report_hint_and_same_rows(numeric_csv, tmp_path, capsys):
    code = main(["evaluate", str(numeric_csv), "--target", "label", "--runs", "1",
                 "--methods", "onehot", "--json"])
    assert code == 0
    out = capsys.readouterr()
    n_eval = json.loads(out.out)["n_rows"]
    assert out.err.count("--numeric discretize") == 1 and "age (55 distinct)" in out.err
    page = tmp_path / "r.html"
    assert main(["report", str(numeric_csv), "--target", "label", "--methods", "",
                 "-q", "-o", str(page)]) == 0
    # the report reads age by catembed cluster's rule (binned, --numeric auto): no hint
    assert "--numeric discretize" not in capsys.readouterr().err
    html = page.read_text(encoding="utf-8")
    n_report = int(html.split("<td>rows</td><td class=\"num\">")[1].split("<")[0])
    assert n_eval == n_report == 118  # both drop the two incomplete rows by default
    assert "2 row(s) with a missing value dropped by preset complete" in html


def test_evaluate_summary_has_no_preset_label_on_plain_csv(numeric_csv, capsys):
    assert main(["evaluate", str(numeric_csv), "--target", "label", "--runs", "1",
                 "--methods", "onehot,onehot-pca", "--numeric", "discretize"]) == 0
    err = capsys.readouterr().err
    summary = [line for line in err.splitlines() if line.startswith("catembed evaluate:")]
    assert summary and "[preset" not in summary[0]
    assert "dropped by preset complete" in summary[0]


def test_evaluate_says_a_repeated_warning_once(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 400
    frame = pd.DataFrame({"a": [f"v{i}" for i in rng.integers(0, 300, n)],
                          "b": rng.choice(list("xy"), n), "label": rng.choice(list("pq"), n)})
    path = tmp_path / "w.csv"
    frame.to_csv(path, index=False)
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["evaluate", str(path), "--target", "label", "--runs", "2",
                     "--methods", "onehot,onehot-pca,idf"]) == 0
    texts = [str(w.message) for w in caught]
    singles = [t for t in texts if "single value" in t or "pooled" in t]
    assert len(singles) == len(set(singles))  # each distinct warning once


def test_evaluate_table_aligns_long_method_names():
    from catembed.cli._evaluate import _text_table

    class R:
        def __init__(self, label):
            self.label, self.clusterer, self.status = label, "kmeans", "ok"
            self.fit_seconds = 0.5

        def mean(self, m):
            return 0.5

        def std(self, m):
            return 0.0

    lines = _text_table([R("cde"), R("a-very-long-method-name")]).splitlines()
    starts = {line.index("kmeans") for line in [lines[2], lines[3]]}
    assert len(starts) == 1 and lines[0].index("clusterer") == starts.pop()


def test_embed_data_dir(tmp_path, capsys):
    folder = tmp_path / "sets" / "tiny"
    folder.mkdir(parents=True)
    pd.DataFrame({"a": list("xxyy"), "b": list("uvuv")}).to_csv(folder / "data.csv",
                                                               index=False)
    (folder / "meta.json").write_text(json.dumps(
        {"name": "tiny", "columns": {"a": "categorical", "b": "categorical"}}))
    out = tmp_path / "o.csv"
    assert main(["embed", "tiny", "--data-dir", str(tmp_path / "sets"), "-o", str(out),
                 "-q"]) == 0
    assert len(pd.read_csv(out)) == 4
    assert main(["embed", "tiny", "--data-dir", str(tmp_path), "-q"]) == 2
    assert "searched" in capsys.readouterr().err


def test_lca_default_starts():
    from catembed.cluster.lca import LCA, lca_labels

    assert LCA().n_init == 20
    rng = np.random.default_rng(0)
    X = pd.DataFrame({c: rng.choice(list("xyz"), 60) for c in "abc"})
    one = LCA(2, n_init=1, random_state=0).fit(X).log_likelihood_
    many = LCA(2, random_state=0).fit(X).log_likelihood_
    assert many >= one - 1e-9
    assert lca_labels(X, 2, random_state=0).shape == (60,)
