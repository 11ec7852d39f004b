"""The degeneracy guard and the restart criterion of the deep clusterers (issue 20, item 3).

A deep clusterer can end in a partition that says little about the table: the clustering
loss sharpens the soft assignment until almost every row sits in one cluster, or the latent
space forgets the structure of the input and k-means cuts it anywhere. Neither shows in the
training loss. This module gives every deep clusterer (:class:`~catembed.deep.IDEC`,
:class:`~catembed.deep.AutoencoderKMeans`, :class:`~catembed.deep.AttentionClusterer`,
:class:`~catembed.deep.ThesisClusterer`) the same label-free checks, made against a
reference partition that needs no network:

* **the reference** (:func:`reference_partition`): k-means (``n_init=10``) of the input in
  three spaces, the numbers z-scored beside the categorical columns as label codes
  (z-scored: the Fehling thesis' classical "k-means" input, the only space until 24
  November 2026), as one-hot indicators of unit variance a column, or as one-hot
  indicators in the chi-square metric (:func:`reference_input`); the partition that agrees
  most with the other two is the *reference*.
* **collapse**: the effective number of clusters ``exp(H(sizes))`` (:func:`effective_clusters`)
  of a restart's partition is below :data:`COLLAPSE_RATIO` times that of the reference.
* **lost structure**: the adjusted Rand index between a restart's partition and the
  reference is below :data:`STRUCTURE_ARI`: the latent space's clusters are as good as
  independent of the input's own.

A restart with either diagnosis is *degenerate* and is not kept; when every restart is, the
fit falls back to the reference partition and warns (:class:`~catembed.CatEmbedWarning`).

Since issue 42 :class:`~catembed.deep.AutoencoderKMeans`, :class:`~catembed.deep.IDEC` and
:class:`~catembed.deep.AttentionClusterer` diagnose against, and fall back to, the rank
reference of :mod:`catembed.deep._reference` instead (the vote below split off the largest
values of heavy-tailed numbers); :class:`~catembed.deep.ThesisClusterer` keeps the vote
(its thesis reproduction's figures), and every guarded fit checks its final partition
against the rank reference (:func:`catembed.deep._reference.check_partition`).

The restart kept among the healthy ones follows ``restart_criterion``: ``"agreement"`` (the
default) keeps the restart whose partition agrees most, by mean pairwise adjusted Rand index,
with the other restarts and the reference (a consensus choice: the partition the most runs
would vote for), ``"objective"`` the lowest final training loss (the rule before).

Both thresholds were chosen on planted synthetic mixed tables only
(``studies/deep_guard_design.py``; the evidence is in ``docs/deep.md``), never on a data
set with labels.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from scipy import sparse
from sklearn.cluster import KMeans
from sklearn.utils.random import sample_without_replacement

from .._utils._errors import FallbackWarning
from .._utils._params import check_option
from .._utils._validation import CatEmbedWarning
from ..metrics import ari_codes
from ._batches import count_labels, label_dtype
from ._data import MOMENT_CHUNK, CodedNumbers, column_moments

__all__ = [
    "COLLAPSE_RATIO",
    "REFERENCE_SPACES",
    "RESTART_CRITERIA",
    "STRUCTURE_ARI",
    "Reference",
    "agreement_scores",
    "choose_restart",
    "diagnose",
    "effective_clusters",
    "reference_input",
    "reference_partition",
    "reference_state",
]

#: a partition is collapsed when its effective number of clusters is below this fraction of
#: the reference's (chosen on planted synthetic tables, docs/deep.md)
COLLAPSE_RATIO = 0.5
#: a partition has lost the input's structure when its adjusted Rand index to the reference
#: is below this (chosen on planted synthetic tables, docs/deep.md)
STRUCTURE_ARI = 0.05
RESTART_CRITERIA = ("agreement", "objective")
#: the reference k-means is fitted on at most this many rows (every row is then assigned)
REFERENCE_SAMPLE = 50_000


#: the candidate spaces of the reference partition, in the order ties are broken
REFERENCE_SPACES = ("codes", "onehot", "chi2")


def reference_state(codes: np.ndarray, nums: np.ndarray | CodedNumbers
                    ) -> dict[str, np.ndarray]:
    """What :func:`reference_input` needs, learned from rows (column by column, no ``n x m``
    float copy): each categorical column's number of values ``sizes``, the value shares
    ``shares`` (all columns' values end to end), the codes' ``code_mean`` / ``code_scale``
    and the numbers' ``mean`` / ``scale`` (a constant column gets scale 1)."""
    codes = np.asarray(codes).reshape(len(codes), -1)
    if not isinstance(nums, CodedNumbers):  # those are read a chunk at a time below
        nums = np.asarray(nums).reshape(len(codes), -1)
    n = max(len(codes), 1)
    step = MOMENT_CHUNK
    counts = [count_labels(codes[:, j], chunk=step) for j in range(codes.shape[1])]

    def moments(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        got = [column_moments(lambda s, e, j=j: x[s:e, j].astype(np.float64), len(x), step)
               for j in range(x.shape[1])]
        mean = np.array([g[0] for g in got], dtype=np.float64)
        sd = np.array([g[1] for g in got], dtype=np.float64)
        return mean, np.where(sd > 0, sd, 1.0)

    code_mean, code_scale = moments(codes)
    mean, scale = moments(nums)
    return {"sizes": np.asarray([len(c) for c in counts], dtype=np.int64),
            "shares": (np.concatenate(counts) / n if counts else np.zeros(0)),
            "code_mean": code_mean, "code_scale": code_scale, "mean": mean, "scale": scale}


def _value_weights(state: dict[str, np.ndarray], space: str) -> np.ndarray:
    """The weight of each value's indicator: ``"onehot"`` one weight a column, making its
    indicators' total variance ``1 - sum_v p_v^2`` equal to 1; ``"chi2"`` ``1 / sqrt(p_v)``
    (the chi-square metric of MCA / FAMD)."""
    p = state["shares"]
    if space == "chi2":
        return 1.0 / np.sqrt(np.where(p > 0, p, 1.0))
    bounds = np.concatenate([[0], np.cumsum(state["sizes"])]).astype(np.int64)
    w = np.ones(len(p))
    for j in range(len(state["sizes"])):
        var = 1.0 - float((p[bounds[j]:bounds[j + 1]] ** 2).sum())
        w[bounds[j]:bounds[j + 1]] = 1.0 / np.sqrt(var) if var > 1e-12 else 1.0
    return w


def reference_input(codes: np.ndarray, nums: np.ndarray, state: dict[str, np.ndarray],
                    space: str = "codes") -> Any:
    """A candidate reference space: the numbers z-scored, beside the categorical columns as
    ``"codes"`` (label codes, z-scored: dense ``(n, m_cat + m_num)``), ``"onehot"`` (one-hot,
    each column's indicators of total variance 1, as one z-scored number's) or ``"chi2"``
    (one-hot, each indicator over the square root of its value's share); the one-hot spaces
    are sparse ``(n, sum(sizes) + m_num)``. ``codes`` are column-local value ids ``(n,
    m_cat)``; a code outside ``[0, size)`` (unseen by ``state``) has no indicator."""
    n = len(codes)
    codes = np.asarray(codes).reshape(n, -1)
    num = (np.asarray(nums, dtype=np.float64).reshape(n, -1) - state["mean"]) / state["scale"]
    if space == "codes":
        return np.hstack([(codes.astype(np.float64) - state["code_mean"]) / state["code_scale"],
                          num])
    sizes = state["sizes"]
    width = int(sizes.sum())
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    c = codes.astype(np.int64)
    ok = (c >= 0) & (c < sizes[None, :])
    cols = c + offsets[None, :]
    m = c.shape[1] + num.shape[1]
    if ok.all():  # every row holds one entry a column: build the CSR arrays directly
        indices = np.empty((n, m), dtype=np.int32)
        indices[:, :c.shape[1]] = cols
        indices[:, c.shape[1]:] = width + np.arange(num.shape[1])
        data = np.empty((n, m), dtype=np.float64)
        data[:, :c.shape[1]] = _value_weights(state, space)[cols]
        data[:, c.shape[1]:] = num
        return sparse.csr_matrix((data.ravel(), indices.ravel(),
                                  np.arange(0, n * m + 1, m, dtype=np.int64)),
                                 shape=(n, width + num.shape[1]))
    rows = np.broadcast_to(np.arange(n)[:, None], c.shape)[ok]
    cat = sparse.csr_matrix((_value_weights(state, space)[cols[ok]], (rows, cols[ok])),
                            shape=(n, width))
    return sparse.hstack([cat, sparse.csr_matrix(num)], format="csr")


class Reference:
    """The reference partition: k-means (``n_init=10``) of the input in one of
    :data:`REFERENCE_SPACES` (:func:`reference_partition` says which).

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        In the narrowest integer type that holds the clusters (``label_dtype``).
    state : dict
        :func:`reference_state` (for :meth:`predict`).
    space : str
        The space chosen.
    centers : ndarray of shape (n_clusters, n_columns)
    agreement : dict
        Each candidate space's mean adjusted Rand index to the other candidates.
    """

    def __init__(self, labels: np.ndarray, state: dict[str, np.ndarray], space: str,
                 centers: np.ndarray, agreement: dict[str, float]) -> None:
        self.labels = labels
        self.state = state
        self.space = space
        self.centers = centers
        self.agreement = agreement

    def predict(self, codes: np.ndarray, nums: np.ndarray) -> np.ndarray:
        """The nearest reference centre of every row (column-local codes, raw numbers)."""
        x = reference_input(codes, nums, self.state, self.space)
        d = (self.centers ** 2).sum(axis=1)[None, :] - 2.0 * np.asarray(x @ self.centers.T)
        return d.argmin(axis=1)


def reference_partition(codes: np.ndarray, nums: np.ndarray | CodedNumbers,
                        n_clusters: int, seed: int) -> Reference:
    """The reference: k-means (``n_init=10``) of the input in each of
    :data:`REFERENCE_SPACES`, and the partition that agrees most (mean adjusted Rand index)
    with the other two kept.

    No one space is right for every table: label codes give the categories an order their
    names have, not the data; one-hot with one weight a column lets a z-scored number
    outweigh a many-valued column's signal; the chi-square metric makes rows with rare
    values outliers. On planted tables (``studies/deep_guard_reference.py``) each fails
    somewhere and the vote of the three is never worse than the label codes (the only space
    before 24 November 2026), better where value names are in no particular order. A
    uniform sample of at most :data:`REFERENCE_SAMPLE` rows fits the k-means (shares and
    moments are those of every row); every row then goes to its nearest centre, chunk by
    chunk.
    """
    n = len(codes)
    state = reference_state(codes, nums)
    rows = (None if n <= REFERENCE_SAMPLE else  # no n-long permutation behind the draw
            np.sort(sample_without_replacement(n, REFERENCE_SAMPLE, random_state=seed)))
    sc, sn = (codes, nums[:]) if rows is None else (codes[rows], nums[rows])
    fits = {space: KMeans(int(n_clusters), n_init=10, random_state=seed).fit(
        reference_input(sc, sn, state, space)) for space in REFERENCE_SPACES}
    agreement = {a: float(np.mean([ari_codes(fits[a].labels_, fits[b].labels_)
                                   for b in REFERENCE_SPACES if b != a]))
                 for a in REFERENCE_SPACES}
    space = max(REFERENCE_SPACES, key=lambda a: (agreement[a], -REFERENCE_SPACES.index(a)))
    km = fits[space]
    dtype = label_dtype(int(n_clusters))
    ref = Reference(km.labels_.astype(dtype), state, space, km.cluster_centers_, agreement)
    if rows is not None:  # every row's nearest centre, written chunk by chunk
        ref.labels = np.empty(n, dtype=dtype)
        for s in range(0, n, 8192):
            ref.labels[s:s + 8192] = ref.predict(codes[s:s + 8192], nums[s:s + 8192])
    return ref


def effective_clusters(labels: np.ndarray) -> float:
    """``exp`` of the entropy of the cluster sizes: ``k`` for equal clusters, 1 for one."""
    counts = count_labels(labels)
    p = counts[counts > 0] / max(len(labels), 1)
    return float(np.exp(-(p * np.log(p)).sum()))


def diagnose(labels: np.ndarray, reference: np.ndarray) -> dict[str, Any]:
    """The guard's diagnosis of one partition against the reference partition.

    Returns ``effective`` (effective number of clusters), ``reference_effective``,
    ``ari_reference`` and ``reasons``: a list, empty for a healthy partition, else
    ``"collapse"`` and / or ``"lost-structure"``.
    """
    eff = effective_clusters(labels)
    eff_ref = effective_clusters(reference)
    ari = float(ari_codes(reference, labels))
    reasons = []
    if eff < COLLAPSE_RATIO * eff_ref:
        reasons.append("collapse")
    if ari < STRUCTURE_ARI:
        reasons.append("lost-structure")
    return {"effective": eff, "reference_effective": eff_ref, "ari_reference": ari,
            "reasons": reasons}


def agreement_scores(partitions: list[np.ndarray], reference: np.ndarray | None = None
                     ) -> np.ndarray:
    """Mean adjusted Rand index of every partition to the others (and to ``reference``, a
    further voter when given). One partition alone scores 0."""
    voters = list(partitions) + ([reference] if reference is not None else [])
    r = len(partitions)
    scores = np.zeros(r)
    if len(voters) < 2:
        return scores
    for i in range(r):
        scores[i] = np.mean([ari_codes(partitions[i], voters[j])
                             for j in range(len(voters)) if j != i])
    return scores


#: what a fallback returns (``FallbackWarning.partition``; ``catembed evaluate``'s JSON)
FALLBACK_PARTITION = "reference partition (k-means of the input)"


def fallback_reason(diagnoses: list[dict[str, Any]]) -> str:
    """Why the fit fell back: every restart's reasons, e.g. ``"every restart was
    degenerate (restart 0: collapsed; restart 1: diverged)"``."""
    what = "; ".join(f"restart {i}: {', '.join(d['reasons']) or 'healthy'}"
                     for i, d in enumerate(diagnoses))
    return f"every restart was degenerate ({what})"


def choose_restart(partitions: list[np.ndarray], objectives: list[float],
                   reference: np.ndarray | None, criterion: str, estimator: str,
                   stacklevel: int = 4) -> tuple[int | None, list[dict[str, Any]], np.ndarray]:
    """The restart to keep, or ``None`` for the fallback to the reference partition.

    Degenerate restarts (:func:`diagnose`) are never kept. Among the healthy ones
    A restart whose objective is not finite (diverged) is degenerate too.
    ``criterion="agreement"`` keeps the highest :func:`agreement_scores` (every restart and
    the reference vote), ``"objective"`` the lowest finite objective; ties keep the earlier
    restart. A warning names what the guard did when a restart was dropped or the fit fell
    back (``stacklevel`` points it at the caller of ``fit``). Returns ``(index, diagnoses,
    agreement)``.
    """
    check_option("restart_criterion", criterion, RESTART_CRITERIA)
    if reference is None:  # the guard is off: every restart counts as healthy
        diagnoses = [{"reasons": []} for _ in partitions]
    else:
        diagnoses = [diagnose(p, reference) for p in partitions]
    for d, value in zip(diagnoses, objectives, strict=True):
        if not np.isfinite(value):  # a diverged network is never kept
            d["reasons"].append("diverged")
    agreement = agreement_scores(partitions, reference)
    healthy = [i for i, d in enumerate(diagnoses) if not d["reasons"]]
    bad = [i for i, d in enumerate(diagnoses) if d["reasons"]]
    if not healthy:
        what = "; ".join(f"restart {i}: {', '.join(d['reasons'])} (effective clusters "
                         f"{d['effective']:.2f} vs {d['reference_effective']:.2f}, ARI to the "
                         f"reference {d['ari_reference']:.3f})" for i, d in enumerate(diagnoses))
        warnings.warn(FallbackWarning(
            f"{estimator}: every restart ended in a degenerate partition ({what}); falling "
            "back to the reference partition (k-means of the input; reference_.space says "
            "in which space). See degenerate_, fallback_ and fallback_reason_.",
            partition=FALLBACK_PARTITION, reason=fallback_reason(diagnoses)),
            stacklevel=stacklevel)
        return None, diagnoses, agreement
    if bad:
        warnings.warn(
            f"{estimator}: restart(s) {', '.join(map(str, bad))} of {len(partitions)} ended in "
            "a degenerate partition and were not kept (see restart_diagnoses_).",
            CatEmbedWarning, stacklevel=stacklevel)
    if criterion == "agreement":
        best = max(healthy, key=lambda i: (agreement[i], -i))
    else:
        values = [objectives[i] if np.isfinite(objectives[i]) else np.inf for i in healthy]
        best = healthy[int(np.argmin(values))]
    return best, diagnoses, agreement
