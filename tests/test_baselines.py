"""The encoding baselines of CDE Table 1: one-hot (0-1), one-hot + PCA (0-1P), IDF."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.metrics import pairwise_distances
from sklearn.preprocessing import OneHotEncoder

from catembed import IDFEmbedder, OneHotEmbedder, OneHotPCA


def test_onehot_equals_scikit_learn(watermelon):
    ours = OneHotEmbedder().fit(watermelon)
    ref = OneHotEncoder(sparse_output=False).fit(watermelon)
    np.testing.assert_array_equal(ours.transform(watermelon), ref.transform(watermelon))
    assert list(ours.get_feature_names_out()) == list(ref.get_feature_names_out())


def test_onehot_pca_matches_pca_on_the_indicator_matrix(watermelon):
    onehot = OneHotEncoder(sparse_output=False).fit_transform(watermelon)
    ref = PCA(svd_solver="full").fit(onehot)
    rank = int(np.sum(ref.explained_variance_ > 1e-12))
    ours = OneHotPCA().fit(watermelon)
    Z = ours.transform(watermelon)
    assert ours.get_feature_names_out()[0] == "onehotpca0"
    assert Z.shape == (6, rank) == (6, 5)  # six centred rows span at most 5 dimensions
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_[:rank])
    # same scores up to the sign of each axis, hence the same distances
    np.testing.assert_allclose(np.abs(Z), np.abs(ref.transform(onehot)[:, :rank]), atol=1e-10)
    np.testing.assert_allclose(pairwise_distances(Z), pairwise_distances(onehot), atol=1e-10)


def test_onehot_pca_n_components_and_beta(watermelon):
    assert OneHotPCA(n_components=2).fit(watermelon).transform(watermelon).shape == (6, 2)
    with pytest.raises(ValueError, match="lower beta"):
        OneHotPCA(beta=10.0).fit(watermelon)


def test_idf_values(watermelon):
    idf = IDFEmbedder().fit(watermelon)
    Z = idf.transform(watermelon)
    # A1 = (clear, white, straight): counts 3, 1, 2 of 6
    np.testing.assert_allclose(Z[0], [math.log(2), math.log(6), math.log(3)])
    assert list(idf.get_feature_names_out()) == ["texture__idf", "color__idf", "root__idf"]


@pytest.mark.parametrize("cls", [OneHotEmbedder, OneHotPCA, IDFEmbedder])
def test_unseen_values_follow_handle_unknown(watermelon, cls):
    new = watermelon.iloc[:2].copy()
    new.iloc[0, 0] = "soft"
    with pytest.raises(ValueError, match="not seen during fit"):
        cls().fit(watermelon).transform(new)
    Z = cls(handle_unknown="ignore").fit(watermelon).transform(new)
    ref = cls().fit(watermelon).transform(watermelon.iloc[1:2])
    np.testing.assert_allclose(Z[1], ref[0])
    with pytest.warns(UserWarning, match="soft"):
        cls(handle_unknown="warn").fit(watermelon).transform(new)
