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


# ---------------------------------------------------------------------- issue 11, defect 7
def _saved(tmp_path, watermelon):
    est = IDFEmbedder().fit(watermelon)
    est.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    return data


def _rewrite(tmp_path, data, meta=None, *, keep_checksum=False):
    """Write a changed model; the checksum is recomputed unless kept (as an attacker or a
    buggy tool would), so that the content checks behind it are exercised too."""
    from catembed.persist import _checksum

    data = dict(data)
    if meta is not None:
        data["__meta__"] = np.array(json.dumps(meta))
    if not keep_checksum:
        arrays = {k: v for k, v in data.items() if k not in ("__meta__", "__checksum__")}
        data["__checksum__"] = np.array(_checksum(str(data["__meta__"]), arrays))
    np.savez(tmp_path / "bad.npz", **data)
    return tmp_path / "bad.npz"


def test_flipped_byte_in_an_array_is_refused_by_the_checksum(tmp_path, watermelon):
    data = _saved(tmp_path, watermelon)
    t = data["table__0"].copy()
    t.reshape(-1).view(np.uint8)[3] ^= 1
    data["table__0"] = t
    path = _rewrite(tmp_path, data, keep_checksum=True)
    with pytest.raises(CatEmbedError, match="checksum does not match"):
        ValueEmbedder.load(path)


def test_every_byte_flip_of_the_file_is_a_catembed_error(tmp_path, watermelon):
    IDFEmbedder().fit(watermelon).save(tmp_path / "m.npz")
    raw = (tmp_path / "m.npz").read_bytes()
    rng = np.random.default_rng(0)
    for pos in rng.choice(len(raw), size=40, replace=False):
        bad = bytearray(raw)
        bad[pos] ^= 0x10
        (tmp_path / "f.npz").write_bytes(bytes(bad))
        try:
            ValueEmbedder.load(tmp_path / "f.npz")
        except CatEmbedError as exc:
            assert "\n" not in str(exc)
    for cut in (0, 10, len(raw) // 2, len(raw) - 1):  # truncated files
        (tmp_path / "t.npz").write_bytes(raw[:cut])
        with pytest.raises(CatEmbedError):
            ValueEmbedder.load(tmp_path / "t.npz")


@pytest.mark.parametrize("damage, message", [
    (lambda d, m: d.pop("table__1"), "value table of column 'color' is missing"),
    (lambda d, m: d.__setitem__("table__0", d["table__0"][:-1]), "expected 2 rows"),
    (lambda d, m: d.__setitem__("table__0", np.hstack([d["table__0"]] * 2)), "widths"),
    (lambda d, m: d.__setitem__("table__0", np.hstack([d["table__0"]] * 2)[:, :0]), None),
    (lambda d, m: d.__setitem__("table__0", d["table__0"] * np.nan), "NaN or inf"),
    (lambda d, m: d.__setitem__("table__0", d["table__0"].astype(np.int64)), "dtype int64"),
    (lambda d, m: m["params"].__setitem__("handle_unknown", "bogus"), "handle_unknown"),
    (lambda d, m: m["params"].__setitem__("n_bins", "x"), "n_bins must be an integer"),
    (lambda d, m: m["params"].__setitem__("no_such", 1), "parameters"),
    (lambda d, m: m.pop("format_version"), "format_version"),
    (lambda d, m: d.__setitem__("stats__counts", -d["stats__counts"]), "negative"),
    (lambda d, m: m["categories"][0].__setitem__(1, m["categories"][0][0]), "duplicate"),
    (lambda d, m: m.pop("categories"), "categories"),
    (lambda d, m: d.__setitem__("stats__counts", d["stats__counts"][:-1]), "value counts"),
])
def test_damaged_contents_are_refused(tmp_path, watermelon, damage, message):
    data = _saved(tmp_path, watermelon)
    meta = json.loads(str(data["__meta__"]))
    damage(data, meta)
    path = _rewrite(tmp_path, data, meta)
    with pytest.raises(CatEmbedError, match=message) as info:
        ValueEmbedder.load(path)
    assert "\n" not in str(info.value)


def test_cde_alpha_that_is_not_a_number_is_refused_on_load_and_fit(tmp_path, watermelon):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CatEmbedWarning)
        CDE(random_state=0).fit(watermelon).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta = json.loads(str(data["__meta__"]))
    meta["params"]["alpha"] = "x"
    with pytest.raises(CatEmbedError, match="alpha must be a number; got 'x'"):
        ValueEmbedder.load(_rewrite(tmp_path, data, meta))
    with pytest.raises(CatEmbedError, match="alpha must be a number; got 'x'"):
        CDE(alpha="x").fit(watermelon)


def test_save_refuses_a_folder_and_leaves_no_temporary_file(tmp_path, watermelon):
    est = IDFEmbedder().fit(watermelon)
    with pytest.raises(CatEmbedError, match="is a folder"):
        est.save(tmp_path)
    with pytest.raises(CatEmbedError, match="does not exist"):
        est.save(tmp_path / "nope" / "m.npz")
    est.save(tmp_path / "m")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.npz"]


def test_load_never_unpickles(tmp_path):
    np.savez(tmp_path / "p.npz", __meta__=np.array([{"a": 1}], dtype=object))
    with pytest.raises(CatEmbedError):
        ValueEmbedder.load(tmp_path / "p.npz")


def test_onehot_table_missing_a_column_is_refused(tmp_path, watermelon):
    from catembed.persist import _checksum

    OneHotEmbedder().fit(watermelon).save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    data["table__1"] = data["table__1"][:, :-1]
    arrays = {k: v for k, v in data.items() if k not in ("__meta__", "__checksum__")}
    data["__checksum__"] = np.array(_checksum(str(data["__meta__"]), arrays))
    np.savez(tmp_path / "bad.npz", **data)
    with pytest.raises(CatEmbedError, match="not square"):
        ValueEmbedder.load(tmp_path / "bad.npz")
