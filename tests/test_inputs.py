"""Awkward inputs: missing values, unseen values, constant and ID-like columns, dtypes."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CDE, CatEmbedError, CatEmbedWarning, IDFEmbedder, OneHotEmbedder


def test_nan_none_and_empty_string_are_one_missing_value():
    X = pd.DataFrame({"a": ["x", None, "", np.nan, "x", "y"], "b": list("uuvvuv")})
    enc = OneHotEmbedder().fit(X)
    assert len(enc.categories_[0]) == 3 and pd.isna(enc.categories_[0][-1])
    Z = enc.transform(X)
    np.testing.assert_array_equal(Z[1:4, :3], [[0, 0, 1]] * 3)
    with pytest.raises(CatEmbedError, match="missing"):
        OneHotEmbedder(handle_missing="error").fit(X)


def test_missing_at_transform_only_is_unseen():
    X = pd.DataFrame({"a": list("xyxy"), "b": list("uuvv")})
    new = pd.DataFrame({"a": [None, "x"], "b": ["u", "v"]})
    with pytest.raises(CatEmbedError, match="not seen during fit"):
        IDFEmbedder().fit(X).transform(new)
    Z = IDFEmbedder(handle_unknown="ignore").fit(X).transform(new)
    assert Z[0, 0] == 0.0 and Z[1, 0] == pytest.approx(np.log(2))


def test_constant_column_is_dropped_with_a_warning():
    X = pd.DataFrame({"a": list("xyxy"), "k": ["c"] * 4, "b": list("uuvv")})
    with pytest.warns(CatEmbedWarning, match="single value.*k"):
        enc = IDFEmbedder().fit(X)
    assert list(enc.feature_names_) == ["a", "b"]
    assert list(enc.dropped_features_) == ["k"]
    assert enc.transform(X).shape == (4, 2)  # the constant column is accepted and ignored


def test_all_constant_is_an_error():
    with pytest.raises(CatEmbedError, match="single value"):
        IDFEmbedder().fit(pd.DataFrame({"a": ["x"] * 3}))


def test_id_like_column_warns():
    X = pd.DataFrame({"id": [f"r{i}" for i in range(20)], "a": list("xy") * 10})
    with pytest.warns(CatEmbedWarning, match="identifiers.*--drop"):
        IDFEmbedder().fit(X)


def test_one_row_is_an_error():
    with pytest.raises(ValueError, match="1 sample"):
        IDFEmbedder().fit(pd.DataFrame({"a": ["x"], "b": ["y"]}))


def test_numeric_columns_are_dropped_with_a_warning():
    X = pd.DataFrame({"a": list("xyxy"), "n": [1.5, 2.0, 3.0, 4.0]})
    with pytest.warns(CatEmbedWarning, match="non-categorical.*n"):
        enc = IDFEmbedder().fit(X)
    assert list(enc.feature_names_) == ["a"]
    enc = IDFEmbedder(categorical_features=["a", "n"]).fit(X)
    assert list(enc.feature_names_) == ["a", "n"]


def test_all_numeric_auto_treats_every_column_as_categorical():
    X = np.array([[1, 2], [1, 3], [2, 3], [2, 2]])
    Z = OneHotEmbedder().fit_transform(X)
    assert Z.shape == (4, 4)


def test_category_bool_and_unicode_columns():
    X = pd.DataFrame({
        "cat": pd.Categorical(["é", "ß", "é", "日本"]),
        "flag": [True, False, True, True],
        "txt": ["α", "β", "α", "β"],
    })
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        enc = OneHotEmbedder(categorical_features="all").fit(X)
    assert [list(c) for c in enc.categories_][0] == ["ß", "é", "日本"]  # code-point order
    assert enc.transform(X).shape == (4, 7)
    assert "cat_日本" in list(enc.get_feature_names_out())


def test_row_order_and_index_are_kept():
    X = pd.DataFrame({"a": list("xyzx"), "b": list("uvvu")}, index=[40, 10, 30, 20])
    enc = IDFEmbedder().set_output(transform="pandas").fit(X)
    out = enc.transform(X.iloc[::-1])
    assert list(out.index) == [20, 30, 10, 40]
    assert out.loc[10, "a__idf"] == pytest.approx(np.log(4))


def test_column_names_checked_at_transform():
    X = pd.DataFrame({"a": list("xyxy"), "b": list("uuvv")})
    enc = IDFEmbedder().fit(X)
    with pytest.raises(ValueError):
        enc.transform(X.rename(columns={"b": "c"}))


def test_duplicate_column_names_are_refused():
    X = pd.DataFrame([["x", "y"], ["y", "x"]], columns=["a", "a"])
    with pytest.raises(CatEmbedError, match="duplicate"):
        IDFEmbedder().fit(X)


def test_cde_handles_unseen_values_as_zero_vectors():
    X = pd.DataFrame({"a": list("xyzxyzxy"), "b": list("uuvvuuvw")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        cde = CDE(random_state=0, handle_unknown="ignore").fit(X)
    Z = cde.transform(pd.DataFrame({"a": ["q"], "b": ["u"]}))
    r = cde.n_components_
    np.testing.assert_array_equal(Z[0, :r], 0.0)
    np.testing.assert_allclose(Z[0, r:], cde.value_embedding_.loc[("b", "u")].to_numpy())


def test_integer_column_labels():
    X = pd.DataFrame([["a", "b", "c"], ["b", "a", "c"], ["a", "a", "d"]])
    enc = OneHotEmbedder().fit(X)
    assert list(enc.feature_names_) == ["0", "1", "2"]
    np.testing.assert_array_equal(enc.transform(X).sum(axis=1), [3, 3, 3])
