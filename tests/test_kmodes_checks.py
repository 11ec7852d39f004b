"""KModes / KPrototypes against scikit-learn's conventions (issue 21, items 10, 13, 15).

scikit-learn's common checks on the default instances; what the defaults do on tables the
checks use (fewer distinct rows than clusters, one kind of column only); the documented
shapes of ``init`` and ``cluster_centroids_`` when constant columns are dropped; refusals
(``gamma``, feature count, empty tables); warnings that name the user's line.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.cluster import KMeans
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CatEmbedError, CatEmbedWarning
from catembed.cluster import KModes, KPrototypes
from catembed.datasets import load_dataset
from catembed.similarity import CategoricalDistance


def _expected_failures(estimator):
    if isinstance(estimator, KModes):
        return {"check_clustering": "KModes clusters categorical values: the check's "
                "continuous blobs (not passed through the categorical-input tag) give every "
                "row its own value in each column, so all rows are equally far apart and no "
                "k-modes partition can recover the blobs"}
    return {}  # KPrototypes passes every check (k-means on the all-numeric tables)


@parametrize_with_checks([KModes(), KPrototypes()], expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    """issue 21 item 13: the default instances pass scikit-learn's checks."""
    check(estimator)


# ---------------------------------------------------------------- item 13: the defaults
DUP = pd.DataFrame({"a": list("xxyyzz") * 5, "b": list("uvuvuu") * 5})  # 5 distinct rows


def test_kmodes_fewer_distinct_rows_than_clusters_warns_like_kmeans():
    """issue 21 item 13: KModes() (8 clusters) on a table with 5 distinct rows: one cluster
    per distinct row and a ConvergenceWarning (KMeans' behaviour), not an error."""
    with pytest.warns(ConvergenceWarning, match="only 5 distinct row"):
        km = KModes().fit(DUP)
    assert sorted(set(km.labels_)) == [0, 1, 2, 3, 4]
    assert km.cost_ == 0.0
    assert km.cluster_centroids_.shape == (8, 2)
    assert len({tuple(r) for r in km.cluster_centroids_}) == 5  # 3 empty clusters repeat
    assert km.predict(DUP).tolist() == km.labels_.tolist()
    for init in ("huang", "random"):
        with pytest.warns(ConvergenceWarning):
            other = KModes(init=init, n_init=2, random_state=0).fit(DUP)
        assert adjusted_rand_score(other.labels_, km.labels_) == 1.0


def test_more_clusters_than_rows_is_refused():
    """issue 21 item 13: n_clusters > n_samples raises (KMeans raises a ValueError)."""
    df = DUP.iloc[:3]
    with pytest.raises(CatEmbedError, match=r"n_samples=3 should be >= n_clusters=8"):
        KModes().fit(df)
    with pytest.raises(CatEmbedError, match=r"n_samples=3 should be >= n_clusters=8"):
        KPrototypes().fit(df.assign(v=[0.0, 1.0, 2.0]))
    with pytest.raises(ValueError):  # CatEmbedError is a ValueError, as in scikit-learn
        KModes(n_clusters=4).fit(df)


def test_kprototypes_all_numeric_is_kmeans():
    """issue 21 item 13: no categorical column: k-means, gamma irrelevant."""
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 6.0]])
    X = np.vstack([c + rng.normal(scale=0.3, size=(20, 2)) for c in centres])
    ref = KMeans(n_clusters=3, n_init=10, random_state=0).fit(X)
    for init in ("cao", "huang", "random"):
        kp = KPrototypes(n_clusters=3, init=init, n_init=5, random_state=0).fit(X)
        assert adjusted_rand_score(kp.labels_, ref.labels_) == 1.0
        assert kp.cost_ == pytest.approx(ref.inertia_)
        assert kp.distance_ is None and kp.gamma_ == 1.0
        assert kp.modes_.shape == (3, 0) and kp.cluster_centroids_.shape == (3, 2)
        np.testing.assert_allclose(np.sort(kp.centers_[:, 0]),
                                   np.sort(ref.cluster_centers_[:, 0]))
    again = KPrototypes(n_clusters=3, gamma=7.5).fit(X)  # the weight plays no part
    assert again.labels_.tolist() == KPrototypes(n_clusters=3).fit(X).labels_.tolist()
    assert again.predict(X[:5]).tolist() == again.labels_[:5].tolist()


@pytest.mark.parametrize("metric,init", [("hamming", "cao"), ("cos", "huang"),
                                         ("rough-cluster", "random")])
def test_kprototypes_all_categorical_is_kmodes(metric, init):
    """issue 21 item 13: no numeric column: KPrototypes is KModes (same labels, cost)."""
    rng = np.random.default_rng(1)
    df = pd.DataFrame(rng.choice(list("abcd"), size=(60, 4)), columns=list("pqrs"))
    params = dict(n_clusters=3, metric=metric, init=init, n_init=2, random_state=0)
    kp = KPrototypes(**params).fit(df)
    km = KModes(**params).fit(df)
    assert kp.labels_.tolist() == km.labels_.tolist()
    assert kp.cost_ == pytest.approx(km.cost_)
    assert kp.gamma_ == 1.0 and kp.centers_.shape == (3, 0)
    assert (kp.cluster_centroids_ == km.cluster_centroids_).all()
    assert kp.predict(df).tolist() == km.predict(df).tolist()


def test_predict_wrong_feature_count_and_empty_input():
    """issue 21 item 13: clear CatEmbedErrors for a wrong column count and empty tables."""
    mixed = DUP.assign(v=np.arange(30.0))
    for est, X in ((KModes(n_clusters=2), DUP), (KPrototypes(n_clusters=2), mixed)):
        name = type(est).__name__
        est.fit(X.to_numpy())
        width = X.shape[1]
        with pytest.raises(CatEmbedError, match=rf"X has {width - 1} features, but {name} "
                           rf"is expecting {width} features"):
            est.predict(X.to_numpy()[:, :-1])
        with pytest.raises(CatEmbedError, match=rf"X has {width + 1} features"):
            est.predict(np.hstack([X.to_numpy(), X.to_numpy()[:, :1]]))
        with pytest.raises(CatEmbedError, match=r"0 sample\(s\)"):
            est.predict(X.to_numpy()[:0])
        with pytest.raises(CatEmbedError, match=r"0 sample\(s\)"):
            type(est)(n_clusters=2).fit(X.iloc[:0])
        with pytest.raises(CatEmbedError, match=r"0 feature\(s\)"):
            type(est)(n_clusters=2).fit(np.empty((5, 0)))
    kp = KPrototypes(n_clusters=2).fit(mixed)
    with pytest.raises(CatEmbedError, match="feature names should match"):
        kp.predict(mixed.rename(columns={"v": "w"}))


# ---------------------------------------------------------------- item 13: constant columns
def test_soybean_small_init_and_centroids_have_n_features_in_columns():
    """issue 21 item 13: soybean_small has 14 constant columns of 35: ``init`` of shape
    (k, n_features_in_) is accepted and ``cluster_centroids_`` has n_features_in_ columns,
    the constant ones holding their single value."""
    ds = load_dataset("soybean_small")
    X = ds.frame[ds.categorical_columns]
    constant = [c for c in X.columns if X[c].nunique(dropna=False) == 1]
    assert X.shape[1] == 35 and len(constant) == 14
    with pytest.warns(CatEmbedWarning, match="dropping 14 column"):
        km = KModes(n_clusters=4).fit(X)
    assert km.n_features_in_ == 35
    assert km.cluster_centroids_.shape == (4, 35) and km.modes_.shape == (4, 21)
    for c in constant:
        j = list(X.columns).index(c)
        assert km.cluster_centroids_[:, j].tolist() == [X[c].iloc[0]] * 4
    assert adjusted_rand_score(km.labels_, ds.frame[ds.target]) == 1.0
    warnings.simplefilter("ignore", CatEmbedWarning)
    # the documented init shape, from rows or from the centroids of a fit (a fixed point)
    rows = X.iloc[[0, 10, 20, 30]]
    from_rows = KModes(n_clusters=4, init=rows.to_numpy()).fit(X)
    assert from_rows.cluster_centroids_.shape == (4, 35)
    assert from_rows.labels_.tolist() == KModes(n_clusters=4, init=rows).fit(X).labels_.tolist()
    again = KModes(n_clusters=4, init=km.cluster_centroids_).fit(X)
    assert again.labels_.tolist() == km.labels_.tolist()
    assert (again.cluster_centroids_ == km.cluster_centroids_).all()
    # constant columns' entries are ignored; the 21 clustered columns alone still work
    odd = rows.to_numpy().copy()
    odd[:, list(X.columns).index(constant[0])] = "never seen"
    assert KModes(n_clusters=4, init=odd).fit(X).labels_.tolist() == from_rows.labels_.tolist()
    kept = [c for c in X.columns if c not in constant]
    assert KModes(n_clusters=4, init=rows[kept].to_numpy()).fit(X).labels_.tolist() == (
        from_rows.labels_.tolist())
    with pytest.raises(CatEmbedError, match=r"init has 30 columns; it needs one per column "
                       r"of X \(n_features_in_=35\)"):
        KModes(n_clusters=4, init=rows.to_numpy()[:, :30]).fit(X)
    bad = rows.to_numpy().copy()
    bad[2, list(X.columns).index(kept[0])] = "zz"
    with pytest.raises(CatEmbedError, match=rf"row 2, column '{kept[0]}': 'zz'"):
        KModes(n_clusters=4, init=bad).fit(X)


def test_kprototypes_centroids_keep_constant_columns():
    """issue 21 item 13: KPrototypes' centroids have n_features_in_ columns too."""
    df = pd.DataFrame({"c": list("ab") * 10, "k": ["same"] * 20,
                       "v": np.r_[np.zeros(10), np.ones(10)] + np.arange(20) / 100})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        kp = KPrototypes(n_clusters=2, gamma=1.0).fit(df)
    assert kp.cluster_centroids_.shape == (2, 3)
    assert kp.cluster_centroids_[:, 2].tolist() == ["same", "same"]


# ---------------------------------------------------------------- item 10: gamma
@pytest.mark.parametrize("gamma", [-1, -0.5, float("inf"), float("nan")])
def test_kprototypes_refuses_negative_or_non_finite_gamma(gamma):
    """issue 21 item 10: gamma=-1 (or inf, NaN) is refused, naming gamma."""
    df = DUP.assign(v=np.arange(30.0))
    with pytest.raises(CatEmbedError, match="gamma"):
        KPrototypes(n_clusters=2, gamma=gamma).fit(df)


def test_kprototypes_gamma_zero_is_numeric_only():
    """issue 21 item 10: gamma=0 is allowed (the categorical part weighs nothing)."""
    df = DUP.assign(v=np.r_[np.zeros(15), np.full(15, 10.0)])
    kp = KPrototypes(n_clusters=2, gamma=0).fit(df)
    assert kp.gamma_ == 0.0 and kp.labels_[:15].tolist() == [kp.labels_[0]] * 15
    assert kp.cost_ == 0.0


# ---------------------------------------------------------------- item 15: warnings
def _where(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    assert caught, "no warning"
    return {(w.filename, w.category) for w in caught}, [str(w.message) for w in caught]


def test_warnings_name_the_users_line():
    """issue 21 item 15: warnings raised in KModes/KPrototypes fit/predict and in
    similarity/ name this file, not catembed's lines nor sys:1."""
    const = DUP.assign(k="same")
    mixed = DUP.assign(v=np.arange(30.0) * 100)
    new = pd.DataFrame({"a": ["q"], "b": ["u"]})
    km = KModes(n_clusters=2, handle_unknown="warn").fit(DUP)
    kp = KPrototypes(n_clusters=2, gamma=1.0, handle_unknown="warn").fit(mixed)
    cd = CategoricalDistance(handle_unknown="warn").fit(DUP)
    calls = {
        "kmodes fit, constant column": lambda: KModes(n_clusters=2).fit(const),
        "kmodes fit_predict": lambda: KModes(n_clusters=2).fit_predict(const),
        "kmodes in a pipeline": lambda: make_pipeline(KModes(n_clusters=2)).fit(const),
        "kmodes fit, numeric column": lambda: KModes(n_clusters=2).fit(mixed),
        "kmodes duplicates": lambda: KModes(n_clusters=6).fit(DUP),
        "kmodes predict, unknown": lambda: km.predict(new),
        "kprototypes fit, unscaled": lambda: KPrototypes(n_clusters=2).fit(mixed),
        "kprototypes predict, unknown": lambda: kp.predict(new.assign(v=[1.0])),
        "distance fit": lambda: CategoricalDistance().fit(const),
        "distance fit_transform": lambda: CategoricalDistance().fit_transform(const),
        "distance encode": lambda: cd.encode(new),
        "distance transform": lambda: cd.transform(new),
        "distance pairwise": lambda: cd.pairwise(new),
        "distance kneighbors": lambda: cd.kneighbors(new, 2),
        "distance ahmad, one column": lambda: CategoricalDistance(metric="ahmad").fit(
            DUP[["a"]]),
    }
    for what, call in calls.items():
        where, messages = _where(call)
        assert {f for f, _ in where} == {__file__}, (what, where, messages)
    _, messages = _where(lambda: KModes(n_clusters=2).fit(mixed))
    assert messages[0].startswith("KModes embeds categorical columns only")


def test_warning_filters_still_apply():
    """issue 21 item 15: re-attributed warnings still obey the user's filters."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatEmbedWarning)
        with pytest.raises(CatEmbedWarning, match="dropping 1 column"):
            KModes(n_clusters=2).fit(DUP.assign(k="same"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore", CatEmbedWarning)
        KModes(n_clusters=2).fit(DUP.assign(k="same"))
    assert caught == []


def test_constant_tuple_column_is_kept_whole_in_the_centroids():
    """A constant column whose value is a tuple fills ``cluster_centroids_`` element by
    element (it was spread over the rows: "could not broadcast (2,) into (1,)"; found by the
    property test)."""
    X = pd.DataFrame({"a": [(1, 2)] * 3, "b": ["x", "y", "x"]})
    km = KModes(n_clusters=2, random_state=0).fit(X)
    assert km.cluster_centroids_.shape == (2, 2)
    assert all(v == (1, 2) for v in km.cluster_centroids_[:, 0])


def test_kprototypes_refuses_unhashable_values_clearly():
    """A column of lists is refused with the embedders' CatEmbedError (it was pandas'
    "unhashable type: 'list'" from the constant-column test; found by the property test)."""
    with pytest.raises(CatEmbedError, match="list values"):
        KPrototypes(n_clusters=1).fit(pd.DataFrame({"a": [[1], [1]]}))
