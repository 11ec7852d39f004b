"""The fitted state of :class:`catembed.cluster.Consensus` as arrays and JSON, for
:func:`catembed.persist.save` / :func:`catembed.persist.load`.

A Consensus model is a composite: its members are saved as catembed models of their own
(the persist module's ``part<i>__`` entries); this module gives the rest, the consensus'
own state: the columns and their categories, the numeric bins, the members' k-means
centres, the members' scale factors (``combine="concat"``, ``"select"``) or the cluster
table of the co-association coordinates (``"coassoc"``), the member ``"select"`` chose
(``-1``: the concat partition), the centres of the final k-means,
the members' stability, weight and agreement, the training labels, and what the fit said
about its answer (:mod:`._fit_notes`: ``diagnostics_``, ``k_scores_``). Everything is
checked on load (shapes, finiteness, counts), so a damaged file raises a
:class:`~catembed.CatEmbedError` naming what is wrong, never a later ``IndexError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ...persist import _decode_value, _encode_value
from ...persist._model_checks import bad, check_array, check_categories
from ._fit_notes import fit_notes, restore_fit_notes
from ._members import check_savable
from ._runs import WIDE_MEMBERS

__all__ = ["consensus_state", "restore_consensus_state"]


def consensus_state(model: Any) -> tuple[list[Any], dict[str, np.ndarray], dict[str, Any]]:
    """``(members, arrays, metadata)`` of a fitted Consensus."""
    check_is_fitted(model, "labels_")
    check_savable(model.members_)  # partition members (issue 39): refused, named
    arrays: dict[str, np.ndarray] = {
        "stability": np.asarray(model.member_stability_, dtype=np.float64),
        "weights": np.asarray(model.member_weights_, dtype=np.float64),
        "agreement": np.asarray(model.member_agreement_, dtype=np.float64),
        "cluster_centers": np.asarray(model.cluster_centers_, dtype=np.float64),
        "labels": np.asarray(model.labels_, dtype=np.int64),
    }
    if model._cluster_table is None:  # combine="concat": one factor per member
        arrays["scales"] = np.asarray(model._scales, dtype=np.float64)
    else:
        arrays["cluster_table"] = np.asarray(model._cluster_table, dtype=np.float64)
    for i, centres in enumerate(model._centres):
        for r, c in enumerate(centres):
            arrays[f"centres_{i}_{r}"] = np.asarray(c)
    meta = {
        "n_features_in": int(model.n_features_in_),
        "feature_names_in": ([str(f) for f in model.feature_names_in_]
                             if hasattr(model, "feature_names_in_") else None),
        "feature_names": list(model.feature_names_),
        "categories": [[_encode_value(v) for v in c] for c in model.categories_],
        "numeric_features": list(model.numeric_features_),
        "numeric_bins": {c: [float(e) for e in edges]
                         for c, edges in model.numeric_bins_.items()},
        "members": list(model.members_),
        "failed_members": list(model.failed_members_),
        "run_k": [[int(k) for k in ks] for ks in model._run_k],
        "n_clusters_": int(model.n_clusters_),
        "selected": int(getattr(model, "_selected", -1)),  # combine="select": a member
        "fit_notes": fit_notes(model),  # diagnostics_, k_scores_, dependence_z_
    }
    return list(model.estimators_), arrays, meta


def restore_consensus_state(model: Any, path: str, members: list[Any],
                            arrays: dict[str, np.ndarray], meta: dict[str, Any],
                            member_classes: dict[str, str] | None = None) -> None:
    """Set the fitted attributes of ``model`` from :func:`consensus_state`'s output,
    checking that they fit together (``member_classes``: method name -> class name)."""
    configured = model._check()
    try:
        names = [str(f) for f in meta["feature_names"]]
        cats = [np.array([_decode_value(t) for t in c], dtype=object)
                for c in meta["categories"]]
        run_k = [[int(k) for k in ks] for ks in meta["run_k"]]
        member_names = [str(m) for m in meta["members"]]
        bins = {str(c): np.asarray(e, dtype=np.float64)
                for c, e in meta["numeric_bins"].items()}
        numeric = [str(c) for c in meta["numeric_features"]]
        n_in = int(meta["n_features_in"])
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        raise bad(path, "the consensus metadata cannot be read") from None
    if len(names) != len(cats) or n_in < len(names) or set(bins) != set(numeric) or not (
            set(numeric) <= set(names)):
        raise bad(path, "the consensus columns, categories and numeric bins do not match")
    for f, c in zip(names, cats, strict=True):
        check_categories(path, f, c)
    n_members = len(member_names)
    if not n_members or len(members) != n_members or len(run_k) != n_members:
        raise bad(path, f"it lists {n_members} members, {len(members)} fitted members and "
                         f"{len(run_k)} run lists")
    failed = meta.get("failed_members", [])
    if (model.members is None and isinstance(failed, list)
            and set(member_names) | set(map(str, failed)) <= set(WIDE_MEMBERS)):
        configured = list(WIDE_MEMBERS)  # the default portfolio met a wide table
    _check_members(path, configured, member_names, failed, members, member_classes or {})
    for est in members:
        if not set(est.feature_names_) <= set(names):
            raise bad(path, "a member was fitted on columns the consensus does not have")
        for f, c in zip(est.feature_names_, est.categories_, strict=True):
            if [repr(v) for v in c] != [repr(v) for v in cats[names.index(f)]]:
                raise bad(path, f"a member's categories of column {f!r} are not the "
                                 "consensus' own")
        # the same arrays, as after a fit: the member then reads the consensus' codes
        # as they are (_members.member_embed), not through its own encoding
        est.categories_ = [cats[names.index(f)] for f in est.feature_names_]
    try:  # the k fitted (n_clusters may be "auto" or a range); older files: n_clusters
        k = int(meta.get("n_clusters_", model.n_clusters))
    except (TypeError, ValueError):
        raise bad(path, "the number of clusters cannot be read") from None
    n_runs = sum(len(ks) for ks in run_k)
    L = sum(sum(ks) for ks in run_k)
    if any(not ks or min(ks) < 1 for ks in run_k):
        raise bad(path, "a member has no k-means run")
    dims = [len(est.get_feature_names_out()) for est in members]
    selected = meta.get("selected", -1)
    if type(selected) is not int or not -1 <= selected < n_members or (
            selected >= 0 and model.combine != "select"):
        raise bad(path, f"the selected member {selected!r} is not one of its {n_members} "
                         f"members under combine={model.combine!r}")
    if model.combine != "coassoc":
        table, width = None, sum(dims) if selected < 0 else dims[selected]
        scales = check_array(path, "the members' scale factors", arrays.get("scales"),
                             (n_members,), minimum=0.0)
    else:
        scales, width = None, arrays.get("cluster_table", np.zeros((0, 0))).shape[-1]
        table = check_array(path, "the cluster table", arrays.get("cluster_table"), (L, -1))
        if not 1 <= width <= k:
            raise bad(path, f"the cluster table has {width} columns; n_clusters={k}")
    centers = check_array(path, "the cluster centres", arrays.get("cluster_centers"),
                          (k, width))
    vec = {key: check_array(path, f"array {key}", arrays.get(key), (n_members,), minimum=-1.0)
           for key in ("stability", "weights", "agreement")}
    labels = np.asarray(arrays.get("labels"))
    if labels.dtype.kind not in "iu" or labels.ndim != 1 or (
            labels.size and (labels.min() < 0 or labels.max() >= k)):
        raise bad(path, f"the training labels are not integers in 0..{k - 1}")
    if any(len(labels) != est.stats_.n_rows for est in members):
        raise bad(path, f"it holds {len(labels)} training labels but its members were "
                         f"fitted on {members[0].stats_.n_rows} rows")
    fin = meta.get("feature_names_in")
    if fin is not None and (not isinstance(fin, list) or len(fin) != n_in or not all(
            isinstance(f, str) for f in fin) or not set(names) <= set(fin)):
        raise bad(path, "feature_names_in do not match n_features_in and the columns")
    centres = []
    for i, ks in enumerate(run_k):
        row = []
        dim = dims[i]
        for r, kk in enumerate(ks):  # every run of a member: the member's embedding width
            c = arrays.get(f"centres_{i}_{r}")
            check_array(path, f"the centres of run {r} of member {i}", c, (kk, dim))
            row.append(np.asarray(c))
        centres.append(row)
    if len([key for key in arrays if key.startswith("centres_")]) != n_runs:
        raise bad(path, "it holds more run centres than runs")
    model.n_features_in_ = n_in
    if fin is not None:
        model.feature_names_in_ = np.asarray([str(f) for f in fin], dtype=object)
    model.feature_names_ = names
    model.categories_ = cats
    model.numeric_features_ = numeric
    model.numeric_bins_ = bins
    model.estimators_ = list(members)
    model.members_ = member_names
    model.failed_members_ = list(meta.get("failed_members", []))
    model._centres = centres
    model._run_k = run_k
    model._cluster_table = table
    model._scales = scales
    model._selected = selected
    model.selected_ = member_names[selected] if selected >= 0 else (
        "concat" if table is None else "coassoc")
    model.cluster_centers_ = centers
    model.n_clusters_ = k
    model.member_stability_ = vec["stability"]
    model.member_weights_ = vec["weights"]
    model.member_agreement_ = vec["agreement"]
    model.labels_ = labels.astype(np.int64)
    try:  # a file saved before they were kept has none: no diagnostics_
        restore_fit_notes(model, meta.get("fit_notes"), len(labels))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise bad(path, "the fit's diagnostics (diagnostics_, k_scores_) cannot be read") \
            from None


def _check_members(path: str, configured: list[str], member_names: list[str], failed: Any,
                   members: list[Any], member_classes: dict[str, str]) -> None:
    """The fitted members and the failed ones are the configured members, in their order,
    each fitted member of its method's class."""
    if not isinstance(failed, list) or not all(isinstance(m, str) for m in failed):
        raise bad(path, "failed_members is not a list of method names")
    if member_names != [m for m in configured if m not in failed] or not set(failed) <= set(
            configured) or len(set(failed)) != len(failed):
        raise bad(path, f"its members {member_names} and failed members {failed} are not "
                         f"the configured members {configured}")
    for name, est in zip(member_names, members, strict=True):
        want = member_classes.get(name)
        if want is not None and type(est).__name__ != want:
            raise bad(path, f"member {name!r} is a {type(est).__name__}, not a {want}")
