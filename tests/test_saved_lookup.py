"""``catembed transform`` reads a saved lookup-only model without scikit-learn (issue 22 item 2).

Each case writes the same Parquet file through the saved lookup
(:mod:`catembed.transform._saved_lookup`, the model given as a path) and through the loaded
estimator (the path before it), and asserts the same bytes, warnings and errors; the classes
that need the estimator fall back to it.
"""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import catembed
from catembed import CatEmbedError, load, transform_file
from catembed.base import ValueEmbedder
from catembed.transform._saved_lookup import LOOKUP_CLASSES, LOOKUP_PARAMS, saved_lookup

_VALUES = np.array([f"v{k}" for k in range(6)], dtype=object)


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    cols = {f"a{j}": _VALUES[rng.integers(0, 6, n)] for j in range(3)}
    return pd.DataFrame({"rid": np.arange(n) + 1000 * seed, **cols,
                         "x": rng.standard_normal(n)})


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """A training table with missing values and a rare value (pooled with min_frequency=5);
    a Parquet file of three row groups with unknown values, nulls, empty strings and the
    rare value."""
    tmp = tmp_path_factory.mktemp("saved")
    train = _frame(300, 0)
    train.loc[:9, "a1"] = None
    train.loc[10:11, "a2"] = "rare"
    known = tmp / "known.parquet"
    unknown = tmp / "unknown.parquet"
    for path, bad in ((known, False), (unknown, True)):
        with pq.ParquetWriter(path, pa.Table.from_pandas(_frame(1, 9), preserve_index=False)
                              .schema) as w:
            for g in range(3):
                part = _frame(90 + 7 * g, g + 1)
                part.loc[part.index[:4], "a1"] = None
                part.loc[part.index[4:6], "a1"] = ""
                part.loc[part.index[6:8], "a2"] = "rare"
                if bad and g == 1:
                    part.loc[part.index[8:11], "a0"] = "never-seen"
                w.write_table(pa.Table.from_pandas(part, preserve_index=False))
    return tmp, train, known, unknown


FAST = {
    "CDE": lambda: catembed.CDE(random_state=0, min_frequency=5),
    "CDE-compact": lambda: catembed.CDE(random_state=0, n_components=4, min_frequency=5),
    "CDE-float64": lambda: catembed.CDE(random_state=0, n_components=3, dtype="float64"),
    "CDEPlusPlus": lambda: catembed.CDEPlusPlus(encoder="none", random_state=0),
    "CDEAutoencoder": lambda: catembed.CDEAutoencoder(max_epochs=5, random_state=0),
    "OneHotAutoencoder": lambda: catembed.OneHotAutoencoder(max_epochs=5, random_state=0),
    "Couplings": lambda: catembed.Couplings(min_frequency=5),
    "CategoricalDistance": lambda: catembed.CategoricalDistance(metric="dm"),
    "OneHotPCA": lambda: catembed.OneHotPCA(n_components=3, min_frequency=5),
    "MCA": lambda: catembed.MCA(n_components=3),
}
SLOW = {  # the estimator's own transform, output names or numeric block: loaded
    "OneHotEmbedder": lambda: catembed.OneHotEmbedder(min_frequency=5),
    "IDFEmbedder": lambda: catembed.IDFEmbedder(),
    "UNTIE": lambda: catembed.UNTIE(random_state=0, max_iter=5),
    "UNTIE-k": lambda: catembed.UNTIE(random_state=0, max_iter=5, n_components=3),
    "LCME": lambda: catembed.LCME(n_components=3, random_state=0),
    "CDE-passthrough": lambda: catembed.CDE(random_state=0, numeric="passthrough"),
    "CDE-discretize": lambda: catembed.CDE(random_state=0, numeric="discretize"),
}


def _saved(data, name, make, handle_unknown="ignore"):
    tmp, train, _, _ = data
    est = make().set_params(handle_unknown=handle_unknown)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(train.drop(columns="rid"))
    path = tmp / f"{name}-{handle_unknown}.npz"
    est.save(path)
    return est, path


def _both(data, model_path, src, **kw):
    """Output bytes, rows and warnings (or the error) of the model given as a path (the
    saved lookup where it applies) and of the loaded estimator."""
    tmp = data[0]
    got = []
    for i, model in enumerate((model_path, load(model_path))):
        out = tmp / f"out{i}.parquet"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                rows = transform_file(model, src, out, progress=False, id_columns=["rid"],
                                      **kw)
                res = (out.read_bytes(), rows)
            except CatEmbedError as exc:
                res = ("error", str(exc))
        got.append((res, [str(w.message) for w in caught]))
    return got


def test_lookup_classes_are_the_base_lookup():
    """The table matches each class, and none of them changes the lookup, its encoding or
    its output names; the classes left out change one of them."""
    same = ("_transform_codes", "_transform_array", "_encode_values", "_validate_input",
            "get_feature_names_out", "_embedding_names", "_output_dtype", "_get_plan",
            "_numeric_policy", "_lookup")
    for name, row in LOOKUP_CLASSES.items():
        cls = getattr(catembed, name)
        assert row == (cls._combine, cls._feature_prefix, cls._table_shape,
                       cls._own_n_components, cls._compact_dtype), name
        assert LOOKUP_PARAMS[name] == set(cls().get_params(deep=False)), name
        for attr in same:
            assert getattr(cls, attr) is getattr(ValueEmbedder, attr), (name, attr)
    for name in set(catembed._MODEL_CLASSES) - set(LOOKUP_CLASSES):
        cls = getattr(catembed, name)
        assert (not issubclass(cls, ValueEmbedder)
                or any(getattr(cls, a) is not getattr(ValueEmbedder, a) for a in same)), name


@pytest.mark.parametrize("name", sorted(FAST))
def test_saved_lookup_writes_the_estimators_bytes(data, name):
    _, path = _saved(data, name, FAST[name])
    assert saved_lookup(path) is not None
    for src in data[2:]:
        (a, wa), (b, wb) = _both(data, path, src)
        assert a[0] != "error" and a == b and wa == wb == []


@pytest.mark.parametrize("name", sorted(SLOW))
def test_other_models_load_the_estimator(data, name):
    est, path = _saved(data, name, SLOW[name])
    assert saved_lookup(path) is None
    (a, wa), (b, wb) = _both(data, path, data[2])
    assert a[0] != "error" and a == b and wa == wb
    frame = pq.read_table(data[0] / "out0.parquet").to_pandas()
    assert list(frame.columns[1:]) == list(est.get_feature_names_out())


@pytest.mark.parametrize("policy", ["error", "warn"])
def test_unknown_values_raise_or_warn_as_the_estimator(data, policy):
    _, path = _saved(data, "CDE", FAST["CDE-compact"], handle_unknown=policy)
    assert saved_lookup(path).handle_unknown == policy
    (a, wa), (b, wb) = _both(data, path, data[3])
    assert (a, wa) == (b, wb)
    if policy == "error":
        assert a[0] == "error" and "never-seen" in a[1]
    else:
        assert a[1] == 90 + 97 + 104 and any("never-seen" in w for w in wa)
    # the override: the model's own setting is kept in the file
    (c, wc), (d, wd) = _both(data, path, data[3], handle_unknown="ignore")
    assert c == d and c[0] != "error" and wc == wd == []


def test_a_stored_index_and_missing_values_under_error(data):
    tmp, train, known, _ = data
    frame = pq.read_table(known).to_pandas().set_index("rid")
    indexed = tmp / "indexed.parquet"
    frame.to_parquet(indexed)
    _, path = _saved(data, "CDE", FAST["CDE-compact"])
    got = []
    for model in (path, load(path)):
        out = tmp / "idx.parquet"
        transform_file(model, indexed, out, progress=False)
        got.append(out.read_bytes())
    assert got[0] == got[1]
    est = catembed.CDE(random_state=0, n_components=3, handle_missing="error")
    est.fit(train.drop(columns=["rid", "x"]).fillna("v0"))
    est.save(tmp / "strict.npz")
    (a, wa), (b, wb) = _both(data, tmp / "strict.npz", known)
    assert a == b and a[0] == "error" and wa == wb


def test_file_errors_are_loads_errors(data, tmp_path):
    _, path = _saved(data, "CDE", FAST["CDE"])
    raw = bytearray(path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF
    broken = tmp_path / "broken.npz"
    broken.write_bytes(bytes(raw))
    for target in (broken, tmp_path / "absent.npz"):
        with pytest.raises(CatEmbedError) as via_load:
            load(target)
        with pytest.raises(CatEmbedError) as via_transform:
            transform_file(target, data[2], tmp_path / "o.parquet", progress=False)
        assert str(via_load.value) == str(via_transform.value)


def test_the_cli_does_not_import_scikit_learn(data):
    tmp = data[0]
    _, path = _saved(data, "CDE", FAST["CDE-compact"])
    code = (
        "import sys\nfrom catembed.__main__ import main\n"
        f"rc = main(['transform', '-q', {str(path)!r}, {str(data[2])!r}, "
        f"'-o', {str(tmp / 'cli.parquet')!r}])\n"
        "print(rc, sorted(m for m in ('sklearn', 'scipy') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.split("\n")[0] == "0 []"
    transform_file(load(path), data[2], tmp / "ref.parquet", progress=False)
    assert (tmp / "cli.parquet").read_bytes() == (tmp / "ref.parquet").read_bytes()


def _rewritten(src, dst, change):
    """A copy of the model file at ``src`` with its metadata changed by ``change`` and a
    valid checksum (as a file saved by another catembed version would be)."""
    import json

    from catembed import persist

    with np.load(src, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    meta = json.loads(str(data.pop("__meta__")))
    data.pop("__checksum__")
    change(meta)
    text = json.dumps(meta)
    np.savez(dst, __meta__=np.array(text), __checksum__=np.array(persist._checksum(text, data)),
             **data)
    return dst


@pytest.mark.parametrize("change", ["extra", "missing"])
def test_parameters_that_do_not_fit_the_class_are_loads_error(data, tmp_path, change):
    """A file whose parameters are not the class's (another version's, say) is refused with
    load's error, as the estimator path refuses it, not embedded by the saved lookup."""
    _, path = _saved(data, "CDE", FAST["CDE-compact"])

    def edit(meta):
        if change == "extra":
            meta["params"]["renamed"] = 1
        else:
            del meta["params"]["alpha"]

    bad = _rewritten(path, tmp_path / "other.npz", edit)
    assert saved_lookup(bad) is None
    with pytest.raises(CatEmbedError) as via_load:
        load(bad)
    with pytest.raises(CatEmbedError) as via_transform:
        transform_file(bad, data[2], tmp_path / "o.parquet", progress=False)
    assert str(via_load.value) == str(via_transform.value)
    assert "do not fit CDE" in str(via_load.value)
    assert not (tmp_path / "o.parquet").exists()


@pytest.mark.parametrize("change", ["class", "dtype"])
def test_a_malformed_class_or_dtype_gives_the_estimators_error(data, tmp_path, change):
    """A class name that is not a string, a ``dtype`` that is no dtype: the saved lookup
    neither fails on them (an internal error) nor embeds with them; the error is the one
    the loaded estimator gives, a CatEmbedError."""
    _, path = _saved(data, "CDE", FAST["CDE-compact"])

    def edit(meta):
        if change == "class":
            meta["class"] = ["CDE"]
        else:
            meta["params"]["dtype"] = ["x"]

    bad = _rewritten(path, tmp_path / "odd.npz", edit)
    out = tmp_path / "o.parquet"
    with pytest.raises(CatEmbedError) as via_path:
        transform_file(bad, data[2], out, progress=False)
    with pytest.raises(CatEmbedError) as via_estimator:
        transform_file(load(bad), data[2], out, progress=False)
    assert str(via_path.value) == str(via_estimator.value)
    assert ("unknown model class" if change == "class" else "dtype must be") in str(
        via_path.value)
    assert not out.exists()


@pytest.mark.xfail(strict=True, reason="the saved lookup checks only the parameters it uses "
                   "(handle_unknown, handle_missing, n_components, dtype, numeric); the "
                   "others' values need the class's own checks, i.e. scikit-learn")
def test_an_invalid_value_of_an_unused_parameter_is_loads_error(data, tmp_path):
    """Known gap: a file (checksum redone) with alpha=-5 is refused by load, embedded by
    the saved lookup."""
    _, path = _saved(data, "CDE", FAST["CDE-compact"])
    bad = _rewritten(path, tmp_path / "alpha.npz",
                     lambda meta: meta["params"].update(alpha=-5))
    with pytest.raises(CatEmbedError, match="alpha"):
        load(bad)
    with pytest.raises(CatEmbedError, match="alpha"):
        transform_file(bad, data[2], tmp_path / "o.parquet", progress=False)


def test_the_estimator_is_the_file_the_lookup_read(data, tmp_path):
    """The estimator a batch needs (an unknown value to warn of) is restored from the file's
    contents as the lookup read them, not from the path again: a model re-saved (or
    removed) there while the transform runs cannot mix two models in one output."""
    _, path = _saved(data, "CDE", FAST["CDE-compact"], handle_unknown="warn")
    model = tmp_path / "model.npz"
    model.write_bytes(path.read_bytes())
    lookup = saved_lookup(model)
    other = catembed.CDE(random_state=1, n_components=4, handle_unknown="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other.fit(data[1].drop(columns="rid").iloc[::-1])
    other.save(model)  # the file changes under the running transform
    frame = pq.read_table(data[3]).to_pandas()
    est = load(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(lookup._transform_array(frame[est.feature_names_in_]),
                                      est._transform_array(frame[est.feature_names_in_]))
    model.unlink()
    assert lookup._estimator is not None
