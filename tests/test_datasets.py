"""Data-set loading, the papers' pre-processing presets and the one-line summary."""

import json

import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.datasets import (
    apply_preset,
    bundled_datasets,
    load_dataset,
    preset_names,
    resolve_preset,
)


def test_load_dataset_unchanged_without_preset():
    d = load_dataset("zoo")
    assert d.frame.shape == (101, 18)
    assert d.target == "type" and d.id_columns == ["animal_name"]
    assert d.preset is None
    assert set(bundled_datasets()) >= {"zoo", "soybean_small", "lenses"}


@pytest.mark.parametrize(
    ("name", "rows", "values", "classes", "features"),
    [("soybean_small", 47, 58, 4, 21), ("zoo", 101, 30, 7, 15)],
)
def test_cde_preset_reproduces_the_paper_on_bundled_sets(name, rows, values, classes,
                                                         features):
    d = load_dataset(name, preset="cde")
    assert d.describe() == {"n_rows": rows, "n_features": features, "n_values": values,
                            "n_numeric": 0, "n_classes": classes}
    assert list(d.frame.columns) == d.categorical_columns + [d.target]
    assert d.paper_figures() == {"n_rows": rows, "n_values": values, "n_classes": classes}
    s = d.summary()
    assert s.startswith(f"{name} [preset cde]: {rows} rows (ok)")
    assert f"{values} values (ok)" in s and f"{classes} classes (ok)" in s


def test_zoo_cde_drops_legs_and_the_id():
    d = load_dataset("zoo", preset="cde")
    assert "legs" not in d.frame.columns and "animal_name" not in d.frame.columns
    assert d.preset["drop"] == ["legs"] and d.preset["rows"] == "all"


CDE_SETS = {  # Table 1 |O|, |V| of the sets the shared folder has
    "breast_cancer_wisconsin": (683, 89), "soybean_small": (47, 58), "mushroom": (5644, 97),
    "mammographic_masses": (830, 20), "zoo": (101, 30), "hepatitis": (155, 36),
    "adult": (30162, 98), "primary_tumor": (339, 42),
}


@pytest.mark.parametrize("name", sorted(CDE_SETS))
def test_cde_preset_reproduces_table_1_sizes(name, shared_datasets):
    if not (shared_datasets / name).is_dir():
        pytest.skip(f"{name} not in {shared_datasets}")
    d = load_dataset(name, data_dir=shared_datasets, preset="cde")
    rows, values = CDE_SETS[name]
    got = d.describe()
    assert (got["n_rows"], got["n_values"]) == (rows, values)
    assert "(paper:" not in d.summary()


def _folder(tmp_path, frame, kinds, target="y", name="toy"):
    folder = tmp_path / name
    folder.mkdir()
    frame.to_csv(folder / "data.csv", index=False)
    meta = {"name": name, "target": target, "columns": kinds}
    (folder / "meta.json").write_text(json.dumps(meta))
    return folder


@pytest.fixture
def toy(tmp_path):
    frame = pd.DataFrame({
        "id": [1, 2, 3, 4, 5],
        "a": ["x", "y", None, "x", "y"],
        "b": ["p", "p", "p", "p", "p"],
        "num": [1.0, 2.5, 3.0, None, 2.0],
        "split": ["train", "train", "test", "train", "test"],
        "y": ["u", "v", "u", "v", None],
    })
    kinds = {"id": "id", "a": "categorical", "b": "binary", "num": "numeric",
             "split": "split", "y": "target"}
    return _folder(tmp_path, frame, kinds)


def test_preset_rows_and_columns(toy):
    d = load_dataset(toy)
    # missing target rows always go; 'complete' drops a's missing row; b is constant
    c = apply_preset(d, "complete")
    assert list(c.frame.columns) == ["a", "y"]
    assert c.frame["a"].tolist() == ["x", "y", "x"]
    assert c.preset["dropped_constant"] == ["b"]
    # 'categorical': all rows, missing is a value
    a = apply_preset(d, "categorical")
    assert len(a.frame) == 4 and a.describe()["n_values"] == 3
    # rows complete in every feature, numeric included (as CDE did on Mammographic)
    cf = apply_preset(d, {"rows": "complete_features", "drop_constant": False})
    assert cf.frame["a"].tolist() == ["x", "y"] and list(cf.frame.columns) == ["a", "b", "y"]
    # numeric columns as categories, as text without a trailing .0
    r = apply_preset(d, "raw")
    assert r.frame["num"].tolist()[:3] == ["1", "2.5", "3"]
    assert r.column_kinds["num"] == "categorical"
    # a split
    s = apply_preset(d, {"split": "train", "rows": "all"})
    assert s.frame["a"].tolist() == ["x", "y", "x"]


def test_preset_errors(toy):
    d = load_dataset(toy)
    with pytest.raises(CatEmbedError, match="unknown preset 'nope'"):
        apply_preset(d, "nope")
    with pytest.raises(CatEmbedError, match="unknown preset key"):
        apply_preset(d, {"rowz": "all"})
    with pytest.raises(CatEmbedError, match="not in toy"):
        apply_preset(d, {"drop": ["zzz"]})
    with pytest.raises(CatEmbedError, match="rows"):
        apply_preset(d, {"rows": "some"})
    with pytest.raises(CatEmbedError, match="no attribute"):
        apply_preset(d, {"drop": ["a", "b"]})


def test_resolve_preset_merges_per_dataset_rules():
    assert "cde" in preset_names()
    spec = resolve_preset("cde", "hepatitis")
    assert spec["rows"] == "all" and spec["paper"] == "CDE" and spec["name"] == "cde"
    unseen = resolve_preset("cde", "some_new_set")
    assert unseen["rows"] == "complete" and unseen["drop"] == []


def test_summary_without_paper():
    s = load_dataset("lenses", preset="complete").summary()
    assert s == "lenses [preset complete]: 24 rows, 4 attributes, 9 values, 3 classes"
