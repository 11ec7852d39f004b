"""The page of ``catembed report``: one self-contained HTML string from a
:class:`~catembed.report.ReportData`.

No external resource: CSS and a small script inline, the static figures as base64 PNG. The
script (plain JavaScript, no library, no network) adds what a static picture cannot show:

* the interactive value map: an SVG scatter of *every* value (the static value map labels
  only those that carry its structure) with the value's name, column and frequency on hover,
  zoom with the mouse wheel and reset with a double click;
* sortable tables: a click on a column head sorts by it (numbers as numbers; again to
  reverse).

For checks in a headless browser the page reads two optional URL fragments once the script
ran: ``#sort=TABLE:COLUMN:asc|desc`` sorts the table of class ``TABLE`` and
``#hover=I`` shows the hover label of point ``I``.
"""

from __future__ import annotations

from typing import Any

from .._utils._text import html_text, script_json

__all__ = ["render_html"]

_CSS = """
body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;max-width:1100px;
color:#222;padding:0 1em}
h1{font-size:1.6em} h2{font-size:1.2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}
th{background:#f3f3f3} td.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th{cursor:pointer} table.sortable th[data-dir=asc]::after{content:" \\25B2"}
table.sortable th[data-dir=desc]::after{content:" \\25BC"}
img{max-width:100%;height:auto;border:1px solid #eee} .note{color:#666;font-size:.85em}
.warn{color:#8a4b00}
#vmap{border:1px solid #eee;background:#fff;width:100%;max-width:900px;height:auto}
#vmap circle{stroke:#fff;stroke-width:.6} #vmap circle:hover,#vmap circle.on{stroke:#000;
stroke-width:1.5}
#vtip{position:absolute;pointer-events:none;background:#222;color:#fff;font-size:12px;
padding:2px 6px;border-radius:3px;display:none} .legend span{display:inline-block;
margin-right:1em;font-size:.85em} .legend i{display:inline-block;width:.8em;height:.8em;
border-radius:50%;margin-right:.3em;vertical-align:middle}
"""

# the script: the value map from the JSON in #vdata, sortable tables, the test fragments
_JS = r"""
(function(){
var NS='http://www.w3.org/2000/svg';
function num(t){var s=String(t).replace('%','').trim();
  if(/^[+-]?inf\b/.test(s)){return s.charAt(0)==='-'?-Infinity:Infinity;}
  var v=parseFloat(s);return isNaN(v)?null:v;}
function sortTable(tb,col,dir){
  var body=tb.tBodies[0],rows=Array.prototype.slice.call(body.rows);
  rows.sort(function(a,b){var x=a.cells[col].textContent,y=b.cells[col].textContent,
    nx=num(x),ny=num(y),c=(nx!==null&&ny!==null)?(nx===ny?0:nx-ny):x.localeCompare(y);
    return dir==='asc'?c:-c;});
  rows.forEach(function(r){body.appendChild(r);});
  Array.prototype.forEach.call(tb.tHead.rows[0].cells,function(th,i){
    if(i===col){th.setAttribute('data-dir',dir);}else{th.removeAttribute('data-dir');}});
}
Array.prototype.forEach.call(document.querySelectorAll('table.sortable'),function(tb){
  Array.prototype.forEach.call(tb.tHead.rows[0].cells,function(th,i){
    th.title='click to sort';
    th.addEventListener('click',function(){
      sortTable(tb,i,th.getAttribute('data-dir')==='asc'?'desc':'asc');});});});
var el=document.getElementById('vdata'),svg=document.getElementById('vmap');
var tip=document.getElementById('vtip');
if(el&&svg){
  var d=JSON.parse(el.textContent),W=860,H=560,P=30,xs=d.x,ys=d.y;
  var x0=d.lim[0][0],x1=d.lim[0][1],y0=d.lim[1][0],y1=d.lim[1][1];
  var sx=(W-2*P)/((x1-x0)||1),sy=(H-2*P)/((y1-y0)||1);
  var view=[0,0,W,H];svg.setAttribute('viewBox',view.join(' '));
  var r=Math.max(2.5,Math.min(6,300/Math.sqrt(xs.length+1)));
  xs.forEach(function(x,i){
    var c=document.createElementNS(NS,'circle'),out=x<x0||x>x1||ys[i]<y0||ys[i]>y1;
    var px=Math.min(W-4,Math.max(4,P+(x-x0)*sx)),py=Math.min(H-4,Math.max(4,H-P-(ys[i]-y0)*sy));
    c.setAttribute('cx',px.toFixed(1));c.setAttribute('cy',py.toFixed(1));
    if(out){c.style.stroke='#000';c.style.strokeWidth='1.5';}
    c.setAttribute('r',r);c.setAttribute('fill',d.colours[d.column[i]]);
    c.setAttribute('class','pt');
    var label=d.columns[d.column[i]]+' = '+d.value[i]+'  ('+d.count[i]+' rows)'+
      (out?', beyond the zoomed view':'');
    c.setAttribute('data-label',label);
    var t=document.createElementNS(NS,'title');t.textContent=label;c.appendChild(t);
    c.addEventListener('mouseover',function(ev){
      tip.textContent=label;tip.style.display='block';c.classList.add('on');
      var b=c.getBoundingClientRect();
      tip.style.left=(window.scrollX+b.right+6)+'px';tip.style.top=(window.scrollY+b.top-4)+'px';});
    c.addEventListener('mouseout',function(){tip.style.display='none';c.classList.remove('on');});
    svg.appendChild(c);});
  svg.addEventListener('wheel',function(ev){
    ev.preventDefault();var b=svg.getBoundingClientRect(),f=ev.deltaY<0?0.8:1.25;
    var mx=view[0]+(ev.clientX-b.left)/b.width*view[2];
    var my=view[1]+(ev.clientY-b.top)/b.height*view[3];
    view=[mx-(mx-view[0])*f,my-(my-view[1])*f,view[2]*f,view[3]*f];
    svg.setAttribute('viewBox',view.join(' '));},{passive:false});
  svg.addEventListener('dblclick',function(){view=[0,0,W,H];
    svg.setAttribute('viewBox',view.join(' '));});
  svg.setAttribute('data-points',String(xs.length));
}
var h=decodeURIComponent(location.hash.slice(1));
var m=/^sort=([\w-]+):(\d+):(asc|desc)$/.exec(h);
if(m){var tb=document.querySelector('table.'+m[1]);if(tb){sortTable(tb,+m[2],m[3]);}}
m=/^hover=(\d+)$/.exec(h);
if(m&&svg){var pts=svg.querySelectorAll('circle.pt');
  if(pts[+m[1]]){pts[+m[1]].dispatchEvent(new MouseEvent('mouseover'));}}
document.body.setAttribute('data-script','ran');
})();
"""


def _cell(v: Any) -> str:
    num = isinstance(v, (int, float)) and not isinstance(v, bool)
    text = f"{v:.4g}" if isinstance(v, float) else str(v)
    return (f"<td class=\"num\">{html_text(text)}</td>" if num
            else f"<td>{html_text(text)}</td>")


def table_html(header: list[str], rows: list[list[Any]], cls: str = "",
               sortable: bool = True) -> str:
    """An HTML table (``sortable``: the page's script sorts it on a click of a head)."""
    classes = " ".join(c for c in (cls, "sortable" if sortable else "") if c)
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(_cell(v) for v in r) + "</tr>" for r in rows)
    return (f"<table class=\"{html_text(classes)}\"><thead><tr>{head}</tr></thead>"
            f"<tbody>{body}</tbody></table>")


def _value_map(points: dict[str, Any]) -> list[str]:
    """The interactive value map: an empty SVG, the data as JSON, the colour legend."""
    payload = script_json(points)  # no "<", ">" or "&" left to end or change the block
    legend = "".join(f"<span><i style=\"background:{html_text(colour)}\"></i>{html_text(n)}"
                     "</span>"
                     for n, colour in zip(points["columns"], points["colours"], strict=True))
    return ["<h2>Value map, every value (interactive)</h2>",
            "<p class=\"note\">Every value of the table at its place on the value map above "
            "(the same zoom; a value beyond it sits at the edge, outlined in black): hover a "
            "point for its column, value and frequency; the mouse wheel zooms, a double "
            "click resets.</p>",
            f"<div class=\"legend\">{legend}</div>",
            "<svg id=\"vmap\" xmlns=\"http://www.w3.org/2000/svg\" width=\"860\" "
            "height=\"560\" role=\"img\" aria-label=\"value map\"></svg>",
            f"<script type=\"application/json\" id=\"vdata\">{payload}</script>"]


def _comparison(data: Any) -> list[str]:
    rows, constant = [], []
    for r in data.comparison:
        if r["status"] != "ok":
            rows.append([r["method"], r["status"], "", ""])
            continue
        flat = all(r[m][1] < 0.0005 for m in ("f_score", "nmi", "acc"))
        if flat:
            constant.append(r["method"])
        rows.append([r["method"] + (" *" if flat else "")]
                    + [f"{r[m][0]:.3f} ± {r[m][1]:.3f}" for m in ("f_score", "nmi", "acc")])
    out = [table_html(["method", "F-score", "NMI", "ACC"], rows, "comparison")]
    if constant:
        out.append(f"<p class=\"note\">* ± 0.000: the runs' scores agree to three decimals. "
                   f"{html_text(', '.join(constant))} "
                   f"{'is' if len(constant) == 1 else 'are'} fitted once (the method is "
                   "deterministic, or its one fit is reused), and k-means from each run's "
                   "seed found the same partition of that embedding.</p>")
    if data.paper:
        methods = list(dict.fromkeys(m for p in data.paper for m in p["scores"]))
        prows = [[p["table"], p["source"], p["metric"], p.get("protocol", "")]
                 + [p["scores"].get(m, "") for m in methods] for p in data.paper]
        out.append(f"<h3>The papers' numbers for {html_text(data.name)}</h3>")
        out.append(table_html(["table [id]", "paper", "metric", "protocol", *methods], prows,
                              "paper"))
        out.append("<p class=\"note\">As printed in each paper (its preset, clusterer and "
                   "number of runs); the rows differ because the metric, the preset or the "
                   "clusterer differ. Compare ours with a row of the same metric; "
                   "<code>catembed bench TABLE</code> reruns a table's protocol.</p>")
    return out


def _consensus(c: dict[str, Any]) -> list[str]:
    """The label-free consensus section: its members, their stability, weight, agreement."""
    out = [f"<h2>Label-free consensus (k = {html_text(c['k'])})</h2>"]
    if "error" in c:
        return out + [f"<p class=\"note\">Not fitted: {html_text(c['error'])}</p>"]
    rows = [[m["member"], round(m["stability"], 3), round(m["weight"], 3),
             round(m["agreement"], 3)] for m in c["members"]]
    out.append(table_html(["member", "stability", "weight", "agreement"], rows, "consensus"))
    facts = [f"cluster sizes {', '.join(map(str, c['sizes']))}"]
    if "ari_kmeans" in c:
        facts.append(f"ARI with the k-means clusters above {c['ari_kmeans']:.3f}")
    if "ari_target" in c:
        facts.append(f"ARI with the classes {c['ari_target']:.3f} (not used in the fit)")
    if c.get("failed"):
        facts.append(f"left out (refused on this table): {', '.join(c['failed'])}")
    if c.get("numeric"):
        facts.append(f"numeric columns in 5 quantile bins: {', '.join(c['numeric'])}")
    out += [f"<p class=\"warn\">Warning: {html_text(m)}</p>" for m in c.get("warnings", [])]
    if c.get("command"):
        facts.insert(0, f"the partition of {c['command']} for this table and seed (every row "
                     "of the file" + ("; k chosen without labels" if c.get("chosen") else "")
                     + ")")
    out.append("<p class=\"note\">catembed.cluster.Consensus: every member's k-means runs "
               "on its own resamples; k-means on the members' embeddings side by side, each "
               "scaled by its weight. Stability: mean ARI between a member's runs (no "
               "labels); weight: its mean ARI with the other members' runs, normalised to "
               "sum 1; agreement: mean ARI of its runs with the "
               f"consensus. {html_text('; '.join(facts))}.</p>")
    return out


def render_html(data: Any) -> str:
    """The page as one HTML string (no external resource)."""
    from .._version import __version__

    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>catembed "
             f"report: {html_text(data.name)}</title><style>{_CSS}</style></head><body>",
             f"<h1>catembed report: {html_text(data.name)}</h1>",
             "<h2>Table summary</h2>",
             table_html(["figure", "value"], [[k, v] for k, v in data.summary.items()],
                        "summary", sortable=False)]
    for title, png in data.figures.items():
        parts.append(f"<h2>{html_text(title)}</h2>")
        parts.append(f"<img class=\"figure\" alt=\"{html_text(title)}\" "
                     f"src=\"data:image/png;base64,{png}\">")
        if title == "Value map" and data.value_points:
            parts.extend(_value_map(data.value_points))
        if title == "Cluster profiles" and data.profiles is not None:
            rows = [[r.cluster, r.size, r.attribute, r.value, f"{r.in_cluster:.1%}",
                     f"{r.overall:.1%}", round(r.lift, 2)]
                    for r in data.profiles.itertuples()]
            parts.append("<p class=\"note\">Lift = share of the cluster holding the value / "
                         "share of the whole table (values held by at least 5% of the "
                         "cluster). Click a column head to sort.</p>")
            parts.append(table_html(["cluster", "rows", "attribute", "value", "in cluster",
                                     "overall", "lift"], rows, "profiles"))
        if title == "Cluster profiles" and getattr(data, "consensus", None):
            parts.extend(_consensus(data.consensus))
        if title == "Methods side by side":
            parts.extend(_comparison(data))
    parts.append("<h2>Run</h2>")
    parts.append(table_html(["step", "seconds"], [[k, round(v, 2)] for k, v in
                                                  data.timings.items()], "timings"))
    for n in data.notes:
        parts.append(f"<p class=\"note\">{html_text(n)}</p>")
    parts.append(f"<div id=\"vtip\"></div><p class=\"note\">catembed {__version__}</p>"
                 f"<script>{_JS}</script></body></html>")
    return "\n".join(parts)
