"""Partition-only clusterers (MGR, LSH-k-representatives, OCL) as Consensus members
(issue 39 item 3): their block is the one-hot of their labels, their runs feed the agreement
weights, predict goes through their predict, and a model with one is not saved."""

from __future__ import annotations

import importlib.util
import pickle
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from catembed import CatEmbedError
from catembed.cluster import MGR, OCL, LSHKRepresentatives
from catembed.cluster.consensus import Consensus
from catembed.cluster.consensus._runs import agreement_with_others

_SYN = Path(__file__).resolve().parents[1] / "benchmarks" / "synthetic.py"
_spec = importlib.util.spec_from_file_location("_catembed_synthetic_pm", _SYN)
synthetic = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(synthetic)

CLASSES = {"mgr": MGR, "lsh-kreps": LSHKRepresentatives, "ocl": OCL}


@pytest.fixture(scope="module")
def planted():
    df = synthetic.planted_frame(400, 8, 6, n_groups=3, purity=0.8, seed=5)
    _, groups = synthetic.planted_codes(400, 8, 6, n_groups=3, purity=0.8, seed=5)
    return df, groups


class _Runs(Consensus):
    """Keeps the members' runs (to recompute the weights in a test)."""

    def _combine(self, runs_all, rs, weights=None, spaces=None):  # noqa: ANN001
        self.runs_ = runs_all
        super()._combine(runs_all, rs, weights, spaces)


@pytest.mark.parametrize("name", ["mgr", "lsh-kreps", "ocl"])
def test_partition_member_fit_predict_and_block(planted, name):
    df, _ = planted
    model = Consensus(3, members=["mca", name], n_init=3, random_state=0).fit(df)
    assert model.members_ == ["mca", name] and model.failed_members_ == []
    assert model.labels_.shape == (len(df),) and set(model.labels_) <= {0, 1, 2}
    np.testing.assert_array_equal(model.predict(df), model.labels_)
    est = model.estimators_[1]
    assert isinstance(est.clusterer, CLASSES[name]) and est.clusterer.n_clusters == 3
    # its block: k columns, the one-hot of the clusterer's own partition, scaled like any
    # block (unit mean squared row norm times the square root of the weight)
    width = len(model.estimators_[0].get_feature_names_out())
    block = model.transform(df)[:, width:]
    assert block.shape == (len(df), 3)
    scale = np.sqrt(model.member_weights_[1])
    np.testing.assert_allclose(block.max(axis=1), scale, rtol=1e-6)
    assert ((block == 0).sum(axis=1) == 2).all()
    np.testing.assert_array_equal(block.argmax(axis=1), est.clusterer.predict(df))
    assert model.cluster_centers_.shape == (3, width + 3)


def test_mgr_member_is_mgr_on_the_same_table(planted):
    df, _ = planted
    model = Consensus(3, members=["idf", "MGR"], n_init=2, random_state=0).fit(df)
    assert model.members_ == ["idf", "mgr"]  # names case-insensitive
    np.testing.assert_array_equal(model.estimators_[1].clusterer.labels_,
                                  MGR(3).fit(df).labels_)


def test_partition_member_runs_feed_the_agreement_weights(planted):
    df, _ = planted
    model = _Runs(3, members=["mca", "idf", "mgr"], n_init=3, random_state=1).fit(df)
    assert len(model.runs_) == 3 and all(len(r) == 3 for r in model.runs_)
    want = agreement_with_others(model.runs_, np.random.RandomState(0))
    np.testing.assert_allclose(model.member_weights_, want / want.sum(), rtol=1e-12)
    assert model.member_weights_.shape == (3,) and (model.member_weights_ > 0).all()
    # its runs are k-means on the one-hot rows: they find MGR's partition again
    mgr = model.estimators_[2].clusterer.labels_
    assert all(adjusted_rand_score(mgr, r) == 1.0 for r in model.runs_[2])


def test_predict_new_rows_with_an_unseen_value(planted):
    df, _ = planted
    model = Consensus(3, members=["onehot", "lsh-kreps"], n_init=2, random_state=0).fit(df)
    new = df.iloc[:5].copy()
    new.iloc[0, 0] = "never seen"
    labels = model.predict(new)
    assert labels.shape == (5,) and set(labels) <= {0, 1, 2}
    np.testing.assert_array_equal(labels[1:], model.labels_[1:5])


def test_saving_a_partition_member_is_refused(planted, tmp_path):
    df, _ = planted
    model = Consensus(3, members=["mca", "mgr"], n_init=2, random_state=0).fit(df)
    with pytest.raises(CatEmbedError, match="partition member.*'mgr'.*cannot be saved"):
        model.save(tmp_path / "m.npz")
    assert not list(tmp_path.iterdir())
    again = pickle.loads(pickle.dumps(model))  # pickling works
    np.testing.assert_array_equal(again.predict(df), model.labels_)


def test_refused_partition_member_is_left_out(planted, monkeypatch):
    df, _ = planted
    from catembed.cluster import ocl

    # OCL's cost check refuses (a time estimate over its ten-minute limit)
    monkeypatch.setattr(ocl, "fit_cost", lambda *a, **k: {"cells": 1.0, "seconds": 1e9})
    with pytest.warns(UserWarning, match="consensus member 'ocl' left out: OCL on"):
        model = Consensus(3, members=["mca", "ocl"], n_init=2, random_state=0).fit(df)
    assert model.members_ == ["mca"] and model.failed_members_ == ["ocl"]


def test_unknown_member_name_suggests_the_partition_members():
    with pytest.raises(CatEmbedError, match="did you mean 'lsh-kreps'"):
        Consensus(3, members=["lsh-krep"]).fit(np.zeros((4, 2), dtype=int).astype(str))


def test_cli_cluster_with_a_partition_member(planted, tmp_path, capsys):
    from catembed.cli import main

    df, _ = planted
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    code = main(["cluster", str(path), "-k", "3", "--members", "mca,mgr", "--n-init", "2",
                 "-o", str(tmp_path / "o.csv")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "mgr" in out
