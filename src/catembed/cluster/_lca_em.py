"""LCA's EM (issue 55, item 1): :func:`squarem`, the accelerated EM that
:class:`catembed.cluster.LCA` runs from each start (:func:`dense_step` one step of it on the
dense indicators), and :func:`em_starts`, plain EM of all starts at once, which the choice of
k screens its starts with.

:class:`catembed.cluster.LCA` runs ``n_init`` starts of EM on the distinct rows. When the
distinct rows' indicator matrix ``O`` (``u x J``) is small (:data:`DENSE_CELLS`), the starts
are run side by side: the E-step of every start is one matrix product ``O log theta^T`` (``u
x S K``) and the M-step one product ``R^T O``, each a single BLAS call where the chunked path
took one gather per column and one sparse product per start and step (on ``dna_statlog``,
3,001 distinct rows x 60 four-valued columns, 8.5 ms a step of one start at K = 10). Dense
products beat sparse ones here: E + M for 50 classes in all, 3,001 x 360 indicators 46 ms
against 102 ms, 12,960 x 24 (Nursery) 5.5 ms against 13.3 ms (load 15). A start
stops when its mean log-likelihood per row gains less than ``tol`` (the rule of
:class:`LCA`'s plain EM before issue 55) and leaves the products; each start takes the
steps it takes alone, so the result is plain EM's up to rounding (the sums run in another
order).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["DENSE_CELLS", "dense_step", "em_starts", "indicators", "squarem"]

#: at most this many cells of the dense indicator matrix (32 MiB of float64)
DENSE_CELLS = 1 << 22
_FLOOR = 1e-12


def indicators(codes: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The ``u x (J - m)`` indicators of the distinct rows ``codes`` for every value but each
    column's first (a column's first value is 1 minus the others, so the products of
    :func:`em_starts` need ``J - m`` columns: half of a binary table's). Made once per table
    and shared by every k of the choice of k (:func:`em_starts`' ``design``)."""
    u, m = codes.shape
    O = np.zeros((u, int(offsets[-1]) - m))
    hit = codes > 0  # the first value of a column has no column of its own
    O[np.nonzero(hit)[0], (codes + (offsets[:-1] - np.arange(1, m + 1))[None, :])[hit]] = 1.0
    return O


def em_starts(codes: np.ndarray, weights: np.ndarray, offsets: np.ndarray,
              starts: list[tuple[np.ndarray, np.ndarray]], max_iter: int, tol: float,
              design: np.ndarray | None = None
              ) -> list[tuple[np.ndarray, np.ndarray, float, int, bool]]:
    """EM from every ``(log_theta, log_pi)`` of ``starts`` on the distinct rows ``codes``
    (``u x m``, codes per column) of multiplicities ``weights``; ``offsets``: each column's
    first value index; ``design``: :func:`indicators` of ``codes`` when already made.
    Returns per start ``(log_theta, log_pi, log-likelihood, steps, converged)``.

    The arrays of a step are written in place (``out=``) where the step made temporaries:
    the same operations in the same order, so the same bits (issue 55: the BIC table of the
    planted 100k x 20 table's 5,000 rows, ``benchmarks/bench_cluster_cli.py``)."""
    u = len(codes)
    J = int(offsets[-1])
    S = len(starts)
    K = starts[0][0].shape[0]
    m = codes.shape[1]
    ref = offsets[:-1].astype(np.int64)  # each column's first value: the reference
    keep = np.ones(J, dtype=bool)
    keep[ref] = False
    attr = np.repeat(np.arange(m), np.diff(offsets))[keep]  # column of each kept value
    O = indicators(codes, offsets) if design is None else design
    to_col = np.zeros((len(attr), m))
    to_col[np.arange(len(attr)), attr] = 1.0
    n = float(weights.sum())
    lt = np.stack([s[0] for s in starts])  # S x K x J
    lp = np.stack([s[1] for s in starts])  # S x K
    prev = np.full(S, -np.inf)
    ll = np.full(S, -np.inf)
    n_iter = np.zeros(S, dtype=np.int64)
    converged = np.zeros(S, dtype=bool)
    active = np.arange(S)
    w3 = weights[:, None, None]
    for it in range(1, int(max_iter) + 1):
        a = active
        A = len(a)
        la = lt[a]
        base = la[:, :, ref]  # A x K x m
        diff = la[:, :, keep] - base[:, :, attr]
        L = (O @ diff.reshape(A * K, -1).T).reshape(u, A, K)
        L += (lp[a] + base.sum(axis=2))[None, :, :]
        top = L[:, :, :1].copy()  # L.max(axis=2) by columns: a reduction over the short
        for c in range(1, K):      # class axis is 3-6x slower than K - 1 elementwise maxima
            np.maximum(top, L[:, :, c:c + 1], out=top)
        E = np.exp(np.subtract(L, top, out=L), out=L)
        s = E.sum(axis=2, keepdims=True)
        lls = weights @ (np.log(s) + top)[:, :, 0]
        E *= np.divide(w3, s, out=s)  # the weighted responsibilities
        R = E.reshape(u, A * K)
        nk = R.sum(axis=0)
        part = R.T @ O  # A K x (J - m)
        counts = np.empty((A * K, J))
        counts[:, keep] = part
        counts[:, ref] = nk[:, None] - part @ to_col
        nk = nk.reshape(A, K)
        lp[a] = np.log(np.maximum(nk / n, _FLOOR))
        c3 = counts.reshape(A, K, J)
        np.divide(c3, np.maximum(nk, _FLOOR)[:, :, None], out=c3)
        lt[a] = np.log(np.maximum(c3, _FLOOR, out=c3), out=c3)
        mean = lls / n
        ll[a] = lls
        n_iter[a] = it
        done = mean - prev[a] < tol
        converged[a[done]] = True
        prev[a] = mean
        active = a[~done]
        if not len(active):
            break
    return [(lt[i], lp[i], float(ll[i]), int(n_iter[i]), bool(converged[i])) for i in range(S)]


def dense_step(OT: np.ndarray, weights: np.ndarray, n: float,
                theta: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """One EM step from the probabilities ``(theta, pi)``: the new ones and the
    log-likelihood of the old. Class-major (``K x u``): the sums over the classes run along
    the rows, elementwise (over the short class axis they were half the step's time)."""
    L = np.log(np.maximum(theta, _FLOOR)) @ OT
    L += np.log(np.maximum(pi, _FLOOR))[:, None]
    top = L.max(axis=0)
    L -= top
    E = np.exp(L, out=L)
    s = E.sum(axis=0)
    ll = float(weights @ (np.log(s) + top))
    E *= weights / s
    nk = E.sum(axis=1)
    # E @ OT.T: the product with the transposed (u x J) view, 5x faster than with O itself
    return (E @ OT.T) / np.maximum(nk, _FLOOR)[:, None], nk / n, ll


def squarem(step: Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray, float]],
            offsets: np.ndarray, log_theta: np.ndarray, log_pi: np.ndarray, max_iter: int,
            tol: float, n: float) -> tuple[np.ndarray, np.ndarray, float, int, bool]:
    """EM accelerated by squared extrapolation (SQUAREM, Varadhan & Roland 2008, scheme
    S3): from ``x0``, two EM steps give ``r = x1 - x0`` and ``v = x2 - 2 x1 + x0``; the point
    ``x0 - 2a r + a^2 v`` (``a = -|r| / |v|``, at most -1; projected back onto the
    probabilities) is taken through one more EM step, and kept when its log-likelihood is
    at least ``x1``'s, else ``a`` moves halfway towards -1 (where the point is ``x2``, which EM
    never makes worse). Where the likelihood is flat along a ridge (Nursery: the columns are
    independent and every start must creep back to the independence model) plain EM takes
    hundreds of steps; the extrapolation about a tenth as many (355-413 steps against 30-37
    EM evaluations on Nursery's 5 starts, each ending 0.02 higher). Stops when a cycle gains
    less than ``tol`` per row (of ``n``); ``max_iter`` counts the EM evaluations; ``step``:
    one EM step, ``(theta, pi) -> (theta', pi', log-likelihood of (theta, pi))``. Returns what
    :func:`em_starts` returns for one start."""
    attr = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))

    def project(theta: np.ndarray, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        theta = np.maximum(theta, _FLOOR)
        theta /= np.add.reduceat(theta, offsets[:-1], axis=1)[:, attr]
        pi = np.maximum(pi, _FLOOR)
        return theta, pi / pi.sum()

    t0, p0 = np.exp(log_theta), np.exp(log_pi)
    prev, ll, evals, converged = -np.inf, -np.inf, 0, False
    while int(max_iter) < 3 and evals < int(max_iter):  # too few for a cycle: plain EM
        t0, p0, ll = step(t0, p0)
        evals += 1
    while evals + 3 <= int(max_iter):
        t1, p1, ll0 = step(t0, p0)
        t2, p2, ll1 = step(t1, p1)
        evals += 2
        rt, rp = t1 - t0, p1 - p0
        vt, vp = t2 - t1 - rt, p2 - p1 - rp
        vn = float(np.sqrt((vt * vt).sum() + (vp * vp).sum()))
        a = -float(np.sqrt((rt * rt).sum() + (rp * rp).sum())) / vn if vn > 0 else -1.0
        a = min(a, -1.0)
        while True:
            xt, xp = project(t0 - 2 * a * rt + a * a * vt, p0 - 2 * a * rp + a * a * vp)
            t3, p3, ll = step(xt, xp)
            evals += 1
            if ll >= ll1 or a == -1.0 or evals >= int(max_iter):
                break
            a = (a - 1.0) / 2.0
            if a > -1.01:
                a = -1.0
        t0, p0 = t3, p3
        if (ll1 - ll0) / n < tol or (ll / n - prev < tol and ll >= ll0):
            converged = True  # an EM step, or a cycle, gains less than tol per row
            break
        prev = ll / n
    return (np.log(np.maximum(t0, _FLOOR)), np.log(np.maximum(p0, _FLOOR)), ll, evals,
            converged)
