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
from ._input import (
    _note,
    check_outputs,
    check_ragged,
    column_roles,
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


def _columns(args: argparse.Namespace, spec: Any, columns: list[str]) -> tuple[Any, list[str]]:
    """The column roles under ``--numeric`` and the numeric columns clustered as numbers.

    ``auto`` (the default) and ``discretize`` give the numeric columns to Consensus as
    numbers (it cuts them into 5 quantile bins); ``drop`` leaves them out, a plain file's
    too (those whose values all parse as numbers). ``auto`` keeps a plain file's numeric
    column with few distinct values (fewer than 20: codes, counts) as categories."""
    view = argparse.Namespace(**{**vars(args), "numeric": "drop" if (
        args.numeric == "drop" and spec.meta) else "discretize"})
    roles = column_roles(view, spec, columns)
    if args.numeric == "drop":
        found = [c for c in roles.numeric if c in roles.features]
        roles.features = [c for c in roles.features if c not in set(found)]
        roles.numeric = []
        if found and not args.quiet:
            _note(f"leaving out {len(found)} numeric column(s) (--numeric drop): "
                  f"{', '.join(found[:10])}{' ...' if len(found) > 10 else ''}")
        if not roles.features:
            raise CatEmbedError("no columns left to cluster: every feature is numeric and "
                                "--numeric drop leaves them out; leave out --numeric to bin "
                                "them.")
    return roles, list(roles.numeric)


def _read(args: argparse.Namespace, spec: Any, used: list[str], numeric: list[str]) -> Any:
    """The table, numeric columns as float64 (a value that is not a number is a missing
    number, with a warning). With ``--numeric auto``, a plain file's numeric column with
    fewer than 20 distinct numbers is read as text (categories)."""
    import warnings

    import pandas as pd

    from .. import io
    from .._utils._errors import CatEmbedWarning
    from ..evaluation.inputs import MANY_VALUES

    frame = io.read_table(spec.path, columns=used,
                          text_columns=[c for c in used if c not in numeric])
    values = {c: pd.to_numeric(frame[c], errors="coerce").astype("float64") for c in numeric}
    if args.numeric == "auto" and not spec.meta:
        few = [c for c in numeric if values[c].nunique() < MANY_VALUES]
        if few:
            text = io.read_table(spec.path, columns=few, text_columns=few)
            for c in few:
                frame[c] = text[c].to_numpy()
            numeric[:] = [c for c in numeric if c not in set(few)]
    for c in numeric:  # numbers (Consensus cuts them into 5 quantile bins), never codes
        bad = values[c].isna() & frame[c].notna()
        if bad.any():
            warnings.warn(f"column {c!r} holds numbers and {int(bad.sum())} value(s) that are "
                          f"not (first: {frame[c][bad].iloc[0]!r}): taken as missing numbers; "
                          "fix them, or --drop the column.", CatEmbedWarning, stacklevel=2)
        frame[c] = values[c]
    if numeric and not args.quiet:
        _note(f"{len(numeric)} numeric column(s) cut into 5 quantile bins: "
              f"{', '.join(numeric[:10])}{' ...' if len(numeric) > 10 else ''} "
              "(--numeric drop leaves them out)")
    return frame


def row_number_columns(frame: Any, numeric: list[str]) -> list[str]:
    """The numeric columns that count the rows: integers going up by exactly 1 from each
    row to the next, none missing, at least 10 rows (``obs`` 1, 2, ..., ``n``). A column of
    ranks in another order is a measurement and is not listed."""
    import numpy as np

    out = []
    for c in numeric:
        v = frame[c].to_numpy(dtype="float64", na_value=np.nan)
        if len(v) >= 10 and np.isfinite(v).all() and (np.diff(v) == 1).all():
            out.append(str(c))
    return out


def _warn_identifiers(frame: Any, categorical: list[str], numeric: list[str]) -> None:
    """The identifier warning ``embed`` gives
    (:func:`catembed.stats._pooling.identifier_columns`), and one for numeric row numbers,
    which would otherwise be cut into bins of file position (:func:`row_number_columns`)."""
    import warnings

    from .._utils._errors import CatEmbedWarning
    from ..stats._pooling import identifier_columns, identifier_message

    sizes = [int(frame[c].nunique(dropna=False)) for c in categorical]
    found = identifier_columns(categorical, sizes, len(frame))
    if found:
        warnings.warn(identifier_message(found, flag="--drop or --id"), CatEmbedWarning,
                      stacklevel=2)
    rows = row_number_columns(frame, numeric)
    if rows:
        first = frame[rows[0]]
        warnings.warn(f"column(s) {', '.join(rows[:10])} count the rows ({rows[0]} goes "
                      f"{first.iloc[0]:g}, {first.iloc[1]:g}, ... {first.iloc[-1]:g}, up by 1 "
                      "each row): as numbers they would be cut into bins of position in the "
                      "file, which groups neighbouring rows. If they are identifiers, drop "
                      "them (--drop or --id).", CatEmbedWarning, stacklevel=2)


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
    from ..cluster._describe import describe_clusters, profile_lines
    from ..cluster.consensus import DEFAULT_MEMBERS, Consensus, _member_class

    t0 = time.perf_counter()
    if args.members is not None and not split_list(args.members):
        raise CatEmbedError("--members is empty: name at least one method, e.g. --members mca.")
    members = split_list(args.members) or None
    progress.step("loading the methods")
    for name in members or DEFAULT_MEMBERS:  # imports the members' modules (unknown names
        _member_class(name)                  # refused): the printed fit time leaves them out
    args.save_model = None
    spec = resolve_input(args.input)
    check_outputs(args, spec)
    if args.profiles:
        io.check_output_path(args.profiles, inputs=[spec.path], flag="--profiles",
                             suffixes=(".csv",))
        if args.output and Path(args.output).resolve() == Path(args.profiles).resolve():
            raise CatEmbedError("--output and --profiles name the same file; give two names.")
    columns = io.read_columns(spec.path)
    roles, numeric = _columns(args, spec, columns)
    features = roles.features
    after = [roles.target] if roles.target else []
    if "cluster" in roles.ids + after:  # the labels' column: one of them would replace it
        raise CatEmbedError(LABEL_CLASH)
    used = roles.ids + features + after
    progress.step(f"counting the rows of {spec.path.name}")
    check_ragged(args, spec)
    progress.step(f"reading {spec.path.name}")
    frame = _read(args, spec, used, numeric)
    if "cluster" in frame.index.names:  # a Parquet file's pandas index, copied to the output
        raise CatEmbedError(LABEL_CLASH)
    categorical = [c for c in features if c not in set(numeric)]
    _warn_identifiers(frame, categorical, numeric)
    model = Consensus(args.n_clusters, members=members, n_init=args.n_init,
                      random_state=args.seed, categorical_features=categorical)
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
        wrote = [path_text(f) for f in (args.output, args.profiles) if f]
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
    wins" only among the k it decided (:func:`catembed.cluster._consensus_clusterwise.
    choice_lines`); at k given, the dependence test."""
    from ..cluster._consensus_clusterwise import choice_lines

    with cli_spelling():  # the lines name -k
        return choice_lines(model)


def _trust_line(model: Any) -> str:
    """How many clusters are stable, doubtful, dissolved (per-cluster resample Jaccard),
    then the members' figures; at k = 1, the pointer to the evidence instead."""
    from ..cluster._consensus_clusterwise import trust_line

    return trust_line(model) + _selection_text(model)


def _blrt_line(model: Any, X: Any, seed: int) -> str:
    """``--blrt``: the bootstrap LRT of k against k + 1 latent classes
    (:mod:`catembed.cluster._blrt`)."""
    from ..cluster._blrt import consensus_blrt

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
    return {c: f"Jaccard {j:.2f} {s}" for c, (j, s) in enumerate(
        zip(d["cluster_jaccard"], d["cluster_status"], strict=True))}


def _selection_text(model: Any) -> str:
    """Which partition ``combine="select"`` returned: said whenever it is one member's own."""
    chosen = getattr(model, "selected_", None)
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
    p.add_argument("--numeric", choices=["auto", "drop", "discretize"], default="auto",
                   help="numeric columns (a data-set folder's, or those whose values all "
                   "parse as numbers in a plain file): auto (default): cut into 5 quantile "
                   "bins clustered as values, except a plain file's with fewer than 20 "
                   "distinct numbers (codes), read as categories; discretize: every one "
                   "binned; drop: left out")
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
    p.add_argument("--id", metavar="COLS", help="comma-separated identifier columns: kept out "
                   "of the fit, copied to the output")
    p.add_argument("--seed", type=int_in(0, MAX_SEED, "seed"), default=0, metavar="N",
                   help=f"random_state, 0 to {MAX_SEED} (default: 0)")
    p.add_argument("--strict", action="store_true",
                   help="refuse a CSV whose rows have another number of fields than the header")
    p.add_argument("--quiet", "-q", action="store_true",
                   help="no summary, no notes, no progress line")
    p.set_defaults(func=_cmd_cluster)
