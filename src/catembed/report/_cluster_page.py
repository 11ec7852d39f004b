"""One page for a :class:`~catembed.cluster.Consensus` partition (``catembed cluster TABLE
--report page.html``, issue 54).

The page is one self-contained HTML file (CSS and the report's small script inline, the
figures as base64 PNG; no network): the clusters with their sizes, stability, overlap and
what each one is and is not; how k was decided (the latent class BIC per k as a plot, and
the rule in words); how far to trust the partition (members, per-cluster resample Jaccard);
a map of the rows coloured by cluster with the overlap said in words
(:func:`catembed.report._cluster_figures.overlap`, ``n x k`` distances only); the profiles
(FactoMineR ``catdes``' statistics, :func:`catembed.cluster.describe_clusters`) as sortable
tables, each value drawn as two bars, its share in the cluster against its share overall.
Every user text (table name, column names, values, row labels) is escaped.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from .._utils._spelling import spell
from .._utils._text import html_text, value_texts
from ._cluster_figures import (
    NEAR,
    cluster_stability,
    colours,
    criteria_png,
    overlap,
    row_map_png,
)
from ._html import _CSS, _JS, _cell, table_html

__all__ = ["cluster_page", "write_cluster_page"]

#: per cluster, the most over- and under-represented values the profile table lists
MOST_OVER, MOST_UNDER = 10, 5

_PAGE_CSS = """
body{max-width:1280px}
.sw{display:inline-block;width:.85em;height:.85em;border-radius:50%;margin-right:.35em;
vertical-align:-.05em;border:1px solid rgba(0,0,0,.25)}
.bars{display:inline-block;width:110px;vertical-align:middle;margin-right:.5em;
background:#f6f6f6}
.bars i{display:block;height:7px} .bars i.all{background:#aaa;margin-top:1px}
td.bar{white-space:nowrap;font-variant-numeric:tabular-nums}
table.clusters .bars{width:56px} td.nw{white-space:nowrap} td.txt{min-width:12em}
.lead{font-size:1.05em} td.txt{max-width:34em;font-size:.92em}
.ok{color:#1a7f37} .bad{color:#b42318} .mid{color:#8a4b00}
pre.reason{white-space:pre-wrap;background:#f7f7f7;padding:.5em;font-size:.85em}
"""


# the profile tables' cluster filter (a select; ``#show=C`` for checks in a browser)
_FILTER_JS = r"""
(function(){
var sel=document.getElementById('pfilter');if(!sel){return;}
function show(c){sel.value=c;
  Array.prototype.forEach.call(document.querySelectorAll('table.profiles tbody tr,'+
    'table.numbers tbody tr'),function(r){
    r.style.display=(c===''||r.cells[0].textContent.trim()===c)?'':'none';});}
sel.addEventListener('change',function(){show(sel.value);});
var m=/^show=(\d+)$/.exec(decodeURIComponent(location.hash.slice(1)));
if(m){show(m[1]);}
document.body.setAttribute('data-filter','ran');
})();
"""


def _raw(html: str, cls: str = "") -> dict[str, str]:
    return {"html": html, "cls": cls}


def _table(header: list[str], rows: list[list[Any]], cls: str, sortable: bool = True) -> str:
    """:func:`~catembed.report._html.table_html` with cells that may be prepared HTML
    (``_raw``; everything else escaped there)."""
    if not any(isinstance(v, dict) for r in rows for v in r):
        return table_html(header, rows, cls, sortable)
    classes = " ".join(c for c in (cls, "sortable" if sortable else "") if c)
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)

    def cell(v: Any) -> str:
        if isinstance(v, dict):
            return f"<td class=\"{v['cls']}\">{v['html']}</td>" if v["cls"] else \
                f"<td>{v['html']}</td>"
        return _cell(v)

    body = "".join("<tr>" + "".join(cell(v) for v in r) + "</tr>" for r in rows)
    return (f"<table class=\"{html_text(classes)}\"><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def _swatch(c: int, cols: list[str]) -> dict[str, str]:
    return _raw(f"<span class=\"sw\" style=\"background:{cols[c % len(cols)]}\"></span>{c}",
                "num")


def _bars(share: float, overall: float, colour: str, scale: float = 1.0,
          text: str | None = None) -> dict[str, str]:
    """Two bars: the share in the cluster (its colour) over the share overall (grey), both
    as a fraction of ``scale`` (1: the whole bar is 100 %)."""
    w1, w2 = (100 * min(v / scale, 1.0) if scale > 0 else 0.0 for v in (share, overall))
    return _raw(f"<span class=\"bars\" title=\"in the cluster {share:.1%}, overall "
                f"{overall:.1%}\"><i style=\"width:{w1:.1f}%;background:{colour}\">"
                f"</i><i class=\"all\" style=\"width:{w2:.1f}%\"></i></span>"
                + (text if text is not None else f"{share:.0%} vs {overall:.0%}"), "bar")


def _v(v: float) -> dict[str, str]:
    """A v-test cell, signed (sorts as a number)."""
    return _raw(f"{v:+.2f}" if np.isfinite(v) else ("+inf" if v > 0 else "-inf"), "num")


def _p(p: float) -> dict[str, str]:
    return _raw(f"{p:.2g}", "num")


def _item(r: Any) -> str:
    if r.kind == "number":
        return f"{r.column} mean {r.mean_in_cluster:.4g} (all {r.mean_overall:.4g})"
    return f"{r.column}={r.value} ({r.share_in_cluster:.0%} vs {r.share_overall:.0%})"


def _reading(status: str) -> str:
    cls = {"stable": "ok", "doubtful": "mid", "dissolved": "bad"}.get(status, "")
    return f"<span class=\"{cls}\">{html_text(status)}</span>"


def _paragons(prof: Any, ids: Any) -> dict[int, list[str]]:
    """Per cluster, the labels of its paragons (an id column's value when given)."""
    out: dict[int, list[str]] = {}
    rows = prof[prof["kind"] == "paragon"] if "kind" in prof else prof.iloc[:0]
    named = {}
    if ids is not None and ids.shape[1]:  # a paragon's value is its row's index label
        named = dict(zip(map(str, ids.index), value_texts(ids.iloc[:, 0]).tolist(), strict=True))
    for r in rows.itertuples():
        label = named.get(str(r.value), r.value)
        out.setdefault(int(r.cluster), []).append(str(label))
    return out


def _clusters(model: Any, prof: Any, labels: np.ndarray, ov: dict[str, Any], cols: list[str],
              ids: Any) -> list[str]:
    """The clusters: size, stability, overlap, what each is and is not, paragons."""
    from ..cluster.consensus._clusterwise import DISSOLVED, STABLE, figure
    from ..cluster.consensus._describe import summary_rows

    k = int(model.n_clusters_)
    sizes = np.bincount(labels, minlength=k)
    n = max(len(labels), 1)
    top = max(sizes.max() / n, 1.0 / k)  # the bars' scale: the largest share, or 1/k
    stab = cluster_stability(model)
    para = _paragons(prof, ids)
    summary = {c: (over, under) for c, _, over, under in summary_rows(prof)}
    rows = []
    for c in range(k):
        over, under = summary.get(c, (prof.iloc[:0], prof.iloc[:0]))
        row = [_swatch(c, cols), int(sizes[c]),
               _bars(sizes[c] / n, 1.0 / k, cols[c], top, f"{sizes[c] / n:.0%}")]
        if stab is not None:
            j, s = stab[c]
            row.append(_raw(f"{figure(j, STABLE, DISSOLVED)} {_reading(s)}", "num nw"))
        if k > 1:
            sil, bor = ov["cluster_silhouette"][c], ov["cluster_borderline"][c]
            row.append("" if sil is None else round(sil, 2))
            row.append("" if bor is None else f"{bor:.0%}"
                       + (f" (to {ov['towards'][c]})" if ov["towards"][c] >= 0 else ""))
        row.append(_raw("<br>".join(html_text(_item(r)) for r in over.itertuples())
                        or "no value stands out", "txt"))
        row.append(_raw("<br>".join(html_text(_item(r)) for r in under.itertuples()), "txt"))
        row.append(", ".join(para.get(c, [])[:3]))
        rows.append(row)
    head = ["cluster", "rows", "share"]
    head += ["stability"] if stab is not None else []
    head += ["silhouette", "borderline"] if k > 1 else []
    head += ["is (largest v-test first)", "is not (least v-test)", "paragons"]
    out = [_table(head, rows, "clusters")]
    notes = [f"Share: the cluster's share of the rows (the bars to the scale of the largest; "
             f"grey: 1/k = {1 / k:.0%}, equal sizes)."]
    if stab is not None:
        notes.append("Stability: the cluster's mean resample Jaccard with the members' "
                     "runs (fpc clusterboot's reading: 0.75 or more stable, 0.5 or less "
                     "dissolved, doubtful between).")
    if k > 1:
        notes.append(f"Silhouette: the mean centroid silhouette of its rows (1: at their "
                     f"centre, 0: midway to another); borderline: its rows whose own centre "
                     f"is at least {NEAR:.0%} as far as the nearest other centre (and the "
                     "cluster most of them lean to).")
    notes.append("Is / is not: significant values (p <= 0.05), each column once, share in "
                 "the cluster vs overall. Paragons: the rows nearest the centre"
                 + (" (their id)." if ids is not None and ids.shape[1] else
                    " (row labels: positions from 0 in a plain file)."))
    out.append(f"<p class=\"note\">{html_text(' '.join(notes))}</p>")
    return out


def _k_section(model: Any) -> list[str]:
    """How k was decided: the BIC per k as a plot and the rule in words."""
    k = int(model.n_clusters_)
    scores = getattr(model, "k_scores_", None)
    out = ["<h2>How k was decided</h2>"]
    from ..cluster.consensus._clusterwise import choice_lines

    lines = [line.strip() for line in choice_lines(model)]  # -k on the command line
    if scores is None:
        out.append(f"<p>k = {k} was given ({html_text(spell('n_clusters', '-k'))}); no "
                   "criterion was computed to choose it.</p>")
    else:
        tried = [int(c) for c in scores.index if int(c) >= 2] if k >= 2 else None
        out.append(f"<img class=\"figure\" alt=\"latent class BIC per k\" "
                   f"src=\"data:image/png;base64,{criteria_png(scores, k, tried)}\">")
    if lines:
        out.append(f"<pre class=\"reason\">{html_text(chr(10).join(lines))}</pre>")
    return out


def _trust(model: Any, ov: dict[str, Any]) -> list[str]:
    """The members' figures and the partition's overall stability."""
    from ..cluster.consensus._clusterwise import figure
    from ..cluster.consensus._trust import DISAGREEMENT, WEAK_STABILITY

    d = model.diagnostics_
    k = int(model.n_clusters_)
    out = ["<h2>How far to trust it</h2>"]
    facts = []
    if k > 1:
        facts.append(f"Stability {figure(d['stability'], WEAK_STABILITY)} (mean ARI of the "
                     f"members' runs with the partition), agreement between the members "
                     f"{figure(d['member_agreement'], DISAGREEMENT)}")
    else:
        facts.append("One cluster: stability and agreement are 1 by construction and say "
                     "nothing; the evidence is the dependence test above")
    if d.get("split_column") is not None:
        facts.append(f"the single column the partition follows most closely is "
                     f"{d['split_column']!r} (NMI {d['split_nmi']:.2f}; 1 would mean the "
                     "clusters are that column's values)")
    chosen = getattr(model, "selected_", None)
    if chosen not in (None, "concat", "coassoc"):
        facts.append(f"the partition is member {chosen}'s own k-means partition (it agrees "
                     "more with the other candidates than the combined one)")
    out.append(f"<p>{html_text('; '.join(facts))}.</p>")
    if k > 1:
        rows = [[m, round(float(s), 3), round(float(w), 3), round(float(a), 3)]
                for m, s, w, a in zip(model.members_, model.member_stability_,
                                      model.member_weights_, model.member_agreement_,
                                      strict=True)]
        out.append(_table(["member", "stability", "weight", "agreement"], rows, "members"))
        out.append("<p class=\"note\">Per member: stability, the mean ARI between its own "
                   "k-means runs; weight, its share in the consensus (from its agreement with "
                   "the other members); agreement, the mean ARI of its runs with the final "
                   "partition.</p>")
    if model.failed_members_:
        out.append(f"<p class=\"note\">Left out (refused on this table): "
                   f"{html_text(', '.join(model.failed_members_))}.</p>")
    return out


def overlap_words(ov: dict[str, Any], k: int) -> str:
    """The overlap of the clusters said in words (empty at k = 1)."""
    if k < 2 or ov["borderline"] is None:
        return ""
    s = ov["silhouette"]
    grade = ("well apart" if s >= 0.5 else "partly overlapping" if s >= 0.25
             else "heavily overlapping")
    text = (f"The clusters are {grade}: {ov['borderline']:.0%} of the rows are borderline "
            f"(their own cluster's centre is at least {NEAR:.0%} as far as the nearest other "
            f"centre), and the mean centroid silhouette is {s:.2f} (1: every row at its "
            "centre; 0: midway between two; Kaufman and Rousseeuw's reading: above 0.5 "
            "reasonable, 0.25 to 0.5 weak, below 0.25 no substantial structure).")
    share = [(b if b is not None else -1.0) for b in ov["cluster_borderline"]]
    worst = int(np.argmax(share))
    if share[worst] > 0 and ov["towards"][worst] >= 0:
        text += (f" Most overlapping: cluster {worst}, {share[worst]:.0%} of its rows "
                 f"borderline, most of them towards cluster {ov['towards'][worst]}.")
    return text


def _map(Z: np.ndarray, labels: np.ndarray, ov: dict[str, Any], k: int, seed: int) -> list[str]:
    png, info = row_map_png(Z, labels, seed)
    out = ["<h2>Map of the rows</h2>"]
    words = overlap_words(ov, k)
    if words:
        out.append(f"<p class=\"lead\">{html_text(words)}</p>")
    out.append(f"<img class=\"figure\" alt=\"rows coloured by cluster\" "
               f"src=\"data:image/png;base64,{png}\">")
    out.append(f"<p class=\"note\">The rows' consensus coordinates (Consensus.transform) on "
               f"their first two principal axes, which show {info['explained']:.0%} of the "
               "coordinates' variance: clusters that overlap on the map may be apart on the "
               "other axes. The overlap figures above are computed in all the coordinates "
               "(each row's distance to every cluster centre, never to every other row).</p>")
    return out


def _profiles(prof: Any, cols: list[str], n_rows: int) -> list[str]:
    """The sortable profile tables: values (bars) and numbers."""
    from ..cluster.consensus._describe import PROBA

    out = ["<h2>Profiles: what each cluster holds</h2>"]
    prof = prof.rename(columns={"Cla/Mod": "cla_mod", "p.value": "p", "v.test": "v"})
    cat = prof[(prof["kind"] == "category") & (prof["p"] <= PROBA)]
    rows = []
    for c, g in cat.groupby("cluster", sort=True):
        over = g[g["v"] > 0].sort_values("v", ascending=False, kind="stable")
        under = g[g["v"] < 0].sort_values("v", kind="stable")
        for r in list(over.head(MOST_OVER).itertuples()) + list(
                under.head(MOST_UNDER).itertuples()):
            rows.append([_swatch(int(c), cols), r.column, str(r.value),
                         _bars(float(r.share_in_cluster), float(r.share_overall),
                               cols[int(c) % len(cols)]),
                         round(float(r.cla_mod), 1), _v(float(r.v)), _p(float(r.p))])
    if rows:
        k = len(cols)
        options = "".join(f"<option value=\"{c}\">cluster {c}</option>" for c in range(k))
        out.append("<p><label>Show <select id=\"pfilter\"><option value=\"\">every cluster"
                   f"</option>{options}</select></label></p>")
        out.append(_table(["cluster", "column", "value", "in cluster vs overall",
                           "Cla/Mod %", "v-test", "p-value"], rows, "profiles"))
        out.append(f"<p class=\"note\">Per cluster its {MOST_OVER} most over-represented and "
                   f"{MOST_UNDER} most under-represented values with p <= {PROBA} "
                   "(FactoMineR catdes' statistics: the bars are Mod/Cla, the share of the "
                   "cluster holding the value, over Global, its share overall; Cla/Mod, the "
                   "share of the value's rows that fall in the cluster; v-test, the "
                   "hypergeometric test's normal quantile). Click a column head to sort; "
                   "--profiles FILE.csv writes every row.</p>")
    else:
        out.append("<p>No value is significantly over- or under-represented in any cluster "
                   f"(p <= {PROBA}).</p>")
    num = prof[(prof["kind"] == "number") & (prof["p"] <= PROBA)]
    if len(num):
        nrows = [[_swatch(int(r.cluster), cols), r.column, float(r.mean_in_cluster),
                  float(r.mean_overall), float(r.median_in_cluster), float(r.median_overall),
                  _v(float(r.v)), _p(float(r.p)), round(float(r.Eta2), 3)]
                 for r in num.sort_values(["cluster", "v"], ascending=[True, False],
                                          kind="stable").itertuples()]
        out.append(_table(["cluster", "number", "mean in cluster", "mean overall",
                           "median in cluster", "median overall", "v-test", "p-value",
                           "Eta2"], nrows, "numbers"))
        out.append("<p class=\"note\">Numeric columns whose mean in the cluster differs from "
                   f"the table's (p <= {PROBA}); Eta2: the share of the column's variance the "
                   "partition explains.</p>")
    return out


def _target(labels: np.ndarray, target: Any, target_name: str, k: int,
            cols: list[str]) -> list[str]:
    import pandas as pd
    from sklearn.metrics import adjusted_rand_score

    y = np.asarray(target, dtype=object)
    has = pd.notna(pd.Series(y)).to_numpy()
    if not has.any():
        return []
    yt = value_texts(y[has]).astype(str)
    ari = adjusted_rand_score(yt, labels[has])
    out = [f"<h2>Against the target {html_text(repr(str(target_name)))} (not used in the "
           "fit)</h2>",
           f"<p>ARI {ari:.3f} on the {int(has.sum())} rows that have a value.</p>"]
    classes, inv = np.unique(yt, return_inverse=True)
    if len(classes) <= 30:
        counts = np.zeros((k, len(classes)), dtype=np.int64)
        np.add.at(counts, (labels[has], inv), 1)
        rows = [[_swatch(c, cols), *counts[c].tolist()] for c in range(k)]
        out.append(_table(["cluster", *classes.tolist()], rows, "target"))
    return out


def cluster_page(model: Any, X: Any, *, name: str = "table", target: Any = None,
                 target_name: str = "target", ids: Any = None, seed: int = 0,
                 notes: list[str] | None = None) -> str:
    """The cluster page of a fitted :class:`~catembed.cluster.Consensus` as one HTML string.

    Parameters
    ----------
    model : fitted Consensus
    X : DataFrame
        The table it was fitted on (its coordinates are ``model.transform(X)``).
    name : str
        The table's name in the title.
    target : array-like of shape (n_samples,), optional
        Classes never seen by the fit: their ARI with the clusters and a cross table.
    target_name : str
    ids : DataFrame, optional
        Identifier columns aligned with ``X``: the paragons are named by the first.
    seed : int
        The map's row sample.
    notes : list of str, optional
        Lines added at the end (escaped).
    """
    from sklearn.utils.validation import check_is_fitted

    from .._utils._validation import CatEmbedError
    from .._version import __version__
    from ..cluster.consensus._degenerate import answer_messages
    from ..cluster.consensus._describe import describe_clusters

    check_is_fitted(model, "labels_")
    if not hasattr(model, "diagnostics_"):  # a file saved by an older catembed
        raise CatEmbedError(
            "the cluster page reads the fit's diagnostics (diagnostics_: stability, "
            "warnings, the choice of k), which this model does not have (a file saved by "
            "an older catembed keeps none); fit the model on the table again and write the "
            "page from that fit.")
    labels = np.asarray(model.labels_, dtype=np.int64)
    k = int(model.n_clusters_)
    Z = np.asarray(model.transform(X), dtype=np.float64)
    prof = getattr(model, "profiles_", None)
    if prof is None:  # a loaded model: the profiles again, paragons by the fitted centres
        prof = describe_clusters(X, labels, numeric_features=model.numeric_features_,
                                 embedding=Z,
                                 centers=model.cluster_centers_[np.unique(labels)])
    ov = overlap(Z, model.cluster_centers_, labels)
    cols = colours(k)
    numeric = list(getattr(model, "numeric_features_", []))
    how = "chosen without labels" if getattr(model, "k_scores_", None) is not None else "given"
    lead = (f"{len(labels):,} rows, {len(model.feature_names_)} columns"
            + (f" ({len(numeric)} numeric, cut into {model.n_bins} quantile bins)"
               if numeric else "")
            + f" -> {k} cluster{'s' if k != 1 else ''} (k {how}); consensus of "
            f"{len(model.members_)} members ({', '.join(model.members_)}), seed "
            f"{model.random_state}." + (" No clear groups: every row is in cluster 0 (below, "
                                        "what decided)." if k == 1 else ""))
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>catembed "
             f"cluster: {html_text(name)}</title><style>{_CSS}{_PAGE_CSS}</style></head><body>",
             f"<h1>catembed cluster: {html_text(name)}</h1>",
             f"<p class=\"lead\">{html_text(lead)}</p>"]
    said = answer_messages(model)  # the answer's warnings, as the fit gave them (issue 53)
    if said:
        parts.append(f"<h2>Warnings ({len(said)})</h2>")
        parts += [f"<p class=\"warn\">{html_text(m)}</p>" for m in said]
    parts.append("<h2>Clusters</h2>")
    parts += _clusters(model, prof, labels, ov, cols, ids)
    parts += _k_section(model)
    parts += _trust(model, ov)
    if k > 1:
        parts += _map(Z, labels, ov, k, seed)
    parts += _profiles(prof, cols, len(labels))
    if target is not None:
        parts += _target(labels, target, target_name, k, cols)
    for n in notes or []:
        parts.append(f"<p class=\"note\">{html_text(n)}</p>")
    parts.append(f"<div id=\"vtip\"></div><p class=\"note\">catembed {__version__}</p>"
                 f"<script>{_JS}</script><script>{_FILTER_JS}</script></body></html>")
    return "\n".join(parts)


def write_cluster_page(model: Any, X: Any, path: str | os.PathLike, **kwargs: Any) -> Path:
    """Write :func:`cluster_page` to ``path`` through a temporary file renamed on success."""
    from ..io import write_text_atomic

    return write_text_atomic(path, cluster_page(model, X, **kwargs))
