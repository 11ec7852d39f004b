"""KModes and LCA fitted on a Dask DataFrame without gathering its rows (issue 56): the
labels equal the in-memory fit's, on 1, 3 and 7 partitions, on a ``LocalCluster`` started
here (threads, no processes: fast) and on Dask's default scheduler."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

from catembed import CatEmbedError  # noqa: E402
from catembed.cluster import LCA, KModes  # noqa: E402
from catembed.cluster import _dask_fit as F  # noqa: E402
from catembed.cluster import _distributed as D  # noqa: E402
from catembed.metrics import ari_codes  # noqa: E402
from conftest import grouped_frame  # noqa: E402


def _frame(n: int = 480, seed: int = 0) -> pd.DataFrame:
    return grouped_frame(n, seed, 5)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
@pytest.mark.parametrize("init,metric", [("cao", "hamming"), ("huang", "rough-cluster"),
                                         ("random", "ahmad")])
def test_kmodes_labels_equal_in_memory(dask_scheduler, npartitions, init, metric):
    df = _frame()
    kw = {"n_clusters": 4, "init": init, "n_init": 3, "random_state": 1, "metric": metric}
    eager = KModes(**kw).fit(df)
    lazy = KModes(**kw).fit(dd.from_pandas(df, npartitions=npartitions))
    labels = lazy.labels_.compute()
    assert labels.dtype == np.int64 and labels.index.equals(df.index)
    np.testing.assert_array_equal(labels.to_numpy(), eager.labels_)
    np.testing.assert_array_equal(lazy.modes_, eager.modes_)
    assert lazy.cost_ == pytest.approx(eager.cost_, rel=1e-12)
    assert lazy.n_iter_ in (eager.n_iter_, eager.n_iter_ - 1)  # docs/distributed.md
    assert (lazy.cluster_centroids_ == eager.cluster_centroids_).all()
    other = dd.from_pandas(_frame(200, seed=5), npartitions=2)
    np.testing.assert_array_equal(lazy.predict(other).compute().to_numpy(),
                                  eager.predict(other.compute()))


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_lca_labels_equal_in_memory(dask_scheduler, npartitions):
    df = _frame()
    eager = LCA(3, n_init=3, random_state=0).fit(df)
    lazy = LCA(3, n_init=3, random_state=0).fit(dd.from_pandas(df, npartitions=npartitions))
    np.testing.assert_array_equal(lazy.labels_.compute().to_numpy(), eager.labels_)
    assert lazy.log_likelihood_ == eager.log_likelihood_  # the same EM on the same rows
    assert lazy.n_iter_ == eager.n_iter_
    assert lazy.entropy_ == eager.entropy_
    for a, b in zip(lazy.categories_, eager.categories_, strict=True):
        assert [str(v) for v in a] == [str(v) for v in b]


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_over_the_client_limit_same_partition(thread_client, monkeypatch, npartitions):
    """More distinct rows than CLIENT_ROWS: Cao's and Huang's starts take one pass per mode
    (the in-memory modes), ``init="random"`` reads a sample, and LCA's starts read the
    sample and its E-step sums over the partitions."""
    monkeypatch.setattr(F, "CLIENT_ROWS", 10)
    monkeypatch.setattr(F, "SAMPLE_ROWS", 300)
    df = _frame(600)
    ddf = dd.from_pandas(df, npartitions=npartitions)
    eager = LCA(3, n_init=3, random_state=0).fit(df)
    lazy = LCA(3, n_init=3, random_state=0).fit(ddf)
    assert ari_codes(lazy.labels_.compute().to_numpy(), eager.labels_) >= 0.99
    assert lazy.log_likelihood_ == pytest.approx(eager.log_likelihood_, rel=1e-6)
    assert lazy.entropy_ == pytest.approx(eager.entropy_, abs=1e-6)
    for init in ("cao", "huang"):
        kw = {"init": init, "n_init": 2, "random_state": 0}
        np.testing.assert_array_equal(KModes(3, **kw).fit(ddf).labels_.compute().to_numpy(),
                                      KModes(3, **kw).fit(df).labels_)
    # random starts drawn from a sample are other starts: the best of 5 costs what the
    # in-memory best of 5 costs (702 = 702 on this table), within 5%
    kw = {"init": "random", "n_init": 5, "random_state": 0}
    assert KModes(3, **kw).fit(ddf).cost_ <= 1.05 * KModes(3, **kw).fit(df).cost_


def test_kmodes_empty_cluster_fill_equal_in_memory(thread_client):
    """An initial mode repeated: its cluster starts empty and is filled with the farthest
    row, a pass over the partitions, as in memory."""
    df = _frame(300)
    init = df.iloc[[0, 0, 5]].to_numpy()
    eager = KModes(3, init=init).fit(df)
    lazy = KModes(3, init=init).fit(dd.from_pandas(df, npartitions=3))
    np.testing.assert_array_equal(lazy.labels_.compute().to_numpy(), eager.labels_)
    np.testing.assert_array_equal(lazy.modes_, eager.modes_)


def test_errors_are_the_librarys(thread_client):
    df = _frame(6)
    with pytest.raises(CatEmbedError, match="n_clusters=8"):
        KModes(8).fit(dd.from_pandas(df, npartitions=2))
    fitted = KModes(2).fit(dd.from_pandas(df, npartitions=2))
    with pytest.raises(CatEmbedError, match="features"):
        fitted.predict(dd.from_pandas(df[["c0", "c1"]], npartitions=1))
    with pytest.raises(CatEmbedError, match="categorical columns only"):
        LCA(2, categorical_features="auto").fit(
            dd.from_pandas(df.assign(x=np.arange(6.0)), npartitions=2))


def test_batch_steps_sum_to_the_whole():
    """The per-partition steps (for any engine) add up to the whole table's quantities."""
    codes = np.random.default_rng(0).integers(0, 3, size=(50, 4))
    parts = [D.distinct_batch(codes[:20], 0), D.distinct_batch(codes[20:], 20)]
    merged = D.merge_distinct(*parts)
    rows, first, counts = np.unique(codes, axis=0, return_index=True, return_counts=True)
    np.testing.assert_array_equal(merged.rows, rows)
    np.testing.assert_array_equal(merged.first, first)
    np.testing.assert_array_equal(merged.counts, counts)
    assert D.merge_distinct(*parts, cap=5) is None
    for c in (codes, codes * (2**40), codes - 1):  # keyed; over 62 bits; negative codes
        ref = np.unique(c, axis=0, return_index=True, return_inverse=True,
                        return_counts=True)
        got = D.unique_rows(c, inverse=True)
        for a, b in zip(got, (ref[0], ref[1], ref[3], ref[2].ravel()), strict=True):
            np.testing.assert_array_equal(a, b)
    offsets = np.arange(0, 13, 3)
    rng = np.random.default_rng(1)
    lt, lp = np.log(rng.dirichlet(np.ones(3), size=(2, 4)).reshape(2, 12)), np.log([.4, .6])
    a = D.lca_estep_batch(codes[:20], offsets, lt, lp)
    b = D.lca_estep_batch(codes[20:], offsets, lt, lp)
    whole = D.lca_estep_batch(codes, offsets, lt, lp)
    np.testing.assert_allclose(a[0] + b[0], whole[0], rtol=1e-12)
    assert a[1] + b[1] == pytest.approx(whole[1], rel=1e-12)
    np.testing.assert_allclose(whole[0].sum(axis=1).sum(), 50 * 4)


@pytest.fixture(scope="module")
def consensus_table():
    from catembed.cluster import Consensus

    df = _frame(900, seed=3)
    return df, Consensus(3, random_state=0).fit(df)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_consensus_labels_equal_in_memory(dask_scheduler, consensus_table, npartitions):
    """At most CONSENSUS_ROWS rows: fitted in memory, labels mapped over the partitions."""
    from catembed.cluster import Consensus

    df, eager = consensus_table
    lazy = Consensus(3, random_state=0).fit(dd.from_pandas(df, npartitions=npartitions))
    labels = lazy.labels_.compute()
    assert labels.index.equals(df.index)
    np.testing.assert_array_equal(labels.to_numpy(), eager.labels_)
    assert lazy.n_rows_fitted_ == len(df)


@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_consensus_on_a_sample_same_partition(thread_client, consensus_table, monkeypatch,
                                              npartitions):
    """Over CONSENSUS_ROWS: fitted on a uniform sample, every row labelled by predict; the
    partition is the in-memory one up to ARI 0.9 on these planted groups."""
    from catembed.cluster import Consensus
    from catembed.cluster.consensus import _dask as C

    monkeypatch.setattr(C, "CONSENSUS_ROWS", 300)
    df, eager = consensus_table
    lazy = Consensus(3, random_state=0).fit(dd.from_pandas(df, npartitions=npartitions))
    assert 200 <= lazy.n_rows_fitted_ <= 400
    assert ari_codes(lazy.labels_.compute().to_numpy(), eager.labels_) >= 0.9


def test_cli_cluster_on_dask_writes_labels_per_partition(tmp_path, consensus_table):
    """``catembed cluster DIR --scheduler threads -o OUT``: one labels file per input
    partition, the in-memory fit's labels in the input's order."""
    from catembed import cli

    df, eager = consensus_table
    src = tmp_path / "in"
    dd.from_pandas(df.assign(id=np.arange(len(df))), npartitions=3).to_parquet(
        src, write_index=False)
    out = tmp_path / "out"
    assert cli.main(["cluster", str(src), "-k", "3", "--id", "id", "--scheduler", "threads",
                     "-o", str(out), "-q"]) == 0
    assert len(list(out.glob("*.parquet"))) == 3
    got = pd.read_parquet(out)
    np.testing.assert_array_equal(got["id"].to_numpy(), np.arange(len(df)))
    np.testing.assert_array_equal(got["cluster"].to_numpy(), eager.labels_)
    assert cli.main(["cluster", str(src), "-k", "3", "--scheduler", "threads", "-o",
                     str(out), "-q"]) != 0  # the output folder is not empty
    assert cli.main(["cluster", str(tmp_path / "x.csv"), "--scheduler", "threads", "-o",
                     str(tmp_path / "o2"), "-q"]) != 0


def test_cli_cluster_on_dask_names_cli_options(tmp_path, capsys):
    """The warnings of the fit on Dask name -k, as the in-memory command's do."""
    from catembed import cli

    rng = np.random.default_rng(5)
    src = tmp_path / "flat"
    dd.from_pandas(pd.DataFrame(rng.integers(0, 3, (600, 5)).astype(str),
                                columns=[f"c{j}" for j in range(5)]),
                   npartitions=2).to_parquet(src, write_index=False)
    assert cli.main(["cluster", str(src), "-k", "3", "--members", "mca,idf", "--scheduler",
                     "threads", "-o", str(tmp_path / "out"), "-q"]) == 0
    err = capsys.readouterr().err
    assert "no evidence of groups" in err and "(-k auto would answer" in err
    assert "n_clusters=" not in err


def test_cli_local_cluster_sized_by_flags(tmp_path, consensus_table, capsys):
    """``--scheduler local --workers 1 --memory-limit 1GiB``: a LocalCluster of one worker
    process started by the command; the labels of 7 partitions are the in-memory fit's. With
    Dask's default HTTP port held by another program, no "Port 8787 is already in use"."""
    import socket

    from catembed import cli

    df, eager = consensus_table
    src = tmp_path / "in"
    dd.from_pandas(df, npartitions=7).to_parquet(src, write_index=False)
    out = tmp_path / "out"
    with socket.socket() as held:
        try:
            held.bind(("127.0.0.1", 8787))
            held.listen()
        except OSError:
            pass  # held already (by another cluster): the same situation
        assert cli.main(["cluster", str(src), "-k", "3", "--scheduler", "local", "--workers",
                         "1", "--memory-limit", "1GiB", "-o", str(out), "-q"]) == 0
    assert "already in use" not in capsys.readouterr().err
    assert len(list(out.glob("*.parquet"))) == 7
    np.testing.assert_array_equal(pd.read_parquet(out)["cluster"].to_numpy(), eager.labels_)


@pytest.mark.parametrize("extra,message", [
    (["--scheduler", "threads", "--workers", "2"], "give --scheduler local"),
    (["--memory-limit", "1GiB"], "give --scheduler local"),
    (["--scheduler", "local", "--memory-limit", "lots"], "is not a size"),
])
def test_cli_local_cluster_flags_refused(tmp_path, consensus_table, capsys, extra, message):
    """``--workers`` and ``--memory-limit`` size ``--scheduler local`` only; a size that is
    not one is refused in one line, before any cluster starts."""
    from catembed import cli

    df, _ = consensus_table
    src = tmp_path / "in"
    dd.from_pandas(df, npartitions=2).to_parquet(src, write_index=False)
    assert cli.main(["cluster", str(src), "-k", "3", *extra, "-o",
                     str(tmp_path / "out"), "-q"]) != 0
    assert message in capsys.readouterr().err
