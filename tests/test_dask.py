"""Dask end to end: fit counts partitions on the scheduler, transform stays lazy.

One module-scoped ``LocalCluster`` with two worker processes; skipped without
``distributed`` (``pip install "catembed[dask]"``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from catembed import CDE, OneHotPCA, compute_statistics  # noqa: E402


def _frame(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    g = rng.integers(0, 3, n)
    return pd.DataFrame({
        "color": np.array(["red", "green", "blue"])[(g + (rng.random(n) < 0.2)) % 3],
        "shape": np.array(["sq", "ci", "tr", "st"])[(g + rng.integers(0, 2, n)) % 4],
        "size": np.array(["s", "m", "l"])[rng.integers(0, 3, n)],
        "age": np.round(rng.normal(40, 10, n), 1),
    })


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None, memory_limit="1GiB")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


def test_statistics_equal_in_memory(client):
    df = _frame()
    ddf = dd.from_pandas(df, npartitions=4)
    cols = ["color", "shape", "size"]
    a = compute_statistics(ddf[cols])
    b = compute_statistics(df[cols])
    assert a.n_rows == b.n_rows == len(df)
    for ca, cb in zip(a.categories, b.categories, strict=True):
        assert list(ca) == list(cb)
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.cooc_dense(), b.cooc_dense())


def test_fit_transform_equal_in_memory(client):
    df = _frame()
    ddf = dd.from_pandas(df, npartitions=3)
    kw = {"random_state": 0, "n_components": 4, "numeric": "discretize", "n_bins": 4}
    lazy = CDE(**kw).fit(ddf)
    eager = CDE(**kw).fit(df)
    assert list(lazy.feature_names_in_) == list(df.columns)
    np.testing.assert_array_equal(lazy.numeric_bins_["age"], eager.numeric_bins_["age"])
    np.testing.assert_array_equal(lazy.stats_.cooc_dense(), eager.stats_.cooc_dense())
    out = lazy.transform(ddf)
    assert isinstance(out, dd.DataFrame)
    assert list(out.columns) == list(lazy.get_feature_names_out())
    z = out.compute()
    np.testing.assert_array_equal(z.index, df.index)
    np.testing.assert_allclose(z.to_numpy(), eager.transform(df), rtol=0, atol=1e-6)
    assert z.dtypes.eq(np.float32).all()


def test_set_output_pandas_and_passthrough(client):
    df = _frame()
    ddf = dd.from_pandas(df, npartitions=2)
    est = OneHotPCA(n_components=3, numeric="passthrough").set_output(transform="pandas")
    out = est.fit_transform(ddf)
    assert isinstance(out, dd.DataFrame)
    ref = OneHotPCA(n_components=3, numeric="passthrough").fit(df)
    np.testing.assert_allclose(ref.numeric_mean_, est.numeric_mean_, rtol=1e-12)
    np.testing.assert_allclose(ref.numeric_scale_, est.numeric_scale_, rtol=1e-9)
    np.testing.assert_allclose(out.compute().to_numpy(), ref.transform(df), atol=1e-9)
    assert list(out.columns)[-1] == "age"
    # pandas input still gets scikit-learn's pandas output
    assert isinstance(est.transform(df), pd.DataFrame)


def test_is_dask_collection_frames_and_any_collection():
    import dask.array as da

    from catembed._utils._validation import is_dask_collection

    df = _frame(20)
    ddf = dd.from_pandas(df, npartitions=2)
    arr = da.from_array(np.arange(6).reshape(3, 2), chunks=2)
    assert is_dask_collection(ddf) and is_dask_collection(ddf["color"])
    assert not is_dask_collection(arr)  # no partitions to count
    assert is_dask_collection(arr, frames=False) and is_dask_collection(ddf, frames=False)
    for x in (df, df.to_numpy(), [[1, 2]], None):
        assert not is_dask_collection(x) and not is_dask_collection(x, frames=False)


def test_large_partitions_counted_by_slices_equal_in_memory(client, monkeypatch):
    # issue 40: a partition is counted by slices of rows (bounded worker memory); the
    # slices, some lacking values and missing entries, merge to the whole table's counts
    import catembed.stats._compute as cstats

    df = _frame(500)
    df.loc[df.index[::37], "color"] = None
    df.loc[df.index[100:300], "size"] = "m"  # a run of one value: a slice without the others
    monkeypatch.setattr(cstats, "_DASK_SLICE", 64)
    cols = ["color", "shape", "size"]
    a = compute_statistics(dd.from_pandas(df, npartitions=2)[cols])
    b = compute_statistics(df[cols])
    assert a.n_rows == b.n_rows == 500
    for ca, cb in zip(a.categories, b.categories, strict=True):
        assert [str(v) for v in ca] == [str(v) for v in cb]
    np.testing.assert_array_equal(a.counts, b.counts)
    np.testing.assert_array_equal(a.cooc_dense(), b.cooc_dense())


def test_transform_partitions_are_column_major(client, monkeypatch):
    # issue 40: each output column of a partition is contiguous, so to_parquet hands it to
    # Arrow without copying the block column by column; a partition is looked up by
    # slices of rows; the values equal in-memory ones
    import catembed.transform._dask as cdask

    monkeypatch.setattr(cdask, "_SLICE", 45)
    df = _frame().drop(columns="age").astype({"color": "category", "shape": "category"})
    ddf = dd.from_pandas(df, npartitions=2)
    est = CDE(random_state=0, n_components=3).fit(ddf)
    part = est.transform(ddf).partitions[1].compute()
    for name in part.columns:
        assert part[name].to_numpy().flags.c_contiguous
    ref = CDE(random_state=0, n_components=3).fit(df).transform(df)
    np.testing.assert_array_equal(part.to_numpy(), ref[len(ref) - len(part):])
