"""A saved model read as its lookup alone, without scikit-learn: ``catembed transform``'s start.

Restoring a model (:func:`catembed.persist.load`) instantiates its class, a scikit-learn
estimator: importing scikit-learn and SciPy costs about 0.6 s in a fresh process, more than
the lookup of a million rows. For the classes whose transform is the lookup of their value
tables with the base class's combination and output names (:data:`LOOKUP_CLASSES`),
:func:`saved_lookup` reads the file (the same format version and checksum checks and errors,
:func:`catembed.persist.read_model`), checks the parts the lookup uses as ``load`` does
(parameters, categories, pooled values, statistics, value tables, output projection) and
builds what :func:`catembed.transform.streaming.transform_file` needs: the columns and categories to
encode, the ``handle_unknown`` / ``handle_missing`` rules, the fused lookup plan
(:class:`catembed.transform._lookup.LookupPlan`), the output names and dtype. Anything else (another
class, numeric columns passed through or discretised, a composite model) gives ``None`` and
the caller loads the estimator; so does a file any check here doubts, so that ``load`` gives
its own error. A batch the lookup cannot code alone (an unknown value to refuse or warn of, a
file with a stored index) is embedded by the estimator, loaded then
(:meth:`SavedLookup._transform_array`): the output bytes are the same either way.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .._utils._params import check_int, check_option, check_output_dtype
from .._utils._validation import HANDLE_MISSING, HANDLE_UNKNOWN, NUMERIC_POLICIES, CatEmbedError
from ..persist import _decode_value, _restore_infrequent, read_model
from ..persist._model_checks import (
    check_categories,
    check_projection,
    check_stats_arrays,
    check_value_tables,
)
from ._lookup import LookupPlan, lookup_tables
from ._names import component_names, embedding_names

__all__ = ["LOOKUP_CLASSES", "LOOKUP_PARAMS", "SavedLookup", "saved_lookup"]

#: class name -> (``_combine``, ``_feature_prefix``, ``_table_shape``, ``_own_n_components``,
#: ``_compact_dtype``) of the classes whose transform is the base class's lookup
#: (tests/test_saved_lookup.py checks this table against the classes)
LOOKUP_CLASSES: dict[str, tuple[str, str, str | None, bool, type]] = {
    "CDE": ("concat", "cde", "common", False, np.float32),
    "CDEPlusPlus": ("concat", "cdepp", None, False, np.float32),
    "CDEAutoencoder": ("concat", "cdeae", "common", False, np.float32),
    "OneHotAutoencoder": ("concat", "ohae", None, False, np.float32),
    "Couplings": ("concat", "coupling", None, False, np.float32),
    "CategoricalDistance": ("concat", "dist", "square", False, np.float32),
    "OneHotPCA": ("sum", "onehotpca", "common", True, np.float32),
    "MCA": ("sum", "mca", None, True, np.float64),
}

_COMMON = ("categorical_features", "handle_missing", "handle_unknown", "max_categories",
           "min_frequency")
_TRAINED = ("device", "dtype", "hidden_factor", "hidden_size", "l2_weight", "max_epochs",
            "mse_normalization", "n_bins", "n_components", "numeric", "optimizer",
            "random_state", "sparsity_proportion", "sparsity_weight", "training")
#: class name -> its parameter names (``get_params``): a file with others (another
#: catembed version's, say) is left to :func:`catembed.persist.load`, which refuses it
LOOKUP_PARAMS: dict[str, frozenset[str]] = {
    name: frozenset(_COMMON + extra) for name, extra in {
        "CDE": ("alpha", "beta", "coupling", "dtype", "max_iter", "n_bins", "n_components",
                "numeric", "random_state"),
        "CDEPlusPlus": _TRAINED + ("beta", "coupling", "encoder", "epsilon", "linkage",
                                   "value_clustering"),
        "CDEAutoencoder": _TRAINED + ("alpha", "coupling", "max_iter"),
        "OneHotAutoencoder": _TRAINED,
        "Couplings": ("dtype", "n_bins", "n_components", "numeric"),
        "CategoricalDistance": ("chunk_size", "dm_full", "metric", "n_neighbors", "sigma",
                                "verbose"),
        "OneHotPCA": ("beta", "dtype", "n_bins", "n_components", "numeric"),
        "MCA": ("n_bins", "n_components", "numeric"),
    }.items()
}


class SavedLookup:
    """The lookup of a saved model, with the attributes of the estimator that
    :func:`catembed.transform.streaming.transform_file` reads (``feature_names_``, ``categories_``,
    ``infrequent_categories_``, ``handle_unknown``, ``handle_missing``, ``_get_plan``,
    ``get_feature_names_out``, ``_output_dtype``); the estimator itself is loaded only if a
    batch needs it (:meth:`_transform_array`)."""

    def __init__(self, path: str, meta: dict[str, Any], data: dict[str, np.ndarray]) -> None:
        self.path = path
        params = meta["params"]
        (self._combine, self._feature_prefix, rule, self._own_n_components,
         self._compact_dtype) = LOOKUP_CLASSES[meta["class"]]
        self.handle_unknown = params["handle_unknown"]
        self.handle_missing = params["handle_missing"]
        self.n_components = params.get("n_components")
        self.dtype = params.get("dtype")
        check_option("handle_unknown", self.handle_unknown, HANDLE_UNKNOWN)
        check_option("handle_missing", self.handle_missing, HANDLE_MISSING)
        if not self._own_n_components:
            check_int("n_components", self.n_components, allow_none=True)
        self._output_dtype()
        names = meta["feature_names"]
        cats = [np.array([_decode_value(t) for t in c], dtype=object)
                for c in meta["categories"]]
        if len(names) != len(cats) or not all(isinstance(f, str) for f in names):
            raise CatEmbedError("feature_names do not match the categories")
        for f, c in zip(names, cats, strict=True):
            check_categories(path, f, c)
        check_stats_arrays(path, {k[len("stats__"):]: v for k, v in data.items()
                                  if k.startswith("stats__")}, sum(len(c) for c in cats),
                           [len(c) for c in cats])
        fin = meta["feature_names_in"]
        if (not isinstance(fin, list) or len(fin) != meta["n_features_in"]
                or not all(isinstance(f, str) for f in fin) or not set(names) <= set(fin)):
            raise CatEmbedError("feature_names_in do not match the columns")
        self.feature_names_in_ = np.asarray(fin, dtype=object)
        self.feature_names_ = np.asarray(names, dtype=object)
        self.categories_ = cats
        self._tables = check_value_tables(path, names, cats, data, rule)
        self.infrequent_categories_ = _restore_infrequent(path, meta.get("infrequent"), cats)
        self.numeric_features_ = np.asarray([str(c) for c in meta["numeric"]["features"]],
                                            dtype=object)
        self._projection = check_projection(path, self, data, self._tables)
        tables, combine = lookup_tables(self._tables, self._combine, self._projection)
        self._plan = LookupPlan(tables, combine, self._output_dtype())
        self._estimator: Any = None
        self._file = (meta, data)  # what the estimator is restored from, if it is needed

    def _output_dtype(self) -> np.dtype:
        return check_output_dtype(self.dtype, self.n_components, self._compact_dtype)

    def _get_plan(self) -> LookupPlan:
        return self._plan

    def get_feature_names_out(self) -> np.ndarray:
        """The estimator's output names (:meth:`catembed.base.ValueEmbedder.
        get_feature_names_out`; no numeric column is passed through)."""
        if self._projection is not None:
            names = component_names(self._feature_prefix, self._projection[0].shape[1])
        else:
            names = embedding_names(self._tables, self._combine, self._feature_prefix,
                                    self.feature_names_)
        return np.asarray(names, dtype=object)

    def _transform_array(self, X: Any, out: np.ndarray | None = None) -> np.ndarray:
        """The estimator's own transform of a DataFrame (restored now, once, from the file's
        contents as read at the start: not from the path again, which may hold another
        model by now), for the batches the lookup alone does not embed: it raises or warns
        as ``transform`` does."""
        if self._estimator is None:
            import copy

            from ..persist import restore

            est = restore(self.path, *self._file)
            if est.handle_unknown != self.handle_unknown:
                est = copy.copy(est)
                est.set_params(handle_unknown=self.handle_unknown)
            self._estimator = est
        return self._estimator._transform_array(X, out=out)


def saved_lookup(path: str | os.PathLike, handle_unknown: str | None = None
                 ) -> SavedLookup | None:
    """The model file at ``path`` as a :class:`SavedLookup`, or ``None`` when its class or
    contents need the estimator (then :func:`catembed.persist.load` reads it and gives any
    error). The file's own errors (not found, not a model, damaged, newer format version)
    are raised here as ``load`` raises them.

    ``handle_unknown``: override the model's policy for unseen values.
    """
    path, meta, data = read_model(path)
    params = meta.get("params")
    numeric = meta.get("numeric")
    if (not isinstance(meta.get("class"), str) or meta["class"] not in LOOKUP_CLASSES
            or "parts" in meta
            or not isinstance(params, dict) or not isinstance(numeric, dict)
            or set(params) != LOOKUP_PARAMS[meta["class"]]
            or params.get("numeric", "drop") not in NUMERIC_POLICIES
            or (params.get("numeric", "drop") == "passthrough" and numeric.get("features"))
            or numeric.get("bins") or "mean" in numeric):
        return None
    if handle_unknown is not None:
        if handle_unknown not in HANDLE_UNKNOWN:
            return None
        params = dict(params, handle_unknown=handle_unknown)
    try:
        return SavedLookup(path, dict(meta, params=params), data)
    except Exception:  # noqa: BLE001 - load() reads the file again and names the problem
        return None
