"""How far to trust a consensus partition (issue 38, part 5): label-free diagnostics of
:class:`catembed.cluster.Consensus` and the warnings they raise. Never silent: a partition
that is one column's values, members that disagree, or a partition the members' runs
hardly support each get a :class:`~catembed.CatEmbedWarning` saying so and what to do.

The figures (all label-free, all in ``[0, 1]`` up to ARI's small negative values):

* ``stability``: the weighted mean ARI between the final labels and every run of every
  member (the weights are the members' weights): how much of the final partition the runs
  reproduce. On tables without structure (independent columns) it stays below
  :data:`WEAK_STABILITY` (``studies/frozen/consensus_v2_design.py``).
* ``member_agreement``: the mean ARI between the first runs of every two members: whether
  the representations see the same groups at all.
* ``split_column`` / ``split_nmi``: the column whose values the final partition follows
  most closely and their normalised mutual information (1: the clusters are that column's
  values, or unions of them).
* ``cluster_jaccard``, ``cluster_dissolved`` and ``cluster_status`` (issue 53): per cluster,
  the resample Jaccard of fpc's clusterboot, the share of runs that dissolve it and its
  reading (``"stable"``, ``"doubtful"``, ``"dissolved"``;
  :mod:`catembed.cluster.consensus._clusterwise`).
* ``dependence_z`` (issue 53): the columns' dependence test (``dependence_z_``), run at
  any k; below :data:`~catembed.cluster.consensus._auto_k.DEPENDENCE_Z` a k >= 2 gets a warning.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..._utils._errors import CatEmbedWarning
from ..._utils._spelling import spell
from ...metrics import ari_codes
from ._clusterwise import (
    DISSOLVED,
    STABLE,
    cluster_jaccard,
    cluster_messages,
    evidence_messages,
    figure,
    reading,
)

__all__ = ["WEAK_STABILITY", "SPLIT_NMI", "DISAGREEMENT", "diagnose", "model_messages",
           "trust_line"]

#: below this stability the partition is called weak
WEAK_STABILITY = 0.3
#: at or above this NMI with one column the partition is called that column's split
SPLIT_NMI = 0.9
#: below this mean ARI between members they are said to disagree
DISAGREEMENT = 0.15

_MAX_ROWS = 20000
AUTO_PY = "n_clusters='auto'"


def column_nmi(codes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Normalised mutual information (arithmetic mean of the entropies) of ``labels`` with
    every column of ``codes`` (-1, a missing value, counted as a value of its own), from
    one contingency table of the labels against all the values of all the columns (one
    ``bincount`` over the cells, as the value statistics count), not a pass per column."""
    lab = np.asarray(labels, dtype=np.int64)
    c = np.asarray(codes, dtype=np.int64)
    c = c - c.min(axis=0)
    offs = np.concatenate([[0], np.cumsum(c.max(axis=0) + 1)])
    n, L, k = len(lab), int(offs[-1]), int(lab.max()) + 1
    joint = np.bincount((lab[:, None] * L + c + offs[:-1]).ravel(),
                        minlength=k * L).reshape(k, L) / n  # each column's block sums to 1
    pl, pv = np.bincount(lab, minlength=k) / n, joint.sum(axis=0)
    nz = joint > 0
    term = np.zeros_like(joint)
    term[nz] = joint[nz] * np.log(joint[nz] / np.outer(pl, pv)[nz])
    mi = np.add.reduceat(term.sum(axis=0), offs[:-1])
    hv = np.add.reduceat(-pv * np.log(np.where(pv > 0, pv, 1.0)), offs[:-1])
    hl = -float((pl[pl > 0] * np.log(pl[pl > 0])).sum())
    denom = 0.5 * (hl + hv)
    return np.where(denom > 0, np.clip(mi / np.where(denom > 0, denom, 1.0), 0.0, 1.0), 0.0)


def _nmi_codes(a: np.ndarray, b: np.ndarray) -> float:
    """:func:`column_nmi` of two code vectors."""
    return float(column_nmi(np.asarray(b)[:, None], a)[0])


def split_column(codes: np.ndarray, labels: np.ndarray, names: list[str],
                 rows: Any = slice(None)) -> tuple[str | None, float]:
    """The column whose values ``labels`` follows most closely, and that NMI."""
    if not len(names):
        return None, 0.0
    v = column_nmi(codes[rows], labels[rows])
    j = int(np.argmax(v))
    return (names[j], float(v[j])) if v[j] > 0 else (None, 0.0)


def diagnose(model: Any, codes: np.ndarray, runs_all: list[list[np.ndarray]],
             rs: np.random.RandomState, warn: bool = True) -> dict[str, Any]:
    """Set ``model.diagnostics_`` and warn where the partition should not be trusted."""
    labels = model.labels_
    n = len(labels)
    rows = np.sort(rs.choice(n, size=_MAX_ROWS, replace=False)) if n > _MAX_ROWS else \
        slice(None)
    w = np.asarray(model.member_weights_, dtype=np.float64)
    stability = float(np.dot(w, model.member_agreement_))
    firsts = [runs[0][rows] for runs in runs_all]
    pairs = [ari_codes(firsts[i], firsts[j]) for i in range(len(firsts))
             for j in range(i + 1, len(firsts))]
    agreement = float(np.mean(pairs)) if pairs else 1.0
    col, nmi = split_column(codes, labels, list(model.feature_names_), rows)
    k = int(model.n_clusters_)
    jac, gone = cluster_jaccard(labels, k, runs_all, w, rows)
    z = getattr(model, "dependence_z_", None)
    out = {"stability": stability, "member_agreement": agreement, "split_column": col,
           "split_nmi": float(nmi), "cluster_jaccard": jac, "cluster_dissolved": gone,
           "cluster_status": [reading(j) for j in jac] if k > 1 else ["one cluster"],
           "dependence_z": None if z is None else float(z)}
    model.diagnostics_ = out
    if warn:
        for message in model_messages(model):
            warnings.warn(message, CatEmbedWarning, stacklevel=4)
    return out


def model_messages(model: Any) -> list[str]:
    """The warnings :func:`diagnose`'s figures in ``model.diagnostics_`` call for, with the
    evidence behind k (``k_scores_``, when k was chosen)."""
    d, k = model.diagnostics_, int(model.n_clusters_)
    scores = getattr(model, "k_scores_", None)
    tried = None if scores is None else [int(c) for c in scores.index]
    return messages(d, k, scores is not None) + evidence_messages(
        d, k, tried, None if scores is None else scores["bic"])


def messages(d: dict[str, Any], k: int, chosen: bool = False) -> list[str]:
    """The warnings :func:`diagnose`'s figures call for (also printed by the CLI)."""
    out = []
    if d["split_column"] is not None and d["split_nmi"] >= SPLIT_NMI:
        out.append(
            f"the {k} clusters follow the values of one column, {d['split_column']!r} "
            f"(NMI {d['split_nmi']:.2f} with it): the other columns add little to this "
            f"partition. If that split is not what you are after, leave the column out "
            f"({spell('drop it from X', '--drop ' + str(d['split_column']), command=None)}) "
            "or try "
            "another k.")
    if d["member_agreement"] < DISAGREEMENT:
        out.append(
            f"the consensus members disagree (mean ARI "
            f"{figure(d['member_agreement'], DISAGREEMENT)} between "
            f"their partitions): the representations do not share one partition into {k} "
            "groups; read the clusters as one view of the table among several.")
    if d["stability"] < WEAK_STABILITY:
        out.append(
            f"weak structure: the members' runs reproduce the final partition with a mean "
            f"ARI of {figure(d['stability'], WEAK_STABILITY)} (below {WEAK_STABILITY}); "
            "the table may have no "
            "clear groups at this k" + (
                "." if chosen else f" (try {spell(AUTO_PY, '-k auto')})."))
    return out + cluster_messages(d, k)


def trust_line(model: Any) -> str:
    """The one-number trust line: how many clusters are stable, doubtful, dissolved, the
    weakest cluster's resample Jaccard, then the members' figures. At k = 1: no stability
    figure (it is 1 by construction), the evidence instead."""
    d = model.diagnostics_
    if int(model.n_clusters_) == 1:
        return ("  structure: one cluster; stability and agreement are 1 by construction at "
                "k = 1 and say nothing: the evidence is the dependence test above")
    jac, status = d["cluster_jaccard"], d["cluster_status"]
    counts = [f"{status.count(s)} {s}" for s in ("stable", "doubtful", "dissolved")
              if status.count(s)]
    weakest = int(np.nanargmin(jac)) if np.isfinite(jac).any() else 0
    col = (f"; closest single column {d['split_column']!r} (NMI {d['split_nmi']:.2f})"
           if d["split_column"] is not None else "")
    return (f"  structure: {', '.join(counts)} of {len(jac)} clusters (weakest: cluster "
            f"{weakest}, resample Jaccard {figure(jac[weakest], STABLE, DISSOLVED)}; >= "
            f"{STABLE} stable, <= {DISSOLVED} dissolved); stability "
            f"{figure(d['stability'], WEAK_STABILITY)} (mean ARI of the members' runs with "
            f"the partition), agreement between members "
            f"{figure(d['member_agreement'], DISAGREEMENT)}{col}")
