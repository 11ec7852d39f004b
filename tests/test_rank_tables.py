"""studies/rank_tables.py pools bench JSON of several tables (issue 26 acceptance)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[1] / "studies" / "rank_tables.py"
_spec = importlib.util.spec_from_file_location("_catembed_rank_tables", _PATH)
rank_tables = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(rank_tables)


def _cell(method, score, clusterer="kmeans", status="ok"):
    return {"ours": {"method": method, "clusterer": clusterer, "status": status,
                     "nmi_mean": score}}


def _doc(table, rows):
    return {"table": table, "metric": "nmi", "runs": 5,
            "rows": [{"dataset": ds, "status": "ok", "cells": cells} for ds, cells in rows]}


DOCS = [
    _doc("t1", [  # three columns; on s2 the labels-method consensus fails
        ("s1", {"CDE": _cell("cde", 0.50), "IDF": _cell("idf", 0.20),
                "Consensus": _cell("consensus", 0.48, "consensus")}),
        ("s2", {"CDE": _cell("cde", 0.30), "IDF": _cell("idf", 0.40),
                "Consensus": _cell("consensus", 0.0, "consensus", status="error")}),
    ]),
    _doc("t2", [  # another table: "CDE-G" is cde with the spectral clusterer
        ("s1", {"CDE-G": _cell("cde", 0.70, "spectral"), "MCA": _cell("mca", 0.60),
                "Consensus": _cell("consensus", 0.65, "consensus"),
                "k-means": _cell("naive-kmeans", 0.10)}),
    ]),
]


def test_pooled_ranks_and_counts():
    tables = rank_tables.read_runs(DOCS)
    sets = rank_tables.set_rows(tables)
    assert [(s["table"], s["dataset"], len(s["labels"])) for s in sets] == [
        ("t1", "s1", 3), ("t1", "s2", 2), ("t2", "s1", 4)]
    got = {a["method"]: a for a in rank_tables.pooled(sets)}
    # t1/s1: cde 1, consensus 2, idf 3; t1/s2: idf 1, cde 2; t2/s1: cde+spectral 1,
    # consensus 2, mca 3, naive-kmeans 4
    assert got["consensus"]["ranks"] == [2.0, 2.0] and got["consensus"]["mean_rank"] == 2.0
    assert got["cde"]["ranks"] == [1.0, 2.0] and got["cde+spectral"]["sets"] == 1
    assert got["idf"]["ranks"] == [3.0, 1.0]
    assert got["consensus"]["mean_scaled"] == pytest.approx((1 / 2 + 1 / 3) / 2)
    # bottom third: rank > 2n/3 -> idf on t1/s1 (3 > 2), cde on t1/s2 (2 > 4/3),
    # naive-kmeans on t2/s1 (4 > 8/3); mca's 3 > 8/3 too
    assert {m: a["bottom"] for m, a in got.items()} == {
        "cde": 1, "idf": 1, "consensus": 0, "cde+spectral": 0, "mca": 1, "naive-kmeans": 1}
    # within 0.05 of the set's best: consensus 0.48 vs 0.50 and 0.65 vs 0.70
    assert got["consensus"]["near"] == 2 and got["mca"]["near"] == 0
    assert got["cde"]["near"] == 1  # 0.30 is 0.10 below idf's 0.40 on t1/s2
    assert [a["method"] for a in rank_tables.pooled(sets)][:2] == ["cde+spectral", "cde"]


def test_focus_rows_and_main(tmp_path, capsys):
    sets = rank_tables.set_rows(rank_tables.read_runs(DOCS))
    rows = rank_tables.focus_rows(sets, "Consensus")
    assert [(r["table"], r["best"], r["rank"], r["columns"]) for r in rows] == [
        ("t1", "CDE", 2.0, 3), ("t2", "CDE-G", 2.0, 4)]
    assert rows[0]["gap"] == pytest.approx(-0.02) and rows[1]["gap"] == pytest.approx(-0.05)
    paths = []
    for i, d in enumerate(DOCS):
        paths.append(str(tmp_path / f"run{i}.json"))
        Path(paths[-1]).write_text(json.dumps(d))
    rank_tables.main([*paths, "--focus", "Consensus"])
    out = capsys.readouterr().out
    assert "| consensus | Consensus | 2 | 2.00 | 0.42 | 0 | 2 |" in out
    assert "| t2 | s1 | 0.650 | CDE-G | 0.700 | -0.050 | 2 / 4 |" in out
    assert "| t1 | nmi | 5 | 1 | CDE 1.00 (0.500), Consensus 2.00 (0.480), IDF 3.00 (0.200) |" \
        in out


def test_portfolio_ceiling_picks_the_best_member_with_labels(tmp_path, capsys):
    sets = rank_tables.set_rows(rank_tables.read_runs(DOCS))
    rows = rank_tables.portfolio_ceiling(sets, {"idf", "mca"}, exclude="Consensus")
    # t1/s1: idf 0.20 (rank 3 of 3, bottom third), best other than Consensus is CDE 0.50;
    # t1/s2: idf 0.40 is the best; t2/s1: mca 0.60, 0.10 below CDE-G's 0.70 (rank 3 of 4)
    assert [(r["dataset"], r["pick"], r["best"], r["rank"], r["bottom"], r["near"])
            for r in rows] == [("s1", "IDF", "CDE", 3.0, True, False),
                               ("s2", "IDF", "IDF", 1.0, False, True),
                               ("s1", "MCA", "CDE-G", 3.0, True, False)]
    # without exclude the combination itself can be the set's best column
    solo = rank_tables.portfolio_ceiling(sets, {"consensus"})
    assert [(r["pick"], r["best"]) for r in solo] == [("Consensus", "CDE"),
                                                       ("Consensus", "CDE-G")]
    paths = []
    for i, d in enumerate(DOCS):
        paths.append(str(tmp_path / f"run{i}.json"))
        Path(paths[-1]).write_text(json.dumps(d))
    rank_tables.main([*paths, "--portfolio", "idf,mca", "--exclude", "Consensus"])
    out = capsys.readouterr().out
    assert ("Best of idf,mca per set, picked with the labels: 3 sets, bottom third on 2, "
            "within 0.05 of the best column but Consensus on 1.") in out
    assert "| t2 | s1 | CDE-G | 0.700 | MCA | 0.600 | 3 / 4 |" in out
