"""Saving fitted models in a format that cannot execute code.

A model file is a NumPy ``.npz`` archive read with ``allow_pickle=False``: numeric arrays
(statistics, value tables, method-specific arrays) plus one JSON document (``__meta__``)
with the class name, the parameters, the categories and the format version. Only classes
registered by catembed can be restored, so loading a file never imports or runs anything
the file names. Pickle and joblib work too, as for any scikit-learn estimator.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any

import numpy as np

from ._validation import CatEmbedError
from ._version import __version__

__all__ = ["save", "load", "FORMAT_VERSION", "register"]

FORMAT_VERSION = 1
_FORMAT_NAME = "catembed-model"
_REGISTRY: dict[str, type] = {}


def register(cls: type) -> type:
    """Allow :func:`load` to restore instances of ``cls`` (a class decorator)."""
    _REGISTRY[cls.__name__] = cls
    return cls


def _encode_value(v: Any) -> list:
    if v is None:
        return ["none"]
    if isinstance(v, (bool, np.bool_)):
        return ["b", bool(v)]
    if isinstance(v, (int, np.integer)):
        return ["i", int(v)]
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return ["nan"] if math.isnan(f) else ["f", f]
    return ["s", str(v)]


def _decode_value(t: list) -> Any:
    kind = t[0]
    if kind == "none":
        return None
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


def save(estimator: Any, path: str | os.PathLike) -> None:
    """Write a fitted catembed estimator to ``path`` (``.npz``).

    Parameters
    ----------
    estimator : ValueEmbedder
        A fitted estimator.
    path : str or path-like
        The file to write; ``.npz`` is appended by NumPy when missing.
    """
    from sklearn.utils.validation import check_is_fitted

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
    }
    for key, arr in arrays.items():
        if arr.dtype == object:
            raise CatEmbedError(f"internal: array {key} has object dtype and cannot be saved.")
    np.savez_compressed(path, __meta__=np.array(json.dumps(meta)), **arrays)


def load(path: str | os.PathLike) -> Any:
    """Read a model written by :func:`save`.

    Raises
    ------
    CatEmbedError
        If the file is not a catembed model, was written by a newer format version, or names
        a class this catembed does not know.
    """
    from .stats import ValueStatistics

    path = os.fspath(path)
    if not os.path.exists(path) and os.path.exists(path + ".npz"):
        path = path + ".npz"
    try:
        with np.load(path, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise CatEmbedError(f"model file not found: {path}") from None
    except (OSError, ValueError) as exc:
        raise CatEmbedError(f"{path} is not a catembed model file ({exc}).") from None
    if "__meta__" not in data:
        raise CatEmbedError(f"{path} is not a catembed model file (no __meta__ entry).")
    meta = json.loads(str(data.pop("__meta__")))
    if meta.get("format") != _FORMAT_NAME:
        raise CatEmbedError(f"{path} is not a catembed model file.")
    version = int(meta.get("format_version", 0))
    if version > FORMAT_VERSION:
        raise CatEmbedError(
            f"{path} was written by catembed {meta.get('catembed_version')} in model format "
            f"version {version}; this catembed ({__version__}) reads format versions up to "
            f"{FORMAT_VERSION}. Upgrade catembed to load it."
        )
    cls = _REGISTRY.get(meta["class"])
    if cls is None:
        raise CatEmbedError(f"{path} holds an unknown model class {meta['class']!r}.")
    est = cls(**meta["params"])
    cats = [np.array([_decode_value(t) for t in c], dtype=object) for c in meta["categories"]]
    stats_arrays = {k[len("stats__"):]: v for k, v in data.items() if k.startswith("stats__")}
    est.stats_ = ValueStatistics.from_arrays(stats_arrays, meta["feature_names"], cats)
    est.n_features_in_ = int(meta["n_features_in"])
    if meta["feature_names_in"] is not None:
        est.feature_names_in_ = np.asarray(meta["feature_names_in"], dtype=object)
    est.feature_names_ = np.asarray(meta["feature_names"], dtype=object)
    est.dropped_features_ = np.asarray(meta["dropped_features"], dtype=object)
    est.categories_ = cats
    n_tables = len(cats)
    est._tables = [np.asarray(data[f"table__{j}"], dtype=np.float64) for j in range(n_tables)]
    _restore_numeric_state(est, meta.get("numeric") or {})
    extra = {k[len("extra__"):]: v for k, v in data.items() if k.startswith("extra__")}
    est._restore_extra_state(extra, meta.get("extra", {}))
    if "output__components" in data:
        est._projection = tuple(
            np.asarray(data[f"output__{key}"], dtype=np.float64)
            for key in ("components", "mean", "variance")
        )
    return est
