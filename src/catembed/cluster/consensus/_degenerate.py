"""No outlier group returned as a cluster without a word (issue 53, item 1).

A cluster that holds fewer than ``max(2, 1 % of the rows)`` rows (:func:`small_clusters`;
an empty cluster counts) is an outlier group, not a cluster: on a table of a few thousand
rows with one row of rare codes, k-means on the members' embeddings side by side can spend
one of its k centres on that row. ``combine="select"`` (the default) therefore starts from
its usual pick (:func:`~catembed.cluster.consensus._combine.preferred_candidate`) and
(:func:`guarded_select`):

1. keeps it when none of its clusters is small (the labels are then exactly as before);
2. but first, whatever the pick: the table's rows of rare codes (at least
   :data:`RARE_SHARE` of a row's values held by fewer than ``max(2, 1 %)`` rows), when they
   are fewer than ``max(2, 1 %)`` rows (a handful: an outlier group), and the pick's small
   clusters when made of such rows, are set aside: the whole consensus is fitted again
   without them (:func:`fit_guarded`, same parameters and seed; up to :data:`TRIM_ROUNDS`
   rounds while the refit finds more) and every row labelled by ``predict`` (an outlier row
   takes its nearest centre): the members are then not fitted on the outliers either. A
   table without such rows is fitted once, as before;
3. else takes, among the other candidates (``concat`` and every member's own k-means
   partition) without a small cluster, the one nearest the pick (largest ARI with it; ties:
   the largest support, the ``select`` rule's own measure);
4. else refits k-means on the pick's own coordinates (the side-by-side ones for ``concat``,
   the member's embedding for a member's partition) without the rows of its small clusters
   (up to :data:`TRIM_ROUNDS` times) and labels every row by its nearest centre;
5. else returns the pick, and :func:`outlier_message` warns (as for every partition with a
   small cluster, whatever ``combine`` is).

The rows set aside (those of the pick's small clusters) are kept in
``diagnostics_["outlier_rows"]``. The rule and its pool:
``studies/frozen/consensus_degenerate_design.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.cluster import KMeans

from ..._utils._errors import CatEmbedError, CatEmbedWarning
from ..._utils._spelling import spell
from ...metrics import ari_codes
from ._combine import (
    candidate_partitions,
    candidate_support,
    nearest_labels,
    preferred_candidate,
)
from ._trust import SPLIT_NMI, column_nmi, model_messages

__all__ = ["MIN_SHARE", "RARE_SHARE", "TRIM_ROUNDS", "answer_messages", "fit_guarded",
           "guard_report", "guarded_select", "outlier_message", "small_clusters"]

#: a cluster under ``max(2, MIN_SHARE * n)`` rows is an outlier group (issue 53)
MIN_SHARE = 0.01
#: a row at least this share of whose values are rare (held by fewer than max(2, 1 % of the
#: rows) rows) is a row of rare codes: the fit is done again without such outlier rows
RARE_SHARE = 0.5
#: whether a pick that follows one column's values is set aside for a candidate that does
#: not (when ``codes`` is given; decided on the declared pool, see the module text)
SPLIT_GUARD = False
#: rounds of refits without the rows of small clusters before giving up (steps 2 and 4)
TRIM_ROUNDS = 3
#: the words that mark :func:`outlier_message`'s warning (a refit's own is not passed on)
_OUTLIER_WORDS = "an outlier group, not a cluster"


def small_clusters(labels: np.ndarray, k: int) -> np.ndarray:
    """The clusters ``0 .. k-1`` of ``labels`` that hold fewer than ``max(2, MIN_SHARE * n)``
    rows (an empty one included); rows labelled -1 are not counted in any cluster."""
    lab = np.asarray(labels)
    sizes = np.bincount(lab[lab >= 0], minlength=k)[:k]
    return np.flatnonzero(sizes < max(2.0, MIN_SHARE * len(lab)))


def _trimmed(U: np.ndarray, labels: np.ndarray, k: int, sample_size: int,
             rs: np.random.RandomState) -> tuple[np.ndarray | None, np.ndarray]:
    """Step 4: ``(centres, labels)`` of k-means on ``U`` without the rows of ``labels``'
    small clusters (rounds add the rows of new small clusters), or ``(None, labels)``."""
    out = np.zeros(len(U), dtype=bool)
    for _ in range(TRIM_ROUNDS):
        out |= np.isin(labels, small_clusters(labels, k))
        keep = np.flatnonzero(~out)
        if len(keep) < k:
            break
        if len(keep) > sample_size:
            keep = np.sort(rs.choice(keep, size=sample_size, replace=False))
        with warnings.catch_warnings():  # fewer distinct rows than k: k-means warns
            warnings.simplefilter("ignore")
            centres = KMeans(k, n_init=10, random_state=rs.randint(2**31 - 1)).fit(
                U[keep]).cluster_centers_
        labels = nearest_labels(U, centres)
        if not len(small_clusters(labels, k)):
            return centres, labels
    return None, labels


def rare_code_rows(codes: np.ndarray) -> np.ndarray:
    """The rows of rare codes: at least :data:`RARE_SHARE` of a row's values held by fewer
    than ``max(2, 1 % of the rows)`` rows (one count per column)."""
    n, m = codes.shape
    floor = max(2.0, MIN_SHARE * n)
    share = np.zeros(n)
    for j in range(m):
        col = codes[:, j] - codes[:, j].min()
        share += np.bincount(col)[col] < floor
    return np.flatnonzero(share >= RARE_SHARE * m)


def rare_rows(codes: np.ndarray | None, rows: np.ndarray) -> bool:
    """Whether every one of ``rows`` is a row of rare codes (:func:`rare_code_rows`)."""
    if codes is None or not len(rows):
        return False
    return bool(np.isin(rows, rare_code_rows(codes)).all())


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
    ``(member index or -1, centres (float64), labels, notes)``: ``concat`` (-1; its
    ``centres``, or new ones refitted on ``U`` without the outlier rows) or a member's own
    partition (its centres, or new ones refitted on its embedding without them). With
    ``codes`` (the table), a pick that follows one column's values is also set aside when
    a candidate without a small cluster does not. ``notes``: ``guard`` (``"kept"``,
    ``"trimmed"``, ``"candidate"``, ``"across columns"`` or ``"none found"``),
    ``outlier_rows`` (indices)."""
    table, codes = codes, codes if SPLIT_GUARD else None
    fits, cands = candidate_partitions(concat, spaces, k, sample_size, rs, distinct)
    first = preferred_candidate(cands, weights)
    small = small_clusters(cands[first], k)
    split = codes is not None and not len(small) and _is_split(codes, cands[first])
    rows = np.flatnonzero(np.isin(cands[first], small))
    # rows to fit again without: the table's rows of rare codes when they are a handful (an
    # outlier group whatever the pick), and the pick's small clusters if made of such rows
    rare = rare_code_rows(table) if table is not None else rows[:0]
    few = rare if len(rare) < max(2.0, MIN_SHARE * len(concat)) else rare[:0]
    rare = np.union1d(few, rows if len(rows) and np.isin(rows, rare).all() else rows[:0])

    def result(i: int, guard: str) -> tuple[int, np.ndarray | None, np.ndarray, dict]:
        notes = {"guard": guard, "outlier_rows": rows, "first": first, "pick": cands[first],
                 "refit": rare}
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
        best = max(good, key=lambda i: (ari_codes(cands[first], cands[i]),
                                        candidate_support(cands, i), -i))
        return result(best, "across columns" if split else "candidate")
    # k-means on the pick's own coordinates without its small clusters' rows
    trimmed, labels = _trimmed(spaces[first - 1] if first else U, cands[first], k,
                               sample_size, rs)
    if trimmed is None:
        return result(first, "none found")
    return (first - 1, np.asarray(trimmed, dtype=np.float64), labels,
            {"guard": "trimmed", "outlier_rows": rows, "first": first, "pick": cands[first],
             "refit": rare})


def outlier_message(labels: np.ndarray, k: int, searched: bool = True) -> str | None:
    """The warning for a partition with small clusters (None when it has none);
    ``searched``: the guard looked for a partition without one (``combine="select"``)."""
    small = small_clusters(labels, k)
    if not len(small):
        return None
    lab = np.asarray(labels)
    sizes = np.bincount(lab[lab >= 0], minlength=k)[small]
    cells = ", ".join(f"cluster {c}: {s} row{'s' if s != 1 else ''}"
                      for c, s in zip(small.tolist(), sizes.tolist(), strict=True))
    fewer = spell("n_clusters", "-k")
    how = ("no candidate partition without one was found" if searched else
           "combine='select' (the default) looks for a partition without one")
    return (f"{len(small)} of the {k} clusters {'holds' if len(small) == 1 else 'hold'} "
            f"fewer than max(2, 1 % of the rows) = "
            f"{max(2.0, MIN_SHARE * len(lab)):g} rows ({cells}): {_OUTLIER_WORDS}; {how}. "
            f"Read those rows as outliers, or try fewer clusters ({fewer}).")


def guard_report(model: Any) -> None:
    """After :func:`~catembed.cluster.consensus._trust.diagnose`: add the guard's notes to
    ``model.diagnostics_`` (``guard``, ``outlier_rows``, ``small_clusters``: the sizes of
    the returned partition's small clusters) and warn when that partition has any."""
    notes = model.__dict__.pop("_guard", None) or {}
    k = int(model.n_clusters_)
    small = small_clusters(model.labels_, k)
    d = model.diagnostics_
    d["guard"] = notes.get("guard")
    model._outlier_refit = np.asarray(notes.get("refit", ()), dtype=np.int64)  # fit_guarded
    d["outlier_rows"] = np.asarray(notes.get("outlier_rows", small[:0]), dtype=np.int64)
    d["small_clusters"] = {int(c): int((model.labels_ == c).sum()) for c in small}
    message = outlier_message(model.labels_, k, model.combine == "select")
    if message is not None:
        warnings.warn(message, CatEmbedWarning, stacklevel=4)


def answer_messages(model: Any) -> list[str]:
    """The warnings a fitted :class:`~catembed.cluster.Consensus`'s answer carries, as its
    fit gave them (:func:`~catembed.cluster.consensus._trust.diagnose`'s, then the outlier
    group's of :func:`guard_report`), for a page that shows them beside the answer; spelt
    for the interface in use (:func:`catembed._utils._spelling.spell`)."""
    small = outlier_message(model.labels_, int(model.n_clusters_), model.combine == "select")
    return model_messages(model) + ([small] if small else [])


def fit_guarded(model: Any, X: Any, names: list[str]) -> Any:
    """``Consensus.fit``'s body: ``model._fit``; when it found rows of rare codes to set
    aside (step 2 of the module text; ``diagnostics_["outlier_rows"]``), the whole fit again
    on the other rows (same
    parameters and ``random_state``: the members are then not fitted on the outliers
    either), and every row labelled by :meth:`predict` (on those rows exactly the refit's
    labels; an outlier row takes its nearest centre). The first fit's warnings are said
    only when it is kept."""
    from ._clusterwise import stability_columns
    from ._describe import attach_profiles
    from ._runs import _gather

    X = _gather(X)
    df = model._table(X, reset=True)  # the input as a checked frame, once (issue 57)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            model._fit(X, names, df)
    except CatEmbedError:  # a refusal: the members' warnings say why (cli-errors.md)
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        raise
    d = model.diagnostics_
    n = len(model.labels_)
    out = model.__dict__.pop("_outlier_refit", np.zeros(0, dtype=np.int64))
    if getattr(model, "_refitting", False) or not len(out):
        for w in caught:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        return model
    model._refitting = True
    try:
        for _ in range(TRIM_ROUNDS):  # again while the refit finds more rows to set aside
            keep = np.setdiff1d(np.arange(n), out)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                rows = df.iloc[keep].reset_index(drop=True)
                model._fit(rows, names, rows)
            d = model.diagnostics_
            more = model.__dict__.pop("_outlier_refit", np.zeros(0, dtype=np.int64))
            if not len(more) or len(keep) - len(more) < 2 * model.n_clusters_:
                break
            out = np.union1d(out, keep[more])
    finally:
        del model._refitting
    for w in caught:  # the refit's outlier group is said below, of the labels returned
        if _OUTLIER_WORDS not in str(w.message):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    codes = model._codes_of(df, checked=True)  # predict's labels, the table coded once
    model.labels_ = nearest_labels(model._coordinates_of(df, codes=codes),
                                   model.cluster_centers_).astype(np.int64)
    d["guard"], d["outlier_rows"] = "refit", out
    d["small_clusters"] = {int(c): int((model.labels_ == c).sum())
                           for c in small_clusters(model.labels_, int(model.n_clusters_))}
    message = outlier_message(model.labels_, int(model.n_clusters_))
    if message is not None:
        warnings.warn(message, CatEmbedWarning, stacklevel=3)
    stability_columns(attach_profiles(model, df, model.labels_, codes=codes, checked=True))
    return model
