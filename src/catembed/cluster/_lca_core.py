"""The arithmetic of :class:`catembed.cluster.LCA`'s E-step (class-major log-joint and
log-sum-exp with the bits of the row-major layout), shared with the per-partition E-step of
:mod:`catembed.cluster._distributed`."""

from __future__ import annotations

import numpy as np

__all__ = ["_FLOOR", "_add_columns", "_log_joint_classes", "_logsumexp_classes"]

_FLOOR = 1e-12


#: numpy's pairwise summation: fewer terms than this are added in one loop, more are split
_PW_BLOCK = 128


def _sum_over_rows(a: np.ndarray, lo: int = 0, n: int | None = None) -> np.ndarray:
    """``a[lo:lo + n].sum(axis=0)`` added in the order in which NumPy's ``sum(axis=1)``
    adds a C-contiguous ``(u, K)`` array's rows (its pairwise summation: one loop under 8
    terms, 8 running sums up to 128, halves above), elementwise over the ``u`` columns of
    the ``(K, u)`` array ``a``: the E-step's sums over the classes in the class-major
    layout, with the bits of the row-major layout's."""
    n = len(a) - lo if n is None else n
    if n < 8:
        res = np.zeros(a.shape[1])
        for i in range(lo, lo + n):
            res += a[i]
        return res
    if n <= _PW_BLOCK:
        r = a[lo:lo + 8].copy()
        i = 8
        while i < n - n % 8:
            r += a[lo + i:lo + i + 8]
            i += 8
        res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
        for j in range(lo + i, lo + n):
            res += a[j]
        return res
    half = n // 2
    half -= half % 8
    return _sum_over_rows(a, lo, half) + _sum_over_rows(a, lo + half, n - half)


def _logsumexp_classes(a: np.ndarray) -> np.ndarray:
    """``scipy.special.logsumexp(a, axis=0)`` of a finite real ``(K, u)`` array, by SciPy's
    own arithmetic (1.17: the largest entries taken out of the sum, ``log1p`` of the rest
    over their count). The class-major layout makes every step an elementwise pass over
    the ``u`` rows (the row-major form's reductions over ``K`` numbers were two thirds of
    the E-step's time on Nursery)."""
    top = a.max(axis=0)
    at_top = a == top
    m = at_top.sum(axis=0, dtype=a.dtype)
    s = _sum_over_rows(np.exp(np.where(at_top, -np.inf, a) - top))
    s = np.where(s == 0, s, s / m)
    return np.log1p(s) + np.log(m) + top


def _log_joint_classes(gT: np.ndarray, log_theta: np.ndarray, log_pi: np.ndarray
                       ) -> np.ndarray:
    """``log pi_c + sum_j log theta_{cj}(x_ij)`` in the class-major layout ``(K, u)``;
    ``gT``: the ``(m, u)`` value indices (codes plus offsets). The same additions in the
    same order as :func:`_add_columns` on ``tile(log_pi)``."""
    out = np.repeat(log_pi[:, None], gT.shape[1], axis=1)
    for col in gT:
        out += log_theta.take(col, axis=1)
    return out


def _add_columns(out: np.ndarray, log_theta: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``out[i] += log_theta[:, g[i, j]]`` for each column ``j`` in turn (in place).

    Row gathers from ``log_theta.T`` with ``take``: the same additions in the same order as
    indexing ``log_theta[:, g[:, j]].T``, so bitwise the same result, 2-2.5x faster."""
    T = np.ascontiguousarray(log_theta.T)
    for col in np.ascontiguousarray(g.T):
        out += T.take(col, axis=0)
    return out
