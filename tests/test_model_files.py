"""issue 21 item 2: a model file edited with its checksum recomputed (as any tool that
re-saves a model would) is refused by ``load`` with a CatEmbedError naming the part, and a
sound model still loads and transforms identically."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import catembed
from catembed import CDE, MCA, UNTIE, CategoricalDistance, CatEmbedError, OneHotPCA
from catembed.persist import _checksum


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(0)
    n = 60
    return pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n),
                         "c": rng.choice(list("uvw"), n), "num": rng.normal(size=n),
                         "num2": rng.normal(size=n)})


_FITTED: dict = {}


def _fit(key, est, frame):
    if key not in _FITTED:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _FITTED[key] = est.fit(frame)
    return _FITTED[key]


def _edited(tmp_path, est, edit):
    """Save ``est``, apply ``edit(arrays, meta)``, recompute the checksum the way persist
    does and write the file back."""
    est.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta = json.loads(str(data.pop("__meta__")))
    data.pop("__checksum__")
    edit(data, meta)
    meta_text = json.dumps(meta)
    np.savez(tmp_path / "bad.npz", __meta__=np.array(meta_text),
             __checksum__=np.array(_checksum(meta_text, data)), **data)
    return tmp_path / "bad.npz"


def _set(key, fn):
    return lambda d, m: d.__setitem__(key, fn(d[key]))


def _proj(d, m):  # a well-formed projection added to a model fitted with n_components=None
    width = sum(d[f"table__{j}"].shape[1] for j in range(3))
    d.update(output__components=np.eye(width)[:, :2], output__mean=np.zeros(width),
             output__variance=np.ones(2))


CASES = {
    # (fitted model key, edit, the part the message names)
    "projection NaN": ("cde_k2", _set("output__components", lambda a: a * np.nan),
                       "output__components holds NaN or inf"),
    "projection inf variance": ("cde_k2", _set("output__variance", lambda a: a * np.inf),
                                "output__variance holds NaN or inf"),
    "projection wrong shape": ("cde_k2", _set("output__components", lambda a: a[:-1]),
                               r"output__components has shape \(20, 2\)"),
    "projection short mean": ("cde_k2", _set("output__mean", lambda a: a[:-1]),
                              "output__mean has shape"),
    "projection added": ("cde", _proj, "n_components=None"),
    "CDE alpha=-1": ("cde", lambda d, m: m["params"].__setitem__("alpha", -1),
                     "alpha must be a positive number; got -1"),
    "CDE max_iter=0": ("cde", lambda d, m: m["params"].__setitem__("max_iter", 0),
                       "max_iter must be a positive integer"),
    "categories out of order": ("cde", lambda d, m: m["categories"][0].reverse(),
                                "categories of column 'a' are not in their documented order"),
    "value table wrong shape": ("cde", _set("table__1", lambda a: a[:, :-1]), "widths"),
    "value table inf": ("cde", _set("table__0", lambda a: a + np.inf), "NaN or inf"),
    "numeric scale 0": ("passthrough",
                        lambda d, m: m["numeric"].__setitem__("scale", [0.0, 1.0]),
                        "numeric.scale holds a value that is not positive"),
    "numeric short mean": ("passthrough",
                           lambda d, m: m["numeric"].__setitem__("mean", [0.0]),
                           "numeric.mean has shape"),
    "numeric empty features": ("passthrough",
                               lambda d, m: m["numeric"].__setitem__("features", []),
                               "numeric.features is empty"),
    "numeric unknown feature": ("passthrough",
                                lambda d, m: m["numeric"].__setitem__("features", ["zz", "num"]),
                                "numeric.features names columns"),
    "bins without features": ("discretize",
                              lambda d, m: m["numeric"].__setitem__("features", []),
                              "numeric.bins"),
    "bins out of order": ("discretize", lambda d, m: m["numeric"]["bins"]["num"].reverse(),
                          r"numeric.bins\['num'\] are not increasing"),
    "bins shifted": ("discretize",
                     lambda d, m: m["numeric"]["bins"].__setitem__(
                         "num", [e + 0.01 for e in m["numeric"]["bins"]["num"]]),
                     "categories of column 'num' are not the bin labels"),
    "OneHotPCA components shape": ("onehotpca", _set("extra__components", lambda a: a[:-1]),
                                   "array components has shape"),
    "OneHotPCA n_components=0": ("onehotpca",
                                 lambda d, m: m["params"].__setitem__("n_components", 0),
                                 "n_components must be"),
    "MCA eigenvalues short": ("mca", _set("extra__eigenvalues", lambda a: a[:-1]),
                              "eigenvalues"),
    "MCA components NaN": ("mca", _set("extra__components", lambda a: a * np.nan),
                           "components holds NaN"),
    "MCA n_components=-1": ("mca", lambda d, m: m["params"].__setitem__("n_components", -1),
                            "n_components must be a positive integer"),
    "UNTIE omega short": ("untie", _set("extra__omega", lambda a: a[:-1]),
                          "array omega has shape"),
    "UNTIE space_of out of range": ("untie", _set("extra__space_of", lambda a: a + 1000),
                                    "array space_of"),
    "UNTIE categories out of order": ("untie", lambda d, m: m["categories"][2].reverse(),
                                      "categories of column 'c'"),
    "CategoricalDistance fit_codes": ("distance", _set("extra__fit_codes", lambda a: a + 10),
                                      "array fit_codes"),
    "CategoricalDistance sigma=-1": ("distance",
                                     lambda d, m: m["params"].__setitem__("sigma", -1.0),
                                     "sigma must be a non-negative number"),
}

MODELS = {
    "cde": lambda: CDE(random_state=0),
    "cde_k2": lambda: CDE(random_state=0, n_components=2),
    "passthrough": lambda: CDE(random_state=0, numeric="passthrough"),
    "discretize": lambda: CDE(random_state=0, numeric="discretize"),
    "onehotpca": lambda: OneHotPCA(n_components=2),
    "mca": lambda: MCA(n_components=2),
    "untie": lambda: UNTIE(random_state=0),
    "distance": lambda: CategoricalDistance(),
}


@pytest.mark.parametrize("case", list(CASES))
def test_an_edited_model_file_is_refused_naming_the_part(tmp_path, frame, case):
    """issue 21 item 2"""
    key, edit, message = CASES[case]
    est = _fit(key, MODELS[key](), frame)
    path = _edited(tmp_path, est, edit)
    with pytest.raises(CatEmbedError, match=message) as info:
        catembed.load(path)
    assert "\n" not in str(info.value)
    with pytest.raises(CatEmbedError, match=message):
        type(est).load(path)


@pytest.mark.parametrize("key", list(MODELS))
def test_a_sound_model_file_still_loads_and_transforms_identically(tmp_path, frame, key):
    """issue 21 item 2: the checks refuse nothing fit makes (re-saved unedited too)."""
    est = _fit(key, MODELS[key](), frame)
    path = _edited(tmp_path, est, lambda d, m: None)
    back = type(est).load(path)
    np.testing.assert_array_equal(back.transform(frame), est.transform(frame))
    assert list(back.get_feature_names_out()) == list(est.get_feature_names_out())


def test_fit_refuses_what_load_refuses(frame):
    """issue 21 item 2: the parameter refusals on load are fit's."""
    with pytest.raises(CatEmbedError, match="alpha must be positive"):
        CDE(alpha=-1).fit(frame[["a", "b", "c"]])
    with pytest.raises(CatEmbedError, match="sigma must be a non-negative number"):
        CategoricalDistance(sigma=-1.0).fit(frame[["a", "b", "c"]])


def test_pooled_and_missing_categories_keep_their_order_on_load(tmp_path):
    """issue 21 item 2: the order check accepts values, then infrequent, then missing."""
    df = pd.DataFrame({"a": list("aaaabbbbcd") + [None] * 2, "b": list("xxxxxxyyyyyy")})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = CDE(random_state=0, min_frequency=2).fit(df)
    est.save(tmp_path / "m.npz")
    back = CDE.load(tmp_path / "m.npz")
    np.testing.assert_array_equal(back.transform(df), est.transform(df))
