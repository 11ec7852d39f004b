"""``catembed cluster DATA --scheduler ADDRESS``: the consensus of a Parquet file or a folder
of Parquet files (a partitioned data set) on Dask, the labels written partition by partition
to a folder of Parquet files (``docs/distributed.md``). Light at import.

``ADDRESS`` is a Dask scheduler's address (``tcp://host:8786``), ``local`` (a
``LocalCluster`` of worker processes on this machine) or ``threads`` (Dask's threaded
scheduler in this process). The output folder gets one file per input partition with the
``--id`` columns, ``cluster`` and the ``--target`` column, in the input's row order
(``part-00000.parquet``, ...: the names sort in that order).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from .._utils._errors import CatEmbedError
from ._input import split_list

__all__ = ["cluster_dask"]


def _client(address: str) -> tuple[Any, Any]:
    """``(client, cluster)`` for ``--scheduler``: ``threads``: no client; ``local``: a
    ``LocalCluster`` started here; else a scheduler's address."""
    if address == "threads":
        return None, None
    try:
        import distributed
    except ImportError:
        raise CatEmbedError("--scheduler needs Dask's distributed scheduler: "
                            'pip install "catembed[dask]".') from None
    if address == "local":
        cluster = distributed.LocalCluster(dashboard_address=None)
        return distributed.Client(cluster), cluster
    try:
        return distributed.Client(address, timeout=30), None
    except OSError as exc:
        raise CatEmbedError(f"--scheduler {address}: no Dask scheduler answered ({exc}).") \
            from None


def cluster_dask(args: argparse.Namespace, progress: Any) -> int:
    """Fit the consensus on the Dask frame of ``args.input`` and write the labels."""
    try:
        import dask.dataframe as dd
    except ImportError:
        raise CatEmbedError('--scheduler needs Dask: pip install "catembed[dask]".') from None
    from ..cluster.consensus import Consensus

    t0 = time.perf_counter()
    src = Path(args.input)
    if not (src.suffix == ".parquet" or (src.is_dir() and any(src.glob("*.parquet")))):
        raise CatEmbedError(f"--scheduler reads a Parquet file or a folder of Parquet files; "
                            f"{args.input} is neither.")
    if not args.output:
        raise CatEmbedError("--scheduler writes the labels to a folder of Parquet files: "
                            "give it with --output DIR.")
    out = Path(args.output)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise CatEmbedError(f"--output {out} exists and is not an empty folder.")
    if out.resolve() == src.resolve():
        raise CatEmbedError("--output names the input; give another folder.")
    client, cluster = _client(args.scheduler)
    try:
        progress.step(f"reading {src.name} on Dask")
        ddf = dd.read_parquet(src)
        ids = split_list(args.id) if args.id else []
        drop = set(split_list(args.drop)) if args.drop else set()
        after = [args.target] if args.target else []
        missing = [c for c in ids + after + sorted(drop) if c not in ddf.columns]
        if missing:
            raise CatEmbedError(f"no column named {', '.join(map(repr, missing))} in "
                                f"{args.input}.")
        features = [c for c in ddf.columns if c not in set(ids) | set(after) | drop]
        members = split_list(args.members) or None if args.members else None
        model = Consensus(args.n_clusters, members=members, n_init=args.n_init,
                          random_state=args.seed)
        progress.step("fitting the consensus")
        t_fit = time.perf_counter()
        model.fit(ddf[features])
        t_fit = time.perf_counter() - t_fit
        progress.step(f"writing the labels to {out}")
        labels = ddf[ids].assign(cluster=model.labels_)
        for c in after:
            labels[c] = ddf[c]
        # zero-padded names: a folder read in name order (pandas, Arrow) is in row order
        labels.to_parquet(out, write_index=False,
                          name_function=lambda i: f"part-{i:05d}.parquet")
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    progress.close()
    if not args.quiet:
        print(f"catembed cluster: consensus of {len(model.members_)} members on "
              f"{args.input} ({ddf.npartitions} partitions), fitted on "
              f"{model.n_rows_fitted_} rows -> {int(model.n_clusters_)} clusters; fit "
              f"{t_fit:.2f} s, total {time.perf_counter() - t0:.2f} s; wrote {out}/",
              file=sys.stderr)
    return 0
