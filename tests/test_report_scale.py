"""The report on a many-valued column (issue 37.7): profiles linear in rows + values x
clusters, the value maps capped at their most frequent values."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd
import pytest

from catembed.datasets import load_dataset
from catembed.stats._profiles import cluster_profiles


def _reference_profiles(X, clusters, *, top=5, min_support=0.05):
    """The definition, cell by cell over pandas' crosstab (the former implementation)."""
    labels = np.asarray(clusters)
    rows = []
    sizes = pd.Series(labels).value_counts()
    for col in X.columns:
        values = X[col].astype(object).where(X[col].notna(), "(missing)").astype(str)
        table = pd.crosstab(values.to_numpy(), labels)
        overall = table.sum(axis=1) / len(X)
        share = table / sizes.reindex(table.columns).to_numpy()[None, :]
        lift = share.div(overall, axis=0)
        for c in table.columns:
            for v in table.index:
                rows.append((c, int(sizes[c]), str(col), v, float(share.at[v, c]),
                             float(overall[v]), float(lift.at[v, c])))
    out = pd.DataFrame(rows, columns=["cluster", "size", "attribute", "value", "in_cluster",
                                      "overall", "lift"])
    out = out[out["in_cluster"] >= min_support]
    out = out.sort_values(["cluster", "lift", "in_cluster"], ascending=[True, False, False],
                          kind="stable")
    return out.groupby("cluster", sort=True).head(top).reset_index(drop=True)


@pytest.mark.parametrize("name", ["zoo", "soybean_small", "lenses"])
def test_profiles_equal_the_cell_by_cell_definition(name):
    X = load_dataset(name).features
    rng = np.random.default_rng(0)
    for labels in (rng.integers(0, 4, len(X)), np.array(list("bac"))[rng.integers(0, 3, len(X))],
                   np.where(rng.random(len(X)) < 0.1, np.nan, rng.integers(0, 3, len(X)))):
        for top, support in ((5, 0.05), (3, 0.0), (0, 0.05), (-2, 0.0), (5, 2.0)):
            pd.testing.assert_frame_equal(
                cluster_profiles(X, labels, top=top, min_support=support),
                _reference_profiles(X, labels, top=top, min_support=support),
                check_exact=True)


def test_profiles_with_missing_values_and_ties():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"a": rng.choice(["x", "y", None, "(missing)"], 200),
                      "b": rng.choice(["1", "2"], 200), "c": ["same"] * 200})
    labels = rng.integers(0, 5, 200)
    pd.testing.assert_frame_equal(cluster_profiles(X, labels, top=4, min_support=0.0),
                                  _reference_profiles(X, labels, top=4, min_support=0.0),
                                  check_exact=True)


def test_profiles_of_a_30000_value_column_take_a_moment():
    # 30,000 distinct values x 8 clusters: the cell-by-cell loop took about 30 s, the
    # counts by one bincount take a fraction of a second
    n = 30_000
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"id": [f"v{i}" for i in rng.permutation(n)],
                      "colour": rng.choice(["red", "green", "blue"], n)})
    labels = rng.integers(0, 8, n)
    t = time.perf_counter()
    prof = cluster_profiles(X, labels, top=5)
    assert time.perf_counter() - t < 5.0
    # each value of "id" is in one row: share 1/size, below the 5 % support; colour remains
    assert set(prof["attribute"]) == {"colour"}
    assert prof.groupby("cluster").size().tolist() == [3] * 8


def test_value_maps_draw_the_most_frequent_values():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from catembed import plot
    from catembed.embed import IDFEmbedder

    rng = np.random.default_rng(0)
    n = 3000
    X = pd.DataFrame({"id": [f"v{i // 2}" for i in range(n)],  # 1,500 values, 2 rows each
                      "colour": rng.choice(["red", "green", "blue"], n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = IDFEmbedder().fit(X)
    assert len(est.value_coordinates_) == 1503
    fig, ax = plt.subplots()
    plot.values(est, ax=ax, max_points=200, neighbours=True)
    drawn = sum(len(c.get_offsets()) for c in ax.collections)
    assert drawn == 200  # the three colours and 197 of the 1,500 ids (ties: first ones)
    assert "the 200 most frequent of 1,503 values" in ax.get_xlabel()
    assert {t.get_text().split("=")[0] for t in ax.texts} <= {"id", "colour"}
    plt.close(fig)
    with pytest.raises(ValueError, match="max_points"):
        plot.values(est, max_points=0)


def test_report_notes_the_value_map_cap(monkeypatch):
    pytest.importorskip("matplotlib")
    from catembed import report
    from catembed.embed import IDFEmbedder

    monkeypatch.setattr(report, "MAP_VALUES", 10)
    X = load_dataset("zoo").features
    data = report.build_report(X, method="idf", n_clusters=3, quiet=True, consensus=False)
    points = data.value_points
    assert len(points["x"]) == len(points["value"]) == len(points["count"]) == 10
    counts = np.asarray(IDFEmbedder().fit(X).stats_.counts)
    assert sorted(points["count"]) == sorted(counts)[-10:]  # the most frequent
    assert any("the 10 most frequent of the" in note for note in data.notes)
