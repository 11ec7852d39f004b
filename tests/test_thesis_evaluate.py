"""``catembed evaluate --numeric passthrough`` (issue 20, part B): numbers kept as
standardised numbers for the mixed-type methods."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from catembed.cli import main
from catembed.evaluation.inputs import load_input


def _mixed_csv(tmp_path):
    rng = np.random.default_rng(0)
    n = 60
    y = rng.integers(0, 2, n)
    frame = pd.DataFrame({
        "colour": np.where(rng.random(n) < 0.8, np.where(y == 1, "red", "blue"), "green"),
        "shape": rng.choice(["round", "square"], n),
        "size": rng.normal(10 * y, 1.0).round(2),
        "weight": rng.normal(100, 15, n).round(1),
        "y": y,
    })
    path = tmp_path / "mixed.csv"
    frame.to_csv(path, index=False)
    return path


def _scores(path, capsys, *extra):
    code = main(["evaluate", str(path), "--target", "y", "--runs", "2", "--json",
                 "--methods", "mca,famd", *extra])
    out, _ = capsys.readouterr()
    assert code == 0
    return {r["method"]: r for r in json.loads(out)["results"]}


def test_passthrough_keeps_standardised_numbers(tmp_path):
    data = load_input(str(_mixed_csv(tmp_path)), "y", None, numeric="passthrough")
    assert data.column_kinds["size"] == "numeric" and data.column_kinds["weight"] == "numeric"
    for c in ("size", "weight"):
        x = data.features[c].to_numpy(dtype=float)
        assert abs(x.mean()) < 1e-9 and abs(x.std() - 1) < 1e-9
    assert not pd.api.types.is_numeric_dtype(data.features["colour"])


def test_famd_differs_from_mca_with_passthrough(tmp_path, capsys):
    path = _mixed_csv(tmp_path)
    mixed = _scores(path, capsys, "--numeric", "passthrough")
    assert mixed["famd"]["nmi_mean"] != mixed["mca"]["nmi_mean"]


def test_passthrough_runs_kprototypes_and_a_deep_clusterer(tmp_path, capsys):
    path = _mixed_csv(tmp_path)
    code = main(["evaluate", str(path), "--target", "y", "--runs", "1", "--json",
                 "--numeric", "passthrough", "--methods", "kprototypes,deep-ae-kmeans"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert all(r["status"] == "ok" for r in json.loads(out)["results"])
