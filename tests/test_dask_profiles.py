"""A Dask fit's ``profiles_`` from every row by reduced counts, and ``predict`` /
``transform`` of a Dask frame mapped over its partitions (issue 56): the figures equal the
in-memory ``describe_clusters``' on the same labels, on 1, 3 and 7 partitions, on a
``LocalCluster`` started here and on Dask's default scheduler."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from catembed.cluster import Consensus, describe_clusters  # noqa: E402
from catembed.cluster.consensus import _dask as C  # noqa: E402
from catembed.cluster.consensus import _dask_profiles as P  # noqa: E402
from conftest import grouped_frame  # noqa: E402

FLOATS = ["share_in_cluster", "share_overall", "lift", "Cla/Mod", "Mod/Cla", "Global",
          "p.value", "v.test", "column_statistic", "column_df", "column_p.value", "Eta2",
          "mean_in_cluster", "mean_overall", "sd_in_cluster", "sd_overall"]


def _frame(n: int = 600, seed: int = 0) -> pd.DataFrame:
    return grouped_frame(n, seed, 4, numeric=True)


def _assert_same(got: pd.DataFrame, want: pd.DataFrame, skip=()) -> None:
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    for name in ("cluster", "column", "value", "kind", "column_test"):
        np.testing.assert_array_equal(got[name].astype(str).to_numpy(),
                                      want[name].astype(str).to_numpy(), err_msg=name)
    for name in ("size", "count"):  # exact: counts add over partitions
        np.testing.assert_array_equal(got[name].to_numpy(dtype=float),
                                      want[name].to_numpy(dtype=float), err_msg=name)
    for name in FLOATS:
        if name not in skip:
            np.testing.assert_allclose(got[name].to_numpy(dtype=float),
                                       want[name].to_numpy(dtype=float), rtol=1e-9,
                                       atol=1e-8, equal_nan=True, err_msg=name)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_counts_reduced_equal_describe_clusters(npartitions):
    """The per-partition counts merged give describe_clusters' frame (no sample: medians,
    interquartile ranges and shift NaN), a cluster absent from some partitions included."""
    df = _frame()
    labels = np.where(df["c0"].eq("a"), 0, np.where(df["c2"].eq("b"), 5, 2))
    labels[:50] = 2  # cluster 0 and 5 absent from the first rows
    want = describe_clusters(df, labels, numeric_features=["x"])
    bounds = np.linspace(0, len(df), npartitions + 1).astype(int)
    parts = [P.partition_counts(df.iloc[a:b], labels[a:b], ["x"])
             for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    merged = parts[0]
    for p in parts[1:]:
        merged = P.merge_counts(merged, p)
    got = P.profiles_from_counts(merged, ["x"])
    _assert_same(got, want)
    assert got[P.SAMPLE_COLUMNS].isna().all().all()
    assert P.merge_counts(None, parts[0]) is parts[0]
    assert P.partition_counts(df.iloc[:0], labels[:0], ["x"]) is None


@pytest.fixture(scope="module")
def table():
    return _frame(900, seed=3)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_consensus_sample_profiles_from_every_row(dask_scheduler, table, monkeypatch, npartitions):
    """Over CONSENSUS_ROWS: ``profiles_``' counts, shares, tests, means and standard
    deviations are describe_clusters' on every row and its labels; medians, interquartile
    ranges and paragons are the sample's."""
    monkeypatch.setattr(C, "CONSENSUS_ROWS", 300)
    model = Consensus(3, random_state=0).fit(dd.from_pandas(table, npartitions=npartitions))
    labels = model.labels_.compute().to_numpy()
    prof = model.profiles_
    want = describe_clusters(table, labels, numeric_features=["x"])
    got = prof[prof["kind"] != "paragon"].reset_index(drop=True)
    _assert_same(got.drop(columns=["jaccard", "stability"]),
                 want.reindex(columns=got.columns.drop(["jaccard", "stability"])))
    para = prof[prof["kind"] == "paragon"]
    assert len(para) and (para["size"].to_numpy() == np.bincount(labels)[para["cluster"]]).all()
    num = prof[prof["kind"] == "number"]
    assert num["median_in_cluster"].notna().all()  # from the sample
    assert set(prof["stability"]) <= {"stable", "doubtful", "dissolved", "empty"}
    assert prof["jaccard"].notna().all()


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_predict_transform_map_partitions(dask_scheduler, table, npartitions):
    """``predict`` and ``transform`` of a Dask frame are lazy, aligned with its partitions,
    and equal the in-memory ones."""
    model = Consensus(3, random_state=0).fit(table)
    ddf = dd.from_pandas(table, npartitions=npartitions)
    y = model.predict(ddf)
    Z = model.transform(ddf)
    assert y.npartitions == npartitions and Z.npartitions == npartitions
    np.testing.assert_array_equal(y.compute().to_numpy(), model.predict(table))
    got = Z.compute()
    assert got.index.equals(table.index)
    assert list(got.columns) == list(model.get_feature_names_out())
    np.testing.assert_allclose(got.to_numpy(), model.transform(table), rtol=1e-12)


@pytest.mark.parametrize("use_client", [True, False])
def test_partitions_written_are_counted(tmp_path, table, use_client, request):
    """The labels are written one file per partition, each counted on the progress line as
    it finishes (a client's futures, or the local scheduler's callback), with the ``--id``
    and ``--target`` columns; the pass returns the partitions' profile counts merged."""
    import io

    from catembed._utils._progress import Progress
    from catembed.cli._cluster_dask import _write_partitions

    client = request.getfixturevalue("thread_client") if use_client else None
    model = Consensus(3, random_state=0).fit(table.drop(columns=["c3"]))
    ddf = dd.from_pandas(table.assign(id=np.arange(len(table))), npartitions=5)
    features = ["c0", "c1", "c2", "x"]
    stream = io.StringIO()
    progress = Progress("catembed cluster", stream=stream, enabled=True, delay=0, interval=0,
                        ticker=False)
    counts = _write_partitions(ddf, model, (features, ["id"], ["c3"], ["x"]),
                               tmp_path / "out", client, progress)
    assert progress._done == 5 and progress._total == 5
    assert "5 of 5 partitions (100%)" in stream.getvalue()
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        f"part-{i:05d}.parquet" for i in range(5)]
    got = pd.read_parquet(tmp_path / "out")
    assert list(got.columns) == ["id", "cluster", "c3"]
    np.testing.assert_array_equal(got["id"].to_numpy(), np.arange(len(table)))
    np.testing.assert_array_equal(got["cluster"].to_numpy(), model.labels_)
    np.testing.assert_array_equal(got["c3"].to_numpy(), table["c3"].to_numpy())
    want = P.partition_counts(table[features], model.labels_, ["x"])
    np.testing.assert_array_equal(counts["sizes"], want["sizes"])
    for col in ("c0", "c1", "c2"):
        np.testing.assert_array_equal(counts["cat"][col][1], want["cat"][col][1])


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_deferred_profiles_equal_the_fits_own(dask_scheduler, tmp_path, table, monkeypatch,
                                              npartitions):
    """``catembed cluster --scheduler``'s one labelling pass (labels written and counted,
    ``profiles_deferred``) gives the ``profiles_`` of the fit's own pass and its labels, on
    1, 3 and 7 partitions: the rows are labelled once instead of twice."""
    import io

    from catembed._utils._progress import Progress
    from catembed.cli._cluster_dask import _write_partitions

    monkeypatch.setattr(C, "CONSENSUS_ROWS", 300)
    ddf = dd.from_pandas(table, npartitions=npartitions)
    own = Consensus(3, random_state=0).fit(ddf)
    model = Consensus(3, random_state=0)
    with C.profiles_deferred():
        model.fit(ddf)
    assert model.n_rows_fitted_ < len(table)
    sample = model.profiles_.copy()
    progress = Progress("x", stream=io.StringIO(), enabled=False)
    client = distributed.client._get_global_client()  # the LocalCluster, or none
    counts = _write_partitions(ddf, model, (list(table.columns), [], [], ["x"]),
                               tmp_path / "out", client, progress)
    C.profiles_from_pass(model, counts, ["x"])
    pd.testing.assert_frame_equal(model.profiles_, own.profiles_)
    assert not model.profiles_.equals(sample)
    np.testing.assert_array_equal(pd.read_parquet(tmp_path / "out")["cluster"].to_numpy(),
                                  own.labels_.compute().to_numpy())
    gathered = Consensus(3, random_state=0)  # every row gathered: the fit's profiles_ kept
    monkeypatch.setattr(C, "CONSENSUS_ROWS", 10_000)
    with C.profiles_deferred():
        gathered.fit(ddf)
    before = gathered.profiles_
    C.profiles_from_pass(gathered, counts, ["x"])
    assert gathered.profiles_ is before


def test_categorical_columns_counted_from_their_categories(table):
    """A pandas categorical column (what ``read_parquet`` gives for dictionary-encoded
    Parquet) is counted from its categories: the same counts and value texts as from its
    cells as text, categories that are the same text merged, unused ones left out."""
    from catembed.stats._profiles import _text_codes

    odd = pd.DataFrame({"m": pd.Categorical([1, "1", None, b"x", 2.0, "b"],
                                            categories=[1, "1", b"x", 2.0, "b", "unused"])})
    for df in (table[["c0", "c1"]].astype("category"), odd):
        for (name, codes, texts), col in zip(_text_codes(df), df.columns, strict=True):
            got = P._category_codes(col, df[col])
            assert got[0] == name
            np.testing.assert_array_equal(got[1], codes)
            assert list(got[2]) == list(texts)
    labels = np.arange(len(table)) % 3
    cat = table.astype({c: "category" for c in ("c0", "c1", "c2", "c3")})
    a = P.partition_counts(cat, labels, ["x"])
    b = P.partition_counts(table, labels, ["x"])
    assert list(a["cat"]) == list(b["cat"])
    for col in a["cat"]:
        assert list(a["cat"][col][0]) == list(b["cat"][col][0])
        np.testing.assert_array_equal(a["cat"][col][1], b["cat"][col][1])


def test_cli_on_a_sample_prints_profiles_of_every_row(tmp_path, table, monkeypatch, capsys):
    """``catembed cluster DIR --scheduler threads`` over CONSENSUS_ROWS: the summary gives
    every row's count and sizes, and the profile lines of the in-memory command."""
    from catembed import cli

    monkeypatch.setattr(C, "CONSENSUS_ROWS", 300)
    src = tmp_path / "in"
    dd.from_pandas(table, npartitions=3).to_parquet(src, write_index=False)
    assert cli.main(["cluster", str(src), "-k", "3", "--scheduler", "threads", "-o",
                     str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert "(3 partitions): 900 rows, fitted on " in err
    sizes = err.split("(sizes ")[1].split(")")[0]
    assert sum(int(s) for s in sizes.split(", ")) == 900
    lines = [ln for ln in err.splitlines() if ln.startswith("  cluster ")]
    assert len(lines) == 3 and all("Jaccard" in ln and "v=+" in ln for ln in lines)
    assert "member" in err and "stability" in err
