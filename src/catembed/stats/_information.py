"""Mutual information of every pair of columns from stored co-occurrence counts in one pass
(:meth:`catembed.stats.ValueStatistics.mutual_information` of a table of many columns)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["pair_information"]


def pair_information(cooc: Any, p: np.ndarray, n: int, attribute_of: np.ndarray,
                     m: int) -> np.ndarray:
    """``I(fa; fb)`` for every pair of different columns (0 on the diagonal) in one pass:
    each co-occurring pair of values ``u < v`` of two columns adds
    ``p(u, v) log(p(u, v) / (p(u) p(v)))`` to its pair of columns (a weighted ``bincount``)."""
    if sp.issparse(cooc):
        upper = sp.coo_array(sp.triu(cooc, k=1))
        u, v, c = upper.row, upper.col, upper.data
    else:
        u, v = np.nonzero(np.triu(cooc, k=1))
        c = cooc[u, v]
    a, b = attribute_of[u], attribute_of[v]
    keep = (a != b) & (c > 0)
    u, v, a, b = u[keep], v[keep], a[keep], b[keep]
    pab = c[keep] / n
    terms = pab * np.log(pab / (p[u] * p[v]))
    mi = np.bincount(a * m + b, weights=terms, minlength=m * m).reshape(m, m)
    return mi + mi.T
