"""The report's label-free consensus section: ``catembed cluster``'s answer for the same
table, options and seed (:func:`cluster_consensus`, by the command's own functions), or a
:class:`~catembed.cluster.Consensus` fitted on a table in memory (:func:`consensus_summary`).
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["cluster_consensus", "consensus_summary"]


def consensus_summary(X: Any, k: Any, seed: int, clusters: Any = None,
                      y: Any = None) -> dict[str, Any]:
    """What the report shows of a :class:`~catembed.cluster.Consensus` fit on ``X`` with
    ``n_clusters=k`` (an integer, ``"auto"`` or a range): its members with their stability,
    weight and agreement, the members left out, the cluster sizes, the labels and the ARI of
    the consensus with ``clusters`` (the k-means clusters of the maps) and with ``y``;
    ``{"error": message}`` when the table is refused."""
    import warnings

    from .._utils._validation import CatEmbedError
    from ..cluster.consensus import Consensus

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = Consensus(k, random_state=seed).fit(X)
    except CatEmbedError as exc:
        return {"k": k, "error": str(exc)}
    return _consensus_facts(model, clusters, y)


def _consensus_facts(model: Any, clusters: Any = None, y: Any = None) -> dict[str, Any]:
    """:func:`consensus_summary`'s dictionary from a fitted Consensus; ``clusters`` and ``y``
    are on its rows (None where a row has none: left out of that ARI)."""
    import numpy as np
    import pandas as pd
    from sklearn.metrics import adjusted_rand_score

    from ..cluster.consensus._degenerate import answer_messages

    k = int(model.n_clusters_)
    out: dict[str, Any] = {
        "k": k,
        "members": [{"member": m, "stability": float(s), "weight": float(w),
                     "agreement": float(a)}
                    for m, s, w, a in zip(model.members_, model.member_stability_,
                                          model.member_weights_, model.member_agreement_,
                                          strict=True)],
        "failed": list(model.failed_members_),
        "sizes": np.bincount(model.labels_, minlength=k).tolist(),
        "numeric": list(model.numeric_features_),
        "labels": np.asarray(model.labels_),
        "warnings": answer_messages(model),  # the answer's, as the fit gave them (issue 53)
    }
    for key, other in (("ari_kmeans", clusters), ("ari_target", y)):
        if other is None:
            continue
        other = np.asarray(other, dtype=object)
        has = ~pd.isna(other)
        if has.any():
            out[key] = float(adjusted_rand_score(other[has].astype(str),
                                                 model.labels_[has]))
    return out


def cluster_consensus(args: argparse.Namespace, X: Any, y: Any, clusters: Any,
                      rows: Any = None) -> dict[str, Any]:
    """The report's consensus section as ``catembed cluster`` computes it: the same reading
    of the table (every row; the columns' roles from ``--target``, ``--drop`` and
    ``--numeric``), the same :class:`~catembed.cluster.Consensus` (``-k`` =
    ``--clusters``, else ``auto``; the default members and ``--n-init``; ``--seed``), by
    the command's own functions (:mod:`catembed.evaluation.roles`). ``X`` (the report's
    rows, after its preset), ``y`` and ``clusters`` give the ARIs on the rows they share;
    ``rows``: their labels in the file's index (:func:`catembed.datasets.apply_preset`'s
    ``meta["rows_kept"]``; default ``X.index``)."""
    import warnings

    import numpy as np
    import pandas as pd

    from .._utils._progress import Progress
    from .._utils._validation import CatEmbedError
    from ..datasets import resolve_input
    from ..evaluation.inputs import find_input
    from ..evaluation.roles import cluster_table, consensus_model

    view = argparse.Namespace(
        input=find_input(args.data, args.data_dir), target=args.target, drop=args.drop,
        id=None, numeric=args.numeric, n_clusters=args.clusters or "auto", n_init=5,
        seed=args.seed, quiet=True, strict=None)
    try:
        with warnings.catch_warnings():  # the report's reading gave them once
            warnings.simplefilter("ignore")
            table = cluster_table(view, resolve_input(view.input),
                                  Progress("catembed report", enabled=False))
            model = consensus_model(view, table).fit(table.frame[table.features])
    except CatEmbedError as exc:
        return {"k": view.n_clusters, "error": str(exc)}
    index = table.frame.index
    mine = pd.Index(X.index if rows is None else rows)
    on = [None if v is None else pd.Series(np.asarray(v, dtype=object), index=mine)
          for v in (clusters, y)]
    if index.is_unique and mine.is_unique:
        on = [None if v is None else v.reindex(index).to_numpy() for v in on]
    else:  # rows matched by position (the report kept every row)
        on = [None if v is None or len(v) != len(index) else v.to_numpy() for v in on]
    out = _consensus_facts(model, *on)
    out["index"] = index
    out["command"] = "catembed cluster"  # said on the page
    out["chosen"] = view.n_clusters == "auto"
    return out
