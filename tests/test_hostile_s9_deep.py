"""Hostile inputs to the deep estimators, the mixed clusterers and ``report`` (sweep s9-deep)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError

X = pd.DataFrame({
    "a": list("xyzxyzxyzxyzxyzxyzxy"),
    "b": list("ppqqppqqppqqppqqppqq"),
    "x": np.linspace(-1.0, 1.0, 20),
})

DEEP = {
    "ThesisClusterer": {"n_clusters": 2, "epochs": 1, "batch_size": 8},
    "AutoencoderKMeans": {"n_clusters": 2, "pretrain_steps": 1, "cluster_steps": 1},
    "IDEC": {"n_clusters": 2, "pretrain_steps": 1, "cluster_steps": 1},
    "AttentionClusterer": {"n_clusters": 2, "pretrain_steps": 1, "cluster_steps": 1},
    "VAEWD": {"max_steps": 1},
    "BiGANWD": {"max_steps": 1},
}


def _deep(name, **kw):
    pytest.importorskip("torch")
    import catembed.deep as deep

    return getattr(deep, name)(**{**DEEP[name], "random_state": 0, **kw})


@pytest.mark.parametrize("name", sorted(DEEP))
@pytest.mark.parametrize("seed", ["x", -1, 2**40, 1.5])
def test_deep_bad_random_state_names_the_parameter(name, seed):
    with pytest.raises(CatEmbedError, match="random_state must be"):
        _deep(name, random_state=seed).fit(X)


@pytest.mark.parametrize("name", sorted(DEEP))
@pytest.mark.parametrize("threads", [0, -2, "x"])
def test_deep_bad_n_threads_names_the_parameter(name, threads):
    with pytest.raises(CatEmbedError, match="n_threads must be"):
        _deep(name, n_threads=threads).fit(X)


@pytest.mark.parametrize("name", ["AutoencoderKMeans", "IDEC", "AttentionClusterer"])
@pytest.mark.parametrize("param", ["corruption", "gamma"])
def test_deep_text_where_a_number_belongs_is_a_catembed_error(name, param):
    with pytest.raises(CatEmbedError, match=f"{param} must"):
        _deep(name, **{param: "x"}).fit(X)


def test_thesis_guard_must_be_a_bool():
    with pytest.raises(CatEmbedError, match="guard must be True or False"):
        _deep("ThesisClusterer", guard="yes").fit(X)


@pytest.mark.parametrize("name", ["AutoencoderKMeans", "VAEWD"])
def test_deep_bool_hidden_size_is_refused(name):
    with pytest.raises(CatEmbedError, match="hidden_sizes must be"):
        _deep(name, hidden_sizes=(True,)).fit(X)
