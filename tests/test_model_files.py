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
    "idf": lambda: catembed.IDFEmbedder(),
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


# ---------------------------------------------------------------- issue 37, items 2 and 8
def _bomb(path, est, rows):
    """``est``'s model file whose first value table declares ``rows`` x 6 zeros (a few MB
    compressed), written member by member without building the array, checksum kept."""
    import zipfile

    est.save(path.with_name("sound.npz"))
    with np.load(path.with_name("sound.npz"), allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zf:
        for key, arr in data.items():
            if key != "table__0":
                with zf.open(f"{key}.npy", "w") as f:
                    np.lib.format.write_array(f, arr)
        with zf.open("table__0.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_2_0(
                f, {"descr": "<f8", "fortran_order": False, "shape": (rows, 6)})
            chunk, left = bytes(2**22), rows * 6 * 8
            while left:
                f.write(chunk[:min(left, len(chunk))])
                left -= min(left, len(chunk))
    return path


def test_a_zip_bomb_is_refused_before_it_is_decompressed(tmp_path, frame):
    """issue 37 item 2: a table declaring 4,000,000 x 6 float64 (192 MB, under 1 MB in the
    file) for a column of 3 values is refused from its header: nothing is decompressed
    (main decompressed it and copied it for the checksum: a 366 MiB peak)."""
    import tracemalloc

    path = _bomb(tmp_path / "bomb.npz", _fit("idf", catembed.IDFEmbedder(), frame), 4_000_000)
    assert path.stat().st_size < 2**20
    tracemalloc.start()
    try:
        with pytest.raises(CatEmbedError, match=r"value table of column 'a' has shape "
                                                r"\(4000000, 6\).*expected 3 rows"):
            catembed.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def _member_bytes(tmp_path, arrays):
    """An archive of raw members (name -> bytes), the way a crafting tool writes one."""
    import zipfile

    path = tmp_path / "raw.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for key, raw in arrays.items():
            zf.writestr(f"{key}.npy", raw)
    return path


def test_a_member_whose_size_is_not_its_headers_is_refused(tmp_path, frame, monkeypatch):
    """issue 37 item 2: the uncompressed size of every member is its header's shape x
    itemsize (checked before reading), and the metadata's size is bounded (here lowered:
    the bound, 256 MiB, is checked before the metadata is decompressed)."""
    import io

    est = _fit("idf", catembed.IDFEmbedder(), frame)
    est.save(tmp_path / "m.npz")
    with np.load(tmp_path / "m.npz", allow_pickle=False) as z:
        raw = {}
        for key in z.files:
            buf = io.BytesIO()
            np.lib.format.write_array(buf, z[key])
            raw[key] = buf.getvalue()
    short = dict(raw, table__1=raw["table__1"][:-8])  # one float short of its header
    with pytest.raises(CatEmbedError, match="array table__1 declares shape .* but its "
                                            "archive entry holds"):
        catembed.load(_member_bytes(tmp_path, short))
    assert catembed.load(_member_bytes(tmp_path, raw)).n_features_in_ == 5
    monkeypatch.setattr("catembed.persist._model_archive.MAX_META_BYTES", 2000)
    with pytest.raises(CatEmbedError, match="the metadata is not a text entry of at most "
                                            "500 characters"):
        catembed.load(_member_bytes(tmp_path, raw))


def test_the_checksum_hashes_the_arrays_bytes_as_before():
    """issue 37 item 2: the checksum hashes each array's own memory (no copy) and gives the
    digest of ``tobytes()`` (files saved before still verify)."""
    import hashlib

    arrays = {"a": np.arange(12.0).reshape(3, 4), "b": np.asfortranarray(np.eye(3)),
              "c": np.array(7), "d": np.array([True, False]), "e": np.zeros((0, 2), np.int32),
              "f": np.arange(6, dtype=">i4")}
    h = hashlib.sha256(b"{}")
    for key in sorted(arrays):
        arr = np.ascontiguousarray(arrays[key])
        h.update(f"\0{key}\0{arr.dtype.str}\0{arr.shape}\0".encode())
        h.update(arr.tobytes())
    assert _checksum("{}", arrays) == h.hexdigest()


def _relabel(cls_name):
    def edit(d, m):
        params = getattr(catembed, cls_name)().get_params()
        m.update({"class": cls_name, "params": params})
    return edit


def _cooc_asymmetric(d, m):
    cooc = d["stats__cooc"].copy()
    cooc[0, 3] += 1  # the diagonal (the value counts) kept
    d["stats__cooc"] = cooc


ITEM8 = {
    # a CDE file relabelled as a class whose arrays, widths or names it does not have
    "CDE as IDFEmbedder": ("cde", _relabel("IDFEmbedder"), "extra__indicator that a "
                           "IDFEmbedder model does not save"),
    "CDE as CDEAutoencoder": ("cde", _relabel("CDEAutoencoder"),
                              "n_components is 7, but a CDEAutoencoder's code size is 2"),
    "CDE as OneHotAutoencoder": ("cde", _relabel("OneHotAutoencoder"),
                                 "extra__indicator that a OneHotAutoencoder model"),
    "CDE as Couplings": ("cde", _relabel("Couplings"), "extra__indicator that a Couplings"),
    "IDF tables 2 wide": ("idf", lambda d, m: [d.__setitem__(f"table__{j}", np.hstack(
        [d[f"table__{j}"]] * 2)) for j in range(3)], "widths must be 1"),
    "asymmetric co-occurrence": ("cde", _cooc_asymmetric, "co-occurrence counts are not "
                                 "symmetric"),
    "co-occurrence not l x l": ("cde", _set("stats__cooc", lambda a: a[:, :-1]),
                                "co-occurrence counts have shape"),
    "indicator one column short": ("cde", _set("extra__indicator", lambda a: a[:, :-1]),
                                   "array indicator has shape"),
    "indicator one row short": ("cde", _set("extra__indicator", lambda a: a[:-1]),
                                "array indicator has shape"),
    "CDE n_components not the width": (
        "cde", lambda d, m: m["extra"].__setitem__("n_components", 3), "widths must be 3"),
    "UNTIE re-saved unedited": ("untie", lambda d, m: None, None),  # a control
}


@pytest.mark.parametrize("case", list(ITEM8))
def test_parts_that_do_not_fit_are_refused_naming_the_part(tmp_path, frame, case):
    """issue 37 item 8: each file (checksum recomputed) loaded on main."""
    key, edit, message = ITEM8[case]
    est = _fit(key, MODELS[key](), frame)
    path = _edited(tmp_path, est, edit)
    if message is None:
        np.testing.assert_array_equal(catembed.load(path).transform(frame), est.transform(frame))
        return
    with pytest.raises(CatEmbedError, match=message) as info:
        catembed.load(path)
    assert "\n" not in str(info.value)


def test_a_sparse_co_occurrence_table_must_be_symmetric(tmp_path):
    """issue 37 item 8: the sparse form (more than 4096 values) too."""
    df = pd.DataFrame({"id": [f"v{i}" for i in range(4200)], "g": list("ab") * 2100})
    est = _fit("sparse", catembed.IDFEmbedder(), df)  # an identifier column: warned

    def edit(d, m):
        keep = ~((d["stats__cooc_row"] == 0) & (d["stats__cooc_col"] == 4200))
        for k in ("row", "col", "data"):
            d[f"stats__cooc_{k}"] = d[f"stats__cooc_{k}"][keep]

    assert catembed.load(_edited(tmp_path, est, lambda d, m: None)).stats_.n_rows == 4200
    with pytest.raises(CatEmbedError, match="co-occurrence counts are not symmetric"):
        catembed.load(_edited(tmp_path, est, edit))


@pytest.fixture(scope="module")
def consensus(frame):
    from catembed.cluster import Consensus

    return _fit("consensus", Consensus(3, random_state=0, n_init=2), frame[["a", "b", "c"]])


def _composite(key, fn):
    return lambda d, m: m["composite"].__setitem__(key, fn(m["composite"][key]))


CONSENSUS_CASES = {
    "labels one short": (_set("own__labels", lambda a: a[:-1]),
                         r"training labels \(own__labels\) have shape \(59,\).*\(60,\)"),
    "feature_names_in renamed": (_composite("feature_names_in", lambda f: ["x", "y", "z"]),
                                 "feature_names_in do not match"),
    "feature_names_in too long": (_composite("feature_names_in", lambda f: f + ["zz"]),
                                  "feature_names_in do not match"),
    "failed member also fitted": (_composite("failed_members", lambda f: ["cde"]),
                                  "failed members"),
    "failed member not configured": (_composite("failed_members", lambda f: ["bogus"]),
                                     "failed members"),
    "failed members not a list": (_composite("failed_members", lambda f: "cde"),
                                  "failed_members is not a list"),
    "members swapped": (_composite("members", lambda f: [f[1], f[0], *f[2:]]),
                        "are not the configured members|is a"),
    "member relabelled": (lambda d, m: m["parts"][1].update(
        {"class": "IDFEmbedder", "params": catembed.IDFEmbedder().get_params()}),
        "does not save|is a"),
}


@pytest.mark.parametrize("case", list(CONSENSUS_CASES))
def test_inconsistent_consensus_metadata_is_refused(tmp_path, frame, consensus, case):
    """issue 37 item 8: labels, feature_names_in, members and failed_members must fit
    (each loaded on main)."""
    edit, message = CONSENSUS_CASES[case]
    path = _edited(tmp_path, consensus, edit)
    with pytest.raises(CatEmbedError, match=message) as info:
        catembed.load(path)
    assert "\n" not in str(info.value)


def test_a_sound_consensus_file_loads_and_predicts_identically(tmp_path, frame, consensus):
    back = catembed.load(_edited(tmp_path, consensus, lambda d, m: None))
    X = frame[["a", "b", "c"]]
    np.testing.assert_array_equal(back.transform(X), consensus.transform(X))
    np.testing.assert_array_equal(back.predict(X), consensus.predict(X))


def test_the_declared_shapes_cover_every_model_class():
    """issue 37 item 8: every value embedder of catembed declares its arrays, and the
    classes declared as summing their vectors are those that do."""
    from catembed.persist._model_shapes import EXTRA_ARRAYS, SUMMED

    names = set(catembed._MODEL_CLASSES) - {"Consensus"}
    assert set(EXTRA_ARRAYS) == names
    assert SUMMED == {n for n in names if getattr(catembed, n)._combine == "sum"}
