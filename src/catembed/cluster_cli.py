"""``catembed cluster INPUT -k K``: label-free consensus clustering of a categorical table.

A plugin of :mod:`catembed.cli`: :class:`catembed.cluster.Consensus` on the input's
categorical columns, the row labels written in input order (with the id columns before them
and the target after them, as ``catembed embed`` copies them), and a summary of the members
(stability, weight, agreement with the consensus) on stderr, or stdout when the labels go
to a file. Input resolution, column roles and output checks are :mod:`catembed.cli_input`'s;
the output is written atomically by :class:`catembed.io.TableWriter`. Light at import.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ._errors import CatEmbedError
from .cli_input import check_outputs, check_ragged, column_roles, int_in, resolve_input, split_list

__all__ = ["register"]

#: catembed._params.MAX_SEED, repeated: importing _params would load NumPy at CLI start-up
MAX_SEED = 2**32 - 1

EXAMPLES = """\
examples:
  catembed cluster soybean_small -k 4 -o labels.csv
      a bundled data set: its target is copied beside the labels, not clustered
  catembed cluster data.csv -k 5 --drop id --members cde,mca,idf -o labels.parquet
  catembed cluster DIR/heart_cleveland -k 5 --numeric discretize
      a mixed table: its numeric columns in 5 quantile bins

the summary lists each member's stability (mean ARI between its k-means runs), its weight in
the consensus and its agreement (mean ARI of its runs with the consensus labels); with a
target column, the ARI of the consensus with it is printed too (the fit never sees it).
"""


def _cmd_cluster(args: argparse.Namespace) -> int:
    from . import io
    from .cluster.consensus import Consensus

    t0 = time.perf_counter()
    if args.members is not None and not split_list(args.members):
        raise CatEmbedError("--members is empty: name at least one method, e.g. --members mca.")
    import pandas as pd

    args.save_model = None
    spec = resolve_input(args.input)
    check_outputs(args, spec)
    columns = io.read_columns(spec.path)
    roles = column_roles(args, spec, columns)
    numeric = roles.numeric if args.numeric == "discretize" else []
    features = [c for c in roles.features if c not in roles.numeric or c in numeric]
    after = [roles.target] if roles.target else []
    if "cluster" in roles.ids + after:  # the labels' column: one of them would replace it
        raise CatEmbedError("the output's label column is named 'cluster', and so is an "
                            "--id or --target column of the input; rename that column.")
    used = roles.ids + features + after
    check_ragged(args, spec)
    frame = io.read_table(spec.path, columns=used,
                          text_columns=[c for c in used if c not in numeric])
    for c in numeric:  # numbers (Consensus cuts them into 5 quantile bins), never codes
        frame[c] = pd.to_numeric(frame[c], errors="coerce").astype("float64")
    members = split_list(args.members) or None
    model = Consensus(args.n_clusters, members=members, n_init=args.n_init,
                      random_state=args.seed, categorical_features=[
                          c for c in features if c not in numeric])
    labels = model.fit(frame[features]).labels_
    out = frame[roles.ids].copy()
    out["cluster"] = labels
    for c in after:
        out[c] = frame[c].to_numpy()
    with io.TableWriter(args.output, index=False) as writer:
        writer.write(out)
    if not args.quiet:
        stream = sys.stdout if args.output else sys.stderr
        sizes = ", ".join(str(int((labels == c).sum())) for c in range(args.n_clusters))
        lines = [f"catembed cluster: consensus of {len(model.members_)} members on "
                 f"{spec.name}: {len(labels)} rows, {len(features)} attributes -> "
                 f"{args.n_clusters} clusters (sizes {sizes}); "
                 f"{time.perf_counter() - t0:.2f} s"
                 + (f"; wrote {args.output}" if args.output else ""),
                 f"  {'member':10s} {'stability':>9s} {'weight':>7s} {'agreement':>9s}"]
        for name, s, w, a in zip(model.members_, model.member_stability_,
                                 model.member_weights_, model.member_agreement_, strict=True):
            lines.append(f"  {name:10s} {s:9.3f} {w:7.3f} {a:9.3f}")
        if model.failed_members_:
            lines.append(f"  left out (refused on this table): {', '.join(model.failed_members_)}")
        if after:
            from sklearn.metrics import adjusted_rand_score

            lines.append(f"  ARI with the target {after[0]!r} (not used in the fit): "
                         f"{adjusted_rand_score(frame[after[0]].astype(str), labels):.3f}")
        print("\n".join(lines), file=stream)
    return 0


def register(sub: Any) -> None:
    """Add the ``cluster`` subcommand."""
    p = sub.add_parser("cluster", help="cluster a categorical table (label-free consensus)",
                       description="Cluster the rows of a categorical CSV/Parquet table by a "
                       "label-free consensus of several embeddings and write one label per "
                       "row, in the input's row order.",
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="CSV (also .csv.gz/.bz2/.xz/.zip) or Parquet file, data-set "
                   "folder (data.csv + meta.json), or bundled data-set name")
    p.add_argument("-k", "--n-clusters", type=int_in(2, None, "n-clusters"), required=True,
                   metavar="K", help="number of clusters (K >= 2)")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="output .csv, .tsv or .parquet, never the input (default: CSV on stdout)")
    p.add_argument("--members", metavar="NAMES",
                   help="comma-separated methods to combine (default: cde,mca,lcme,idf,onehot)")
    p.add_argument("--n-init", type=int_in(1, None, "n-init"), default=5, metavar="N",
                   help="k-means runs per member (default 5)")
    p.add_argument("--target", metavar="COL",
                   help="class column: kept out of the fit, copied to the output (default: a "
                   "data-set folder's target)")
    p.add_argument("--drop", metavar="COLS", help="comma-separated columns to leave out")
    p.add_argument("--numeric", choices=["drop", "discretize"], default="drop",
                   help="numeric columns (a data-set folder's, or those whose values all "
                   "parse as numbers in a plain file): left out (default), or cut into 5 "
                   "quantile bins clustered as values")
    p.add_argument("--id", metavar="COLS", help="comma-separated identifier columns: kept out "
                   "of the fit, copied to the output")
    p.add_argument("--seed", type=int_in(0, MAX_SEED, "seed"), default=0, metavar="N",
                   help=f"random_state, 0 to {MAX_SEED} (default: 0)")
    p.add_argument("--strict", action="store_true",
                   help="refuse a CSV whose rows have another number of fields than the header")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary")
    p.set_defaults(func=_cmd_cluster)
