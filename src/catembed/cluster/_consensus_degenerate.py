"""No outlier group returned as a cluster without a word (issue 53, item 1).

A cluster that holds fewer than ``max(2, 1 % of the rows)`` rows (:func:`small_clusters`;
an empty cluster counts) is an outlier group, not a cluster: on a table of a few thousand
rows with one row of rare codes, k-means on the members' embeddings side by side can spend
one of its k centres on that row. ``combine="select"`` (the default) therefore starts from
its usual pick (:func:`~catembed.cluster._consensus_combine.preferred_candidate`) and
(:func:`guarded_select`):

1. keeps it when none of its clusters is small (the labels are then exactly as before);
2. else takes, among the other candidates (``concat`` and every member's own k-means
   partition) without a small cluster, the one with the largest support (mean ARI with
   the other candidates, the ``select`` rule's own measure);
3. else refits k-means on the side-by-side coordinates without the rows of the small
   clusters (up to :data:`TRIM_ROUNDS` times, each round setting aside the rows of the
   small clusters found so far) and labels every row by its nearest centre;
4. else returns the pick, and :func:`outlier_message` warns (as for every partition with a
   small cluster, whatever ``combine`` is).

The rows set aside (those of the pick's small clusters) are kept in
``diagnostics_["outlier_rows"]``. The rule and its pool: ``studies/consensus_degenerate_design.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.cluster import KMeans

from .._utils._errors import CatEmbedWarning
from ._consensus_combine import (
    candidate_partitions,
    candidate_support,
    nearest_labels,
    preferred_candidate,
)
from ._consensus_trust import SPLIT_NMI, column_nmi

__all__ = ["MIN_SHARE", "TRIM_ROUNDS", "guard_report", "guarded_select", "outlier_message",
           "small_clusters"]

#: a cluster under ``max(2, MIN_SHARE * n)`` rows is an outlier group (issue 53)
MIN_SHARE = 0.01
#: whether a pick that follows one column's values is set aside for a candidate that does
#: not (when ``codes`` is given; decided on the declared pool, see the module text)
SPLIT_GUARD = True
#: rounds of k-means without the rows of small clusters before giving up (step 3)
TRIM_ROUNDS = 3


def small_clusters(labels: np.ndarray, k: int) -> np.ndarray:
    """The clusters ``0 .. k-1`` of ``labels`` that hold fewer than ``max(2, MIN_SHARE * n)``
    rows (an empty one included); rows labelled -1 are not counted in any cluster."""
    lab = np.asarray(labels)
    sizes = np.bincount(lab[lab >= 0], minlength=k)[:k]
    return np.flatnonzero(sizes < max(2.0, MIN_SHARE * len(lab)))


def _trimmed(U: np.ndarray, labels: np.ndarray, k: int, sample_size: int,
             rs: np.random.RandomState) -> tuple[np.ndarray | None, np.ndarray]:
    """Step 3: ``(centres, labels)`` of k-means on ``U`` without the rows of ``labels``'
    small clusters (rounds add the rows of new small clusters), or ``(None, labels)``."""
    out = np.zeros(len(U), dtype=bool)
    for _ in range(TRIM_ROUNDS):
        out |= np.isin(labels, small_clusters(labels, k))
        keep = np.flatnonzero(~out)
        if len(keep) < k or len(np.unique(U[keep], axis=0)) < k:
            break
        if len(keep) > sample_size:
            keep = np.sort(rs.choice(keep, size=sample_size, replace=False))
        centres = KMeans(k, n_init=10, random_state=rs.randint(2**31 - 1)).fit(
            U[keep]).cluster_centers_
        labels = nearest_labels(U, centres)
        if not len(small_clusters(labels, k)):
            return centres, labels
    return None, labels


def _is_split(codes: np.ndarray, labels: np.ndarray) -> bool:
    """Whether ``labels`` follows one column's values (NMI at least ``SPLIT_NMI``; at most
    20,000 evenly spaced rows are read)."""
    rows = np.unique(np.linspace(0, len(labels) - 1, min(len(labels), 20000)).astype(int))
    return bool(column_nmi(codes[rows], np.asarray(labels)[rows]).max() >= SPLIT_NMI)


def guarded_select(concat: np.ndarray, centres: np.ndarray, U: np.ndarray, spaces: list[np.ndarray],
                   weights: np.ndarray, k: int, sample_size: int, rs: np.random.RandomState,
                   distinct: tuple[np.ndarray, ...] | None = None,
                   codes: np.ndarray | None = None
                   ) -> tuple[int, np.ndarray | None, np.ndarray, dict[str, Any]]:
    """``combine="select"`` with the outlier-group guard (steps 1-4 of the module text):
    ``(member index or -1, centres (float64), labels, notes)``: ``concat`` (-1, its
    ``centres``), a member's own partition, or (-1 with new centres) a k-means refit on
    ``U`` without the outlier rows. With ``codes`` (the table), a pick
    that follows one column's values is also set aside when a candidate without a small
    cluster does not. ``notes``: ``guard`` (``"kept"``, ``"candidate"``, ``"across
    columns"``, ``"trimmed"`` or ``"none found"``), ``outlier_rows`` (indices)."""
    codes = codes if SPLIT_GUARD else None
    fits, cands = candidate_partitions(concat, spaces, k, sample_size, rs, distinct)
    first = preferred_candidate(cands, weights)
    small = small_clusters(cands[first], k)
    split = codes is not None and not len(small) and _is_split(codes, cands[first])

    def result(i: int, guard: str) -> tuple[int, np.ndarray | None, np.ndarray, dict]:
        rows = np.flatnonzero(np.isin(cands[first], small))
        notes = {"guard": guard, "outlier_rows": rows, "first": first, "pick": cands[first]}
        c = fits[i - 1] if i else centres
        return i - 1, np.asarray(c, dtype=np.float64), cands[i], notes

    if not len(small) and not split:
        return result(first, "kept")
    good = [i for i in range(len(cands)) if not len(small_clusters(cands[i], k))]
    if codes is not None:
        across = [i for i in good if i != first and not _is_split(codes, cands[i])]
        if split:
            if not across:
                return result(first, "kept")
            good = across
        elif across:
            good = across
    if good:
        best = max(good, key=lambda i: (candidate_support(cands, i), -i))
        return result(best, "across columns" if split else "candidate")
    trimmed, labels = _trimmed(U, cands[first], k, sample_size, rs)
    if trimmed is None:
        return result(first, "none found")
    rows = np.flatnonzero(np.isin(cands[first], small))
    return (-1, np.asarray(trimmed, dtype=np.float64), labels,
            {"guard": "trimmed", "outlier_rows": rows, "first": first, "pick": cands[first]})


def outlier_message(labels: np.ndarray, k: int, searched: bool = True,
                    python: bool = True) -> str | None:
    """The warning for a partition with small clusters (None when it has none);
    ``searched``: the guard looked for a partition without one (``combine="select"``)."""
    small = small_clusters(labels, k)
    if not len(small):
        return None
    lab = np.asarray(labels)
    sizes = np.bincount(lab[lab >= 0], minlength=k)[small]
    cells = ", ".join(f"cluster {c}: {s} row{'s' if s != 1 else ''}"
                      for c, s in zip(small.tolist(), sizes.tolist(), strict=True))
    fewer = "n_clusters" if python else "-k"
    how = ("no candidate partition without one was found" if searched else
           "combine='select' (the default) looks for a partition without one")
    return (f"{len(small)} of the {k} clusters hold fewer than max(2, 1 % of the rows) = "
            f"{max(2.0, MIN_SHARE * len(lab)):g} rows ({cells}): an outlier group, not a "
            f"cluster; {how}. Read those rows as outliers, or try fewer clusters ({fewer}).")


def guard_report(model: Any) -> None:
    """After :func:`~catembed.cluster._consensus_trust.diagnose`: add the guard's notes to
    ``model.diagnostics_`` (``guard``, ``outlier_rows``, ``small_clusters``: the sizes of
    the returned partition's small clusters) and warn when that partition has any."""
    notes = model.__dict__.pop("_guard", None) or {}
    k = int(model.n_clusters_)
    small = small_clusters(model.labels_, k)
    d = model.diagnostics_
    d["guard"] = notes.get("guard")
    d["outlier_rows"] = np.asarray(notes.get("outlier_rows", small[:0]), dtype=np.int64)
    d["small_clusters"] = {int(c): int((model.labels_ == c).sum()) for c in small}
    message = outlier_message(model.labels_, k, model.combine == "select")
    if message is not None:
        warnings.warn(message, CatEmbedWarning, stacklevel=4)
