"""Choosing the number of clusters without labels (issue 38, part 2).

The criterion is the Bayesian information criterion of the latent class model (LCA,
:class:`catembed.cluster.LCA`) for ``K`` in a range, on at most ``sample_size`` rows of the
coded table (numbers already in bins):

``BIC(K) = -2 log L_K + p_K log n``, ``p_K = (K - 1) + K sum_j (l_j - 1)``

(Schwarz 1978; the criterion stepmix and poLCA report for LCA). ``K = 1`` is the
independence model, whose log-likelihood is closed-form, ``sum_j sum_v n_v log(n_v / n)``.

"No clear groups" (k = 1) is decided apart from the BIC, by a permutation test of the
columns' dependence: the total mutual information of all pairs of columns against the
same total on :data:`N_PERMUTATIONS` copies of the table whose columns are shuffled
independently (which keeps every column's values and destroys every dependence). Groups
make columns dependent; a table whose dependence is within :data:`DEPENDENCE_Z` null
standard deviations of the shuffled copies' has no clear groups, whatever the BIC says,
and one that is clearly dependent gets the best k >= 2 even where BIC's penalty (``p_K log
n``, large for a small table with many values) prefers k = 1. The rule was chosen on
planted and structureless tables and the shared data sets
(``studies/auto_k_design.py``, ``docs/consensus-design.md``). Each LCA fit takes ``n_init``
starts of at most 300 EM steps (tolerance 1e-6 on the mean log-likelihood per row):
enough to rank the k, cheaper than a full fit. The starts are screened (issue 55): all of
them run side by side for :data:`SCREEN_STEPS` steps, and only the best goes on to
convergence, by LCA's accelerated EM (``studies/auto_k_speed.py``: the same k on the 29
shared sets, the choice about 4.7x cheaper, and 4.7 -> 2.6 CPU s for the planted 100k x 20
table's 5,000 sampled rows with the acceleration).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..._utils._params import check_int
from ..._utils._progress import step
from ..._utils._spelling import k_asked
from ..._utils._validation import CatEmbedError

__all__ = ["parse_k_range", "lca_bic_table", "dependence_z", "choose_k"]

#: the range tried by ``n_clusters="auto"``: 1 (no clear groups) to this
AUTO_K_MAX = 10
#: column-shuffled copies of the table for the dependence test
N_PERMUTATIONS = 8
#: dependence below this many null standard deviations: no clear groups
DEPENDENCE_Z = 4.0


def parse_k_range(value: Any, n_distinct: int) -> list[int] | None:
    """The candidate ``k`` of an ``n_clusters`` value: ``None`` for a fixed int, else the
    list of ``"auto"`` (1 to :data:`AUTO_K_MAX`), ``"lo:hi"`` or ``(lo, hi)`` (both ends
    included), capped at the number of distinct rows."""
    if isinstance(value, str):
        if value == "auto":
            lo, hi = 1, AUTO_K_MAX
        else:
            parts = value.split(":")
            try:
                lo, hi = (int(p) for p in parts)
            except ValueError:
                raise CatEmbedError(
                    f"n_clusters must be an integer >= 1, 'auto' or a range 'lo:hi' such as "
                    f"'2:12'; got {value!r}.") from None
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        lo, hi = (check_int("n_clusters", v) for v in value)
    else:
        return None
    if not (1 <= lo <= hi):
        raise CatEmbedError(f"n_clusters range {value!r} must have 1 <= lo <= hi.")
    hi = min(hi, max(1, n_distinct))
    lo = min(lo, hi)
    return list(range(lo, hi + 1))


def _independence_loglik(codes: np.ndarray) -> float:
    ll = 0.0
    n = len(codes)
    for j in range(codes.shape[1]):
        _, counts = np.unique(codes[:, j], return_counts=True)
        ll += float((counts * np.log(counts / n)).sum())
    return ll


#: at most this many values: the dependence test counts pairs by a dense product
DENSE_MI_VALUES = 2048
#: EM steps every start takes before the best one alone is run to convergence
SCREEN_STEPS = 20
#: the BIC table stops once the BIC has risen at this many consecutive k (k >= 2)
BIC_RISES_TO_STOP = 2
#: the BIC table's EM stops when a step (or an accelerated cycle) gains less than this in
#: mean log-likelihood per row
BIC_TOL = 1e-6


def _screened_loglik(uniq: np.ndarray, weights: np.ndarray, offsets: np.ndarray, k: int,
                     seed: int, n_init: int, max_iter: int, tol: float,
                     design: np.ndarray | None = None) -> float:
    """The log-likelihood of the latent class model with ``k`` classes: ``n_init`` starts
    (those of ``LCA(k, random_state=seed)``) run side by side for :data:`SCREEN_STEPS` EM
    steps, then the one of highest log-likelihood alone to convergence (the small-EM start
    of Biernacki, Celeux & Govaert 2003: the starts are ranked after a few steps rather than
    each run to the end). ``design``: ``uniq``'s indicators
    (:func:`catembed.cluster._lca_em.indicators`), made once for every ``k``."""
    from .._lca_em import em_starts, squarem
    from ..lca import LCA

    est = LCA(k)
    est._offsets = offsets
    rs = np.random.RandomState(seed)
    starts = [est._init(uniq, weights, rs) for _ in range(int(n_init))]
    runs = em_starts(uniq, weights, offsets, starts, min(SCREEN_STEPS, max_iter), tol,
                     design)
    best = max(range(len(runs)), key=lambda i: (runs[i][2], -i))
    lt, lp, ll, steps, converged = runs[best]
    if converged or steps >= max_iter:
        return ll
    # the best start goes on by LCA's accelerated EM (SQUAREM), as a fit of LCA(k) would
    return squarem(est._stepper(uniq, weights), offsets, lt, lp, max_iter - steps, tol,
                   float(weights.sum()))[2]


def lca_bic_table(codes: np.ndarray, ks: list[int], rs: np.random.RandomState,
                  sample_size: int = 5000, n_init: int = 5) -> pd.DataFrame:
    """``log_likelihood``, ``n_parameters`` and ``bic`` of the latent class model for the
    ``k`` of ``ks`` (ascending) on at most ``sample_size`` rows of ``codes`` (index: ``k``).
    The rows are reduced to the distinct ones once for every ``k``; each ``k``'s starts are
    screened (:func:`_screened_loglik`).

    Each k >= 2 draws its seed in the order of k from 2, those below ``ks`` included, so
    that a k's BIC does not depend on where the range starts (``"3:8"`` gives k = 4 the BIC
    of ``"auto"``'s k = 4).

    The k >= 2 are fitted in turn until the BIC has risen at :data:`BIC_RISES_TO_STOP`
    consecutive k; the larger k are not fitted (listed in the table's
    ``attrs["not_fitted"]``; each one's seed is still drawn, so the k fitted get the BIC
    they get in a full table). Issue 55: on the planted 100k x 20 table this skips k = 8-10,
    58 % of the table's CPU time; on the declared pool of ``studies/auto_k_early_stop.py``
    (98 planted, 24 structureless, 29 shared sets and that table) the lowest BIC among the
    k fitted is the full table's on 151 of 152, the exception tic-tac-toe (3 instead of 8, a
    BIC that wobbles: 18,418 at 3, rising at 4 and 5, 18,372 at 8).
    """
    step(f"choosing k: latent class BIC for {len(ks)} values of k")
    n = len(codes)
    if n > sample_size:
        codes = codes[np.sort(rs.choice(n, size=sample_size, replace=False))]
    m = len(codes)
    free = sum(len(np.unique(codes[:, j])) - 1 for j in range(codes.shape[1]))
    compact, cats = _compact(codes)
    offsets = np.concatenate([[0], np.cumsum([len(c) for c in cats])]).astype(np.int64)
    uniq, counts = np.unique(compact.astype(np.int64, order="C"), axis=0, return_counts=True)
    weights = counts.astype(np.float64)
    design = None  # the distinct rows' indicators, made at the first k >= 2
    rows = []
    not_fitted: list[int] = []
    rises, previous = 0, None  # consecutive rises of the BIC over k >= 2, the last BIC
    for _ in range(2, ks[0] if ks else 2):  # the seeds of the k >= 2 below the range: a k's
        rs.randint(2**31 - 1)  # BIC is the same whichever range holds it ("3:8", "auto")
    for k in ks:
        if k == 1:
            ll = _independence_loglik(codes)
        else:
            seed = rs.randint(2**31 - 1)
            if rises >= BIC_RISES_TO_STOP:
                not_fitted.append(k)
                continue
            if len(uniq) < k:
                raise CatEmbedError(
                    f"the table has only {len(uniq)} distinct row(s), fewer than "
                    f"{k_asked(k)}; use fewer classes.")
            if design is None:
                from .._lca_em import indicators

                design = indicators(uniq, offsets)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ll = _screened_loglik(uniq, weights, offsets, k, seed, n_init, 300, BIC_TOL,
                                      design)
        p = (k - 1) + k * free
        bic = -2.0 * ll + p * np.log(m)
        rows.append({"k": k, "log_likelihood": ll, "n_parameters": p, "bic": bic})
        if k >= 2:
            rises = rises + 1 if previous is not None and bic > previous else 0
            previous = bic
    table = pd.DataFrame(rows).set_index("k")
    table.attrs["not_fitted"] = not_fitted
    return table


def _compact(codes: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    out = np.empty(codes.shape, dtype=np.int32)
    cats = []
    for j in range(codes.shape[1]):
        u, out[:, j] = np.unique(codes[:, j], return_inverse=True)
        cats.append(u)
    return out, cats


def _total_mi(codes: np.ndarray, cats: list[np.ndarray]) -> float:
    """The sum over pairs of columns of their mutual information (nats), each pair's
    clipped at 0 as :meth:`ValueStatistics.mutual_information` does. A table of at most
    :data:`DENSE_MI_VALUES` values counts its pairs as one product of its dense indicators
    (``C = O^T O``; dna_statlog's 180-indicator coding, 3,186 rows: 0.05 s against 0.56 s by
    the value statistics, the same total). Each pair's information is then ``(n log n + S_ab -
    S_aa - S_bb) / n``, ``S_ab`` the sum of ``c log c`` over the pair's block of counts (a
    table of ``c log c`` for the counts 0..n, one gather, and block sums; issue 55: 30 x 200
    four-valued, 800 values, 25 -> 9 ms a total, where the ``J x J`` logarithms and the
    ``A^T T A`` product that summed the blocks took most of the dependence test's 0.2 s)."""
    n, m = codes.shape
    sizes = np.array([len(c) for c in cats])
    J = int(sizes.sum())
    if J <= DENSE_MI_VALUES and n * J <= 1 << 24:
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        O = np.zeros((n, J), dtype=np.float32)
        O[np.arange(n)[:, None], codes + starts[None, :]] = 1.0
        # counts of at most n <= 2^24 rows: exact in float32 and on the cast
        C = (O.T @ O).astype(np.intp)
        clogc = np.arange(n + 1, dtype=float)
        clogc[1:] *= np.log(clogc[1:])
        S = np.add.reduceat(np.add.reduceat(clogc[C], starts, axis=0), starts, axis=1)
        d = np.diag(S)
        pairs = np.maximum((n * np.log(n) + S - d[:, None] - d[None, :]) / n, 0.0)
        return float(np.triu(pairs, 1).sum())
    from ...stats._value_statistics import ValueStatistics

    names = [f"c{j}" for j in range(codes.shape[1])]
    mi = ValueStatistics.from_codes(codes, cats, names).mutual_information()
    return float(np.triu(np.asarray(mi), 1).sum())


def dependence_z(codes: np.ndarray, rs: np.random.RandomState, sample_size: int = 5000,
                 n_permutations: int = N_PERMUTATIONS, max_columns: int = 200) -> float:
    """How many null standard deviations the total pairwise mutual information of the
    columns lies above its value on column-shuffled copies (at most ``sample_size`` rows
    and ``max_columns`` columns, drawn at random). ``inf`` when the copies all agree."""
    n, m = codes.shape
    if m < 2:
        return 0.0
    if n > sample_size:
        codes = codes[np.sort(rs.choice(n, size=sample_size, replace=False))]
    if m > max_columns:
        codes = codes[:, np.sort(rs.choice(m, size=max_columns, replace=False))]
    codes, cats = _compact(codes)
    observed = _total_mi(codes, cats)
    null = []
    for _ in range(int(n_permutations)):
        shuffled = np.column_stack([codes[rs.permutation(len(codes)), j]
                                    for j in range(codes.shape[1])])
        null.append(_total_mi(shuffled, cats))
    sd = float(np.std(null, ddof=1))
    gap = observed - float(np.mean(null))
    if sd <= 0:
        return float("inf") if gap > 0 else 0.0
    return gap / sd


def choose_k(scores: pd.DataFrame, z: float) -> int:
    """The k of ``scores`` (:func:`lca_bic_table`) with the lowest BIC among k >= 2 when
    the columns are dependent (``z >= DEPENDENCE_Z``), else 1 when 1 is in the range."""
    ks = list(scores.index)
    if z < DEPENDENCE_Z and 1 in ks:
        return 1
    many = scores.loc[[k for k in ks if k >= 2]] if any(k >= 2 for k in ks) else scores
    return int(many["bic"].idxmin())
