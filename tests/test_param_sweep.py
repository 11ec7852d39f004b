"""Parameter and column checks over every public estimator (issue 52 item 13).

``random_state=-1`` and a polars ``List``/``Array`` column are refused with the library's
own error (``OCL`` gave NumPy's "Seed must be between 0 and 2**32 - 1"; every estimator
gave NumPy's "truth value of an array is ambiguous" on a list column), and
``Consensus(weight_power=...)`` never ends in NaN weights.
"""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

import catembed
import catembed.cluster
import catembed.deep
from catembed import CatEmbedError
from catembed._utils._params import check_nonnegative
from catembed.cluster import Consensus
from catembed.cluster.consensus import _runs as runs

pl = pytest.importorskip("polars")


def _public_estimators() -> dict[str, type]:
    out = {}
    for module in (catembed, catembed.cluster, catembed.deep):
        for name in module.__all__:
            obj = getattr(module, name)
            if (inspect.isclass(obj) and issubclass(obj, BaseEstimator)
                    and not inspect.isabstract(obj) and name != "ValueEmbedder"):
                out[name] = obj
    return out


ESTIMATORS = _public_estimators()
# a few steps only: every refusal below comes before the training
FAST = {"pretrain_steps": 2, "cluster_steps": 2, "max_steps": 2, "epochs": 1, "max_epochs": 1}


def _make(cls: type, **params) -> BaseEstimator:
    sig = inspect.signature(cls).parameters
    kw = {k: v for k, v in FAST.items() if k in sig}
    if "n_clusters" in sig:
        kw["n_clusters"] = 2
    return cls(**kw, **params)


rng = np.random.RandomState(0)
X = pd.DataFrame({"a": rng.choice(list("abc"), 40), "b": rng.choice(list("xy"), 40)})


def test_the_sweep_sees_the_estimators():
    assert {"OCL", "Consensus", "MGR", "LSHKRepresentatives", "KModes", "UNTIE", "CDE",
            "IDEC", "CategoricalDistance"} <= set(ESTIMATORS)


@pytest.mark.parametrize("name", sorted(n for n, c in ESTIMATORS.items()
                                        if "random_state" in inspect.signature(c).parameters))
def test_negative_random_state_is_the_librarys_refusal(name):
    with pytest.raises(CatEmbedError, match=r"random_state must be None, an integer between "
                       r"0 and 2\*\*32 - 1.*got -1"):
        _make(ESTIMATORS[name], random_state=-1).fit(X)


LIST_COLUMNS = {
    "Array": (pl.Series([[1, 2]] * 40, dtype=pl.Array(pl.Int64, 2)), r"Array\(Int64"),
    "List": (pl.Series([["u", "v"]] * 40, dtype=pl.List(pl.String)), r"List\(String\)"),
}


@pytest.mark.parametrize("kind", list(LIST_COLUMNS))
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_polars_list_column_is_refused_naming_it(name, kind):
    col, dtype = LIST_COLUMNS[kind]
    df = pl.DataFrame({"a": list(X["a"]), "tags": col})
    with pytest.raises(CatEmbedError, match=rf"column 'tags' has the polars type {dtype}"):
        _make(ESTIMATORS[name]).fit(df)


def test_polars_list_column_in_a_lazy_frame_a_series_and_at_transform():
    df = pl.DataFrame({"a": list(X["a"]), "tags": LIST_COLUMNS["List"][0]})
    with pytest.raises(CatEmbedError, match="column 'tags' has the polars type List"):
        catembed.OneHotEmbedder().fit(df.lazy())
    with pytest.raises(CatEmbedError, match="column 'tags' has the polars type List"):
        catembed.OneHotEmbedder().fit(df["tags"])
    fitted = catembed.OneHotEmbedder().fit(pl.DataFrame({"a": list(X["a"]),
                                                        "tags": list(X["b"])}))
    with pytest.raises(CatEmbedError, match="column 'tags' has the polars type List"):
        fitted.transform(df)


def test_pandas_column_of_arrays_is_refused_naming_it():
    """A Parquet list column read by pandas holds NumPy arrays: no category either."""
    df = X.assign(tags=[np.array([1, 2])] * len(X))
    for est in (catembed.OneHotEmbedder(), catembed.cluster.MGR(2),
                catembed.cluster.KModes(2, random_state=0)):
        with pytest.raises(CatEmbedError, match="column 'tags' holds ndarray values"):
            est.fit(df)


def test_weight_power_is_bounded_and_the_weights_never_nan():
    with pytest.raises(CatEmbedError, match=r"weight_power must be a non-negative number of "
                       r"at most 100 \(larger powers weigh the top member alone\); got 1000000\.0"):
        Consensus(2, weight_power=1e6, random_state=0).fit(X)
    # the weights themselves: every power underflowing gives the top member alone, not NaN
    base = np.array([0.4, 0.9, 0.9, 0.0005])
    w = runs.member_weights("stability", base, [[]] * 4, np.random.RandomState(0), 1e6)
    np.testing.assert_array_equal(w, [0.0, 1.0, 1.0, 0.0])
    small = runs.member_weights("stability", base, [[]] * 4, np.random.RandomState(0), 2.0)
    np.testing.assert_array_equal(small, np.maximum(base, 1e-3) ** 2.0)  # as before


@pytest.mark.filterwarnings("ignore::catembed.CatEmbedWarning")
def test_weight_power_at_the_bound_fits():
    m = Consensus(2, members=["onehot", "idf"], weight_power=runs.MAX_WEIGHT_POWER,
                  random_state=0).fit(X)
    assert np.isfinite(m.member_weights_).all() and m.member_weights_.sum() == pytest.approx(1)
    assert len(m.labels_) == len(X)


def test_check_nonnegative_bound():
    assert check_nonnegative("p", 100, maximum=100) == 100.0
    with pytest.raises(CatEmbedError, match="p must be a non-negative number of at most 2; "):
        check_nonnegative("p", 2.5, maximum=2)
    with pytest.raises(CatEmbedError, match=r"p must be a non-negative number; got -1"):
        check_nonnegative("p", -1)
