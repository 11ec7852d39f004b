"""Clustering and data-factor metrics as the reference papers compute them (spec section 5).

* :func:`f_score`: the clustering F-score under one of three definitions that circulate
  (:data:`F_SCORES`): ``"hungarian"`` (default), macro-F1 over classes after one-to-one
  (Hungarian) matching of clusters to classes; ``"best-match"``, for each class the best F over
  the clusters, weighted by class size (Larsen and Aone 1999; the ``Fmeasure.m`` style); and
  ``"pairwise"``, the F of the pairs of objects put together (Manning et al. 2008, 16.3);
* :func:`matched_accuracy`: accuracy after the same matching;
* :func:`nmi` (arithmetic normalisation) and :func:`ari`, from scikit-learn, and
  :func:`ari_codes`, the same adjusted Rand index of two integer label arrays counted
  chunk by chunk (no per-row copy; the deep guard and ``Consensus`` use it);
* :func:`clustering_scores`: all four at once;
* the data factors :func:`fci` (CDE Eq. 7) and :func:`vci` (CDE Eq. 8).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score, f1_score, normalized_mutual_info_score
from sklearn.metrics.cluster import contingency_matrix

from ._utils._params import check_int
from ._utils._validation import CatEmbedError
from .stats._value_statistics import ValueStatistics

__all__ = [
    "ari",
    "ari_codes",
    "clustering_scores",
    "F_SCORES",
    "f_score",
    "f_score_best_match",
    "f_score_hungarian",
    "f_score_pairwise",
    "fci",
    "match_clusters",
    "matched_accuracy",
    "nmi",
    "vci",
]


def match_clusters(labels_true: Any, labels_pred: Any) -> np.ndarray:
    """Relabel ``labels_pred`` with the classes of ``labels_true`` by a one-to-one matching.

    The matching maximises the number of objects whose cluster is mapped to their class
    (Hungarian algorithm, :func:`scipy.optimize.linear_sum_assignment`). With more clusters
    than classes the unmatched clusters map to no class (their objects count as errors);
    with more classes than clusters the unmatched classes get no objects.

    Returns
    -------
    ndarray
        The predicted class of each object; ``None`` for objects of unmatched clusters.
    """
    y = np.asarray(labels_true, dtype=object)
    p = np.asarray(labels_pred)
    _check_shapes(y, p)
    classes, y_idx = np.unique(y.astype(str), return_inverse=True)
    class_values = np.empty(len(classes), dtype=object)
    class_values[y_idx] = y
    try:
        p_idx = np.unique(p, return_inverse=True)[1]
    except TypeError:  # cluster ids that do not sort (None beside numbers): read as the scores do
        p_idx = _codes(p)
    table = contingency_matrix(y_idx, p_idx)  # classes x clusters
    rows, cols = linear_sum_assignment(-table)
    mapping = np.full(table.shape[1], None, dtype=object)
    mapping[cols] = class_values[rows]
    return mapping[p_idx]


def _matched_codes(labels_true: Any, labels_pred: Any) -> tuple[np.ndarray, np.ndarray, int]:
    """The class code of every object, the class code its cluster is matched to (``-1``
    for an unmatched cluster) and the number of classes: :func:`match_clusters` on the
    codes of :func:`_as_labels`, so that a class named ``None`` is not read as "unmatched"."""
    y, p = _as_labels(labels_true, labels_pred)
    table = contingency_matrix(y, p)  # classes x clusters
    rows, cols = linear_sum_assignment(-table)
    mapping = np.full(table.shape[1], -1, dtype=np.int64)
    mapping[cols] = rows
    return y, mapping[p], table.shape[0]


def f_score_hungarian(labels_true: Any, labels_pred: Any) -> float:
    """Macro-F1 over the true classes after Hungarian matching of clusters to classes.

    Each cluster is matched to at most one class (:func:`match_clusters`); a class's F is
    ``2 n_ij / (n_i + m_j)`` with its matched cluster ``j`` (0 when unmatched), and the score
    is the unweighted mean over the classes.
    """
    y, matched, n_classes = _matched_codes(labels_true, labels_pred)
    if not len(y):
        raise CatEmbedError("the F-score needs at least one labelled object.")
    return float(f1_score(y, matched, labels=np.arange(n_classes), average="macro",
                          zero_division=0))


def _contingency(labels_true: Any, labels_pred: Any) -> np.ndarray:
    """Classes x clusters counts, as float."""
    y, p = _as_labels(labels_true, labels_pred)
    if not len(y):
        raise CatEmbedError("the F-score needs at least one labelled object.")
    return np.asarray(contingency_matrix(y, p), dtype=np.float64)


def f_score_best_match(labels_true: Any, labels_pred: Any) -> float:
    """Class-size weighted best-match F-measure (Larsen and Aone 1999).

    ``F = sum_i (n_i / n) max_j 2 n_ij / (n_i + m_j)``, with ``n_ij`` the objects of class
    ``i`` in cluster ``j``, ``n_i`` the class's size and ``m_j`` the cluster's: every class
    picks its best cluster independently (two classes may pick one cluster).
    """
    t = _contingency(labels_true, labels_pred)
    ni = t.sum(axis=1, keepdims=True)
    mj = t.sum(axis=0, keepdims=True)
    f = 2.0 * t / (ni + mj)
    return float((ni[:, 0] / t.sum() * f.max(axis=1)).sum())


def f_score_pairwise(labels_true: Any, labels_pred: Any) -> float:
    """Pairwise F-measure over the pairs of objects (Manning, Raghavan, Schuetze 2008, 16.3).

    A pair put in one cluster is a true positive when its two objects share a class:
    ``TP = sum_ij C(n_ij, 2)``, precision ``TP / sum_j C(m_j, 2)``, recall
    ``TP / sum_i C(n_i, 2)``, ``F = 2 P R / (P + R)`` (0 when ``TP = 0``).
    """
    t = _contingency(labels_true, labels_pred)

    def pairs(c: np.ndarray) -> float:
        return float((c * (c - 1) / 2).sum())

    tp = pairs(t)
    if tp == 0:
        return 0.0
    prec, rec = tp / pairs(t.sum(axis=0)), tp / pairs(t.sum(axis=1))
    return 2 * prec * rec / (prec + rec)


#: the F-score definitions: name -> function
F_SCORES = {
    "hungarian": f_score_hungarian,
    "best-match": f_score_best_match,
    "pairwise": f_score_pairwise,
}


def f_score(labels_true: Any, labels_pred: Any, definition: str = "hungarian") -> float:
    """The clustering F-score under one of the definitions of :data:`F_SCORES`.

    ``"hungarian"`` (default): :func:`f_score_hungarian`, the reading of CDE (IJCAI 2017)
    Tables 1-2 and UNTIE Table IV this package started from; ``"best-match"``:
    :func:`f_score_best_match`; ``"pairwise"``: :func:`f_score_pairwise`. Which one a paper
    table used is recorded in the table's ``f_score`` field (``tables/README.md``).
    """
    return _f_function(definition)(labels_true, labels_pred)


def _f_function(definition: Any) -> Any:
    """The function of an F-score definition's name, or a ``CatEmbedError`` listing them."""
    func = F_SCORES.get(definition) if isinstance(definition, str) else None
    if func is None:
        raise CatEmbedError(f"unknown F-score definition {definition!r}; known: "
                            f"{', '.join(F_SCORES)}.")
    return func


def matched_accuracy(labels_true: Any, labels_pred: Any) -> float:
    """Fraction of objects whose matched cluster is their class (NaN without objects)."""
    y, matched, _ = _matched_codes(labels_true, labels_pred)
    return float(np.mean(matched == y)) if len(y) else float("nan")


def _check_shapes(y: np.ndarray, p: np.ndarray) -> None:
    if y.shape != p.shape or y.ndim != 1:
        raise CatEmbedError(
            f"labels_true and labels_pred must be 1-d and of one length; got shapes {y.shape} "
            f"and {p.shape}."
        )


def _codes(labels: np.ndarray) -> np.ndarray:
    """Integer codes of labels read as text (any hashable labels; missing is a label)."""
    return np.unique(labels.astype(str), return_inverse=True)[1]


def _as_labels(labels_true: Any, labels_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    """Both label vectors as integer codes (any hashable labels; missing is a label)."""
    y = np.asarray(labels_true, dtype=object)
    p = np.asarray(labels_pred, dtype=object)
    _check_shapes(y, p)
    return _codes(y), _codes(p)


def nmi(labels_true: Any, labels_pred: Any) -> float:
    """Normalised mutual information, ``I(Y; P) / mean(H(Y), H(P))`` (arithmetic mean).

    The NMI of the method spec section 5 (Powers 2011 as cited by CDE section 5.2); 1 for
    identical partitions up to relabelling, 0 for independent ones.
    """
    y, p = _as_labels(labels_true, labels_pred)
    return float(normalized_mutual_info_score(y, p, average_method="arithmetic"))


def ari(labels_true: Any, labels_pred: Any) -> float:
    """Adjusted Rand index (Hubert and Arabie 1985): 1 for identical partitions, about 0 by
    chance."""
    y, p = _as_labels(labels_true, labels_pred)
    return float(adjusted_rand_score(y, p))


def ari_codes(a: np.ndarray, b: np.ndarray, chunk: int = 1 << 16) -> float:
    """Adjusted Rand index of two partitions given as non-negative integer codes (cluster
    ids), equal to scikit-learn's :func:`~sklearn.metrics.adjusted_rand_score` (its
    pair-confusion form, Hubert and Arabie 1985) but counted chunk by chunk: the
    ``(k_a, k_b)`` contingency table is summed from ``np.bincount`` over ``chunk`` rows at a
    time, so no per-row copy of the labels (scikit-learn's ``np.unique`` sorts copies and
    makes ``int64`` inverses of both) is made. Labels that are not non-negative integers go to
    scikit-learn, and so do sparse codes (a table of ``max(a) + 1`` by ``max(b) + 1`` cells
    larger than ``2 n + 4096``: ids such as ``2**40`` would otherwise allocate terabytes)."""
    check_int("chunk", chunk)  # -1 counted nothing (ARI 1.0), 0 was a bare ValueError
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim != 1 or b.ndim != 1:
        raise CatEmbedError(f"ari_codes: labels must be 1-D arrays; got shapes {a.shape} and "
                            f"{b.shape}.")
    if len(a) != len(b):
        raise CatEmbedError(f"ari_codes: {len(a)} labels against {len(b)}.")
    if (a.dtype.kind not in "iu" or b.dtype.kind not in "iu" or not len(a)
            or int(a.min()) < 0 or int(b.min()) < 0
            or (int(a.max()) + 1) * (int(b.max()) + 1) > 2 * len(a) + 4096):
        return float(adjusted_rand_score(a, b))
    ka, kb = int(a.max()) + 1, int(b.max()) + 1
    table = np.zeros(ka * kb, dtype=np.int64)
    for s in range(0, len(a), chunk):
        table += np.bincount(a[s:s + chunk].astype(np.int64) * kb
                             + b[s:s + chunk].astype(np.int64), minlength=ka * kb)
    table = table.reshape(ka, kb)
    n = len(a)
    squares = int((table * table).sum())
    n_a, n_b = table.sum(axis=1), table.sum(axis=0)
    tp = squares - n
    fp = int(table.dot(n_b).sum()) - squares
    fn = int(table.T.dot(n_a).sum()) - squares
    tn = n * n - fp - fn - squares
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def clustering_scores(labels_true: Any, labels_pred: Any, f_definition: str = "hungarian"
                      ) -> dict[str, float]:
    """F-score (under ``f_definition``, see :func:`f_score`), accuracy after matching, NMI
    and ARI of one clustering, keyed ``f_score``, ``acc``, ``nmi``, ``ari``; every F
    definition is also given under ``f_<name>`` (``f_hungarian``, ``f_best_match``,
    ``f_pairwise``)."""
    _f_function(f_definition)
    every = {f"f_{name.replace('-', '_')}": func(labels_true, labels_pred)
             for name, func in F_SCORES.items()}
    return {
        "f_score": every[f"f_{f_definition.replace('-', '_')}"],
        "acc": matched_accuracy(labels_true, labels_pred),
        "nmi": nmi(labels_true, labels_pred),
        "ari": ari(labels_true, labels_pred),
        **every,
    }


def _statistics(X: Any, columns: Any = None) -> ValueStatistics:
    if isinstance(X, ValueStatistics):
        return X
    return ValueStatistics.from_frame(X, columns=columns)


def fci(X: Any, *, columns: Any = None) -> float:
    """Feature correlation index, CDE (IJCAI 2017) Eq. 7.

    ``FCI = 2 / (m (m - 1)) * sum_{i < j} SU(f_i, f_j)``: the mean symmetric uncertainty
    ``SU = 2 I / (H_i + H_j)`` over the pairs of distinct attributes. (Eq. 7 prints the inner
    sum from ``j = i``, which would add the diagonal ``SU(f, f) = 1``; the normalisation
    ``2 / (m (m - 1))`` counts distinct pairs, so distinct pairs it is.)

    Parameters
    ----------
    X : DataFrame, array-like or ValueStatistics
        The categorical table (missing values count as a value, as in the statistics), or
        its precomputed statistics.
    columns : list of str, optional
        The attributes to use; default all.

    Returns
    -------
    float
        0 for a table with fewer than two attributes.
    """
    stats = _statistics(X, columns)
    m = stats.n_features
    if m < 2:
        return 0.0
    su = stats.normalized_mutual_information()
    return float(su[np.triu_indices(m, k=1)].mean())


def vci(X: Any, labels: Any, *, columns: Any = None) -> float:
    """Value cluster index, CDE (IJCAI 2017) Eq. 8.

    ``VCI = 1/m sum_h max_{i != j} (1 - |V_i^h & V_j^h| / |V_i^h | V_j^h|)``, where
    ``V_i^h`` is the set of values attribute ``h`` takes in class ``i``: for each attribute
    the largest Jaccard distance between the value sets of two classes, averaged over the
    attributes. The value sets come from the class-by-value presence of each attribute (a
    ``classes x l_h`` table; no value-by-value matrix, issue 52 item 7: a 50,000-value
    identifier column asked for 18.6 GiB), after a cost check against the memory and time
    limits (``CATEMBED_MAX_MEMORY``, ``CATEMBED_MAX_SECONDS``).

    Parameters
    ----------
    X : DataFrame or array-like of shape (n, m)
        The categorical table; missing values count as a value.
    labels : array-like of shape (n,)
        The classes.
    columns : list of str, optional
        The attributes to use; default all.

    Returns
    -------
    float
        0 when there are fewer than two classes.

    Raises
    ------
    CatEmbedError
        The class-by-class tables of so many classes would not fit the limits.
    """
    import pandas as pd

    from ._utils._limits import check_limits
    from ._utils._validation import as_frame
    from .stats._encoding import factorize_frame

    df = as_frame(X)
    cols = list(df.columns) if columns is None else [str(c) for c in columns]
    y = np.asarray(labels, dtype=object)
    if len(y) != len(df):
        raise CatEmbedError(f"labels has {len(y)} entries but the table has {len(df)} rows.")
    key = "\x00class"
    frame = df[[c for c in cols if c in df.columns]].copy()  # factorize names a missing one
    frame[key] = pd.Series(y.astype(str), index=frame.index)
    codes, cats = factorize_frame(frame, cols + [key], "category")
    m = len(cols)
    k = len(cats[m])
    if k < 2 or m == 0:
        return 0.0
    widest = max(len(c) for c in cats[:m])
    # the presence table and its int64 copies, and four k x k tables at once
    need = 17.0 * k * widest + 32.0 * k * k
    seconds = 1e-9 * k * k * sum(len(c) for c in cats[:m])
    check_limits(f"the value cluster index (VCI) of {k} classes", need, seconds,
                 "give fewer classes")
    cls = codes[:, m]
    total = 0.0
    for h in range(m):
        present = np.zeros((k, len(cats[h])), dtype=bool)  # classes x values of h
        present[cls, codes[:, h]] = True
        inter = present.astype(np.int64) @ present.T.astype(np.int64)
        sizes = present.sum(axis=1)
        union = sizes[:, None] + sizes[None, :] - inter
        with np.errstate(divide="ignore", invalid="ignore"):
            dist = np.where(union > 0, 1.0 - inter / np.where(union > 0, union, 1), 0.0)
        total += float(dist.max())
    return total / m
