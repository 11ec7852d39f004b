"""The notebook plotting API (:mod:`catembed.plot`) and prince-style attributes."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

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
    assert len(ax.collections) == 4  # one scatter per attribute
    assert len(ax.texts) == model.stats_.n_values  # every value labelled
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
