"""Property tests (issue 11's standing guard): generated hostile tables through every estimator.

Tables of every kind users meet (strings, ints, floats with NaN, mixed ints and strings,
booleans with None, tuples, bytes, dates with NaT, empty strings, constant and all-missing
columns, high-cardinality columns, lists and dicts, odd column names) go through every
method of :data:`catembed.METHODS`, :class:`~catembed.similarity.CategoricalDistance`,
:class:`~catembed.cluster.KModes` and :class:`~catembed.cluster.KPrototypes`, checking:

* every outcome is a fit or a :class:`~catembed.CatEmbedError`; a refusal of an uncountable
  column names the column;
* the output is finite, one row per input row, and ``transform`` repeats ``fit_transform``;
* permuted rows give the permuted output (bit for bit: everything after the counting pass
  depends only on the statistics);
* the statistics counted whole, chunk by chunk, in any chunk order and with Dask are equal;
* a save/load round trip gives the identical output; ``labels_ == predict(X)``.

Profiles: the fast one (default, CI) runs a few dozen tables; ``CATEMBED_PROPERTY_LONG=1``
runs 10,000 tables through every estimator (``CATEMBED_PROPERTY_EXAMPLES`` overrides the
count). ``CATEMBED_PROPERTY_REPORT=file.json`` writes the outcome counts per estimator.
"""

from __future__ import annotations

import atexit
import collections
import json
import os
import string
import time
import warnings

import numpy as np
import pandas as pd
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import catembed  # noqa: E402
from catembed import CatEmbedError  # noqa: E402
from catembed.cluster import KModes, KPrototypes  # noqa: E402
from catembed.similarity import CategoricalDistance  # noqa: E402
from catembed.stats import ValueStatistics, compute_statistics  # noqa: E402

_LONG = os.environ.get("CATEMBED_PROPERTY_LONG") == "1"
_N = int(os.environ.get("CATEMBED_PROPERTY_EXAMPLES", 10_000 if _LONG else 6))
settings.register_profile(
    "catembed", max_examples=_N, deadline=None, derandomize=not _LONG, database=None,
    suppress_health_check=list(HealthCheck), print_blob=True,
)
_SETTINGS = settings.get_profile("catembed")

try:
    import torch  # noqa: F401

    HAVE_TORCH = True
except ImportError:  # pragma: no cover - torch is an optional extra
    HAVE_TORCH = False

OUTCOMES: collections.Counter = collections.Counter()
_START = time.monotonic()


def _report() -> None:
    path = os.environ.get("CATEMBED_PROPERTY_REPORT")
    if path and OUTCOMES:
        data = collections.defaultdict(dict)
        for (name, outcome), n in sorted(OUTCOMES.items()):
            data[name][outcome] = n
        data["wall_s"] = round(time.monotonic() - _START, 1)
        with open(path, "w") as fh:
            json.dump(data, fh, indent=1)


atexit.register(_report)

# ---------------------------------------------------------------------- table generator
_TEXT = st.text(alphabet="ab xyé,\"'\n", min_size=0, max_size=3)
_NAME = st.text(alphabet=string.ascii_letters + " _-é0", min_size=1, max_size=6)


def _column(kind: str, n: int, draw) -> list:
    small = st.integers(min_value=0, max_value=3)
    if kind == "str":
        return draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=n, max_size=n))
    if kind == "text":
        return draw(st.lists(_TEXT, min_size=n, max_size=n))
    if kind == "int":
        return draw(st.lists(small, min_size=n, max_size=n))
    if kind == "float":
        return draw(st.lists(st.sampled_from([0.5, 1.0, 2.25, np.nan, -0.0, 1e300]),
                             min_size=n, max_size=n))
    if kind == "mixed":
        return draw(st.lists(st.one_of(small, st.sampled_from(["1", "x", "", None]),
                                       st.sampled_from([1.0, True, False, np.int64(2)])),
                             min_size=n, max_size=n))
    if kind == "bool":
        return draw(st.lists(st.sampled_from([True, False, None]), min_size=n, max_size=n))
    if kind == "tuple":
        return draw(st.lists(st.sampled_from([(1, 2), (1,), np.int64(3), np.float64(2.5), "t"]),
                             min_size=n, max_size=n))
    if kind == "bytes":
        return draw(st.lists(st.sampled_from([b"a", b"b", b"", None]), min_size=n, max_size=n))
    if kind == "date":
        return list(pd.to_datetime(draw(st.lists(
            st.sampled_from(["2020-01-01", "2021-06-30", None]), min_size=n, max_size=n))))
    if kind == "constant":
        return ["k"] * n
    if kind == "missing":
        return [None] * n
    if kind == "many":  # high cardinality: a distinct value in almost every row
        return [f"v{i}" for i in range(n)]
    if kind == "list":
        return draw(st.lists(st.sampled_from([[1], [2, 3], "s"]), min_size=n, max_size=n))
    if kind == "dict":
        return draw(st.lists(st.sampled_from([{"k": 1}, {}, "s"]), min_size=n, max_size=n))
    raise AssertionError(kind)


KINDS = ["str", "text", "int", "float", "mixed", "bool", "tuple", "bytes", "date",
         "constant", "missing", "many", "list", "dict"]
UNHASHABLE = {"list", "dict"}


@st.composite
def tables(draw, kinds=KINDS) -> tuple[pd.DataFrame, list[str]]:
    n = draw(st.sampled_from(list(range(2, 25)) + [1]))
    m = draw(st.integers(min_value=1, max_value=4))
    names = draw(st.lists(_NAME, min_size=m, max_size=m, unique=True))
    # uncountable columns (a refusal for the whole table) one time in ten
    weighted = [k for k in kinds for _ in range(1 if k in UNHASHABLE else 6)]
    col_kinds = draw(st.lists(st.sampled_from(weighted), min_size=m, max_size=m))
    data = {}
    for name, kind in zip(names, col_kinds, strict=True):
        values = _column(kind, n, draw)
        col = pd.Series(values, dtype=object if kind not in ("date",) else None)
        if kind in ("int", "float", "bool") and draw(st.booleans()):
            col = pd.Series(values)  # the natural dtype (int64, float64, object/bool)
        data[name] = col
    return pd.DataFrame(data), col_kinds


def _estimators(draw_metric: str) -> dict[str, object]:
    small_ae = {"max_epochs": 2, "hidden_size": 4, "random_state": 0}
    out = {
        "cde": catembed.CDE(random_state=0, max_iter=20),
        "onehot": catembed.OneHotEmbedder(),
        "onehot-pca": catembed.OneHotPCA(),
        "idf": catembed.IDFEmbedder(),
        "untie": catembed.UNTIE(random_state=0),
        "couplings": catembed.Couplings(),
        "mca": catembed.MCA(n_components=2),
        "lcme": catembed.LCME(n_components=2, random_state=0),
        "distance": CategoricalDistance(metric=draw_metric),
    }
    if HAVE_TORCH:
        out["cdepp"] = catembed.CDEPlusPlus(**small_ae)
        out["cde-ae"] = catembed.CDEAutoencoder(**small_ae)
        out["onehot-ae"] = catembed.OneHotAutoencoder(**small_ae)
    missing = set(catembed.METHODS) - set(out) - ({"cdepp", "cde-ae", "onehot-ae"}
                                                   if not HAVE_TORCH else set())
    assert not missing, f"add {missing} to the property tests"
    return out


METRICS = ["hamming", "ahmad", "dilca", "cos", "dm", "rough"]


def _refusal_ok(exc: CatEmbedError, X: pd.DataFrame, kinds: list[str]) -> None:
    """A refusal because of an uncountable column names that column."""
    bad = [c for c, k in zip(X.columns, kinds, strict=True) if k in UNHASHABLE]
    if "cannot be categories" in str(exc):
        assert any(repr(str(c)) in str(exc) for c in bad), str(exc)


def _run(name: str, fn, X: pd.DataFrame, kinds: list[str]):
    """Run ``fn``; record the outcome; only a CatEmbedError may escape (as None)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn()
    except CatEmbedError as exc:
        _count(name, "CatEmbedError")
        _refusal_ok(exc, X, kinds)
        return None
    except Exception:
        _count(name, "other exception")
        raise
    _count(name, "ok")
    return out


def _count(name: str, outcome: str) -> None:
    OUTCOMES[name, outcome] += 1
    if OUTCOMES.total() % 200 == 0:  # partial counts survive an interrupted long run
        _report()


# ---------------------------------------------------------------------- the properties
@_SETTINGS
@given(data=tables(), metric=st.sampled_from(METRICS),
       perm_seed=st.integers(min_value=0, max_value=2**16),
       init=st.sampled_from(["cao", "huang", "random"]), k=st.integers(1, 3))
def test_every_estimator_on_generated_tables(tmp_path_factory, data, metric, perm_seed, init,
                                             k):
    X, kinds = data
    n = len(X)
    OUTCOMES["tables", "generated"] += 1
    perm = np.random.default_rng(perm_seed).permutation(n)
    _check_clusterers(X, kinds, metric, init, k, perm_seed)
    for name, est in _estimators(metric).items():
        fitted = _run(name, lambda est=est: est.fit(X), X, kinds)
        if fitted is None:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            Z = fitted.transform(X)
            Z2 = fitted.transform(X)
            assert Z.shape[0] == n
            assert np.isfinite(Z).all(), name
            np.testing.assert_array_equal(Z, Z2)
            # permuted rows: the same statistics, so the same model, bit for bit
            P = type(est)(**est.get_params()).fit(X.iloc[perm]).transform(X.iloc[perm])
            np.testing.assert_array_equal(P, Z[perm], err_msg=name)
            path = tmp_path_factory.mktemp("m") / "model.npz"
            fitted.save(path)
            np.testing.assert_array_equal(catembed.load(path).transform(X), Z, err_msg=name)


def _check_clusterers(X, kinds, metric, init, k, seed) -> None:
    km = _run("kmodes", lambda: KModes(n_clusters=k, metric=metric, init=init, n_init=2,
                                       random_state=0).fit(X), X, kinds)
    if km is not None:
        assert km.labels_.shape == (len(X),)
        assert set(km.labels_) <= set(range(k))
        np.testing.assert_array_equal(km.labels_, km.predict(X))
    num = np.random.default_rng(seed).normal(scale=100.0, size=len(X))
    Xn = X.assign(**{"num col": num})
    kp = _run("kprototypes", lambda: KPrototypes(n_clusters=k, init=init, random_state=0)
              .fit(Xn), Xn, kinds + ["number"])
    if kp is not None:
        np.testing.assert_array_equal(kp.labels_, kp.predict(Xn))


def _same_stats(a: ValueStatistics, b: ValueStatistics) -> None:
    assert a.feature_names == b.feature_names and a.n_rows == b.n_rows
    for ca, cb in zip(a.categories, b.categories, strict=True):
        assert [(type(v), v) if not pd.isna(v) else "nan" for v in ca] == [
            (type(v), v) if not pd.isna(v) else "nan" for v in cb]
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.cooc_dense(), b.cooc_dense())


@_SETTINGS
@given(data=tables(kinds=[k for k in KINDS if k not in UNHASHABLE]),
       cut=st.integers(1, 8), seed=st.integers(0, 2**16))
def test_chunked_whole_and_dask_statistics_agree(data, cut, seed):
    X, _ = data
    whole = ValueStatistics.from_frame(X)
    chunks = [X.iloc[i : i + cut] for i in range(0, len(X), cut)]
    order = np.random.default_rng(seed).permutation(len(chunks))
    _same_stats(whole, compute_statistics(iter(chunks)))
    _same_stats(whole, compute_statistics(iter([chunks[i] for i in order])))
    sparse = ValueStatistics.from_frame(X, dense_limit=0)
    _same_stats(whole, sparse)


@pytest.mark.parametrize("seed", [0])
def test_dask_statistics_equal_whole(seed):
    dask = pytest.importorskip("dask")
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"a": rng.choice(["x", "y", None], 50),
                      "b": rng.choice([1, 2, 3], 50).astype(object),
                      "c": rng.choice([True, False], 50).astype(object)})
    X.loc[::7, "b"] = 1.0  # merged with 1 and stored as the widest kind, float
    with dask.config.set({"dataframe.convert-string": False}):  # keep the Python objects
        ddf = dd.from_pandas(X, npartitions=4)
        _same_stats(ValueStatistics.from_frame(X), compute_statistics(ddf))
