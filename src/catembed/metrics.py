"""Clustering and data-factor metrics as the reference papers compute them (spec section 5).

* :func:`f_score`: macro-F1 over classes after one-to-one (Hungarian) matching of clusters to
  classes, the "F-score" of the CDE, CDE++ and UNTIE tables;
* :func:`matched_accuracy`: accuracy after the same matching.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import f1_score
from sklearn.metrics.cluster import contingency_matrix

__all__ = ["f_score", "match_clusters", "matched_accuracy"]


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
    classes, y_idx = np.unique(y.astype(str), return_inverse=True)
    class_values = np.empty(len(classes), dtype=object)
    class_values[y_idx] = y
    clusters, p_idx = np.unique(p, return_inverse=True)
    table = contingency_matrix(y_idx, p_idx)  # classes x clusters
    rows, cols = linear_sum_assignment(-table)
    mapping = np.full(len(clusters), None, dtype=object)
    mapping[cols] = class_values[rows]
    return mapping[p_idx]


def f_score(labels_true: Any, labels_pred: Any) -> float:
    """Macro-F1 over the true classes after Hungarian matching of clusters to classes.

    The clustering F-score of CDE (IJCAI 2017) Tables 1-2 and UNTIE Table IV.
    """
    y = np.asarray(labels_true, dtype=object)
    matched = match_clusters(y, labels_pred)
    ys = y.astype(str)
    ms = np.array(["\x00unmatched" if m is None else str(m) for m in matched], dtype=object)
    return float(f1_score(ys, ms, labels=np.unique(ys), average="macro", zero_division=0))


def matched_accuracy(labels_true: Any, labels_pred: Any) -> float:
    """Fraction of objects whose matched cluster is their class."""
    y = np.asarray(labels_true, dtype=object)
    matched = match_clusters(y, labels_pred)
    hits = [m is not None and str(m) == str(t) for m, t in zip(matched, y, strict=True)]
    return float(np.mean(hits))
