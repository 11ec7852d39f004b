"""save/load (JSON + .npz, no code execution) and pickle round trips."""

from __future__ import annotations

import json
import pickle
import warnings

import numpy as np
import pytest
from sklearn.base import clone

from catembed import CDE, CatEmbedError, CatEmbedWarning, IDFEmbedder, OneHotEmbedder, OneHotPCA
from catembed.base import ValueEmbedder
from catembed.datasets import load_dataset

ESTIMATORS = [
    CDE(random_state=0, handle_unknown="ignore"),
    OneHotEmbedder(),
    OneHotPCA(n_components=3),
    IDFEmbedder(handle_unknown="warn"),
]


@pytest.fixture(scope="module")
def zoo():
    ds = load_dataset("zoo")
    return ds.frame[ds.categorical_columns]


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_save_load_gives_identical_output(tmp_path, zoo, est):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        fitted = clone(est).fit(zoo)
    fitted.save(tmp_path / "model.npz")
    back = ValueEmbedder.load(tmp_path / "model.npz")
    assert type(back) is type(fitted)
    assert back.get_params() == fitted.get_params()
    np.testing.assert_array_equal(back.transform(zoo), fitted.transform(zoo))
    assert list(back.get_feature_names_out()) == list(fitted.get_feature_names_out())
    assert back.value_embedding_.equals(fitted.value_embedding_)
    blob = pickle.dumps(fitted)
    np.testing.assert_array_equal(pickle.loads(blob).transform(zoo), fitted.transform(zoo))


def test_cde_state_survives(tmp_path, watermelon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        cde = CDE(random_state=1).fit(watermelon)
    cde.save(tmp_path / "cde")  # .npz is appended
    back = CDE.load(tmp_path / "cde")
    np.testing.assert_array_equal(back.M_o_, cde.M_o_)
    assert back.value_clusters_.equals(cde.value_clusters_)
    assert back.granularity_steps_ == cde.granularity_steps_
    assert back.n_components_ == cde.n_components_ and back.n_iter_ == cde.n_iter_


def test_missing_value_category_survives(tmp_path):
    import pandas as pd

    X = pd.DataFrame({"a": ["x", None, "y", "x"], "b": ["1", "2", "2", "1"]})
    est = OneHotEmbedder().fit(X)
    est.save(tmp_path / "m.npz")
    back = ValueEmbedder.load(tmp_path / "m.npz")
    assert pd.isna(back.categories_[0][-1])
    np.testing.assert_array_equal(back.transform(X), est.transform(X))


def test_newer_format_is_refused(tmp_path, watermelon):
    IDFEmbedder().fit(watermelon).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta = json.loads(str(data.pop("__meta__")))
    meta["format_version"] = 99
    np.savez(tmp_path / "new.npz", __meta__=np.array(json.dumps(meta)), **data)
    with pytest.raises(CatEmbedError, match="format version 99.*Upgrade catembed"):
        ValueEmbedder.load(tmp_path / "new.npz")


def test_not_a_model(tmp_path):
    (tmp_path / "x.npz").write_text("hello")
    with pytest.raises(CatEmbedError, match="not a catembed model"):
        ValueEmbedder.load(tmp_path / "x.npz")
    np.savez(tmp_path / "y.npz", a=np.arange(3))
    with pytest.raises(CatEmbedError, match="not a catembed model"):
        ValueEmbedder.load(tmp_path / "y.npz")
    with pytest.raises(CatEmbedError, match="not found"):
        ValueEmbedder.load(tmp_path / "missing.npz")
