"""The degeneracy guard and the restart criterion of the deep clusterers (issue 20, item 3).

A deep clusterer can end in a partition that says little about the table: the clustering
loss sharpens the soft assignment until almost every row sits in one cluster, or the latent
space forgets the structure of the input and k-means cuts it anywhere. Neither shows in the
training loss. This module gives every deep clusterer (:class:`~catembed.deep.IDEC`,
:class:`~catembed.deep.AutoencoderKMeans`, :class:`~catembed.deep.AttentionClusterer`,
:class:`~catembed.deep.ThesisClusterer`) the same label-free checks, made against a
reference partition that needs no network:

* **the standardised input** (:func:`standardised_input`): label codes of the categorical
  columns and the numbers, every column z-scored, the input of the Fehling thesis'
  classical "k-means" baseline; its k-means partition (:func:`reference_partition`,
  ``n_init=10``) is the *reference*.
* **collapse**: the effective number of clusters ``exp(H(sizes))`` (:func:`effective_clusters`)
  of a restart's partition is below :data:`COLLAPSE_RATIO` times that of the reference.
* **lost structure**: the adjusted Rand index between a restart's partition and the
  reference is below :data:`STRUCTURE_ARI`: the latent space's clusters are as good as
  independent of the input's own.

A restart with either diagnosis is *degenerate* and is not kept; when every restart is, the
fit falls back to the reference partition and warns (:class:`~catembed.CatEmbedWarning`).

The restart kept among the healthy ones follows ``restart_criterion``: ``"agreement"`` (the
default) keeps the restart whose partition agrees most, by mean pairwise adjusted Rand index,
with the other restarts and the reference (a consensus choice: the partition the most runs
would vote for), ``"objective"`` the lowest final training loss (the rule before).

Both thresholds were chosen on planted synthetic mixed tables only
(``benchmarks/deep_guard_design.py``; the evidence is in ``docs/deep.md``), never on a data
set with labels.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score

from .._params import check_option
from .._validation import CatEmbedWarning

__all__ = [
    "COLLAPSE_RATIO",
    "RESTART_CRITERIA",
    "STRUCTURE_ARI",
    "Reference",
    "agreement_scores",
    "choose_restart",
    "diagnose",
    "effective_clusters",
    "reference_partition",
    "standardised_input",
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


def standardised_input(codes: np.ndarray, nums: np.ndarray, mean: Any = None,
                       scale: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Label codes and numbers side by side, every column z-scored.

    ``codes`` are column-local value ids ``(n, m_cat)`` (sorted categories, as scikit-learn's
    ``OrdinalEncoder``), ``nums`` the numbers ``(n, m_num)``. ``mean`` and ``scale`` (fitted
    ones, for new rows) default to those of the rows themselves; a constant column gets scale
    1. Returns ``(Z, mean, scale)``.
    """
    x = np.hstack([np.asarray(codes, dtype=np.float64).reshape(len(codes), -1),
                   np.asarray(nums, dtype=np.float64).reshape(len(codes), -1)])
    if mean is None:
        mean = x.mean(axis=0)
        scale = x.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
    return (x - mean) / scale, mean, scale


class Reference:
    """The reference partition: k-means (``n_init=10``) of the standardised input.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
    mean, scale : ndarray
        The standardisation (for :meth:`predict`).
    centers : ndarray of shape (n_clusters, n_columns)
    """

    def __init__(self, labels: np.ndarray, mean: np.ndarray, scale: np.ndarray,
                 centers: np.ndarray) -> None:
        self.labels = labels
        self.mean = mean
        self.scale = scale
        self.centers = centers

    def predict(self, codes: np.ndarray, nums: np.ndarray) -> np.ndarray:
        """The nearest reference centre of every row (column-local codes, raw numbers)."""
        z, _, _ = standardised_input(codes, nums, self.mean, self.scale)
        d = ((z[:, None, :] - self.centers[None]) ** 2).sum(axis=2)
        return d.argmin(axis=1)


def reference_partition(codes: np.ndarray, nums: np.ndarray, n_clusters: int,
                        seed: int) -> Reference:
    """k-means of :func:`standardised_input` (a uniform sample of at most
    :data:`REFERENCE_SAMPLE` rows fits it; every row goes to its nearest centre)."""
    n = len(codes)
    if n <= REFERENCE_SAMPLE:
        z, mean, scale = standardised_input(codes, nums)
        km = KMeans(int(n_clusters), n_init=10, random_state=seed).fit(z)
        return Reference(np.asarray(km.labels_, dtype=np.int64), mean, scale,
                         km.cluster_centers_)
    # a larger table: the standardisation column by column, the sample standardised alone
    # and every row assigned chunk by chunk (no n x m float64 copy of the table)
    columns = [codes[:, j] for j in range(codes.shape[1])] + \
        [nums[:, j] for j in range(nums.shape[1])]
    moments = [(float(c.mean()), float(c.std()))
               for c in (np.asarray(col, dtype=np.float64) for col in columns)]
    mean = np.array([m for m, _ in moments])
    scale = np.array([sd for _, sd in moments])
    scale = np.where(scale > 0, scale, 1.0)
    rows = np.random.RandomState(seed).choice(n, REFERENCE_SAMPLE, replace=False)
    km = KMeans(int(n_clusters), n_init=10, random_state=seed).fit(
        standardised_input(codes[rows], nums[rows], mean, scale)[0])
    ref = Reference(np.empty(0, dtype=np.int64), mean, scale, km.cluster_centers_)
    ref.labels = np.concatenate([ref.predict(codes[s:s + 8192], nums[s:s + 8192])
                                 for s in range(0, n, 8192)]).astype(np.int64)
    return ref


def effective_clusters(labels: np.ndarray) -> float:
    """``exp`` of the entropy of the cluster sizes: ``k`` for equal clusters, 1 for one."""
    counts = np.bincount(np.asarray(labels, dtype=np.int64))
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
    ari = float(adjusted_rand_score(reference, labels))
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
        scores[i] = np.mean([adjusted_rand_score(partitions[i], voters[j])
                             for j in range(len(voters)) if j != i])
    return scores


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
        warnings.warn(
            f"{estimator}: every restart ended in a degenerate partition ({what}); falling "
            "back to the k-means partition of the standardised input (label codes and "
            "numbers, z-scored). See degenerate_ and fallback_.", CatEmbedWarning,
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
