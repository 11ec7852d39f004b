"""Object-level distances and nearest neighbours from value distance tables, in chunks.

With per-attribute tables ``D_j`` the distance between objects ``a`` and ``b`` is
``sum_j D_j[a_j, b_j]`` (or its Euclidean form). Written with one-hot matrices this is
``E_a O_b^T``, where ``E_a`` is ``a``'s *distance profile* (the rows of the ``D_j`` for its
values, concatenated: ``l`` numbers) and ``O_b`` the one-hot row of ``b``. A block of
``c`` query rows against ``n`` rows is one matrix product (dense BLAS when the one-hot
matrix is small, sparse otherwise), so memory is ``O(c x n)`` and the full ``n x n`` matrix
exists only when the caller asks for it.

Unknown values (code ``-1``) are "no match": each table gets one extra row and column whose
entries are the table's largest distance (1 for Hamming).
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._utils._params import check_int, check_option, is_real
from .._utils._validation import CatEmbedError
from ..stats._pooling import check_matrix_memory
from ..stats._value_statistics import ValueStatistics
from .tables import ValueTables

__all__ = [
    "dm_distances",
    "dm_parameters",
    "kneighbors_from_codes",
    "kneighbors_graph_from_codes",
    "pairwise_chunks_from_codes",
    "pairwise_from_codes",
]

_CHUNK_BYTES = 64 << 20
_DENSE_ONEHOT_BYTES = 256 << 20


def _padded(vt: ValueTables) -> list[np.ndarray]:
    out = []
    for t in vt.tables:
        lj = t.shape[0]
        worst = float(t.max()) if t.size else 1.0
        worst = worst if worst > 0 else 1.0
        p = np.full((lj + 1, lj + 1), worst)
        p[:lj, :lj] = t
        out.append(p ** vt.power)
    return out


def _check_codes(codes: np.ndarray, vt: ValueTables) -> np.ndarray:
    sizes = np.array([t.shape[0] for t in vt.tables])
    codes = _code_range(codes, sizes)
    return np.where(codes < 0, sizes[None, :], codes)


def _code_range(codes: Any, sizes: np.ndarray) -> np.ndarray:
    """``codes`` as ``int64`` when its shape is ``(n, len(sizes))`` and every code is below
    its attribute's number of values (negative: unknown); a code past the table was an
    ``IndexError`` deep inside."""
    codes = np.asarray(codes)
    if codes.ndim != 2 or codes.shape[1] != len(sizes):
        raise CatEmbedError(f"codes must have shape (n, {len(sizes)}); got {codes.shape}.")
    codes = codes.astype(np.int64)
    over = codes >= np.asarray(sizes, dtype=np.int64)[None, :]
    if over.any():
        j = int(np.flatnonzero(over.any(axis=0))[0])
        raise CatEmbedError(
            f"codes of attribute {j} must be below its {int(sizes[j])} values (negative: "
            f"unknown); got {int(codes[:, j].max())}."
        )
    return codes


def _profile(codes: np.ndarray, padded: list[np.ndarray]) -> np.ndarray:
    widths = [p.shape[0] for p in padded]
    out = np.empty((codes.shape[0], int(sum(widths))))
    start = 0
    for j, p in enumerate(padded):
        out[:, start : start + widths[j]] = p[codes[:, j]]
        start += widths[j]
    return out


def _onehot(codes: np.ndarray, widths: list[int]) -> np.ndarray | sp.csr_array:
    n, m = codes.shape
    offs = np.concatenate([[0], np.cumsum(widths)])
    total = int(offs[-1])
    cols = (codes + offs[:-1][None, :]).ravel()
    if n * total * 8 <= _DENSE_ONEHOT_BYTES:
        dense = np.zeros((n, total))
        dense[np.repeat(np.arange(n), m), cols] = 1.0
        return dense
    data = np.ones(n * m)
    indptr = np.arange(0, n * m + 1, m)
    return sp.csr_array((data, cols, indptr), shape=(n, total))


def _default_chunk(n_b: int, chunk_size: int | None) -> int:
    if chunk_size is not None:
        return check_int("chunk_size", chunk_size)
    return max(1, _CHUNK_BYTES // (8 * max(n_b, 1)))


def pairwise_chunks_from_codes(
    codes_a: np.ndarray,
    codes_b: np.ndarray,
    vt: ValueTables,
    *,
    chunk_size: int | None = None,
) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(start, block)``: distances of rows ``start:start+c`` of ``a`` to all of ``b``.

    Parameters
    ----------
    codes_a, codes_b : ndarray of shape (n_a, m), (n_b, m)
        Integer value codes per attribute (``-1`` = unknown).
    vt : ValueTables
    chunk_size : int, optional
        Rows of ``a`` per block; default keeps a block near 64 MiB.
    """
    a = _check_codes(codes_a, vt)
    b = _check_codes(codes_b, vt)
    padded = _padded(vt)
    widths = [p.shape[0] for p in padded]
    onehot_b = _onehot(b, widths)
    step = _default_chunk(len(b), chunk_size)
    for start in range(0, len(a), step):
        prof = _profile(a[start : start + step], padded)
        if sp.issparse(onehot_b):
            block = np.asarray((onehot_b @ prof.T).T)
        else:
            block = prof @ onehot_b.T
        if vt.power == 2:
            np.sqrt(np.maximum(block, 0.0, out=block), out=block)
        yield start, block


def pairwise_from_codes(
    codes_a: np.ndarray, codes_b: np.ndarray | None, vt: ValueTables, *,
    chunk_size: int | None = None,
) -> np.ndarray:
    """The full ``n_a x n_b`` object distance matrix (only when the caller needs it)."""
    b = codes_a if codes_b is None else codes_b
    check_matrix_memory(len(codes_a), len(b), "the distance matrix")
    out = np.empty((len(codes_a), len(b)))
    for start, block in pairwise_chunks_from_codes(codes_a, b, vt, chunk_size=chunk_size):
        out[start : start + len(block)] = block
    return out


def kneighbors_from_codes(
    codes_a: np.ndarray,
    codes_b: np.ndarray | None,
    vt: ValueTables,
    n_neighbors: int,
    *,
    chunk_size: int | None = None,
    progress: bool | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The ``n_neighbors`` nearest rows of ``b`` for every row of ``a``, in chunks.

    With ``codes_b=None`` the rows of ``a`` are searched among themselves and a row is not its
    own neighbour (as scikit-learn's ``kneighbors()`` without ``X``). Among rows tied at the
    k-th distance the choice is deterministic but arbitrary. Returns
    ``(distances, indices)``, each ``n_a x n_neighbors``, nearest first.

    ``progress``: show a progress bar (rows of ``a``) on stderr; ``None`` (default) shows one
    for searches of more than ``10**8`` pairs when stderr is a terminal.
    """
    self_search = codes_b is None
    b = codes_a if self_search else codes_b
    n_b = len(b) - (1 if self_search else 0)
    if isinstance(n_neighbors, (bool, np.bool_)) or not isinstance(n_neighbors, numbers.Integral):
        check_int("n_neighbors", n_neighbors)  # refuses: a float or bool was a bare TypeError
    if not 1 <= n_neighbors <= n_b:
        raise CatEmbedError(
            f"n_neighbors must be between 1 and {n_b} (the rows to search); got {n_neighbors}."
        )
    dist = np.empty((len(codes_a), n_neighbors))
    ind = np.empty((len(codes_a), n_neighbors), dtype=np.int64)
    bar = _progress_bar(len(codes_a), len(codes_a) * len(b), progress)
    for start, block in pairwise_chunks_from_codes(codes_a, b, vt, chunk_size=chunk_size):
        bar.update(len(block))
        rows = np.arange(len(block))
        if self_search:
            block[rows, start + rows] = np.inf
        part = np.argpartition(block, n_neighbors - 1, axis=1)[:, :n_neighbors]
        order = np.lexsort((part, np.take_along_axis(block, part, axis=1)), axis=1)
        part = np.take_along_axis(part, order, axis=1)
        ind[start : start + len(block)] = part
        dist[start : start + len(block)] = np.take_along_axis(block, part, axis=1)
    bar.close()
    return dist, ind


def _progress_bar(total: int, pairs: int, progress: bool | None) -> Any:
    """A tqdm bar over query rows; ``None`` = only for long searches on a terminal."""
    import sys

    from tqdm.auto import tqdm

    disable: bool | None = not progress if progress is not None else (
        None if pairs > 10**8 else True)
    return tqdm(total=total, desc="neighbours", unit="rows", unit_scale=True,
                file=sys.stderr, disable=disable, leave=False)


def kneighbors_graph_from_codes(
    codes: np.ndarray,
    vt: ValueTables,
    n_neighbors: int,
    *,
    mode: str = "distance",
    chunk_size: int | None = None,
    codes_b: np.ndarray | None = None,
    progress: bool | None = None,
) -> sp.csr_array:
    """Sparse kNN graph, distances or connectivity: ``n x n`` of the rows of ``codes`` (self
    excluded), or ``n x n_b`` towards the rows of ``codes_b``."""
    check_option("mode", mode, ("distance", "connectivity"))
    dist, ind = kneighbors_from_codes(codes, codes_b, vt, n_neighbors, chunk_size=chunk_size,
                                      progress=progress)
    n = len(codes)
    n_b = n if codes_b is None else len(codes_b)
    data = dist.ravel() if mode == "distance" else np.ones(dist.size)
    indptr = np.arange(0, n * n_neighbors + 1, n_neighbors)
    return sp.csr_array((data, ind.ravel(), indptr), shape=(n, n_b))


# ---------------------------------------------------------------------- DM (object level)
def dm_parameters(stats: ValueStatistics, beta: float | None = None) -> dict[str, np.ndarray]:
    """Interdependence redundancy, relevant sets and dynamic weights of Jia et al. (2016).

    ``R(r, l) = I(A_r; A_l) / H(A_r, A_l)`` (their Eq. 37; ``H(A_r, A_l)`` the joint entropy
    ``H_r + H_l - I``), ``R(r, r) = 1``; relevant set ``S_r = {l : R(r, l) > beta}`` with
    ``beta`` defaulting to the mean of ``R``; ``ps(r) = sum_v p(v) p'(v)`` and
    ``pf(r) = 1 - ps(r)`` (Eqs. 27-28).
    """
    mi = stats.mutual_information()
    h = stats.entropy()
    joint = h[:, None] + h[None, :] - mi
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(joint > 0, mi / np.where(joint > 0, joint, 1.0), 0.0)
    np.fill_diagonal(r, 1.0)
    if beta is not None and not (is_real(beta) and np.isfinite(beta)):
        raise CatEmbedError(f"beta must be a finite number; got {beta!r}.")  # NaN kept none
    b = float(r.mean()) if beta is None else float(beta)
    rs = np.where(r > b, r, 0.0)
    np.fill_diagonal(rs, 1.0)
    n = max(stats.n_rows, 2)
    cnt = stats.counts.astype(np.float64)
    pp = (cnt / n) * (np.maximum(cnt - 1.0, 0.0) / (n - 1))
    ps = np.bincount(stats.attribute_of, weights=pp, minlength=stats.n_features)
    return {"R": r, "R_relevant": rs, "beta": np.array(b), "ps": ps, "pf": 1.0 - ps}


def _dm_q(stats: ValueStatistics, codes: np.ndarray) -> np.ndarray:
    """``q[i, r, l] = p(x_ir, x_il) p'(x_ir, x_il)``, 0 for unknown values."""
    n = max(stats.n_rows, 2)
    offs = stats.offsets
    g = codes.astype(np.int64) + offs[:-1][None, :]
    unknown = codes < 0
    g = np.where(unknown, 0, g)
    cooc = stats.cooc
    if sp.issparse(cooc):
        cnt = np.asarray(cooc[g[:, :, None], g[:, None, :]]).astype(np.float64)
    else:
        cnt = cooc[g[:, :, None], g[:, None, :]].astype(np.float64)
    bad = unknown[:, :, None] | unknown[:, None, :]
    cnt[bad] = 0.0
    return (cnt / n) * (np.maximum(cnt - 1.0, 0.0) / (n - 1))


def dm_distances(
    stats: ValueStatistics,
    codes_a: np.ndarray,
    codes_b: np.ndarray | None = None,
    *,
    beta: float | None = None,
    chunk_size: int | None = None,
) -> np.ndarray:
    """Jia, Cheung, Liu (2016) object distance with interdependence and dynamic weights.

    For attribute ``r`` (their Algorithm 1, lines 9-18, with ``q = p p'`` of the joint value
    pair ``(x_r, x_l)``):

    * ``x_ir != x_jr``: ``D_r = sum_{l in S_r} R(r, l) (q_i[r, l] + q_j[r, l])``, weight
      ``w_r = ps(r)``;
    * ``x_ir == x_jr``: ``D_r = sum_{l in S_r} R(r, l) delta(x_il, x_jl) (q_i[r, l] +
      q_j[r, l])``, weight ``w_r = pf(r)``;

    and ``D(i, j) = sum_r w_r D_r / sum_r w_r``. The paper text was not available here; the
    definition follows two public re-implementations that cite the paper's equation numbers
    (Eqs. 27, 28, 37 and Algorithm 1); ``beta`` defaults to the mean of ``R`` as both do.
    Everything comes from the co-occurrence counts. Cost ``O(n_a n_b m^2)`` in blocks of
    ``chunk_size`` rows of ``a``; returns the full ``n_a x n_b`` matrix.
    """
    par = dm_parameters(stats, beta)
    rs = par["R_relevant"]
    ps, pf = par["ps"], par["pf"]
    a = _code_range(codes_a, stats.sizes)
    b = a if codes_b is None else _code_range(codes_b, stats.sizes)
    m = stats.n_features
    check_matrix_memory(len(a), len(b), "the DM distance matrix")
    qa, qb = _dm_q(stats, a), _dm_q(stats, b)
    wqa = np.einsum("irl,rl->ir", qa, rs)
    wqb = np.einsum("irl,rl->ir", qb, rs)
    out = np.empty((len(a), len(b)))
    step = (check_int("chunk_size", chunk_size) if chunk_size is not None
            else max(1, (8 << 20) // max(len(b) * m * m, 1)))
    for s in range(0, len(a), step):
        ca = a[s : s + step]
        mism = (ca[:, None, :] != b[None, :, :]) | (ca[:, None, :] < 0) | (b[None, :, :] < 0)
        mism = mism.astype(np.float64)  # (c, n_b, m)
        t1 = mism * (wqa[s : s + step, None, :] + wqb[None, :, :])
        # sum_l R(r, l) mism_l (q_i[r, l] + q_j[r, l])
        t2 = np.einsum("cbl,rl,crl->cbr", mism, rs, qa[s : s + step]) + np.einsum(
            "cbl,rl,brl->cbr", mism, rs, qb
        )
        d_r = t1 + (1.0 - mism) * t2
        w = mism * ps[None, None, :] + (1.0 - mism) * pf[None, None, :]
        out[s : s + step] = (w * d_r).sum(axis=2) / np.maximum(w.sum(axis=2), 1e-300)
    return out
