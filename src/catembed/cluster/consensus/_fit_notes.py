"""What a :class:`catembed.cluster.Consensus` fit says about its answer, kept in a saved
model: ``diagnostics_`` (stability, agreement, the closest single column, each cluster's
resample Jaccard and reading, the dependence z, the outlier guard's notes), ``k_scores_``
(the BIC per k, with the k not fitted) and ``dependence_z_``, as JSON for
:func:`catembed.persist.save` and back (:mod:`._state` calls both).

A loaded model then answers as the fitted one did: its warnings
(:func:`._degenerate.answer_messages`), its summary lines and the cluster page. Non-finite
floats (an infinite z) are written as the strings ``"inf"``, ``"-inf"``, ``"nan"``; every
field is checked on load, so a damaged file raises a :class:`~catembed.CatEmbedError`. A
file saved before the notes were kept loads without them (no ``diagnostics_``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["fit_notes", "restore_fit_notes"]

_FLOATS = ("stability", "member_agreement", "split_nmi")
_SCORES = ("log_likelihood", "bic")


def _enc(x: Any) -> float | str:
    x = float(x)
    return x if np.isfinite(x) else repr(x)


def _dec(v: Any) -> float:
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    raise ValueError(v)


def fit_notes(model: Any) -> dict[str, Any] | None:
    """The JSON of ``model``'s ``diagnostics_``, ``k_scores_`` and ``dependence_z_`` (None
    for a model without ``diagnostics_``)."""
    d = getattr(model, "diagnostics_", None)
    if d is None:
        return None
    z = d.get("dependence_z")
    out: dict[str, Any] = {
        **{key: _enc(d[key]) for key in _FLOATS},
        "split_column": None if d.get("split_column") is None else str(d["split_column"]),
        "cluster_jaccard": [_enc(j) for j in d["cluster_jaccard"]],
        "cluster_dissolved": [_enc(j) for j in d["cluster_dissolved"]],
        "cluster_status": [str(s) for s in d["cluster_status"]],
        "dependence_z": None if z is None else _enc(z),
        "guard": None if d.get("guard") is None else str(d["guard"]),
        "outlier_rows": [int(r) for r in d.get("outlier_rows", ())],
        "small_clusters": [[int(c), int(n)] for c, n in d.get("small_clusters", {}).items()],
    }
    scores = getattr(model, "k_scores_", None)
    return {"diagnostics": out,
            "dependence_z_": _enc(getattr(model, "dependence_z_", float("nan"))),
            "k_scores": None if scores is None else {
                "k": [int(k) for k in scores.index],
                **{c: [_enc(v) for v in scores[c]] for c in _SCORES},
                "n_parameters": [int(p) for p in scores["n_parameters"]],
                "not_fitted": [int(k) for k in scores.attrs.get("not_fitted", [])]}}


def restore_fit_notes(model: Any, notes: Any, n_rows: int) -> None:
    """Set ``diagnostics_``, ``k_scores_`` and ``dependence_z_`` from :func:`fit_notes`'s
    JSON (nothing for None); raises ValueError (or KeyError, TypeError) on a malformed one.
    ``model.n_clusters_`` is set; ``n_rows``: the training rows."""
    if notes is None:
        return
    d, k = notes["diagnostics"], int(model.n_clusters_)
    status = [str(s) for s in d["cluster_status"]]
    jac = np.array([_dec(j) for j in d["cluster_jaccard"]])
    gone = np.array([_dec(j) for j in d["cluster_dissolved"]])
    rows = np.array([int(r) for r in d["outlier_rows"]], dtype=np.int64)
    small = {int(c): int(n) for c, n in d["small_clusters"]}
    ok = {"stable", "doubtful", "dissolved", "empty", "one cluster"}
    if (len(jac) != k or len(gone) != k or len(status) != k or not set(status) <= ok
            or (rows.size and (rows.min() < 0 or rows.max() >= n_rows))
            or not all(0 <= c < k and 0 <= n <= n_rows for c, n in small.items())):
        raise ValueError("diagnostics do not fit the model")
    z = d["dependence_z"]
    model.diagnostics_ = {
        **{key: _dec(d[key]) for key in _FLOATS},
        "split_column": None if d["split_column"] is None else str(d["split_column"]),
        "cluster_jaccard": jac, "cluster_dissolved": gone, "cluster_status": status,
        "dependence_z": None if z is None else _dec(z),
        "guard": None if d["guard"] is None else str(d["guard"]),
        "outlier_rows": rows, "small_clusters": small}
    model.dependence_z_ = _dec(notes["dependence_z_"])
    s = notes["k_scores"]
    model.__dict__.pop("k_scores_", None)
    if s is not None:
        ks = [int(c) for c in s["k"]]
        table = pd.DataFrame({"log_likelihood": [_dec(v) for v in s["log_likelihood"]],
                              "n_parameters": np.array([int(p) for p in s["n_parameters"]],
                                                       dtype=np.int64),
                              "bic": [_dec(v) for v in s["bic"]]},
                             index=pd.Index(ks, name="k"))
        if k not in ks:
            raise ValueError("the BIC table does not hold the chosen k")
        table.attrs["not_fitted"] = [int(c) for c in s["not_fitted"]]
        model.k_scores_ = table
