"""Polars input (issue 41 item 8): every public estimator fits, transforms and predicts a
polars DataFrame exactly as the same table in pandas, and ``set_output(transform="polars")``
returns a polars frame holding the same values. Skipped without polars."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import (
    check_global_set_output_transform_polars,
    check_set_output_transform_polars,
)

import catembed
from catembed.cluster import (
    LCA,
    MGR,
    Consensus,
    GowerAgglomerative,
    KModes,
    KPrototypes,
    LSHKRepresentatives,
    NaiveKMeans,
    OneHotKMeans,
    SimilaritySpectral,
)
from catembed.embed import FAMD
from catembed.similarity import CategoricalDistance, GowerDistance

pl = pytest.importorskip("polars")


def _columns(n: int = 60, seed: int = 0) -> dict[str, list]:
    """Three planted groups in three text columns (one missing value) and a number."""
    rng = np.random.default_rng(seed)
    g = np.arange(n) % 3
    noisy = np.where(rng.random(n) < 0.2, rng.integers(0, 3, n), g)
    a = np.array(["x", "y", "z"])[noisy].tolist()
    a[5] = None
    return {
        "a": a,
        "b": np.array(["p", "q", "r"])[g].tolist(),
        "c": np.array(["u", "v", "u"])[np.where(rng.random(n) < 0.3, 1 - g % 2, g)].tolist(),
        "x": np.round(g * 3.0 + rng.normal(0, 1, n), 3).tolist(),
    }


CAT = ["a", "b", "c"]
DEEP_FAST = {"pretrain_steps": 20, "cluster_steps": 10, "batch_size": 32, "guard": False}

#: (estimator, table): every public estimator of catembed, on the text columns ("cat"),
#: with the number ("mixed"), or with no missing value ("complete": the k-means baselines)
ESTIMATORS = [
    (catembed.CDE(random_state=0), "cat"),
    (catembed.OneHotEmbedder(), "cat"),
    (catembed.OneHotPCA(), "cat"),
    (catembed.IDFEmbedder(), "cat"),
    (catembed.CDEPlusPlus(encoder="none"), "cat"),
    (catembed.CDEAutoencoder(max_epochs=3, random_state=0), "cat"),
    (catembed.OneHotAutoencoder(max_epochs=3, random_state=0), "cat"),
    (catembed.UNTIE(random_state=0), "cat"),
    (catembed.Couplings(), "cat"),
    (catembed.MCA(), "cat"),
    (catembed.LCME(random_state=0), "cat"),
    (FAMD(), "mixed"),
    (CategoricalDistance(), "cat"),
    (GowerDistance(), "mixed"),
    (Consensus(3, members=["idf", "mca"], n_init=2, random_state=0), "mixed"),
    (KModes(3, random_state=0), "cat"),
    (KPrototypes(3, random_state=0), "mixed"),
    (LCA(3, random_state=0), "mixed"),
    (LSHKRepresentatives(3), "cat"),
    (MGR(3), "cat"),
    (NaiveKMeans(3, random_state=0), "complete"),
    (OneHotKMeans(3, random_state=0), "complete"),
    (GowerAgglomerative(3), "mixed"),
    (SimilaritySpectral(3, random_state=0), "cat"),
]
DEEP = [
    ("AutoencoderKMeans", DEEP_FAST),
    ("IDEC", DEEP_FAST),
    ("AttentionClusterer", DEEP_FAST),
    ("ThesisClusterer", {"epochs": 1, "cluster_epochs": 1, "n_blocks": 1, "guard": False}),
    ("VAEWD", {"max_steps": 20}),
    ("BiGANWD", {"max_steps": 20}),
]


def _tables(kind: str) -> tuple[pd.DataFrame, object]:
    cols = _columns()
    if kind == "cat":
        cols = {c: cols[c] for c in CAT}
    elif kind == "complete":
        cols["a"][5] = "x"
    return pd.DataFrame(cols), pl.DataFrame(cols)


def _outputs(est, X) -> dict[str, np.ndarray]:
    """What a fitted estimator gives for X: its transform, predict and pairwise."""
    out = {}
    for name in ("transform", "predict", "pairwise"):
        if hasattr(est, name):
            value = getattr(est, name)(X)
            out[name] = value.toarray() if hasattr(value, "toarray") else np.asarray(value)
    return out


def _check_same_as_pandas(est, kind: str) -> None:
    Xpd, Xpl = _tables(kind)
    a = clone(est).fit(Xpd)
    b = clone(est).fit(Xpl)
    assert list(b.feature_names_in_) == list(Xpd.columns)
    if hasattr(a, "labels_"):
        np.testing.assert_array_equal(b.labels_, a.labels_)
    want = _outputs(a, Xpd)
    assert want or hasattr(a, "labels_")
    for got in (_outputs(b, Xpl), _outputs(a, Xpl), _outputs(b, Xpd)):
        assert got.keys() == want.keys()
        for name, value in want.items():
            np.testing.assert_array_equal(got[name], value, err_msg=name)
    if hasattr(est, "fit_predict"):
        np.testing.assert_array_equal(clone(est).fit_predict(Xpl), clone(est).fit_predict(Xpd))
    if hasattr(est, "fit_transform") and hasattr(est, "set_output"):
        plain = np.asarray(clone(est).fit_transform(Xpd))
        out = clone(est).set_output(transform="polars").fit(Xpl).transform(Xpl)
        assert isinstance(out, pl.DataFrame)
        assert out.columns == [str(c) for c in a.get_feature_names_out()]
        np.testing.assert_array_equal(out.to_numpy(), plain)
        out = clone(est).set_output(transform="polars").fit_transform(Xpl)
        assert isinstance(out, pl.DataFrame)
        np.testing.assert_array_equal(out.to_numpy(), plain)


@pytest.mark.parametrize(("est", "kind"), ESTIMATORS, ids=[type(e[0]).__name__ for e in ESTIMATORS])
def test_polars_input_gives_the_pandas_results(est, kind):
    _check_same_as_pandas(est, kind)


@pytest.mark.parametrize(("name", "params"), DEEP, ids=[d[0] for d in DEEP])
def test_deep_estimators_take_polars(name, params):
    torch = pytest.importorskip("torch")
    from catembed import deep

    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        cls = getattr(deep, name)
        first = {"n_components": 3} if name in ("VAEWD", "BiGANWD") else {"n_clusters": 3}
        _check_same_as_pandas(cls(**first, random_state=0, **params), "mixed")
    finally:
        torch.set_num_threads(old)


def test_polars_series_and_lazy_frame():
    """A polars Series is a one-column table, as a pandas Series is; a LazyFrame is
    collected."""
    Xpd, Xpl = _tables("cat")
    want = catembed.IDFEmbedder().fit_transform(Xpd[["b"]])
    np.testing.assert_array_equal(catembed.IDFEmbedder().fit_transform(Xpl["b"]), want)
    np.testing.assert_array_equal(catembed.IDFEmbedder().fit_transform(Xpl.lazy()),
                                  catembed.IDFEmbedder().fit_transform(Xpd))


TRANSFORMERS = [est for est, _ in ESTIMATORS if hasattr(est, "set_output")]


@pytest.mark.parametrize("check", [check_set_output_transform_polars,
                                   check_global_set_output_transform_polars],
                         ids=["local", "global"])
@pytest.mark.parametrize("est", TRANSFORMERS, ids=[type(e).__name__ for e in TRANSFORMERS])
def test_set_output_polars_conformance(est, check):
    """scikit-learn's own set_output checks with polars (fit and transform on frames and
    arrays, ``set_output`` and ``config_context``). Their table is 20 rows of distinct
    floats read as categories: the warnings about it (and scikit-learn's feature-name
    warnings of its array/frame cases) are not under test."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        check(type(est).__name__, est)


@pytest.mark.parametrize("command", ["embed", "cluster"])
def test_cli_reads_a_parquet_file_written_by_polars(tmp_path, command):
    """The CLI's Parquet path: a file written by polars (its string columns are Arrow
    ``large_string`` or ``string_view``, nulls as nulls) gives the output of the same table
    written by pandas."""
    from catembed.cli import main

    cols = {k: v for k, v in _columns().items() if k != "x"}
    frame = pl.DataFrame(cols)
    frame.write_parquet(tmp_path / "polars.parquet")
    pd.DataFrame(cols).to_parquet(tmp_path / "pandas.parquet", index=False)
    outputs = []
    for name in ("polars", "pandas"):
        out = tmp_path / f"{name}.csv"
        argv = [command, str(tmp_path / f"{name}.parquet"), "-o", str(out), "--quiet"]
        argv += ["--method", "cde", "--seed", "0"] if command == "embed" else \
            ["-k", "3", "--seed", "0"]
        assert main(argv) == 0
        outputs.append(pd.read_csv(out))
    pd.testing.assert_frame_equal(outputs[0], outputs[1])
