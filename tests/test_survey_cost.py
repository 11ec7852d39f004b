"""The survey clusterers' cost check (issue 39): a time estimate from the table's shape,
refused up front over ``max_seconds`` / ``CATEMBED_MAX_SECONDS`` / ten minutes (OCL's
incremental counts: ``tests/test_ocl_passes.py``)."""

from __future__ import annotations

import time

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.cluster import MGR, OCL, LSHKRepresentatives, lshkreps, mgr, ocl
from catembed.cluster._coded import DEFAULT_MAX_SECONDS, check_cost
from catembed.datasets import load_dataset

CLASSES = [MGR, LSHKRepresentatives, OCL]
COST = {MGR: mgr.fit_cost, LSHKRepresentatives: lshkreps.fit_cost, OCL: ocl.fit_cost}
#: the planted 1,000,000 x 20 table of the acceptance line: 10 values a column, k = 8
BIG = (1_000_000, np.full(20, 10), 8)
TOY = pd.DataFrame({"a": list("xxxyyyx"), "b": list("ppqrrrq"), "c": list("uuuwwwu")})


@pytest.fixture(autouse=True)
def _no_env_limit(monkeypatch):
    monkeypatch.delenv("CATEMBED_MAX_SECONDS", raising=False)
    monkeypatch.delenv("CATEMBED_MAX_MEMORY", raising=False)


def test_estimates_on_the_one_million_row_shape():
    """MGR and LSH-k-representatives finish 1M x 20 in under a minute here (9.5 s, 26 s
    measured): estimated well under the limit; OCL took 142 s (617 s before its passes were
    made faster): estimated over two minutes (a warning), under ten; 5M x 20 over ten."""
    n, sizes, k = BIG
    assert 1 < mgr.fit_cost(n, sizes, k)["seconds"] < 60
    assert 10 < lshkreps.fit_cost(n, sizes, k)["seconds"] < 120
    assert 120 < ocl.fit_cost(n, sizes, k)["seconds"] < DEFAULT_MAX_SECONDS
    assert ocl.fit_cost(5 * n, sizes, k)["seconds"] > DEFAULT_MAX_SECONDS
    # linear in the rows; LSH's passes follow max_iter
    assert ocl.fit_cost(2 * n, sizes, k)["seconds"] == pytest.approx(
        2 * ocl.fit_cost(n, sizes, k)["seconds"])
    assert (lshkreps.fit_cost(n, sizes, k, max_iter=5)["seconds"]
            < lshkreps.fit_cost(n, sizes, k)["seconds"])


@pytest.mark.parametrize("cls", CLASSES)
def test_one_million_rows_refused_or_allowed_by_shape(cls, monkeypatch):
    """The check on the shape alone, nothing fitted: the three pass 1M x 20 (OCL with a
    warning); OCL on 5M x 20 refused with the estimate, the limit and how to lift it, and
    passes with the limit lifted."""
    n, sizes, k = BIG
    est = cls(k)
    if cls is OCL:
        with pytest.warns(UserWarning, match="may take 2 minutes"):
            check_cost(est, n, sizes, **COST[cls](n, sizes, k))
        n = 5 * n
        monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1T")  # the time check, on any machine
        with pytest.raises(CatEmbedError, match=r"^OCL on 5000000 rows with 200 distinct "
                           r"values in 20 columns \(n_clusters=8\) would take about 12 "
                           r"minutes by the cost estimate \(limit 10 minutes, the default\); "
                           r"to run it anyway pass a larger max_seconds .* or set "
                           r"CATEMBED_MAX_SECONDS"):
            check_cost(est, n, sizes, **COST[cls](n, sizes, k))
        est = cls(k, max_seconds=float("inf"))
        with pytest.warns(UserWarning, match="may take 12 minutes"):
            check_cost(est, n, sizes, **COST[cls](n, sizes, k))
    else:
        check_cost(est, n, sizes, **COST[cls](n, sizes, k))


@pytest.mark.parametrize("cls", CLASSES)
def test_a_tiny_limit_refuses_before_fitting(cls, monkeypatch):
    est = cls(2, max_seconds=1e-9)
    t0 = time.perf_counter()
    with pytest.raises(CatEmbedError, match=r"limit 0 s, max_seconds=1e-09\); to run it "
                       "anyway"):
        est.fit(TOY)
    assert time.perf_counter() - t0 < 5 and not hasattr(est, "labels_")
    assert est.max_seconds == 1e-9  # stored unchanged
    # the parameter wins over the environment; the environment over the default
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "1e-9")
    with pytest.raises(CatEmbedError, match=r"\(limit 0 s, CATEMBED_MAX_SECONDS\)"):
        cls(2).fit(TOY)
    assert len(cls(2, max_seconds=60).fit(TOY).labels_) == len(TOY)


@pytest.mark.parametrize("cls", CLASSES)
@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), "600", True])
def test_bad_max_seconds_refused_in_fit(cls, bad):
    est = cls(2, max_seconds=bad)  # accepted by the constructor, checked by fit
    with pytest.raises(CatEmbedError, match="max_seconds must be a positive number"):
        est.fit(TOY)


def test_bad_environment_limit(monkeypatch):
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "ten")
    with pytest.raises(CatEmbedError, match="CATEMBED_MAX_SECONDS='ten' is not a number"):
        OCL(2).fit(TOY)


@pytest.mark.parametrize("cls", CLASSES)
def test_small_fits_unaffected_by_the_limit(cls):
    ds = load_dataset("zoo")
    X = ds.frame.drop(columns=[ds.target, *ds.id_columns])
    params = {"random_state": 0} if cls is OCL else {}
    a = cls(7, **params).fit(X).labels_
    b = cls(7, max_seconds=float("inf"), **params).fit(X).labels_
    assert a.tolist() == b.tolist()
