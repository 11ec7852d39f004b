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
from .._utils._spelling import cli_spelling
from ._input import split_list

__all__ = ["cluster_dask"]


def _client(address: str, workers: int | None = None,
            memory_limit: str | None = None) -> tuple[Any, Any]:
    """``(client, cluster)`` for ``--scheduler``: ``threads``: no client; ``local``: a
    ``LocalCluster`` started here (``--workers`` processes of one thread, ``--memory-limit``
    each, where given); else a scheduler's address."""
    if (workers is not None or memory_limit is not None) and address != "local":
        raise CatEmbedError("--workers and --memory-limit size the LocalCluster of "
                            "--scheduler local; give --scheduler local.")
    if address == "threads":
        return None, None
    try:
        import distributed
    except ImportError:
        raise CatEmbedError("--scheduler needs Dask's distributed scheduler: "
                            'pip install "catembed[dask]".') from None
    if address == "local":
        sizes: dict[str, Any] = {}
        if workers is not None:
            sizes.update(n_workers=workers, threads_per_worker=1, processes=True)
        if memory_limit is not None:
            sizes["memory_limit"] = _size(memory_limit)
        # no dashboard; the scheduler's HTTP server (health, metrics) on a free port: on its
        # default 8787, held by another cluster, Dask warned "Port 8787 is already in use"
        cluster = distributed.LocalCluster(dashboard_address=None,
                                           scheduler_kwargs={"dashboard_address": ":0"},
                                           **sizes)
        return distributed.Client(cluster), cluster
    try:
        return distributed.Client(address, timeout=30), None
    except OSError as exc:
        raise CatEmbedError(f"--scheduler {address}: no Dask scheduler answered ({exc}).") \
            from None


def _size(text: str) -> int:
    """``--memory-limit``'s bytes (``dask.utils.parse_bytes``: ``2GiB``, ``1.5GB``, ...)."""
    from dask.utils import parse_bytes

    try:
        size = int(parse_bytes(text))
    except (ValueError, TypeError):
        size = 0
    if size <= 0:
        raise CatEmbedError(f"--memory-limit {text!r} is not a size: give e.g. 2GiB or 500MB.")
    return size


def cluster_dask(args: argparse.Namespace, progress: Any, notes: tuple[Any, ...]) -> int:
    """Fit the consensus on the Dask frame of ``args.input`` and write the labels;
    ``notes``: the in-memory command's ``(choice lines, trust line, cluster stability)``
    functions of the model, for the printed summary."""
    try:
        import dask.dataframe as dd
    except ImportError:
        raise CatEmbedError('--scheduler needs Dask: pip install "catembed[dask]".') from None
    from ..cluster.consensus import Consensus
    from ..cluster.consensus._dask import profiles_deferred, profiles_from_pass

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
    client, cluster = _client(args.scheduler, getattr(args, "workers", None),
                              getattr(args, "memory_limit", None))
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
        # the labelling pass below gives the profiles' counts; the warnings name -k, --drop
        with profiles_deferred(), cli_spelling():
            model.fit(ddf[features])
        t_fit = time.perf_counter() - t_fit
        numeric = [c for c in features
                   if str(c) in {str(n) for n in model.numeric_features_}]
        counts = _write_partitions(ddf, model, (features, ids, after, numeric), out, client,
                                   progress)
        profiles_from_pass(model, counts, numeric)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    progress.close()
    if not args.quiet:
        print("\n".join(_summary(model, args.input, ddf.npartitions, out, t_fit,
                                 time.perf_counter() - t0, notes)), file=sys.stderr)
    return 0


def _label_part(part: Any, model: Any, columns: tuple[list[Any], ...], path: str) -> Any:
    """One partition: its labels (``model.predict``, as ``labels_``' partition), written with
    the ``--id`` and ``--target`` columns, and counted for ``profiles_``
    (``partition_counts``): the rows are labelled once for both."""
    import numpy as np

    from ..cluster.consensus._dask_profiles import partition_counts

    features, ids, after, numeric = columns
    table = part[features]
    y = np.asarray(model.predict(table), dtype=np.int64)
    labels = part[ids].assign(cluster=y)
    for c in after:
        labels[c] = part[c]
    labels.to_parquet(path, index=False)
    return partition_counts(table, y, numeric)


def _write_partitions(ddf: Any, model: Any, columns: tuple[list[Any], ...], out: Path,
                      client: Any, progress: Any) -> Any:
    """One Parquet file per partition of ``ddf`` (``part-00000.parquet`` ...: zero-padded,
    so a folder read in name order is in row order), the partitions written counted on the
    progress line as they finish; returns their ``profiles_`` counts, merged in
    ``reduce_counts``' order."""
    import dask

    from ..cluster._dask_fit import _snapshot
    from ..cluster.consensus._dask_profiles import merge_counts, tree_merge

    out.mkdir(parents=True, exist_ok=True)
    n = ddf.npartitions
    snap = dask.delayed(_snapshot(model), pure=True)  # one copy in the graph
    tasks = [dask.delayed(_label_part, pure=False)(p, snap, columns,
                                                   str(out / f"part-{i:05d}.parquet"))
             for i, p in enumerate(ddf.to_delayed())]
    progress.step(f"labelling and writing to {out}", total=n, unit="partitions")
    if client is not None:
        import distributed

        futures = client.compute(tasks)
        where = {f.key: i for i, f in enumerate(futures)}
        counts: list[Any] = [None] * n
        for future in distributed.as_completed(futures):
            counts[where[future.key]] = future.result()  # a partition's error is raised here
            future.release()
            progress.update(1)
        return tree_merge(counts, merge_counts)
    from dask.callbacks import Callback

    def done(key: Any, *rest: Any) -> None:
        name = key[0] if isinstance(key, tuple) else key
        if str(name).startswith("_label_part"):
            progress.update(1)

    with Callback(posttask=done):
        counts = list(dask.compute(*tasks, scheduler="threads"))
    return tree_merge(counts, merge_counts)


def _summary(model: Any, name: str, npartitions: int, out: Path, t_fit: float,
             total: float, notes: tuple[Any, ...]) -> list[str]:
    """The printed summary: as the in-memory command's, sizes and profile lines from every
    row (``profiles_``: docs/distributed.md), the trust figures from the fit's table."""
    from ..cluster.consensus._describe import profile_lines

    choice_lines, trust_line, cluster_stability = notes
    k = int(model.n_clusters_)
    prof = model.profiles_
    per = prof.groupby("cluster", sort=True)["size"].first() if len(prof) else prof
    size = {int(c): int(v) for c, v in per.items()} if len(prof) else {}
    n = sum(size.values())
    sizes = ", ".join(str(size.get(c, 0)) for c in range(k))
    lines = [f"catembed cluster: consensus of {len(model.members_)} members on {name} "
             f"({npartitions} partitions): {n} rows, fitted on {model.n_rows_fitted_} -> "
             f"{k} cluster{'s' if k != 1 else ''} (sizes {sizes}); fit {t_fit:.2f} s, total "
             f"{total:.2f} s; wrote {out}/", *choice_lines(model), trust_line(model)]
    if k > 1:
        lines.append(f"  {'member':10s} {'stability':>9s} {'weight':>7s} {'agreement':>9s}")
        for member, s, w, a in zip(model.members_, model.member_stability_,
                                   model.member_weights_, model.member_agreement_, strict=True):
            lines.append(f"  {member:10s} {s:9.3f} {w:7.3f} {a:9.3f}")
    lines.append("  clusters (significant values, p <= 0.05, largest v-test first: share in the "
                 "cluster vs overall; not: the most under-represented):")
    lines += [f"  {line}" for line in profile_lines(prof, n,
                                                     stability=cluster_stability(model))]
    return lines
