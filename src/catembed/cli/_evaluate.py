"""``catembed evaluate``: run the evaluation protocol (clustering, classification or
retrieval) of several methods on one table and print the scores (a table or ``--json``).

The parser is built in :mod:`catembed.cli._evaluation`; the top level imports no NumPy,
pandas or scikit-learn.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Any

from ..evaluation.inputs import _error, check_jobs, check_seed, load_input, split_list, summary_line

__all__ = ["cmd_evaluate", "evaluation_tasks"]


def evaluation_tasks() -> dict[str, Any]:
    """The evaluation tasks, with the classify and retrieve plug-ins registered."""
    from ..evaluation import classify, retrieval  # noqa: F401  (they register their tasks)
    from ..evaluation.protocol import TASKS

    return TASKS


def _warn_once(caught: list[Any]) -> None:
    """Re-issue the warnings of the methods' runs, each distinct message once (the same
    warning from every method or run is said once, with how often it came)."""
    seen: dict[tuple[type, str], int] = {}
    first: dict[tuple[type, str], Any] = {}
    for w in caught:
        key = (w.category, str(w.message))
        seen[key] = seen.get(key, 0) + 1
        first.setdefault(key, w)
    for key, n in seen.items():
        w = first[key]
        text = str(w.message) + (f" (said {n} times: once per method or run)" if n > 1 else "")
        warnings.warn_explicit(text, w.category, w.filename, w.lineno)


def cmd_evaluate(args: argparse.Namespace) -> int:
    from ..evaluation.methods import get_method

    tasks = evaluation_tasks()
    methods = split_list(args.methods)
    if not methods:
        raise _error("--methods is empty: name at least one method, e.g. --methods cde.")
    # unknown names are a user error, before any work; names are case-insensitive
    methods = [get_method(m).name for m in methods]
    if args.runs < 1:
        raise _error(f"--runs must be at least 1; got {args.runs}.")
    check_seed(args.seed, args.runs)
    check_jobs(args.jobs)
    if args.task == "classify":  # the classify task's own options (issue 4)
        from functools import partial

        tasks = {**tasks, "classify": partial(
            tasks["classify"], classifier=args.classifier, test_size=args.test_size,
            n_repeats=args.repeats)}
    data = load_input(args.data, args.target, args.preset, split_list(args.drop), args.data_dir,
                      numeric=args.numeric, n_bins=args.n_bins)
    d = data.describe()
    if not args.json:
        print(f"catembed evaluate: {summary_line(data)}", file=sys.stderr)
    groups = _method_groups(data, methods)
    from .._utils._spelling import cli_spelling

    with warnings.catch_warnings(record=True) as caught, cli_spelling("evaluate"):
        warnings.simplefilter("always")
        results = []
        for X, group in groups:
            results += tasks[args.task](X, data.labels.to_numpy(), group,
                                        runs=args.runs, seed=args.seed, clusterer=args.clusterer,
                                        init=args.init, n_jobs=args.jobs,
                                        **({"refit": args.refit} if args.refit else {}),
                                        **({"f_score": args.f_score} if args.task == "cluster"
                                           else {}))
    _warn_once(caught)
    if len(groups) > 1:  # the methods in the order given
        results.sort(key=lambda r: methods.index(r.method) if r.method in methods
                     else len(methods))
    n_numeric = {m: len(X.columns) - d["n_features"] for X, group in groups for m in group}
    failed = [r for r in results if r.status not in ("ok", "fallback")]
    if args.json:
        out = {"dataset": data.name, "preset": (data.preset or {}).get("name"),
               "n_rows": d["n_rows"], "n_features": d["n_features"],
               "n_values": d["n_values"], "n_numeric": d["n_numeric"],
               "n_classes": d["n_classes"], "runs": args.runs,
               "seed": args.seed, "init": args.init, "task": args.task,
               **({"f_score": args.f_score} if args.task == "cluster" else {}),
               "results": [{**r.summary(), "n_numeric_used": n_numeric.get(r.method, 0)}
                           for r in results]}
        json.dump(out, sys.stdout, indent=2, allow_nan=False)
        sys.stdout.write("\n")
    else:
        if args.task == "classify":
            from ..evaluation.classify import format_results

            print(format_results(results))
        elif args.task == "retrieve":
            from ..evaluation.retrieval import text_table

            print(text_table(results))
        else:
            print(_text_table(results))
    for r in failed:
        print(f"catembed: warning: {r.label}: {r.status}: {r.message}", file=sys.stderr)
    for r in results:  # scored, but another partition's (issue 53)
        if r.status == "fallback" and r.fallback:
            f = r.fallback
            print(f"catembed: warning: {r.label}: fallback in {f['runs']} of {f['of']} runs: "
                  f"{f['reason']}; those runs' scores are the {f['partition']}'s, not "
                  f"{r.label}'s own", file=sys.stderr)
    if failed and len(failed) == len(results):
        if all(r.refused for r in failed):  # the input or the set-up, as said above: status 2
            print("catembed: error: no method could run on this input; see the warnings "
                  "above.", file=sys.stderr)
            return 2
        return 1
    return 0


def _method_groups(data: Any, methods: list[str]) -> list[tuple[Any, list[str]]]:
    """``(features, methods)`` pairs: with numeric columns (``--numeric passthrough``), the
    methods that take categories only get the categorical columns (one note says so), the
    others (FAMD, LCA, k-prototypes, ...: :attr:`EvalMethod.numeric`) every column."""
    from ..evaluation.methods import get_method

    numeric = [c for c in data.numeric_columns if c in data.features.columns]
    if not numeric:
        return [(data.features, methods)]
    plain = [m for m in methods if not get_method(m).numeric]
    mixed = [m for m in methods if m not in plain]
    keep = [c for c in data.features.columns if c not in set(numeric)]
    if plain and not keep:
        print(f"catembed: warning: every column is numeric, so {', '.join(plain)}, which "
              "take categorical columns only, have nothing to embed (each is reported as an "
              "error); --numeric discretize gives them binned numbers.", file=sys.stderr)
    elif plain:
        print(f"catembed: note: {', '.join(plain)} take categorical columns only: the "
              f"{len(numeric)} numeric column(s) ({', '.join(numeric[:8])}"
              f"{' ...' if len(numeric) > 8 else ''}) are left out for "
              f"{'them' if len(plain) > 1 else 'it'}"
              + (f" (used by {', '.join(mixed)})" if mixed else "")
              + "; --numeric discretize gives them binned numbers.", file=sys.stderr)
    return [(X, group) for X, group in ((data.features[keep], plain), (data.features, mixed))
            if group]


def _text_table(results: list[Any]) -> str:
    import math

    w = max([12, *(len(str(r.label)) for r in results)])
    wc = max([9, *(len(str(r.clusterer)) for r in results)])
    head = f"{'method':<{w}} {'clusterer':<{wc}} {'F-score':>15} {'NMI':>15} {'ACC':>15} " \
           f"{'ARI':>15} {'fit s':>8}"
    lines = [head, "-" * len(head)]
    for r in results:
        if r.status not in ("ok", "fallback"):
            lines.append(f"{r.label:<{w}} {r.clusterer:<{wc}} {r.status}")
            continue
        cells = [f"{r.mean(m):.3f} +- {r.std(m):.3f}" for m in ("f_score", "nmi", "acc", "ari")]
        fit = float(r.fit_seconds)
        mark = ""
        if r.status == "fallback" and r.fallback:  # the scores are another partition's
            mark = (f"  fallback ({r.fallback['runs']}/{r.fallback['of']} runs: "
                    f"{r.fallback['partition']})")
        lines.append(f"{r.label:<{w}} {r.clusterer:<{wc}} "
                     + " ".join(f"{c:>15}" for c in cells)
                     + f" {fit if math.isfinite(fit) else float('nan'):>8.3f}" + mark)
    return "\n".join(lines)
