"""Infinite, overflowing and text numbers given to the mixed-type clusterers.

scikit-learn used to report these as "Input X contains NaN" (the standardised column was
NaN everywhere), with no column named: the deep clusterers, NaiveKMeans, OneHotKMeans,
GowerAgglomerative and ``catembed evaluate --numeric passthrough`` now name the column
and the value, at fit and at predict / transform, as the embedders' passthrough does.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.cluster import GowerAgglomerative, NaiveKMeans, OneHotKMeans
from catembed.similarity import GowerDistance

rng = np.random.default_rng(0)
N = 60
GOOD = pd.DataFrame({"a": rng.choice(list("xyz"), N), "b": rng.choice(list("pq"), N),
                     "u": rng.normal(size=N), "v": rng.integers(0, 5, N).astype(float)})


def _with(value: float, row: int = 3) -> pd.DataFrame:
    return GOOD.assign(u=np.where(np.arange(N) == row, value, GOOD.u))


@pytest.mark.parametrize("cls", [NaiveKMeans, OneHotKMeans])
@pytest.mark.parametrize("value", [np.inf, -np.inf, 1e200])
def test_kmeans_baselines_name_the_column(cls, value):
    message = re.escape(f"numeric column 'u' holds {value!r} at fit")
    with pytest.raises(CatEmbedError, match=message):
        cls(n_clusters=2, random_state=0).fit(_with(value))
    # 1e100 squares without overflow: still clustered
    labels = cls(n_clusters=2, random_state=0).fit(_with(1e100)).labels_
    assert labels.shape == (N,)


def test_gower_refuses_infinity_only():
    with pytest.raises(CatEmbedError, match="numeric column 'u' holds inf at fit"):
        GowerAgglomerative(n_clusters=2).fit(_with(np.inf))
    # Gower divides by the range and squares nothing: a huge finite number is fine
    assert GowerAgglomerative(n_clusters=2).fit(_with(1e200)).labels_.shape == (N,)
    g = GowerDistance().fit(GOOD)
    with pytest.raises(CatEmbedError, match="numeric column 'u' holds -inf at pairwise"):
        g.pairwise(_with(-np.inf))
    # NaN stays a missing number, skipped
    assert np.isfinite(g.pairwise(_with(np.nan))).all()


def test_deep_clusterers_name_the_column_at_fit_and_predict():
    pytest.importorskip("torch")
    from catembed.deep import IDEC, ThesisClusterer

    models = [ThesisClusterer(2, network="ae", epochs=1, random_state=0),
              IDEC(2, pretrain_steps=10, cluster_steps=10, update_interval=5,
                   random_state=0)]
    for model in models:
        for value in (np.inf, -1e200):
            message = re.escape(f"numeric column 'u' holds {value!r} at fit: numbers "
                                "must be finite")
            with pytest.raises(CatEmbedError, match=message):
                model.fit(_with(value))
        model.fit(GOOD)
        with pytest.raises(CatEmbedError, match="'u' holds inf at predict/transform"):
            model.predict(_with(np.inf, row=N - 1))
        with pytest.raises(CatEmbedError, match="'v' hold values that are not numbers"):
            model.predict(GOOD.assign(v=["n/a"] + [1.0] * (N - 1)))
        # a missing number is still read as the column's mean
        assert model.predict(_with(np.nan)).shape == (N,)


def test_cli_evaluate_passthrough_names_the_column(tmp_path, capsys):
    from catembed.cli import main

    path = tmp_path / "t.csv"
    rows = [f"{'xyz'[i % 3]},{'pq'[i % 2]},{'inf' if i == 4 else i / 7:.3f},{i % 2}"
            if i != 4 else "x,p,inf,0" for i in range(30)]
    path.write_text("a,b,n,y\n" + "\n".join(rows) + "\n")
    for method in ("onehot-kmeans", "kprototypes"):
        code = main(["evaluate", str(path), "--target", "y", "--numeric", "passthrough",
                     "--methods", method, "--runs", "1"])
        err = capsys.readouterr().err
        assert code == 2, err
        assert "catembed: error: numeric column 'n' holds inf at fit" in err
        assert "Traceback" not in err
