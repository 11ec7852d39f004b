"""A method that returns another partition than its own is marked (issue 53, item 5): a
:class:`FallbackWarning` in a run makes ``catembed evaluate``'s status ``fallback`` and
names the partition used; a deep clusterer's ``fallback_reason_`` says why."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from catembed._utils._errors import CatEmbedWarning, FallbackWarning
from catembed.cli import main
from catembed.datasets import load_dataset
from catembed.evaluation import register_method, run_clustering
from catembed.evaluation.methods import _REGISTRY


def _falls_back_on_even_seeds(frame, n_clusters, random_state=None):
    codes = pd.factorize(frame.iloc[:, 0])[0] % n_clusters
    if random_state % 2 == 0:
        warnings.warn(FallbackWarning("every restart was degenerate; k-means instead",
                                      partition="reference partition (k-means of the input)",
                                      reason="every restart was degenerate (restart 0: "
                                             "collapse)"), stacklevel=2)
    return codes


@pytest.fixture
def fake():
    register_method("_test_fallback", labels=_falls_back_on_even_seeds, random=True)
    yield "_test_fallback"
    _REGISTRY.pop("_test_fallback", None)


@pytest.fixture
def soybean():
    ds = load_dataset("soybean_small")
    return ds.features, ds.labels.to_numpy()


def test_warning_carries_the_partition_and_the_reason():
    w = FallbackWarning("m", partition="p", reason="r")
    assert isinstance(w, CatEmbedWarning) and (w.partition, w.reason) == ("p", "r")
    assert str(w) == "m"


def test_protocol_marks_the_runs_that_fell_back(soybean, fake):
    X, y = soybean
    with pytest.warns(FallbackWarning):  # the warning still reaches the caller
        res, plain = run_clustering(X, y, [fake, "onehot"], runs=3, seed=0)
    assert res.status == "fallback" and plain.status == "ok" and plain.fallback is None
    assert res.fallback == {"runs": 2, "of": 3,
                            "partition": "reference partition (k-means of the input)",
                            "reason": "every restart was degenerate (restart 0: collapse)"}
    s = res.summary()
    assert s["status"] == "fallback" and s["fallback"]["runs"] == 2
    assert s["ari_mean"] is not None and len(res.runs) == 3  # still scored
    assert "fallback" not in plain.summary()


def test_protocol_marks_fallbacks_in_parallel_runs(soybean, fake):
    X, y = soybean
    res = run_clustering(X, y, [fake], runs=2, seed=1, n_jobs=2)[0]
    assert res.status == "fallback" and res.fallback["runs"] == 1 and res.fallback["of"] == 2


def test_evaluate_json_and_table_mark_the_fallback(fake, capsys):
    code = main(["evaluate", "soybean_small", "--runs", "2", "--json",
                 "--methods", f"{fake},onehot"])
    out, err = capsys.readouterr()
    assert code == 0, err
    got = {r["method"]: r for r in json.loads(out)["results"]}
    assert got[fake]["status"] == "fallback" and got["onehot"]["status"] == "ok"
    assert got[fake]["fallback"]["partition"] == "reference partition (k-means of the input)"
    assert got[fake]["fallback"]["runs"] == 1 and got[fake]["fallback"]["of"] == 2
    assert f"{fake}: fallback in 1 of 2 runs" in err
    code = main(["evaluate", "soybean_small", "--runs", "2", "--methods", fake])
    out, err = capsys.readouterr()
    assert code == 0, err
    [row] = [line for line in out.splitlines() if line.startswith(fake)]
    assert row.endswith("fallback (1/2 runs: reference partition (k-means of the input))")
    assert " +- " in row  # the scores are shown, marked


torch = pytest.importorskip("torch")


def test_deep_fallback_is_marked_in_the_estimator_and_in_evaluate(monkeypatch, soybean):
    from catembed.deep import AutoencoderKMeans, clustering

    original = clustering._DeepClusterer._fit_one

    def collapse(self, *a, **kw):  # every row but two in one cluster
        run = original(self, *a, **kw)
        run["labels"] = np.r_[np.zeros(len(run["labels"]) - 2, dtype=int), [1, 2]]
        return run

    monkeypatch.setattr(clustering._DeepClusterer, "_fit_one", collapse)
    X, y = soybean
    kw = {"pretrain_steps": 20, "batch_size": 32, "n_init": 2}
    with pytest.warns(FallbackWarning, match="falling back") as caught:
        m = AutoencoderKMeans(4, random_state=0, **kw).fit(X)
    assert m.fallback_ and m.fallback_reason_.startswith("every restart was degenerate")
    assert "restart 0: collapse" in m.fallback_reason_
    w = [c.message for c in caught if isinstance(c.message, FallbackWarning)][0]
    assert w.partition == "reference partition (k-means of the input)"
    register_method("_test_deep", labels="catembed.deep.clustering:autoencoder_kmeans_labels",
                    random=True, params=kw)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            [res] = run_clustering(X, y, ["_test_deep"], runs=1)
    finally:
        _REGISTRY.pop("_test_deep", None)
    assert res.status == "fallback" and res.fallback["runs"] == 1
    healthy = AutoencoderKMeans(4, random_state=0, **kw)
    monkeypatch.setattr(clustering._DeepClusterer, "_fit_one", original)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        healthy.fit(X)
    assert healthy.fallback_ is False and healthy.fallback_reason_ is None
