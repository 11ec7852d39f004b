"""The tests that say what characterises a cluster, as analysts read them (issue 54).

The statistics of FactoMineR's ``catdes`` (Husson, Lê and Pagès), computed from counts and
sums, linear in the rows, never an ``n x n`` array:

* a categorical value ``v`` in cluster ``c`` (:func:`value_tests`): ``Cla/Mod``, the share
  of the rows holding ``v`` that fall in ``c``; ``Mod/Cla``, the share of ``c`` holding
  ``v``; ``Global``, the share of all rows holding ``v`` (percentages, as ``catdes``
  prints them); the hypergeometric test of the count ``x`` of ``v`` in ``c`` (``X``
  hypergeometric: ``n_c`` rows drawn without replacement from ``N`` of which ``n_v`` hold
  ``v``), two-sided with the mid-p rule ``catdes`` uses:
  ``p.value = min(2 P(X < x) + P(X = x), 2 P(X > x) + P(X = x))``, and the v-test, the
  normal quantile of half of it, signed: ``v.test = s Phi^{-1}(1 - p.value / 2)`` with
  ``s = +1`` when the share of the cluster holding ``v`` is above the share overall
  (over-represented) and ``-1`` otherwise (under-represented, or equal). Where the
  p.value underflows (below about 1e-308: millions of rows) ``catdes`` prints ``Inf``;
  here the quantile comes from the tail's logarithm (:func:`log_half_p`,
  ``scipy.special.ndtri_exp``), finite and still ordered (a deliberate difference);
* a categorical column (:func:`chi2_test`): the chi-square test of independence of the
  column and the partition (Pearson's, no continuity correction), its statistic, degrees of
  freedom and p-value;
* a numeric column (:func:`numeric_tests`): ``Eta2``, the correlation ratio (between-cluster
  sum of squares over the total), the one-way analysis of variance's F-test p-value; per
  cluster the mean and standard deviation in the cluster and overall (population standard
  deviations, divided by the count) and the v-test
  ``(mean_c - mean) / sqrt(var / n_c * (N - n_c) / (N - 1))`` with its two-sided normal
  p-value;
* paragons (:func:`paragons`): the rows of each cluster closest to its centre;
* a latent class model's relative entropy (:func:`relative_entropy`).

The hypergeometric probabilities are computed as R computes them (Loader's saddle-point
form of the point probability, the smaller tail summed term by term), vectorised over the
cells: a cell costs about as many steps as its count's standard deviation (SciPy's
``hypergeom``, tried first, took 1.6 ms a cell on 100,000 rows). SciPy is imported when a
function is called.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["chi2_test", "hypergeom_parts", "log_half_p", "numeric_tests",
           "numeric_tests_moments", "paragons", "relative_entropy", "value_tests",
           "value_tests_many"]


def value_tests(table: Any) -> dict[str, np.ndarray]:
    """The hypergeometric test of every cell of a value x cluster count table.

    Parameters
    ----------
    table : array-like of shape (n_values, n_clusters)
        ``table[v, c]``: the rows of cluster ``c`` holding value ``v`` (one column's values:
        each row holds exactly one of them).

    Returns
    -------
    dict of ndarray of shape (n_values, n_clusters)
        ``"Cla/Mod"``, ``"Mod/Cla"``, ``"Global"`` (percentages; ``Global`` repeated across
        the clusters), ``"p.value"`` and ``"v.test"``.
    """
    return value_tests_many([table])[0]


def value_tests_many(tables: Any) -> list[dict[str, np.ndarray]]:
    """:func:`value_tests` of several tables (a table's columns: all the tables' clusters),
    their cells' probabilities computed together (one pass of numpy operations for all)."""
    from scipy.special import ndtri

    ts = [np.asarray(t, dtype=np.int64) for t in tables]
    parts = []
    for t in ts:
        n_value, n_cluster = t.sum(axis=1), t.sum(axis=0)
        parts.append((int(t.sum()), np.broadcast_to(n_value[:, None], t.shape),
                      np.broadcast_to(n_cluster[None, :], t.shape)))
    # X ~ hypergeometric: n_cluster rows drawn from total, n_value of them holding the value
    flat = [np.concatenate([a.ravel() for a in arrays]) if arrays else np.zeros(0)
            for arrays in ([t for t in ts], [p[1] for p in parts], [p[2] for p in parts],
                           [np.full(t.size, p[0]) for t, p in zip(ts, parts, strict=True)])]
    probs = hypergeom_parts(flat[0], flat[3], flat[1], flat[2])
    out, at = [], 0
    for t, (total, big, drawn) in zip(ts, parts, strict=True):
        mass, below, above = (a[at:at + t.size].reshape(t.shape) for a in probs)
        at += t.size
        x = t.astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            cla_mod = 100.0 * x / big
            mod_cla = 100.0 * x / drawn
        glob = 100.0 * big / max(total, 1)
        half = np.clip(np.minimum(below, above) + mass / 2.0, 0.0, 0.5)  # p.value / 2
        # over-represented: x / n_c > n_v / N, compared exactly on the integers
        sign = np.where(t * total > big * drawn, 1.0, -1.0)
        v_test = -sign * ndtri(half)  # ndtri(half) <= 0; exact in the tail, unlike 1 - h
        gone = np.flatnonzero(half.ravel() == 0.0)  # p.value under 1e-308 (millions of rows)
        if gone.size:  # the quantile from the tail's logarithm: finite, in order
            from scipy.special import ndtri_exp

            cells = (x.ravel()[gone], np.full(gone.size, float(total)),
                     big.ravel()[gone].astype(np.float64), drawn.ravel()[gone].astype(np.float64))
            v_test.ravel()[gone] = -sign.ravel()[gone] * ndtri_exp(log_half_p(*cells))
        out.append({"Cla/Mod": cla_mod, "Mod/Cla": mod_cla, "Global": glob,
                    "p.value": 2.0 * half, "v.test": v_test})
    return out


def hypergeom_parts(x: Any, total: Any, successes: Any, drawn: Any) -> tuple[np.ndarray, ...]:
    """``(P(X = x), P(X < x), P(X > x))`` for ``X`` hypergeometric: ``drawn`` of ``total``
    items drawn without replacement, ``successes`` of them marked; arrays of counts in the
    support. The smaller tail is summed (R's ``pdhyper``), the larger one is its complement."""
    x = np.asarray(x, dtype=np.float64)
    r = np.broadcast_to(np.asarray(successes, dtype=np.float64), x.shape)
    n = np.broadcast_to(np.asarray(drawn, dtype=np.float64), x.shape)
    total = np.broadcast_to(np.asarray(total, dtype=np.float64), x.shape)
    b = total - r
    mass = _dhyper(x, r, b, n)
    # the side of the mean x lies on: the tail beyond x there is the small one
    high = x * total > n * r
    # below x: P(X <= x - 1); above x: P(n - X <= n - x - 1), n - X hypergeometric with the
    # marked and unmarked items swapped
    y = np.where(high, n - x - 1, x - 1)
    rr, bb = np.where(high, b, r), np.where(high, r, b)
    small = np.zeros_like(x)
    ok = y >= np.maximum(0.0, n - bb)  # else the tail is empty
    if ok.any():
        small[ok] = _dhyper(y[ok], rr[ok], bb[ok], n[ok]) * _pdhyper(y[ok], rr[ok], bb[ok],
                                                                     n[ok])
    large = np.clip(1.0 - small - mass, 0.0, 1.0)
    return mass, np.where(high, large, small), np.where(high, small, large)


_S = (1.0 / 12, 1.0 / 360, 1.0 / 1260, 1.0 / 1680, 1.0 / 1188)
_LN_SQRT_2PI = 0.918938533204672741780329736406


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """``log(n!) - log(sqrt(2 pi n) (n / e)^n)`` of counts ``n`` (Loader's series above 15)."""
    from scipy.special import gammaln

    out = np.zeros_like(n)
    small = (n > 0) & (n <= 15)
    m = n[small]
    out[small] = gammaln(m + 1.0) - (m + 0.5) * np.log(m) + m - _LN_SQRT_2PI
    big = n > 15
    m = n[big]
    nn = m * m
    s0, s1, s2, s3, s4 = _S
    out[big] = np.select(
        [m > 500, m > 80, m > 35],
        [(s0 - s1 / nn) / m, (s0 - (s1 - s2 / nn) / nn) / m,
         (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / m],
        (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / m)
    return out


def _bd0(x: np.ndarray, m: np.ndarray) -> np.ndarray:
    """The deviance term ``x log(x / m) + m - x``, without cancellation near ``x = m``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = x * np.log(x / m) + m - x
        near = np.flatnonzero(np.abs(x - m) < 0.1 * (x + m))
        if near.size:  # the series in v = (x - m) / (x + m), |v| < 0.053: v^2 < 0.003 a term
            xn, mn = x[near], m[near]
            v = (xn - mn) / (xn + mn)
            s = (xn - mn) * v
            ej = 2 * xn * v
            for j in range(1, 16):  # 0.003^15: far below the rounding of the first term
                ej = ej * v * v
                s = s + ej / (2 * j + 1)
            out[near] = s
    return np.where(x == 0, m, out)


def log_half_p(x: Any, total: Any, successes: Any, drawn: Any) -> np.ndarray:
    """``log(P(beyond x) + P(X = x) / 2)`` on the side of the mean ``x`` lies on (half the
    mid-p p.value of :func:`value_tests`) for cells whose p.value underflows: the smaller
    tail's terms as ratios to its first one (:func:`_pdhyper`), every probability a
    logarithm, so that the v-test of a value on millions of rows stays finite."""
    x = np.asarray(x, dtype=np.float64)
    r = np.broadcast_to(np.asarray(successes, dtype=np.float64), x.shape)
    n = np.broadcast_to(np.asarray(drawn, dtype=np.float64), x.shape)
    b = np.broadcast_to(np.asarray(total, dtype=np.float64), x.shape) - r
    high = x * (r + b) > n * r
    y = np.where(high, n - x - 1, x - 1)
    rr, bb = np.where(high, b, r), np.where(high, r, b)
    small = np.full_like(x, -np.inf)
    ok = y >= np.maximum(0.0, n - bb)
    if ok.any():
        small[ok] = (_log_dhyper(y[ok], rr[ok], bb[ok], n[ok])
                     + np.log(_pdhyper(y[ok], rr[ok], bb[ok], n[ok])))
    return np.logaddexp(small, _log_dhyper(x, r, b, n) - np.log(2.0))


def _log_dhyper(x: np.ndarray, r: np.ndarray, b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``log P(X = x)`` of :func:`_dhyper`, without its ``exp`` (which underflows)."""
    p, q = n / (r + b), (r + b - n) / (r + b)
    return (_log_dbinom_raw(x, r, p, q) + _log_dbinom_raw(n - x, b, p, q)
            - _log_dbinom_raw(n, r + b, p, q))


def _log_dbinom_raw(x: np.ndarray, n: np.ndarray, p: np.ndarray, q: np.ndarray
                    ) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        lc = _log_binom_terms(x, n, p, q)
        return np.where(n == 0, np.where(x == 0, 0.0, -np.inf), lc)


def _log_binom_terms(x: np.ndarray, n: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The logarithm R's ``dbinom_raw`` exponentiates (Loader's saddle-point form)."""
    inner = (_stirlerr(n) - _stirlerr(x) - _stirlerr(n - x) - _bd0(x, n * p)
             - _bd0(n - x, n * q))
    lf = 2 * _LN_SQRT_2PI + np.log(x) + np.log1p(-x / n)
    at0 = np.where(p < 0.1, -_bd0(n, n * q) - n * p, n * np.log(q))
    atn = np.where(q < 0.1, -_bd0(n, n * p) - n * q, n * np.log(p))
    return np.where(x == 0, at0, np.where(x == n, atn, inner - 0.5 * lf))


def _dbinom_raw(x: np.ndarray, n: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        lc = _log_binom_terms(x, n, p, q)
    return np.where(n == 0, (x == 0).astype(np.float64), np.exp(lc))


def _dhyper(x: np.ndarray, r: np.ndarray, b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``P(X = x)``, ``n`` drawn from ``r`` marked and ``b`` unmarked items (R's ``dhyper``)."""
    p, q = n / (r + b), (r + b - n) / (r + b)
    out = _dbinom_raw(x, r, p, q) * _dbinom_raw(n - x, b, p, q) / _dbinom_raw(n, r + b, p, q)
    return np.where(n == 0, (x == 0).astype(np.float64), out)


def _pdhyper(x: np.ndarray, r: np.ndarray, b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``P(X <= x) / P(X = x)``: the terms below ``x`` as ratios to it, summed until they no
    longer change the sum (R's ``pdhyper``); all cells at once, the finished ones dropped."""
    total = np.zeros_like(x)
    term = np.ones_like(x)
    live = np.flatnonzero(x > 0)
    x, r, b, n = x.copy(), r, b, n
    while live.size:
        xi = x[live]
        term[live] *= xi * (b[live] - n[live] + xi) / (n[live] + 1 - xi) / (r[live] + 1 - xi)
        total[live] += term[live]
        x[live] = xi - 1
        live = live[(x[live] > 0) & (term[live] >= np.finfo(np.float64).eps * total[live])]
    return 1.0 + total


def chi2_test(table: Any) -> tuple[float, int, float]:
    """Pearson's chi-square test of independence of a value x cluster count table.

    No continuity correction; values and clusters with no rows are left out of the degrees
    of freedom ``(values - 1) (clusters - 1)``. Returns ``(statistic, df, p_value)``; a
    table with one value or one cluster gives ``(0.0, 0, 1.0)``.
    """
    from scipy.special import chdtrc  # chi2.sf without scipy.stats' per-call cost

    t = np.asarray(table, dtype=np.float64)
    t = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    if t.ndim != 2 or min(t.shape) < 2:
        return 0.0, 0, 1.0
    expected = np.outer(t.sum(axis=1), t.sum(axis=0)) / t.sum()
    stat = float(((t - expected) ** 2 / expected).sum())
    df = (t.shape[0] - 1) * (t.shape[1] - 1)
    return stat, int(df), float(chdtrc(df, stat))


def numeric_tests(x: Any, codes: Any, n_clusters: int) -> dict[str, Any]:
    """The correlation ratio of a numeric column with a partition and each cluster's v-test.

    Parameters
    ----------
    x : array-like of shape (n,)
        The numbers; NaN (missing) rows are left out of every figure.
    codes : array-like of shape (n,)
        The cluster of each row, ``0 .. n_clusters - 1``.
    n_clusters : int

    Returns
    -------
    dict
        ``"Eta2"`` and ``"F p.value"`` (floats, NaN when the column does not vary) and, as
        arrays of shape ``(n_clusters,)``: ``"count"``, ``"mean_in_cluster"``,
        ``"sd_in_cluster"``, ``"v.test"``, ``"p.value"``; ``"mean_overall"`` and
        ``"sd_overall"`` (floats). Standard deviations divide by the count.
    """
    x = np.asarray(x, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.int64)
    ok = ~np.isnan(x)
    xv, cv = x[ok], codes[ok]
    n = len(xv)
    count = np.bincount(cv, minlength=n_clusters).astype(np.float64)
    mean_all = float(xv.mean()) if n else np.nan
    dev = xv - mean_all  # deviations from the overall mean: sums of squares without cancelling
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_dev = np.bincount(cv, weights=dev, minlength=n_clusters) / count
        within = np.bincount(cv, weights=(dev - mean_dev[cv]) ** 2, minlength=n_clusters)
        total_ss = float((dev ** 2).sum())
    return _numeric_figures(n, count, mean_all, mean_dev, within, total_ss)


def numeric_tests_moments(count: Any, mean: Any, m2: Any) -> dict[str, Any]:
    """:func:`numeric_tests` from each cluster's count of numbers, mean and sum of squared
    deviations from that mean (``m2``): additive over a table's parts by Chan's rule, so a
    partitioned table's figures without its rows (equal to :func:`numeric_tests`' to about
    1e-12 relative, the rounding of a different summation order)."""
    count = np.asarray(count, dtype=np.float64)
    mean = np.asarray(mean, dtype=np.float64)
    within = np.asarray(m2, dtype=np.float64)
    n = int(count.sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_all = float((count * np.where(count > 0, mean, 0.0)).sum() / n) if n else np.nan
        mean_dev = np.where(count > 0, mean - mean_all, np.nan)
        total_ss = float(within[count > 0].sum() + (count * mean_dev ** 2)[count > 0].sum())
    return _numeric_figures(n, count, mean_all, mean_dev, within, total_ss)


def _numeric_figures(n: int, count: np.ndarray, mean_all: float, mean_dev: np.ndarray,
                     within: np.ndarray, total_ss: float) -> dict[str, Any]:
    from scipy.special import fdtrc, ndtr

    with np.errstate(divide="ignore", invalid="ignore"):
        between = float((count * mean_dev ** 2)[count > 0].sum())
        var_all = total_ss / n if n else np.nan
        eta2 = between / total_ss if total_ss > 0 else np.nan
        groups = int((count > 0).sum())
        f_p = np.nan
        if total_ss > 0 and groups > 1 and n > groups:
            within_ss = float(within.sum())
            f_stat = (between / (groups - 1)) / (within_ss / (n - groups)) if within_ss > 0 \
                else np.inf
            f_p = float(fdtrc(groups - 1, n - groups, f_stat))
        scale = np.sqrt(var_all / count * (n - count) / (n - 1)) if n > 1 else np.nan
        v_test = np.where(scale > 0, mean_dev / scale, np.nan)
        sd_in = np.sqrt(within / count)
    return {"Eta2": eta2, "F p.value": f_p, "count": count,
            "mean_in_cluster": mean_all + mean_dev, "sd_in_cluster": sd_in,
            "mean_overall": mean_all, "sd_overall": float(np.sqrt(var_all)),
            "v.test": v_test, "p.value": 2.0 * ndtr(-np.abs(v_test))}


def paragons(Z: Any, labels: Any, centers: Any, n_paragons: int = 5) -> list[tuple[int, int,
                                                                                   int, float]]:
    """The rows of each cluster closest to its centre (Euclidean).

    Parameters
    ----------
    Z : array-like of shape (n, d)
        The rows' coordinates.
    labels : array-like of shape (n,)
        Cluster codes ``0 .. len(centers) - 1``.
    centers : array-like of shape (n_clusters, d)
    n_paragons : int, default=5

    Returns
    -------
    list of (cluster, rank, row, distance)
        ``row``: the position in ``Z``; per cluster the ``n_paragons`` nearest rows, nearest
        first (ties: the earlier row). A stable sort of the labels, then a partition of each
        cluster's distances.
    """
    Z = np.asarray(Z)
    if Z.dtype.kind != "f":
        Z = Z.astype(np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    centers = np.asarray(centers, dtype=np.float64)
    dist = np.empty(len(Z))
    # a block of about 1 MiB of float64 (at least 256 rows) at a time, converted there
    # (float32 coordinates are not copied whole; a row's distance does not depend on the block)
    step = max(256, 131072 // max(1, Z.shape[1] if Z.ndim == 2 else 1))
    for a in range(0, len(Z), step):
        diff = np.asarray(Z[a:a + step], dtype=np.float64) - centers[labels[a:a + step]]
        dist[a:a + step] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    out = []
    order = np.argsort(labels, kind="stable")  # each cluster's rows, in row order
    bounds = np.searchsorted(labels[order], np.arange(len(centers) + 1))
    for c in range(len(centers)):
        rows = order[bounds[c]:bounds[c + 1]]
        d = dist[rows]
        if len(rows) > n_paragons:  # those within the n-th smallest distance, ties included
            rows = rows[d <= np.partition(d, n_paragons - 1)[n_paragons - 1]]
            d = dist[rows]
        pick = np.lexsort((rows, d))[:n_paragons]
        out += [(c, r, int(rows[i]), float(d[i])) for r, i in enumerate(pick)]
    return out


def relative_entropy(posterior: Any, weights: Any = None) -> float:
    """The relative entropy of a latent class model's classification (the "entropy R^2" of
    latent class software): ``1 - sum_i w_i sum_c -p_ic log p_ic / (sum_i w_i log K)``.

    1 when every row belongs to one class with certainty, 0 when every row's posterior is
    uniform over the ``K`` classes; 1 for a single class. ``posterior``: ``(n, K)`` rows of
    class probabilities; ``weights``: each row's multiplicity (default 1)."""
    p = np.asarray(posterior, dtype=np.float64)
    w = np.ones(len(p)) if weights is None else np.asarray(weights, dtype=np.float64)
    k = p.shape[1]
    if k < 2 or not len(p):
        return 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log(p), 0.0)
    return float(1.0 - (w @ terms.sum(axis=1)) / (w.sum() * np.log(k)))
