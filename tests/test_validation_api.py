"""Issue 11 defects 4 and 5: refusals name the column; degenerate metrics warn."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import catembed
from catembed import CatEmbedError, CatEmbedWarning, OneHotEmbedder
from catembed.cluster import KModes, KPrototypes
from catembed.similarity import CategoricalDistance


@pytest.mark.parametrize("values, kind", [
    ([[1], [2], [1], [3]], "list"),
    ([{"k": 1}, {"k": 2}, {"k": 1}, {}], "dict"),
    ([{1}, {2}, {1}, {3}], "set"),
])
@pytest.mark.parametrize("cls", [catembed.CDE, OneHotEmbedder, CategoricalDistance])
def test_unhashable_values_are_refused_naming_the_column(cls, values, kind):
    X = pd.DataFrame({"good": list("xyxy"), "bad col": values})
    with pytest.raises(CatEmbedError, match=rf"column 'bad col' holds {kind} values"):
        cls().fit(X)


def test_unhashable_values_at_transform_name_the_column():
    est = OneHotEmbedder(handle_unknown="ignore").fit(pd.DataFrame({"a": list("xyxy")}))
    with pytest.raises(CatEmbedError, match="column 'a' holds list values"):
        est.transform(pd.DataFrame({"a": [["x"], "y"]}))


def test_tuples_mixed_with_numpy_scalars_are_categories():
    X = pd.DataFrame({"a": [(1, 2), np.int64(3), (1, 2), np.float64(2.5)], "b": list("xyxy")})
    est = OneHotEmbedder().fit(X)
    # numbers sort before other kinds; each row is the indicator of its value
    assert [str(v) for v in est.categories_[0]] == ["2.5", "3.0", "(1, 2)"]  # 3 -> float
    np.testing.assert_array_equal(est.transform(X)[:, :3],
                                  [[0, 0, 1], [0, 1, 0], [0, 0, 1], [1, 0, 0]])


@pytest.mark.parametrize("column", [
    [1, "x", 2, "x", 1],
    [b"a", b"b", b"a", b"c", b"a"],
    pd.to_datetime(["2020-01-01", None, "2020-01-02", "2020-01-01", None]),
])
def test_onehot_accepts_what_every_embedder_accepts(column):
    X = pd.DataFrame({"a": column})
    Z = OneHotEmbedder(categorical_features="all").fit_transform(X)
    ref = catembed.IDFEmbedder(categorical_features="all").fit(X)
    assert Z.shape == (5, len(ref.categories_[0]))
    np.testing.assert_array_equal(Z.sum(axis=1), np.ones(5))
    # equal values get equal rows, different values different rows
    codes = pd.factorize(pd.Series(list(X["a"]), dtype=object))[0]
    same = codes[:, None] == codes[None, :]
    np.testing.assert_array_equal((Z @ Z.T) == 1, same | (codes[:, None] < 0) & (codes < 0))


@pytest.mark.parametrize("metric", ["ahmad", "algo"])
def test_single_attribute_ahmad_warns_and_labels_agree_with_predict(metric):
    X = pd.DataFrame({"a": list("xyzxyz")})
    with pytest.warns(CatEmbedWarning, match="all distances between values of every attribute"):
        km = KModes(n_clusters=2, metric=metric).fit(X)
    np.testing.assert_array_equal(km.labels_, km.predict(X))
    with pytest.warns(CatEmbedWarning, match="compares values through the other attributes"):
        CategoricalDistance(metric=metric).fit(X)


def test_dm_with_no_repeated_value_warns():
    X = pd.DataFrame({"a": list("abcdef"), "b": list("uvwxyz")})
    with pytest.warns(CatEmbedWarning, match="none repeats"):
        CategoricalDistance(metric="dm").fit(X)


def test_informative_metric_does_not_warn(watermelon):
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatEmbedWarning)
        CategoricalDistance(metric="ahmad").fit(watermelon)


@pytest.mark.parametrize("metric", ["hamming", "ahmad", "dilca", "cos", "dm", "rough"])
@pytest.mark.parametrize("init", ["cao", "huang", "random"])
def test_kmodes_labels_equal_predict(metric, init):
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.choice(list("abc"), size=(40, 3)), columns=list("pqr"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        km = KModes(n_clusters=4, metric=metric, init=init, n_init=2, random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, km.predict(X))
    d = km._cat_dist(km.distance_.encode(X))
    assert km.cost_ == pytest.approx(d.min(axis=1).sum())


def test_kprototypes_labels_equal_predict():
    rng = np.random.default_rng(4)
    X = pd.DataFrame({"c": rng.choice(list("ab"), 50), "x": rng.normal(size=50),
                      "y": rng.normal(size=50)})
    kp = KPrototypes(n_clusters=3, random_state=0).fit(X)
    np.testing.assert_array_equal(kp.labels_, kp.predict(X))


@pytest.mark.parametrize("param, value, message", [
    ("alpha", "x", "alpha must be a number"),
    ("alpha", float("nan"), "alpha must be a number"),
    ("max_iter", 2.5, "max_iter must be an integer"),
    ("coupling", 3, "coupling must be a string"),
])
def test_parameter_types_are_checked_in_fit(watermelon, param, value, message):
    with pytest.raises(CatEmbedError, match=message):
        catembed.CDE(**{param: value}).fit(watermelon)


# ---------------------------------------------------------------------- defect 8
@pytest.mark.parametrize("values, expected", [
    ([0, 0.0, 1, 1.0, "x"], [(float, 0.0), (float, 1.0), (str, "x")]),
    ([True, 1, 2, False], [(int, 0), (int, 1), (int, 2)]),
    ([True, False, None], [(bool, False), (bool, True)]),
    ([np.int64(3), 3, "3"], [(int, 3), (str, "3")]),
])
def test_categories_do_not_depend_on_chunk_or_row_order(values, expected):
    from catembed.stats import compute_statistics

    X = pd.DataFrame({"a": pd.Series(values * 3, dtype=object), "b": list("xy" * 10)[: 3 * len(
        values)]})
    rng = np.random.default_rng(0)
    seen = []
    for _ in range(6):
        Y = X.iloc[rng.permutation(len(X))]
        size = int(rng.integers(1, 5))
        stats = compute_statistics(Y.iloc[i : i + size] for i in range(0, len(Y), size))
        cats = [v for v in stats.categories[0] if not pd.isna(v)]
        seen.append([(type(v), v) for v in cats])
    assert all(s == expected for s in seen), seen
