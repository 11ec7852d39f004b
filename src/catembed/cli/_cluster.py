"""``catembed cluster INPUT -k K``: label-free consensus clustering of a categorical table.

A plugin of :mod:`catembed.cli`: :class:`catembed.cluster.Consensus` on the input's
categorical columns (and its numeric ones, binned, under the default ``--numeric auto``), the
row labels written in input order (with the id columns before them and the target after
them, as ``catembed embed`` copies them), what each cluster holds
(:func:`catembed.cluster.describe_clusters`; ``--profiles FILE``), and a summary of the
members (stability, weight, agreement with the consensus) and of the clusters on stderr, or
stdout when the labels go to a file. Input resolution, column roles and output checks are
:mod:`catembed.cli._input`'s; the outputs are written atomically (a temporary file renamed on
success). Light at import.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from .._utils._errors import CatEmbedError
from .._utils._pathtext import path_text
from .._utils._spelling import cli_spelling
from ..evaluation.roles import NUMERIC_CHOICES, NUMERIC_HELP, cluster_table, consensus_model
from ._input import (
    check_outputs,
    freeze_imports,
    int_in,
    progress_for,
    resolve_input,
    split_list,
)

__all__ = ["register"]

#: catembed._utils._params.MAX_SEED, repeated: importing _params would load NumPy at CLI start-up
MAX_SEED = 2**32 - 1

EXAMPLES = """\
examples:
  catembed cluster soybean_small -o labels.csv
      k chosen without labels (a test of the columns' dependence decides whether there
      are groups at all, k = 1 meaning "no clear groups"; then the latent class model's
      BIC for k = 2..10); a bundled data set's target is copied beside the labels
  catembed cluster soybean_small -k 4 -o labels.csv      (k given)
  catembed cluster soybean_small -k 2:6 -o labels.csv    (k chosen from 2..6)
  catembed cluster soybean_small --blrt -o labels.csv
      also the bootstrap likelihood-ratio test of k against k + 1 latent classes
  catembed cluster data.csv -k 5 --drop id --members cde,mca,idf -o labels.parquet
  catembed cluster zoo --report zoo.html -o labels.csv
      also one HTML page of the clusters (open it in a browser; no network needed)
  catembed cluster credit.csv -k 3 --profiles profiles.csv -o labels.csv
      a mixed table: its numeric columns cut into 5 quantile bins (--numeric auto); what
      each cluster holds written to profiles.csv

the summary gives the rule that decided k (the dependence test, its value and threshold,
then the latent class BIC per k), how far to trust the partition (per cluster, the
resample Jaccard of fpc clusterboot: >= .75 stable, <= .5 dissolved, doubtful between;
stability: mean ARI of the members' runs with it; agreement between the members; the
single column it follows most closely), each member's stability (mean ARI between its
k-means runs), its weight in the consensus (its mean ARI with the other members) and its
agreement (mean ARI of its runs with the consensus labels), then per cluster its size and
its most characteristic values (largest v-test of FactoMineR's catdes, significant at
p <= 0.05: the share of the cluster holding the value against the whole table's) and what it
is not (its most under-represented values);
with a target column, the ARI of the consensus with it on the rows that have one is printed
too (the fit never sees it).
"""

#: the refusal of an input column named as the labels' column
LABEL_CLASH = ("the output's label column is named 'cluster', and so is an --id or --target "
               "column (or the pandas index) of the input; rename that column.")


def _target_line(frame: Any, target: str, labels: Any) -> str:
    """The ARI of the labels with the target on the rows that have one."""
    from sklearn.metrics import adjusted_rand_score

    has = frame[target].notna().to_numpy()
    if not has.any():
        return f"  no row has a value of the target {target!r}: nothing to score"
    from .._utils._text import value_texts

    ari = adjusted_rand_score(value_texts(frame[target][has]), labels[has])  # bytes too
    rows = "" if has.all() else f", on the {int(has.sum())} of {len(has)} rows that have one"
    return f"  ARI with the target {target!r} (not used in the fit{rows}): {ari:.3f}"


def _cmd_cluster(args: argparse.Namespace) -> int:
    with progress_for(args, "cluster") as progress:
        return _cluster(args, progress)


def _cluster(args: argparse.Namespace, progress: Any) -> int:
    import contextlib

    from .. import io
    from .._utils._text import spreadsheet_frame
    from ..cluster.consensus._describe import describe_clusters, profile_lines
    from ..cluster.consensus._estimator import DEFAULT_MEMBERS, _member_class

    if getattr(args, "scheduler", None) is None and (getattr(args, "workers", None) is not None
                                                    or getattr(args, "memory_limit", None)):
        raise CatEmbedError("--workers and --memory-limit size the LocalCluster of "
                            "--scheduler local; give --scheduler local.")
    if getattr(args, "scheduler", None) is not None:  # on Dask: docs/distributed.md
        from ._cluster_dask import cluster_dask

        return cluster_dask(args, progress, (_choice_lines, _trust_line, _cluster_stability))
    t0 = time.perf_counter()
    if args.members is not None and not split_list(args.members):
        raise CatEmbedError("--members is empty: name at least one method, e.g. --members mca.")
    members = split_list(args.members) or None
    progress.step("loading the methods")
    for name in members or DEFAULT_MEMBERS:  # imports the members' modules (unknown names
        _member_class(name)                  # refused): the printed fit time leaves them out
    freeze_imports()
    args.save_model = None
    spec = resolve_input(args.input)
    check_outputs(args, spec)
    if args.profiles:
        io.check_output_path(args.profiles, inputs=[spec.path], flag="--profiles",
                             suffixes=(".csv",))
        if args.output and Path(args.output).resolve() == Path(args.profiles).resolve():
            raise CatEmbedError("--output and --profiles name the same file; give two names.")
    if args.report:
        _check_report(args, spec)
    # the table and the model: one code path with catembed report's consensus section
    table = cluster_table(args, spec, progress, label_clash=LABEL_CLASH)
    frame, roles, features, numeric = table.frame, table.roles, table.features, table.numeric
    after = [roles.target] if roles.target else []
    if "cluster" in frame.index.names:  # a Parquet file's pandas index, copied to the output
        raise CatEmbedError(LABEL_CLASH)
    model = consensus_model(args, table, members)
    progress.step("fitting the consensus")  # then the steps of Consensus.fit
    t_start = time.perf_counter()
    with cli_spelling():  # the warnings name -k, --drop ... (issue 53)
        labels = model.fit(frame[features]).labels_
    t_fit = time.perf_counter() - t_start
    profiles = getattr(model, "profiles_", None)
    if profiles is None and (args.profiles or not args.quiet):
        profiles = describe_clusters(frame[features], labels, numeric_features=numeric)
    out = frame[roles.ids].copy()
    out["cluster"] = labels
    for c in after:
        out[c] = frame[c].to_numpy()
    progress.step("writing")
    # the labels and the profiles are published together: each is written to a temporary
    # file beside its target, and both are renamed only once both are complete
    with contextlib.ExitStack() as publish:
        if args.report:  # the cluster page (catembed.report._cluster_page)
            _write_report(args, spec, model, frame, features, roles, publish)
        if args.profiles:
            # a derived report for a spreadsheet: a value that would run as a formula gets
            # a leading ' (docs/cli-errors.md)
            spreadsheet_frame(profiles).to_csv(
                publish.enter_context(io.atomic_output(args.profiles)), index=False)
        # a Parquet file's pandas index is copied first, as embed copies it (write_chunks)
        index = not (type(out.index).__name__ == "RangeIndex" and out.index.name is None)
        with io.TableWriter(args.output, index=index) as writer:
            writer.write(out)
    progress.close()
    if not args.quiet:
        stream = sys.stdout if args.output else sys.stderr
        k = int(model.n_clusters_)
        sizes = ", ".join(str(int((labels == c).sum())) for c in range(k))
        wrote = [path_text(f) for f in (args.output, args.profiles, args.report) if f]
        lines = [f"catembed cluster: consensus of {len(model.members_)} members on "
                 f"{spec.name}: {len(labels)} rows, {len(features)} attributes -> "
                 f"{k} cluster{'s' if k != 1 else ''} (sizes {sizes}); "
                 f"fit {t_fit:.2f} s, total {time.perf_counter() - t0:.2f} s"
                 + (f"; wrote {' and '.join(wrote)}" if wrote else ""),
                 *_choice_lines(model), _trust_line(model)]
        if k > 1:  # at k = 1 every member's figures are 1 by construction: not evidence
            lines.append(f"  {'member':10s} {'stability':>9s} {'weight':>7s} {'agreement':>9s}")
            for name, s, w, a in zip(model.members_, model.member_stability_,
                                     model.member_weights_, model.member_agreement_,
                                     strict=True):
                lines.append(f"  {name:10s} {s:9.3f} {w:7.3f} {a:9.3f}")
        else:
            lines.append(f"  members: {', '.join(model.members_)}")
        if model.failed_members_:
            lines.append(f"  left out (refused on this table): {', '.join(model.failed_members_)}")
        lines.append("  clusters (significant values, p <= 0.05, largest v-test first: share "
                     "in the cluster vs overall; not: the most under-represented"
                     + ("" if args.profiles else "; --profiles FILE writes them all") + "):")
        lines += [f"  {line}" for line in profile_lines(profiles, len(labels),
                                                         stability=_cluster_stability(model))]
        if after:
            lines.append(_target_line(frame, after[0], labels))
        print("\n".join(lines), file=stream)
    if args.blrt:  # after the summary: it takes 2 (B + 1) latent class fits
        print(_blrt_line(model, frame[features], args.seed),
              file=sys.stdout if args.output else sys.stderr)
    return 0


def _check_report(args: argparse.Namespace, spec: Any) -> None:
    """``--report``: an .html file (so never -o's or --profiles' file), not the input."""
    from .. import io

    io.check_output_path(args.report, inputs=[spec.path], flag="--report",
                         suffixes=(".html", ".htm"))


def _write_report(args: argparse.Namespace, spec: Any, model: Any, frame: Any,
                  features: list[str], roles: Any, publish: Any) -> None:
    """The cluster page, to a temporary file renamed with the other outputs."""
    from .. import io
    from .._utils._pathtext import path_text as text
    from ..report._cluster_page import cluster_page

    with cli_spelling():  # the page names -k, as the summary does
        page = cluster_page(model, frame[features], name=spec.name, seed=args.seed,
                            target=frame[roles.target].to_numpy() if roles.target else None,
                            target_name=roles.target or "target",
                            ids=frame[roles.ids] if roles.ids else None)
    publish.enter_context(io.atomic_output(args.report)).write_text(text(page),
                                                                    encoding="utf-8")


def _k_arg(text: str) -> Any:
    """``-k``: an integer >= 2, ``auto`` or ``LO:HI`` (1 <= LO <= HI)."""
    text = text.strip()
    if text == "auto":
        return text
    if ":" in text:
        parts = text.split(":")
        if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
            lo, hi = (int(p) for p in parts)
            if 1 <= lo <= hi:
                return f"{lo}:{hi}"
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a range: give LO:HI with 1 <= LO <= HI, e.g. 2:12")
    return int_in(2, None, "n-clusters")(text)


_k_arg.__name__ = "n-clusters"


def _choice_lines(model: Any) -> list[str]:
    """The rule that decided k, with its value and threshold; the BIC per k, marked "lowest
    wins" only among the k it decided (:func:`catembed.cluster.consensus._clusterwise.
    choice_lines`); at k given, the dependence test."""
    from ..cluster.consensus._clusterwise import choice_lines

    with cli_spelling():  # the lines name -k
        return choice_lines(model)


def _trust_line(model: Any) -> str:
    """How many clusters are stable, doubtful, dissolved (per-cluster resample Jaccard),
    then the members' figures; at k = 1, the pointer to the evidence instead."""
    from ..cluster.consensus._trust import trust_line

    return trust_line(model) + _selection_text(model)


def _blrt_line(model: Any, X: Any, seed: int) -> str:
    """``--blrt``: the bootstrap LRT of k against k + 1 latent classes
    (:mod:`catembed.cluster.consensus._blrt`)."""
    from ..cluster.consensus._blrt import consensus_blrt

    t = time.perf_counter()
    r = consensus_blrt(model, X, random_state=seed)
    k = r["k"]
    verdict = (f"{k + 1} classes fit better than the {k}-class model's sampling noise explains"
               if r["p_value"] <= 0.05 else
               f"no evidence that {k + 1} classes fit better than {k}")
    return (f"  bootstrap likelihood-ratio test (latent class model, Nylund et al. 2007), k = "
            f"{k} against {k + 1}: LR {r['lr']:.1f}, p = {r['p_value']:.2f} ({r['n_boot']} "
            f"tables drawn from the {k}-class model, {r['n_rows']} rows; "
            f"{time.perf_counter() - t:.1f} s): {verdict}")


def _cluster_stability(model: Any) -> dict[int, str] | None:
    """Per cluster, ``"Jaccard 0.91 stable"`` for the profile lines (none at k = 1)."""
    d = getattr(model, "diagnostics_", {})
    if int(model.n_clusters_) < 2 or "cluster_jaccard" not in d:
        return None
    from ..cluster.consensus._clusterwise import DISSOLVED, STABLE, figure

    return {c: f"Jaccard {figure(j, STABLE, DISSOLVED)} {s}" for c, (j, s) in enumerate(
        zip(d["cluster_jaccard"], d["cluster_status"], strict=True))}


def _selection_text(model: Any) -> str:
    """Which partition ``combine="select"`` returned: said whenever it is one member's own."""
    chosen = getattr(model, "selected_", None)
    guard = (getattr(model, "diagnostics_", None) or {}).get("guard")
    if guard in ("refit", "trimmed", "candidate", "across columns"):  # issue 53's guard
        rows = len(model.diagnostics_.get("outlier_rows", ()))
        if guard == "refit":
            return (f"\n  partition: fitted again without {rows} row(s) of rare codes (half or "
                    "more of their values held by under max(2, 1 % of the rows) rows), read "
                    "as outliers (each then takes its nearest cluster)")
        why = {"trimmed": f"k-means again without the {rows} row(s) the first choice put in "
               "cluster(s) under max(2, 1 % of the rows), read as outliers",
               "candidate": f"the first choice put {rows} row(s) in cluster(s) under max(2, "
               "1 % of the rows): the best-agreeing candidate without one",
               "across columns": "the first choice followed one column's values: the "
               "best-agreeing candidate that does not"}[guard]
        name = "the members' combined one" if chosen in (None, "concat") else \
            f"member {chosen}'s own k-means partition"
        return f"\n  partition: {name} ({why})"
    if chosen in (None, "concat", "coassoc"):
        return ""
    return (f"\n  partition: member {chosen}'s own k-means partition (it agrees more with the "
            "other candidates than the members' combined one)")


def register(sub: Any) -> None:
    """Add the ``cluster`` subcommand."""
    p = sub.add_parser("cluster", help="cluster a categorical table (label-free consensus)",
                       description="Cluster the rows of a categorical CSV/Parquet table by a "
                       "label-free consensus of several embeddings and write one label per "
                       "row, in the input's row order.",
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="CSV (also .csv.gz/.bz2/.xz/.zip) or Parquet file, data-set "
                   "folder (data.csv + meta.json), or bundled data-set name")
    p.add_argument("-k", "--n-clusters", type=_k_arg, default="auto",
                   metavar="K", help="number of clusters: an integer >= 2, 'auto' (default: "
                   "chosen from 1..10 without labels) or a range LO:HI such as 2:12")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="output .csv, .tsv or .parquet, never the input (default: CSV on stdout)")
    p.add_argument("--members", metavar="NAMES",
                   help="comma-separated methods to combine (default: cde,mca,lcme,idf,onehot;"
                   " also the clusterers mgr, lsh-kreps, ocl)")
    p.add_argument("--n-init", type=int_in(1, None, "n-init"), default=5, metavar="N",
                   help="k-means runs per member (default 5)")
    p.add_argument("--target", metavar="COL",
                   help="class column: kept out of the fit, copied to the output (default: a "
                   "data-set folder's target)")
    p.add_argument("--drop", metavar="COLS", help="comma-separated columns to leave out")
    p.add_argument("--numeric", choices=NUMERIC_CHOICES, default="auto", help=NUMERIC_HELP)
    p.add_argument("--profiles", metavar="FILE.csv",
                   help="write what each cluster holds to this CSV: per cluster and value "
                   "its shares, lift, hypergeometric p-value and v-test (catdes' Cla/Mod, "
                   "Mod/Cla, Global, p.value, v.test), per column its chi-square test, per "
                   "number Eta2, v-test, mean, sd, median and IQR, the paragons and each "
                   "cluster's stability (resample Jaccard); for a spreadsheet, a text that "
                   "would run as a formula (=, +, -, @) is written with a leading '")
    p.add_argument("--blrt", action="store_true",
                   help="also print the bootstrap likelihood-ratio test of the latent class "
                   "model, k against k + 1 classes (19 tables, at most 2000 rows; seconds to "
                   "a minute)")
    p.add_argument("--report", metavar="FILE.html",
                   help="also write one self-contained HTML page of the clusters (no network "
                   "needed to open it): sizes, the criterion per k, per-cluster stability, "
                   "the sortable profiles with bars of each value's share in the cluster "
                   "against overall, and a map of the rows with their overlap in words")
    p.add_argument("--id", metavar="COLS", help="comma-separated identifier columns: kept out "
                   "of the fit, copied to the output")
    p.add_argument("--seed", type=int_in(0, MAX_SEED, "seed"), default=0, metavar="N",
                   help=f"random_state, 0 to {MAX_SEED} (default: 0)")
    p.add_argument("--strict", action="store_true",
                   help="refuse a CSV whose rows have another number of fields than the header")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no summary, no notes, no progress line")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="fit on Dask without gathering the rows: a scheduler's address, "
                   "'local' or 'threads'; INPUT a Parquet file or folder, --output a folder "
                   "(labels written partition by partition)")
    p.add_argument("--workers", type=int_in(1, 1024, "workers"), metavar="N",
                   help="with --scheduler local: the LocalCluster's worker processes, one "
                   "thread each (default: Dask's choice for this machine)")
    p.add_argument("--memory-limit", metavar="SIZE",
                   help="with --scheduler local: each worker's memory limit, e.g. 2GiB "
                   "(default: Dask's, the machine's memory shared out)")
    p.set_defaults(func=_cmd_cluster)
