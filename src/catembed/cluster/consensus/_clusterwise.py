"""Per-cluster stability of a :class:`catembed.cluster.Consensus` partition and the
evidence behind its k, as warnings and printed lines (issue 53, items 2 to 4).

**Per-cluster stability** is the clusterwise Jaccard of fpc's ``clusterboot`` (Hennig
2007), read from the resampled k-means runs the members already fit (each run is fitted on
its own resample of the rows and labels every row; no run is added, no ``n x n`` matrix is
built): for a final cluster ``C`` and a run ``R``, the Jaccard similarity of ``C`` with the
run's most similar cluster, ``max_j |C & R_j| / |C | R_j|``, from one contingency table per
run (a ``bincount`` over the rows, at most 20,000 of them). A member's figure is the mean
over its runs; a cluster's, the members' figures weighted by the member weights (the
weighting of ``diagnostics_['stability']``). ``dissolved share`` is the weighted share of
runs in which the cluster's Jaccard is at most :data:`DISSOLVED`.

The reading is clusterboot's (its help page, after Hennig 2008): a run whose Jaccard is
``<= 0.5`` has dissolved the cluster; a mean of ``0.75`` or more is a valid, stable
cluster; between 0.6 and 0.75 the cluster indicates a pattern but its membership is
highly doubtful; below 0.6 it should not be trusted. Here, on the mean: ``>= 0.75``
**stable**, ``<= 0.5`` **dissolved**, in between **doubtful** (the help's 0.6-0.75
"highly doubtful" and 0.5-0.6 "should not be trusted" together). Unlike clusterboot, the
runs are those of several representations, so a cluster is stable when it survives both
resampling and the change of representation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._utils._spelling import spell

__all__ = ["STABLE", "DISSOLVED", "cluster_jaccard", "reading", "cluster_messages",
           "evidence_messages", "choice_lines", "stability_columns", "figure"]

#: a cluster whose mean resample Jaccard is at least this is stable (clusterboot)
STABLE = 0.75
#: a cluster whose mean resample Jaccard is at most this is dissolved (clusterboot's
#: ``dissolution``)
DISSOLVED = 0.5


def cluster_jaccard(labels: np.ndarray, k: int, runs_all: list[list[np.ndarray]],
                    weights: np.ndarray, rows: Any = slice(None)
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``(jaccard, dissolved share)`` per cluster ``0 .. k-1`` (NaN for an empty one)."""
    lab = np.asarray(labels, dtype=np.int64)[rows]
    size = np.bincount(lab, minlength=k)[:k]
    w = np.asarray(weights, dtype=np.float64)
    w = w / w.sum() if w.sum() > 0 else np.full(len(w), 1.0 / max(len(w), 1))
    jac, gone = np.zeros(k), np.zeros(k)
    for wm, runs in zip(w, runs_all, strict=True):
        per_run = []
        for run in runs:
            r = np.asarray(run, dtype=np.int64)[rows]
            kr = int(r.max()) + 1 if r.size else 1
            cont = np.bincount(lab * kr + r, minlength=k * kr)[:k * kr].reshape(k, kr)
            union = size[:, None] + cont.sum(axis=0)[None, :] - cont
            per_run.append(np.where(union > 0, cont / np.maximum(union, 1), 0.0).max(axis=1))
        per_run = np.asarray(per_run)
        jac += wm * per_run.mean(axis=0)
        gone += wm * (per_run <= DISSOLVED).mean(axis=0)
    empty = size == 0
    jac[empty], gone[empty] = np.nan, np.nan
    return jac, gone


def figure(value: float, *thresholds: float, digits: int = 2) -> str:
    """``value`` with ``digits`` decimals, or as many more (up to 6) as it takes for the
    printed figure to sit on the same side of every threshold as the value: a Jaccard of
    0.7496 is "0.7496 doubtful", not "0.75 doubtful" beside ">= 0.75 stable"."""
    text = f"{value:.{digits}f}"
    if not np.isfinite(value):
        return text
    for places in range(digits, 7):
        text = f"{value:.{places}f}"
        if all(np.sign(float(text) - t) == np.sign(value - t) for t in thresholds):
            break
    return text


def reading(j: float) -> str:
    """``"stable"``, ``"doubtful"`` or ``"dissolved"`` (``"empty"`` for NaN)."""
    if not np.isfinite(j):
        return "empty"
    return "stable" if j >= STABLE else ("dissolved" if j <= DISSOLVED else "doubtful")


def cluster_messages(d: dict[str, Any], k: int) -> list[str]:
    """The warning for doubtful or dissolved clusters (none at k = 1)."""
    if k < 2 or "cluster_jaccard" not in d:
        return []
    jac, status = d["cluster_jaccard"], d["cluster_status"]
    weak = [(c, j, s) for c, (j, s) in enumerate(zip(jac, status, strict=True))
            if s in ("doubtful", "dissolved")]
    if not weak:
        return []
    named = ", ".join(f"{c} {s} ({figure(j, STABLE, DISSOLVED)})" for c, j, s in weak)
    where = spell("diagnostics_['cluster_jaccard']", "the summary's cluster lines and --profiles",
                  elsewhere="catembed cluster's cluster lines and --profiles")
    verb = "is" if len(weak) == 1 else "are"
    return [f"{len(weak)} of the {k} clusters {verb} not reproduced by the members' resampled "
            f"runs: cluster {named} (mean resample Jaccard with the runs' most similar "
            f"cluster; fpc clusterboot's reading: >= {STABLE} stable, <= {DISSOLVED} "
            f"dissolved, doubtful between): which rows belong to a doubtful cluster is uncertain, "
            f"and a dissolved one is not a group at all. See {where}, or try another k."]


def _z_text(z: float) -> str:
    from ._auto_k import DEPENDENCE_Z

    return "infinitely many" if np.isinf(z) else figure(z, DEPENDENCE_Z, digits=1)


def _z_phrase(z: float) -> str:
    """``"3.9 null standard deviations above"`` (or below, for a negative z; 3.96 is
    "3.96", not "4.0", beside the threshold of 4)."""
    side = "above" if z >= 0 else "below"
    return f"{_z_text(abs(z))} null standard deviations {side}"


def evidence_messages(d: dict[str, Any], k: int, tried: list[int] | None,
                      bic: Any = None) -> list[str]:
    """The warnings about the evidence for k: no clear groups (k = 1 chosen), no evidence
    of groups at a k >= 2 (given, or chosen from a range without 1), a k chosen at the
    top of the range while the BIC still falls. ``tried``: the k tried (``None``: k given)."""
    from ._auto_k import DEPENDENCE_Z

    out = []
    z = d.get("dependence_z")
    if z is not None and not np.isnan(z):
        above = (f"the columns' pairwise dependence (their total mutual information) is "
                 f"{_z_phrase(z)} that of column-shuffled copies of the table, short of "
                 f"the {DEPENDENCE_Z:g} above them needed to count as evidence of groups")
        if k == 1 and tried is not None:
            out.append(f"no clear groups: {above}; every row is in cluster 0. See "
                       + spell("dependence_z_ and k_scores_.",
                               "the summary's dependence line.",
                               elsewhere="catembed cluster's dependence line."))
        elif k >= 2 and z < DEPENDENCE_Z:
            auto = spell("n_clusters='auto'", "-k auto")
            out.append(f"no evidence of groups: {above}, so the {k} clusters may cut a "
                       f"table without groups ({auto} would answer \"no clear groups\"). "
                       "Read them as a division of the rows, not as groups found.")
    wider = _wider(k, tried, bic)
    if wider:
        lo, hi = min(tried), max(tried)
        out.append(f"k = {k} is the top of the range tried ({lo} to {hi}) and the latent "
                   f"class BIC is still falling there ({bic.loc[k - 1]:.1f} at {k - 1}, "
                   f"{bic.loc[k]:.1f} at {k}): more groups may fit better; widen the "
                   f"range ({wider}).")
    return out


def _wider(k: int, tried: list[int] | None, bic: Any) -> str | None:
    """The wider range to try when k is the top of the range and the BIC still falls
    there (``-k 2:20`` / ``n_clusters='2:20'``), else ``None``."""
    if not tried or bic is None or k < 2 or k != max(tried) or len(tried) < 2:
        return None
    if k - 1 not in bic.index or not bic.loc[k] < bic.loc[k - 1]:
        return None
    lo, hi = max(min(tried), 2), 2 * max(tried)
    return spell(f"n_clusters='{lo}:{hi}'", f"-k {lo}:{hi}")


def stability_columns(model: Any) -> None:
    """Add ``jaccard`` and ``stability`` (the reading) per cluster to ``model.profiles_``."""
    prof = getattr(model, "profiles_", None)
    d = getattr(model, "diagnostics_", {})
    if prof is None or "cluster_jaccard" not in d:
        return
    jac = dict(enumerate(d["cluster_jaccard"]))
    status = dict(enumerate(d["cluster_status"]))
    prof["jaccard"] = prof["cluster"].map(jac).astype(float)
    prof["stability"] = prof["cluster"].map(status)


def choice_lines(model: Any) -> list[str]:
    """The printed reasoning behind k: the rule that decided it, with its value and
    threshold, the BIC per k marked only where the lowest one wins, the top of the range."""
    from ._auto_k import DEPENDENCE_Z

    z = getattr(model, "dependence_z_", None)
    scores = getattr(model, "k_scores_", None)
    k = int(model.n_clusters_)
    if z is None or np.isnan(z):
        return []
    near = "; near the threshold: another seed may answer otherwise" if abs(
        z - DEPENDENCE_Z) < 1 else ""
    test = (f"dependence test: the columns' total mutual information is {_z_phrase(z)} "
            f"column-shuffled copies' ({DEPENDENCE_Z:g} or more above: evidence of "
            f"groups{near})")
    if scores is None:
        return [f"  {test}"]
    bic = scores["bic"]
    many = [c for c in bic.index if c >= 2]
    cells = "  ".join(f"{c}{'*' if c == k else ''}: {v:.1f}" for c, v in bic.items())
    skipped = scores.attrs.get("not_fitted") or []
    stopped = []
    if skipped:
        last = many[-2:]  # the two rises in a row that stopped the search
        span = f"{skipped[0]}" if len(skipped) == 1 else f"{skipped[0]}-{skipped[-1]}"
        stopped = [f"  k = {span} not fitted: the BIC rose at k = "
                   f"{' and '.join(str(c) for c in last)} (the search stops after two "
                   "rises in a row)"]
    if k == 1:
        return [f"  k chosen without labels: no clear groups (k = 1), decided by the "
                f"{test}",
                f"  latent class BIC per k (not what decided; shown for reference): {cells}",
                *stopped]
    rule = ("the columns are dependent, so k >= 2" if z >= DEPENDENCE_Z and 1 in bic.index
            else "k >= 2 by the range")
    only = len(many) == 1  # nothing to compare: no "lowest"
    pick = "the only k >= 2 in the range" if only else "the lowest latent class BIC among k >= 2"
    lines = [f"  k chosen without labels: k = {k}, {pick} ({rule}); {test}",
             f"  latent class BIC per k >= 2{'' if only else ' (lowest wins)'}: "
             + "  ".join(f"{c}{'*' if c == k else ''}: {bic.loc[c]:.1f}" for c in many)]
    if 1 in bic.index:
        lower = bic.loc[1] < bic.loc[k]
        lines[-1] += (f"; k = 1 (independence): {bic.loc[1]:.1f}"
                      + (", lower, but ruled out by the dependence test" if lower else ""))
    lines += stopped
    wider = _wider(k, [int(c) for c in bic.index], bic)
    if wider:
        lines.append(f"  k = {k} is the top of the range tried and the BIC still falls "
                     f"there: widen it ({wider})")
    return lines
