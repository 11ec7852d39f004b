"""Saving fitted models in a format that cannot execute code.

A model file is a NumPy ``.npz`` archive read with ``allow_pickle=False``: numeric arrays
(statistics, value tables, method-specific arrays) plus one JSON document (``__meta__``)
with the class name, the parameters, the categories and the format version. Only classes
registered by catembed can be restored, so loading a file never imports or runs anything
the file names. Pickle and joblib work too, as for any scikit-learn estimator.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from typing import Any

import numpy as np

from .._utils._validation import CatEmbedError
from .._version import __version__
from ._model_checks import (
    bad,
    check_categories,
    check_extra_state,
    check_fit_params,
    check_numeric_state,
    check_output_width,
    check_projection,
    check_stats_arrays,
    check_value_tables,
    need,
    one_line,
)

__all__ = ["save", "load", "read_model", "restore", "FORMAT_VERSION", "register"]

FORMAT_VERSION = 2  # 2: a SHA-256 checksum of the contents (version 1 files load unchecked)
_FORMAT_NAME = "catembed-model"
_REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    """Allow :func:`load` to restore instances of ``cls`` (a class decorator)."""
    _REGISTRY[cls.__name__] = cls
    return cls


def _encode_value(v: Any) -> list:
    from ..stats._encoding import INFREQUENT

    if v is None:
        return ["none"]
    if v is INFREQUENT:
        return ["infrequent"]
    if isinstance(v, (bool, np.bool_)):
        return ["b", bool(v)]
    if isinstance(v, (int, np.integer)):
        return ["i", int(v)]
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return ["nan"] if math.isnan(f) else ["f", f]
    return ["s", str(v)]


def _decode_value(t: list) -> Any:
    from ..stats._encoding import INFREQUENT

    kind = t[0]
    if kind == "none":
        return None
    if kind == "infrequent":
        return INFREQUENT
    if kind == "nan":
        return np.nan
    if kind == "b":
        return bool(t[1])
    if kind == "i":
        return int(t[1])
    if kind == "f":
        return float(t[1])
    return str(t[1])


def _jsonable_params(params: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for key, val in params.items():
        if isinstance(val, np.ndarray):
            val = val.tolist()
        if isinstance(val, (np.integer, np.floating, np.bool_)):
            val = val.item()
        try:
            json.dumps(val)
        except TypeError as exc:
            raise CatEmbedError(
                f"cannot save parameter {key}={val!r}: only plain values (numbers, strings, "
                "lists, None) can be saved. Use an int random_state, or pickle/joblib."
            ) from exc
        out[key] = val
    return out


def _numeric_state(est: Any) -> dict[str, Any]:
    """The numeric-column policy's fitted parameters, as JSON (floats round-trip exactly)."""
    state: dict[str, Any] = {
        "features": [str(c) for c in getattr(est, "numeric_features_", [])],
        "bins": {str(c): [float(e) for e in edges]
                 for c, edges in getattr(est, "numeric_bins_", {}).items()},
    }
    if hasattr(est, "numeric_mean_"):
        state["mean"] = [float(v) for v in est.numeric_mean_]
        state["scale"] = [float(v) for v in est.numeric_scale_]
    return state


def _restore_numeric_state(est: Any, state: dict[str, Any]) -> None:
    est.numeric_features_ = np.asarray(state.get("features", []), dtype=object)
    est.numeric_bins_ = {c: np.asarray(e, dtype=np.float64)
                         for c, e in state.get("bins", {}).items()}
    if "mean" in state:
        est.numeric_mean_ = np.asarray(state["mean"], dtype=np.float64)
        est.numeric_scale_ = np.asarray(state["scale"], dtype=np.float64)


def _payload(estimator: Any) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(metadata, arrays)`` of a fitted estimator. A composite model (one with
    ``_composite_state``, e.g. :class:`catembed.cluster.Consensus`) stores its own arrays
    under ``own__`` and each fitted part's payload under ``part<i>__``."""
    from sklearn.utils.validation import check_is_fitted

    if hasattr(estimator, "_composite_state"):
        parts, own_arrays, own_meta = estimator._composite_state()
        arrays = {f"own__{k}": np.asarray(v) for k, v in own_arrays.items()}
        metas = []
        for i, part in enumerate(parts):
            m, a = _payload(part)
            metas.append(m)
            arrays.update({f"part{i}__{k}": v for k, v in a.items()})
        return {"format": _FORMAT_NAME, "format_version": FORMAT_VERSION,
                "catembed_version": __version__, "class": type(estimator).__name__,
                "params": _jsonable_params(estimator.get_params(deep=False)),
                "composite": own_meta, "parts": metas}, arrays
    if not hasattr(estimator, "_extra_state"):  # not a ValueEmbedder: "not fitted" misled
        raise CatEmbedError(
            "catembed.save writes the value embedders and Consensus only, not "
            f"{type(estimator).__name__}; use pickle or joblib for it."
        )
    check_is_fitted(estimator, "_tables")
    arrays: dict[str, np.ndarray] = {}
    for key, arr in estimator.stats_.to_arrays().items():
        arrays[f"stats__{key}"] = np.asarray(arr)
    for j, table in enumerate(estimator._tables):
        arrays[f"table__{j}"] = table
    extra_arrays, extra_meta = estimator._extra_state()
    for key, arr in extra_arrays.items():
        arrays[f"extra__{key}"] = np.asarray(arr)
    projection = getattr(estimator, "_projection", None)  # the n_components projection
    if projection is not None:
        for key, arr in zip(("components", "mean", "variance"), projection, strict=True):
            arrays[f"output__{key}"] = np.asarray(arr)
    meta = {
        "format": _FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "catembed_version": __version__,
        "class": type(estimator).__name__,
        "params": _jsonable_params(estimator.get_params(deep=False)),
        "n_features_in": int(estimator.n_features_in_),
        "feature_names_in": (
            [str(f) for f in estimator.feature_names_in_]
            if hasattr(estimator, "feature_names_in_") else None
        ),
        "feature_names": [str(f) for f in estimator.feature_names_],
        "dropped_features": [str(f) for f in estimator.dropped_features_],
        "categories": [[_encode_value(v) for v in c] for c in estimator.categories_],
        "extra": extra_meta,
        "numeric": _numeric_state(estimator),
        "infrequent": [
            None if inf is None else [_encode_value(v) for v in inf]
            for inf in getattr(estimator, "infrequent_categories_", [None] * len(
                estimator.categories_))
        ],
    }
    return meta, arrays


def save(estimator: Any, path: str | os.PathLike) -> None:
    """Write a fitted catembed estimator to ``path`` (``.npz``).

    Parameters
    ----------
    estimator : ValueEmbedder
        A fitted estimator.
    path : str or path-like
        The file to write; ``.npz`` is appended when missing. It is written to a temporary
        file in the same folder and renamed into place on success, so a failed save never
        leaves a half-written model. The file holds a SHA-256 checksum of its contents,
        verified by :func:`load`.
    """
    meta, arrays = _payload(estimator)
    for key, arr in arrays.items():
        if arr.dtype == object:
            raise CatEmbedError(f"internal: array {key} has object dtype and cannot be saved.")
    meta_text = json.dumps(meta, allow_nan=False)
    digest = _checksum(meta_text, arrays)
    _write_atomic(path, __meta__=np.array(meta_text), __checksum__=np.array(digest), **arrays)


def _write_atomic(path: str | os.PathLike, **arrays: np.ndarray) -> None:
    """``np.savez_compressed`` to a temporary file in the target folder, renamed on success
    with the permissions a plain write would give (:func:`catembed.io.atomic_output`)."""
    target = os.fspath(path)
    if os.path.isdir(target):
        raise CatEmbedError(
            f"cannot save the model: {target} is a folder; give a file name such as "
            f"{os.path.join(target, 'model.npz')}."
        )
    if not target.endswith(".npz"):
        target += ".npz"  # as NumPy names it
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise CatEmbedError(f"cannot save the model: folder {folder} does not exist.")
    from ..io import atomic_output

    with atomic_output(target) as tmp, open(tmp, "wb") as fh:
        np.savez_compressed(fh, **arrays)


def _checksum(meta_text: str, arrays: dict[str, np.ndarray]) -> str:
    """SHA-256 of the metadata and of every array's name, dtype, shape and bytes."""
    h = hashlib.sha256(meta_text.encode("utf-8"))
    for key in sorted(arrays):
        arr = np.ascontiguousarray(arrays[key])
        h.update(f"\0{key}\0{arr.dtype.str}\0{arr.shape}\0".encode())
        h.update(arr.reshape(-1).view(np.uint8))  # the array's own bytes, not a copy
    return h.hexdigest()


def load(path: str | os.PathLike) -> Any:
    """Read a model written by :func:`save`, verifying everything it reads.

    The file must be a regular file (a FIFO is refused, not waited on); it is read with no
    pickle (loading never executes code), and every array's declared shape is checked
    against the metadata before anything is decompressed (a small file declaring a huge
    array is refused from its header). Its SHA-256 checksum (of the metadata and every
    array) must match, so a flipped byte is refused; then every part is checked as ``fit``
    would have made it: the parameters through the estimator's own checks, the categories
    (unique, missing value last), the statistics (integer, non-negative, symmetric
    co-occurrence counts, shapes matching the categories), the value tables (one per
    attribute, one row per value, finite float64) and as many output names as columns.

    Raises
    ------
    CatEmbedError
        With a one-line reason, whatever is wrong with the file: not found, not a catembed
        model, damaged (checksum), written by a newer format version, an unknown class, or
        contents that do not fit together.
    """
    return restore(*read_model(path))


def restore(path: str, meta: dict[str, Any], data: dict[str, np.ndarray]) -> Any:
    """The model :func:`load` gives, from the ``(path, metadata, arrays)`` that
    :func:`read_model` read (the file is not read again)."""
    try:
        return _restore_model(path, meta, data)
    except CatEmbedError:
        raise
    except Exception as exc:  # anything the checks did not foresee
        raise _damaged(path, exc) from None


def _damaged(path: str, exc: Exception) -> CatEmbedError:
    return CatEmbedError(f"{path} is a damaged catembed model file ({type(exc).__name__}: "
                         f"{one_line(exc)}).")


def read_model(path: str | os.PathLike) -> tuple[str, dict[str, Any], dict[str, np.ndarray]]:
    """``(path, metadata, arrays)`` of a model file, before any class is restored: a regular
    file (:func:`catembed._utils._files.check_input_file`: a FIFO is refused, not waited on), the
    archive read with no pickle, every array's declared shape checked against the metadata
    before anything is decompressed (:mod:`catembed.persist._model_archive`), the format version
    and the SHA-256 checksum verified (the errors of :func:`load`)."""
    from .._utils._files import open_input_file
    from ._model_archive import read_archive

    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(path + ".npz"):
        path = path + ".npz"
    fh = open_input_file(path, what="model file", kind="model file")
    try:
        with fh:
            if fh.read(4) != b"PK\x03\x04":
                raise CatEmbedError(f"{path} is not a catembed model file (not an .npz archive).")
            fh.seek(0)
            meta_text, meta, checksum, data = read_archive(
                path, fh, lambda text: _read_meta(path, text),
                lambda meta, declared, scalars: _check_declared(path, meta, declared,
                                                                scalars))
    except CatEmbedError:
        raise
    except Exception as exc:  # BadZipFile, EOFError, zlib.error, ValueError, OSError...
        raise CatEmbedError(
            f"{path} is not a catembed model file, or it is damaged ({type(exc).__name__}: "
            f"{one_line(exc)})."
        ) from None
    try:
        _verify_checksum(path, meta, meta_text, checksum, data)
        return path, meta, data
    except CatEmbedError:
        raise
    except Exception as exc:
        raise _damaged(path, exc) from None


def _check_declared(path: str, meta: dict[str, Any], declared: dict[str, Any],
                    scalars: dict[str, np.ndarray]) -> None:
    """The arrays' declared shapes against the metadata (before any is decompressed), once
    every class the file names is known to be one that can be restored (named, not
    imported: ``catembed transform`` does not import scikit-learn for the lookup)."""
    import catembed

    from ._model_shapes import check_declared_shapes

    parts = meta.get("parts")
    for m in [meta] + (parts if isinstance(parts, list) else []):
        name = m.get("class") if isinstance(m, dict) else None
        if not isinstance(name, str) or (name not in _REGISTRY
                                         and name not in catembed._MODEL_CLASSES):
            raise CatEmbedError(f"{path} holds an unknown model class {name!r}.")
    check_declared_shapes(path, meta, declared, scalars)


def _read_meta(path: str, meta_text: str) -> dict[str, Any]:
    """The metadata of a model file, parsed and checked (format and version)."""
    try:
        meta = json.loads(meta_text)
    except ValueError:
        raise bad(path, "the metadata is not valid JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != _FORMAT_NAME:
        raise CatEmbedError(f"{path} is not a catembed model file.")
    version = meta.get("format_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise bad(path, f"format_version is {version!r}, not a positive integer")
    if version > FORMAT_VERSION:
        raise CatEmbedError(
            f"{path} was written by catembed {meta.get('catembed_version')} in model format "
            f"version {version}; this catembed ({__version__}) reads format versions up to "
            f"{FORMAT_VERSION}. Upgrade catembed to load it."
        )
    return meta


def _verify_checksum(path: str, meta: dict[str, Any], meta_text: str, checksum: Any,
                     data: dict[str, np.ndarray]) -> None:
    if meta["format_version"] >= 2 or checksum is not None:
        if checksum is None or checksum.dtype.kind != "U" or checksum.shape != ():
            raise bad(path, "the checksum is missing")
        if str(checksum) != _checksum(meta_text, data):
            raise bad(path, "its checksum does not match its contents (the file was changed "
                             "or corrupted after it was saved)")


def _registered_class(name: Any) -> type | None:
    """The class registered as ``name``, or catembed's own class of that name, imported
    now (its module alone: loading a CDE model does not import PyTorch's autoencoders or
    scikit-learn's clustering)."""
    cls = _REGISTRY.get(name) if isinstance(name, str) else None
    if cls is None and isinstance(name, str):
        import catembed

        if name in catembed._MODEL_CLASSES:
            cls = register(getattr(catembed, name))
    return cls


def _new_estimator(path: str, meta: dict[str, Any]) -> Any:
    """An unfitted instance of the saved class with the saved parameters, checked."""
    cls = _registered_class(meta.get("class"))
    if cls is None:
        raise CatEmbedError(f"{path} holds an unknown model class {meta.get('class')!r}.")
    need(path, meta, {"params": dict})
    params = meta["params"]
    try:
        est = cls(**params)
    except TypeError:
        raise bad(path, f"parameters {sorted(params)} do not fit {cls.__name__}") from None
    if set(params) != set(est.get_params(deep=False)):
        raise bad(path, f"parameters {sorted(params)} do not fit {cls.__name__}")
    return est


def _restore_model(path: str, meta: Any, data: dict[str, np.ndarray]) -> Any:
    """A model (or a composite's part) from its metadata and arrays."""
    from ..stats._value_statistics import ValueStatistics

    if not isinstance(meta, dict):
        raise bad(path, "a part's metadata is not a JSON object")
    est = _new_estimator(path, meta)
    if "parts" in meta:
        if not hasattr(est, "_restore_composite") or not isinstance(meta["parts"], list):
            raise bad(path, f"{type(est).__name__} is not a composite model")
        parts = []
        for i, m in enumerate(meta["parts"]):
            prefix = f"part{i}__"
            parts.append(_restore_model(path, m, {k[len(prefix):]: v for k, v in data.items()
                                                  if k.startswith(prefix)}))
        own = {k[len("own__"):]: v for k, v in data.items() if k.startswith("own__")}
        est._restore_composite(path, parts, own, meta.get("composite") or {})
        return est
    need(path, meta, {"params": dict, "n_features_in": int, "feature_names": list,
                       "dropped_features": list, "categories": list})
    est._check_params()  # the same checks as fit: a CatEmbedError naming the parameter
    check_fit_params(est)
    try:
        cats = [np.array([_decode_value(t) for t in c], dtype=object)
                for c in meta["categories"]]
    except (TypeError, IndexError, KeyError, ValueError):
        raise bad(path, "the categories cannot be read") from None
    names = meta["feature_names"]
    if len(names) != len(cats) or not all(isinstance(f, str) for f in names):
        raise bad(path, "feature_names do not match the categories")
    for f, c in zip(names, cats, strict=True):
        check_categories(path, f, c)
    stats_arrays = {k[len("stats__"):]: v for k, v in data.items() if k.startswith("stats__")}
    check_stats_arrays(path, stats_arrays, sum(len(c) for c in cats), [len(c) for c in cats])
    est.stats_ = ValueStatistics.from_arrays(stats_arrays, names, cats)
    n_in = meta["n_features_in"]
    if isinstance(n_in, bool) or n_in < len(names):
        raise bad(path, f"n_features_in={n_in!r} is below the {len(names)} fitted columns")
    est.n_features_in_ = int(n_in)
    fin = meta.get("feature_names_in")
    if fin is not None:
        if (not isinstance(fin, list) or len(fin) != n_in
                or not all(isinstance(f, str) for f in fin) or not set(names) <= set(fin)):
            raise bad(path, "feature_names_in do not match n_features_in and the columns")
        est.feature_names_in_ = np.asarray(fin, dtype=object)
    est.feature_names_ = np.asarray(names, dtype=object)
    est.dropped_features_ = np.asarray([str(f) for f in meta["dropped_features"]], dtype=object)
    est.categories_ = cats
    rule = "common" if getattr(est, "_combine", "concat") == "sum" else getattr(
        est, "_table_shape", None)
    tables = check_value_tables(path, names, cats, data, rule)
    est._tables = tables
    est.infrequent_categories_ = _restore_infrequent(path, meta.get("infrequent"), cats)
    numeric = meta.get("numeric") or {}
    check_numeric_state(path, est, numeric, fin)
    _restore_numeric_state(est, numeric)
    extra = {k[len("extra__"):]: v for k, v in data.items() if k.startswith("extra__")}
    for key, arr in extra.items():
        if arr.dtype.kind == "f" and not np.isfinite(arr).all():
            raise bad(path, f"array {key} holds NaN or inf")
    est._restore_extra_state(extra, meta.get("extra", {}))
    check_extra_state(path, est, extra)
    projection = check_projection(path, est, data, tables)
    if projection is not None:
        est._projection = projection
    check_output_width(path, est)
    return est


def _restore_infrequent(path: str, raw: Any, cats: list[np.ndarray]) -> list:
    from ..stats._encoding import INFREQUENT

    if raw is None:
        return [None] * len(cats)
    if not isinstance(raw, list) or len(raw) != len(cats):
        raise bad(path, "the pooled (infrequent) values do not match the columns")
    out = []
    for c, inf in zip(cats, raw, strict=True):
        has_marker = any(v is INFREQUENT for v in c)
        if inf is None:
            if has_marker:
                raise bad(path, "a column has the infrequent value but no pooled values")
            out.append(None)
            continue
        try:
            vals = np.array([_decode_value(t) for t in inf], dtype=object)
        except (TypeError, IndexError, KeyError, ValueError):
            raise bad(path, "the pooled (infrequent) values cannot be read") from None
        if not has_marker or len(vals) < 2:
            raise bad(path, "pooled values are listed for a column without the infrequent value")
        out.append(vals)
    return out


