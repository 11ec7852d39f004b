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
    # one disc per distinct (row, class): identical rows share a point
    (discs,) = [c for c in ax.collections if c.get_gid() == "objects"]
    assert len(discs.get_offsets()) == len(X.assign(y=y).drop_duplicates())
    ax = plot.objects(model, X, method="tsne", max_rows=30)
    assert "30 of 60 rows" in ax.get_title()
    ax = plot.profiles(X, y, top=2)
    assert len(ax.patches) == 6  # 3 clusters x 2 values
    matplotlib.pyplot.close("all")


def test_project_2d_rejects_unknown_method():
    with pytest.raises(catembed.CatEmbedError, match="method"):
        plot.project_2d(np.zeros((4, 3)), "umap")


def test_place_labels_never_overlap():
    from catembed.plot.map2d import place_labels

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
    from catembed.plot.map2d import robust_limits

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
    labelled = {t.get_text() for t in ax.texts}
    assert outliers, "extreme values are drawn at the edge"
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    for c in outliers:
        (x, y), = c.get_offsets()
        assert xlim[0] <= x <= xlim[1] and ylim[0] <= y <= ylim[1]
    assert "beyond the axes" in " ".join(t.get_text() for t in ax.get_legend().get_texts())
    # the values beyond the axes are labelled first (the rare values, held by one row each,
    # no longer set the axes: they carry no coupling between columns)
    at = {tuple(np.round(t.xy, 9)) for t in ax.texts if t.get_gid() == "value-label"}
    assert all(tuple(np.round(c.get_offsets()[0], 9)) in at for c in outliers)
    assert not {"a=rare1", "a=rare2", "a=rare3"} & labelled
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


# --- issue 41: value maps that show structure, object maps that show every class ----------


def _penguins_like(n=330, seed=0):
    """Species drive the island and four binned measurements; sex and year are independent
    of everything (as in palmerpenguins, where year took an axis of the value map)."""
    rng = np.random.default_rng(seed)
    species = rng.integers(0, 3, n)
    cols = {"island": np.where(rng.random(n) < 0.8, np.array(["Biscoe", "Dream", "Torgersen"])
                               [species], rng.choice(["Biscoe", "Dream", "Torgersen"], n))}
    for k, name in enumerate(["bill_length_mm", "bill_depth_mm", "flipper_length_mm",
                              "body_mass_g"]):
        x = species * (1.5 + 0.3 * k) + rng.normal(size=n)
        edges = np.quantile(x, [0.2, 0.4, 0.6, 0.8])
        cols[name] = np.array([f"b{i}" for i in range(5)])[np.searchsorted(edges, x)]
    cols["sex"] = rng.choice(["female", "male"], n)
    cols["year"] = rng.choice(["2007", "2008", "2009"], n)
    return pd.DataFrame(cols)


def _zoo_like(n=101, seed=0):
    """Seven animal types each with its own profile of 16 yes/no attributes (noisy)."""
    rng = np.random.default_rng(seed)
    kind = rng.integers(0, 7, n)
    profile = rng.random((7, 16)) < 0.5
    flip = rng.random((n, 16)) < 0.08
    names = ["hair", "feathers", "eggs", "milk", "airborne", "aquatic", "predator", "toothed",
             "backbone", "breathes", "venomous", "fins", "legs", "tail", "domestic", "catsize"]
    return pd.DataFrame((profile[kind] ^ flip).astype(int).astype(str), columns=names)


def _text_boxes(ax):
    renderer = ax.figure.canvas.get_renderer()
    return [t.get_window_extent(renderer) for t in ax.texts if t.get_gid() == "value-label"]


@pytest.mark.parametrize("make", [_penguins_like, _zoo_like])
@pytest.mark.parametrize("cls", [catembed.CDE, catembed.OneHotPCA])
def test_value_map_labels_never_overlap(make, cls):
    X = make()
    model = cls(**({"random_state": 0} if cls is catembed.CDE else {})).fit(X)
    fig, ax = matplotlib.pyplot.subplots(figsize=(8, 6.5))
    plot.values(model, ax=ax)
    fig.canvas.draw()
    boxes = _text_boxes(ax)
    assert len(boxes) >= 12
    for k, p in enumerate(boxes):
        for q in boxes[k + 1:]:
            assert not p.overlaps(q), (p, q)
    # no label covers the centre of another value's marker
    renderer = fig.canvas.get_renderer()
    centres = np.vstack([ax.transData.transform(np.asarray(c.get_offsets()))
                         for c in ax.collections if len(c.get_offsets())])
    for t in ax.texts:
        if t.get_gid() != "value-label":
            continue
        box = t.get_window_extent(renderer)
        own = ax.transData.transform([t.xy])[0]
        inside = ((centres[:, 0] > box.x0) & (centres[:, 0] < box.x1)
                  & (centres[:, 1] > box.y0) & (centres[:, 1] < box.y1))
        assert np.all(np.abs(centres[inside] - own).max(axis=1, initial=0) < 1e-6)
    frame = ax.get_window_extent(renderer)
    assert all(frame.x0 - 1 <= p.x0 and p.x1 <= frame.x1 + 1 and frame.y0 - 1 <= p.y0
               and p.y1 <= frame.y1 + 1 for p in boxes)
    matplotlib.pyplot.close("all")


def test_value_map_axes_carry_the_couplings_not_an_independent_column():
    # before issue 41 the year (independent of every other column) took the first axis
    from catembed.plot.map2d import column_dependence, coupling_axes

    X = _penguins_like()
    model = catembed.CDE(random_state=0).fit(X)
    coords = model.value_coordinates_
    xy, share = coupling_axes(coords.to_numpy(), model.stats_)
    assert share[0] > share[1] > 0 and share.sum() <= 1 + 1e-12
    cols = coords.index.get_level_values(0)
    spread = {c: float(np.abs(xy[cols == c]).max()) for c in X.columns}
    biggest = max(spread.values())
    assert spread["year"] < 0.2 * biggest and spread["sex"] < 0.2 * biggest
    assert spread["island"] > 0.5 * biggest
    dependence = dict(zip(model.stats_.feature_names, column_dependence(model.stats_),
                          strict=True))
    assert dependence["year"] < 0.1 and dependence["sex"] < 0.1
    assert min(dependence[c] for c in X.columns[:5]) > 0.3
    # the plot fades the two independent columns and says what each axis carries
    ax = plot.values(model)
    (faded,) = [c for c in ax.collections if c.get_gid() == "faded"]
    assert len(faded.get_offsets()) == 5 and faded.get_alpha() < 0.5
    assert "of the coupling between columns" in ax.get_xlabel()
    assert "faded" in ax.get_title()
    matplotlib.pyplot.close("all")


def test_coupling_axes_fall_back_to_the_spread_without_coupling():
    # one column: no coupling between columns; the axes are the values' spread
    from catembed.plot.map2d import coupling_axes

    X = pd.DataFrame({"a": list("xxxyyz")})
    model = catembed.OneHotPCA().fit(X)
    xy, share = coupling_axes(model.value_coordinates_.to_numpy(), model.stats_)
    assert share.tolist() == [0.0, 0.0]
    assert np.ptp(xy[:, 0]) > 0 and np.isfinite(xy).all()
    ax = plot.values(model)
    assert "no coupling" in ax.get_xlabel()
    matplotlib.pyplot.close("all")


def test_object_map_shows_every_class_on_a_shared_point():
    # a Titanic in miniature: 7 rows "no" and 2 "yes" on one point, 1 "yes" elsewhere;
    # before issue 41 the "yes" dots were drawn over the "no" ones, all of one size
    X = pd.DataFrame({"class": ["3rd"] * 9 + ["1st"], "sex": ["man"] * 9 + ["woman"]})
    y = ["no"] * 7 + ["yes"] * 3
    model = catembed.OneHotEmbedder().fit(X)
    ax = plot.objects(model, X, labels=y)
    (discs,) = [c for c in ax.collections if c.get_gid() == "objects"]
    xy = discs.get_offsets()
    sizes = discs.get_sizes()
    colours = [matplotlib.colors.to_hex(c) for c in discs.get_facecolors()]
    no, yes = (matplotlib.colors.to_hex(c) for c in plot.palette(2))
    assert len(xy) == 3
    assert np.allclose(xy[0], xy[1]) and not np.allclose(xy[0], xy[2])
    assert colours == [no, yes, yes]  # the larger disc first, the smaller on top
    np.testing.assert_allclose(sizes, [400.0, 400.0 * 2 / 7, 400.0 / 7])
    assert "largest 7 rows" in ax.get_xlabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["no", "yes"]
    matplotlib.pyplot.close("all")


def test_stacked_points_count_rows_per_point_and_group():
    xy = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 0.0], [0.0, 1e-12], [1.0, 1.0]])
    where, count, group = plot.stacked_points(xy, np.array([0, 1, 1, 0, 1]))
    assert count.tolist() == [2, 2, 1] and group.tolist() == [0, 1, 1]
    assert where.tolist() == [[0.0, 0.0], [1.0, 1.0], [0.0, 0.0]]


def test_profiles_bin_numbers_as_the_report_does():
    from catembed.stats._numeric import bin_numbers

    rng = np.random.default_rng(0)
    flipper = np.round(rng.normal(200, 14, 120))
    X = pd.DataFrame({"island": rng.choice(["Biscoe", "Dream"], 120),
                      "flipper_length_mm": flipper, "alive": rng.random(120) < 0.5})
    groups = np.where(flipper > 205, "big", "small")
    ax = plot.profiles(X, groups, top=3, kind="class")
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    flips = [t.split(": ", 1)[1] for t in ticks if "flipper_length_mm=" in t]
    binned = set(bin_numbers(flipper, 5))
    assert flips and all(f.split("=", 1)[1] in binned for f in flips)
    assert not any(f.endswith(".0") for f in flips)  # no single raw number
    # n_bins=None keeps each number as a value of its own
    raw = catembed.stats._profiles.cluster_profiles(X, groups, n_bins=None)
    assert set(raw.loc[raw["attribute"] == "flipper_length_mm", "value"]) <= set(
        map(str, flipper))
    with pytest.raises(catembed.CatEmbedError, match="n_bins"):
        plot.profiles(X, groups, n_bins=1)
    matplotlib.pyplot.close("all")
