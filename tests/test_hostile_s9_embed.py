"""Hostile inputs to the value-coupling embedders and their CLI (sweep s9, embedders)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError, CatEmbedTypeError
from catembed.embed import CDE, LCME, MCA, OneHotEmbedder

X = pd.DataFrame({
    "a": list("xyzxyzxyzxyz"),
    "b": list("ppqqppqqppqq"),
    "c": list("uvwwvuuvwwvu"),
})


def test_lcme_n_components_beyond_memory_is_refused_before_the_k_by_k_scaling(monkeypatch):
    # the view scaling holds a k x k matrix: 2000**2 float64 = 32 MB > the 10 MB limit
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "10M")
    with pytest.raises(CatEmbedError, match=r"LCME on .* with n_components=2000 would need "
                       r"about .* lower n_components"):
        LCME(n_components=2000, n_init=1, max_iter=1, random_state=0).fit(X)


@pytest.mark.parametrize("chunks", [[X.iloc[:6], X.iloc[6:]], (c for c in [X]),
                                    lambda: None, lambda: X])
def test_fit_chunks_refuses_what_is_not_a_callable_returning_chunks(chunks):
    with pytest.raises(CatEmbedTypeError, match=r"make_chunks must be a callable returning a "
                       r"fresh iterable of DataFrame chunks"):
        OneHotEmbedder().fit_chunks(chunks)


@pytest.mark.filterwarnings("ignore::catembed.CatEmbedWarning")
@pytest.mark.parametrize("numeric", ["drop", "discretize"])
def test_fit_chunks_refuses_a_chunk_lacking_columns_of_the_first(numeric):
    first = X.assign(n=np.arange(12.0))
    later = first.iloc[6:].drop(columns="b")
    with pytest.raises(CatEmbedError, match=r"^chunk 2 lacks the column\(s\) of the first "
                       r"chunk: b\.$"):
        OneHotEmbedder(numeric=numeric).fit_chunks(lambda: [first.iloc[:6], later])


def test_fit_chunks_of_numpy_arrays_equals_the_fit():
    arr = X.to_numpy()
    chunked = OneHotEmbedder().fit_chunks(lambda: [arr[:6], arr[6:]])
    assert not hasattr(chunked, "feature_names_in_")
    np.testing.assert_array_equal(chunked.transform(arr), OneHotEmbedder().fit_transform(arr))


@pytest.mark.parametrize("max_iter", [0, -1])
def test_cde_max_iter_below_one_is_refused(max_iter):
    from catembed.embed import CDE, CDEAutoencoder

    for cls in (CDE, CDEAutoencoder):
        with pytest.raises(CatEmbedError, match=rf"^max_iter must be a positive integer; "
                           rf"got {max_iter}\.$"):
            cls(max_iter=max_iter, random_state=0).fit(X)


@pytest.mark.parametrize("params, message", [
    ({"hidden_size": 0}, "hidden_size must be a positive integer; got 0"),
    ({"hidden_size": -1}, "hidden_size must be a positive integer; got -1"),
    ({"max_epochs": 0}, "max_epochs must be a positive integer; got 0"),
    ({"sparsity_proportion": 2}, "sparsity_proportion must lie strictly between 0 and 1; got 2"),
])
def test_stacked_autoencoder_parameters_are_checked_as_the_joint_ones(params, message):
    from catembed.embed import CDEAutoencoder, CDEPlusPlus, OneHotAutoencoder

    for cls in (CDEPlusPlus, CDEAutoencoder, OneHotAutoencoder):
        with pytest.raises(CatEmbedError, match=rf"^{message}\.$"):
            cls(**{"max_epochs": 5, "random_state": 0, **params}).fit(X)


def test_cli_transform_refuses_a_consensus_model_file(tmp_path, capsys):
    from catembed.cli import main
    from catembed.cluster import Consensus

    model = tmp_path / "cons.npz"
    Consensus(n_clusters=2, members=["mca", "onehot"], n_init=1, random_state=0).fit(X).save(
        model)
    data = tmp_path / "d.csv"
    X.to_csv(data, index=False)
    capsys.readouterr()
    code = main(["transform", str(model), str(data), "-q", "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == f"catembed: error: {model} holds a Consensus, not a ValueEmbedder."
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.parametrize("model", [None, 5, OneHotEmbedder])
def test_transform_file_refuses_what_is_neither_an_embedder_nor_a_path(model, tmp_path):
    from catembed import transform_file

    data = tmp_path / "d.csv"
    X.to_csv(data, index=False)
    with pytest.raises(CatEmbedTypeError, match=r"model_or_path must be a fitted catembed "
                       r"embedder or the path of its model file; got a "):
        transform_file(model, data, tmp_path / "out.csv", progress=False)


@pytest.mark.parametrize("make", [lambda: MCA(n_components=2, numeric="passthrough"),
                                  lambda: CDE(n_components=2, random_state=0,
                                              numeric="passthrough")])
def test_passthrough_column_named_as_a_component_is_refused(make):
    Xn = X.assign(mca0=np.arange(12.0), cde1=np.arange(12.0))
    est = make().fit(Xn)
    with pytest.raises(CatEmbedError, match=r"numeric column\(s\) '(mca0|cde1)' passed "
                       r"through \(numeric='passthrough'\) have the name of an embedding"):
        est.get_feature_names_out()
    with pytest.raises(CatEmbedError, match="have the name of an embedding column"):
        est.set_output(transform="pandas").transform(Xn)


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_cli_embed_id_column_named_as_an_output_column_is_refused(tmp_path, capsys, suffix):
    from catembed.cli import main

    data = tmp_path / "d.csv"
    X.assign(a__idf="r" + pd.Series(range(12)).astype(str)).to_csv(data, index=False)
    out = tmp_path / f"out{suffix}"
    code = main(["embed", str(data), "--method", "idf", "--id", "a__idf", "-q", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == ("catembed: error: the output would have two columns named "
                           "'a__idf': a copied column (--id, --target) has the name of a "
                           "column catembed writes; rename it in the input.")
    assert not out.exists()


@pytest.mark.parametrize("k", ["0", "-1"])
def test_cli_report_clusters_below_one_is_refused_before_any_work(tmp_path, capsys, k):
    from catembed.cli import main

    data = tmp_path / "d.csv"
    X.to_csv(data, index=False)
    out = tmp_path / "r.html"
    code = main(["report", str(data), "--clusters", k, "-q", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.strip() == f"catembed: error: --clusters must be at least 1; got {k}."
    assert not out.exists()
