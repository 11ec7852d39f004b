"""The notebook plotting API (:mod:`catembed.plot`) and prince-style attributes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot  # noqa: E402  (the tests use matplotlib.pyplot directly)

import catembed  # noqa: E402
from catembed import plot  # noqa: E402


@pytest.fixture
def table():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 60)
    return pd.DataFrame({c: np.where(rng.random(60) < 0.8, y, rng.integers(0, 3, 60)).astype(str)
                         for c in "abcd"}), y


@pytest.mark.parametrize("cls", [catembed.CDE, catembed.OneHotPCA, catembed.OneHotEmbedder,
                                 catembed.IDFEmbedder])
def test_value_coordinates_sum_to_the_embedding(cls, table):
    X, _ = table
    model = cls().fit(X)
    vc = model.value_coordinates_
    assert list(vc.columns) == list(model.get_feature_names_out())
    assert len(vc) == model.stats_.n_values
    # an object's embedding is the sum of its values' coordinates
    rows = [vc.loc[[(c, X.at[i, c]) for c in X.columns]].sum().to_numpy() for i in range(5)]
    np.testing.assert_allclose(np.vstack(rows), model.transform(X.iloc[:5]), atol=1e-12)


def test_onehot_pca_inertia_like_prince(table):
    from sklearn.decomposition import PCA

    X, _ = table
    model = catembed.OneHotPCA().fit(X)
    onehot = pd.get_dummies(X).to_numpy(float)
    ref = PCA().fit(onehot)
    k = model.n_components_
    np.testing.assert_allclose(model.eigenvalues_, ref.explained_variance_[:k], rtol=1e-8)
    np.testing.assert_allclose(model.explained_inertia_, ref.explained_variance_ratio_[:k],
                               rtol=1e-8)


def test_plots_return_axes(table):
    X, y = table
    model = catembed.CDE(random_state=0).fit(X)
    ax = plot.values(model)
    assert isinstance(ax, matplotlib.axes.Axes)
    # the points, then one empty legend proxy per attribute
    assert sum(len(c.get_offsets()) for c in ax.collections) == model.stats_.n_values
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list("abcd")
    assert len(ax.texts) == model.stats_.n_values  # 12 values: every one labelled
    ax = plot.objects(model, X, labels=y)
    assert sum(len(c.get_offsets()) for c in ax.collections) == 60
    ax = plot.objects(model, X, method="tsne", max_rows=30)
    assert len(ax.collections[0].get_offsets()) == 30
    ax = plot.profiles(X, y, top=2)
    assert len(ax.patches) == 6  # 3 clusters x 2 values
    matplotlib.pyplot.close("all")


def test_project_2d_rejects_unknown_method():
    with pytest.raises(catembed.CatEmbedError, match="method"):
        plot.project_2d(np.zeros((4, 3)), "umap")


def test_place_labels_never_overlap():
    from catembed.map2d import place_labels

    rng = np.random.default_rng(1)
    anchors = rng.normal(size=(200, 2)) * 40 + 300  # a crowded blob
    sizes = np.column_stack([rng.uniform(30, 90, 200), np.full(200, 10.0)])
    spots = place_labels(anchors, sizes, range(200), bounds=(0, 0, 600, 600))
    assert 10 < len(spots) < 200  # some placed, the colliding ones skipped
    boxes = [(x, y, x + sizes[i, 0], y + sizes[i, 1]) for i, (x, y) in spots.items()]
    for k, a in enumerate(boxes):
        assert 0 <= a[0] and a[2] <= 600 and 0 <= a[1] and a[3] <= 600
        for b in boxes[k + 1:]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
    # the first of the order always gets its first spot (right, above)
    assert spots[0] == (anchors[0, 0] + 2.0, anchors[0, 1] + 2.0)
    assert len(place_labels(anchors, sizes, range(200), max_labels=5)) == 5


def test_robust_limits_zoom_on_the_bulk_and_mark_the_outliers():
    from catembed.map2d import robust_limits

    rng = np.random.default_rng(0)
    xy = np.vstack([rng.normal(size=(97, 2)), [[40.0, 0.0], [0.0, -30.0], [25.0, 25.0]]])
    limits, outside = robust_limits(xy)
    assert np.flatnonzero(outside).tolist() == [97, 98, 99]
    assert limits[0, 1] < 10 and limits[1, 0] > -10  # the bulk sets the axes
    limits, outside = robust_limits(xy[:97])  # nothing extreme: the full range
    assert not outside.any()
    assert limits[0, 0] < xy[:97, 0].min() and limits[0, 1] > xy[:97, 0].max()


def _label_boxes(ax):
    fig = ax.figure
    renderer = fig.canvas.get_renderer()
    return [t.get_window_extent(renderer) for t in ax.texts if t.get_gid() == "value-label"]


def test_value_map_labels_fit_and_outliers_are_marked():
    # 60 values of one crowded column, 3 rare ones: the values beyond the zoomed axes are
    # drawn at the edge as triangles and labelled; no two labels overlap, none leaves the axes
    rng = np.random.default_rng(0)
    n = 3000
    a = rng.integers(0, 30, n).astype(str)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 30, n).astype(str))
    X = pd.DataFrame({"a": a, "b": b, "c": rng.choice(list("pq"), n)})
    X.loc[:2, "a"] = ["rare1", "rare2", "rare3"]
    model = catembed.OneHotPCA().fit(X)
    fig, ax = matplotlib.pyplot.subplots(figsize=(7, 5))
    plot.values(model, ax=ax, max_labels=25)
    fig.canvas.draw()
    boxes = _label_boxes(ax)
    assert 5 <= len(boxes) <= 25
    for k, p in enumerate(boxes):
        for q in boxes[k + 1:]:
            assert not p.overlaps(q)
    frame = ax.get_window_extent()
    assert all(frame.x0 - 1 <= p.x0 and p.x1 <= frame.x1 + 1 for p in boxes)
    outliers = [c for c in ax.collections if c.get_gid() == "outlier"]
    assert outliers, "extreme values are drawn at the edge"
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    for c in outliers:
        (x, y), = c.get_offsets()
        assert xlim[0] <= x <= xlim[1] and ylim[0] <= y <= ylim[1]
    assert "beyond the axes" in " ".join(t.get_text() for t in ax.get_legend().get_texts())
    # every value beyond the axes is labelled (the rare values lie at 0 on the first axis,
    # which the column c carries: they were "beyond" only while the zoom drew rounding noise)
    anchors = {tuple(np.round(t.xy, 12)) for t in ax.texts if t.get_gid() == "value-label"}
    assert all(tuple(np.round(c.get_offsets()[0], 12)) in anchors for c in outliers)
    matplotlib.pyplot.close("all")


def test_profiles_fit_and_say_class(table, tmp_path):
    X, y = table
    ax = plot.profiles(X, y, top=3, kind="class")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels and all(t.startswith("class ") for t in labels)
    assert "class" in ax.get_xlabel() and ax.get_title().startswith("Class profiles")
    fig = ax.figure
    fig.savefig(tmp_path / "p.png")  # as the tutorial saves it: no bbox_inches
    renderer = fig.canvas.get_renderer()
    for t in ax.get_yticklabels():
        assert t.get_window_extent(renderer).x0 >= 0  # inside the figure, not clipped
    with pytest.raises(catembed.CatEmbedError, match="kind"):
        plot.profiles(X, y, kind="group")
    matplotlib.pyplot.close("all")
