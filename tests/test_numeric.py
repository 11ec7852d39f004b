"""The numeric-column policy every embedder shares: drop, discretize, passthrough."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CDE, CatEmbedError, CatEmbedWarning, IDFEmbedder, OneHotEmbedder
from catembed.base import ValueEmbedder
from catembed.stats._numeric import bin_labels


@pytest.fixture
def mixed():
    return pd.DataFrame({
        "color": list("rgbrgbrgbr"),
        "size": [1.0, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        "count": [3, 1, 4, 1, 5, 9, 2, 6, 5, 3],
    })


def test_bin_labels_by_hand():
    x = np.array([0.0, 2.0, 2.5, 7.0, 9.0, np.nan])
    labels = bin_labels(x, np.array([2.0, 7.0]))
    assert list(labels[:5]) == ["b0: <= 2", "b0: <= 2", "b1: (2, 7]", "b1: (2, 7]", "b2: > 7"]
    assert pd.isna(labels[5])


def test_drop_warns_and_names_the_options(mixed):
    with pytest.warns(CatEmbedWarning, match="size, count.*numeric='discretize'"):
        enc = IDFEmbedder().fit(mixed)
    assert list(enc.feature_names_) == ["color"]
    assert list(enc.numeric_features_) == []


def test_discretize_embeds_quantile_bins_as_values(mixed):
    enc = OneHotEmbedder(numeric="discretize", n_bins=2).fit(mixed)
    assert list(enc.feature_names_) == ["color", "size", "count"]
    np.testing.assert_array_equal(enc.numeric_bins_["size"], [5.5])
    assert list(enc.categories_[1]) == ["b0: <= 5.5", "b1: > 5.5"]
    Z = enc.transform(pd.DataFrame({"color": ["r"], "size": [100.0], "count": [0]}))
    assert list(Z[0]) == [0, 0, 1, 0, 1, 1, 0]
    assert "size_b1: > 5.5" in list(enc.get_feature_names_out())


def test_discretize_missing_numbers_follow_handle_missing():
    X = pd.DataFrame({"c": list("abab"), "x": [1.0, np.nan, 3.0, 4.0]})
    enc = IDFEmbedder(numeric="discretize", n_bins=2).fit(X)
    assert pd.isna(enc.categories_[1][-1])  # NaN is a value of its own
    with pytest.raises(CatEmbedError, match="missing"):
        IDFEmbedder(numeric="discretize", handle_missing="error").fit(X)


def test_passthrough_appends_standardised_columns(mixed):
    enc = IDFEmbedder(numeric="passthrough").fit(mixed)
    Z = enc.transform(mixed)
    assert list(enc.get_feature_names_out()) == ["color__idf", "size", "count"]
    size = mixed["size"].to_numpy()
    np.testing.assert_allclose(Z[:, 1], (size - size.mean()) / size.std())
    new = pd.DataFrame({"color": ["g"], "size": [np.nan], "count": [3.9]})
    np.testing.assert_allclose(enc.transform(new)[0, 1:], [0.0, 0.0], atol=1e-12)
    out = enc.set_output(transform="pandas").transform(mixed)
    assert list(out.columns) == ["color__idf", "size", "count"]


def test_cde_on_mixed_data(mixed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        cde = CDE(random_state=0, numeric="discretize", n_bins=3).fit(mixed)
    assert cde.stats_.n_values == 3 + 3 + 3
    assert cde.transform(mixed).shape == (10, 3 * cde.n_components_)


@pytest.mark.parametrize("policy", ["discretize", "passthrough"])
def test_numeric_policy_survives_save_load(tmp_path, mixed, policy):
    enc = IDFEmbedder(numeric=policy, n_bins=3).fit(mixed)
    enc.save(tmp_path / "m.npz")
    back = ValueEmbedder.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.transform(mixed), enc.transform(mixed))
    assert list(back.get_feature_names_out()) == list(enc.get_feature_names_out())


def test_bad_numeric_options(mixed):
    with pytest.raises(ValueError, match="numeric"):
        IDFEmbedder(numeric="bin").fit(mixed)
    with pytest.raises(ValueError, match="n_bins"):
        IDFEmbedder(numeric="discretize", n_bins=1).fit(mixed)


def test_passthrough_names_missing_numbers(mixed):
    """issue 37 item 9: a missing number became the column mean without a word."""
    df = mixed.copy()
    df.loc[[2, 5], "size"] = np.nan
    with pytest.warns(CatEmbedWarning, match=r"missing numbers: size \(2 of 10 rows\)\.") as rec:
        est = OneHotEmbedder(numeric="passthrough").fit(df)
    assert not any("count" in str(w.message) for w in rec)
    # as it says: the missing number is the mean, 0 once standardised
    names = list(est.get_feature_names_out())
    assert est.transform(df.iloc[[2]])[0, names.index("size")] == 0
    with pytest.warns(CatEmbedWarning, match=r"size \(2 of 10 rows\)"):  # streamed fit too
        OneHotEmbedder(numeric="passthrough").fit_chunks(
            lambda: (df.iloc[i:i + 4] for i in range(0, 10, 4)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        OneHotEmbedder(numeric="passthrough").fit(mixed)
        OneHotEmbedder(numeric="discretize").fit(df)
