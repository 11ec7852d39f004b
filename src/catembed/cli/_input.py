"""What the command line reads and writes: the input a subcommand names (a table file, a
data-set folder or a bundled data set), the roles of its columns
(:mod:`catembed.evaluation.roles`, re-exported: the report uses them too), the ragged-row
check, the output-path checks made before any work, and argparse value types.

Light at import (no NumPy, pandas, scikit-learn or PyTorch): the table functions of
:mod:`catembed.io` are imported inside the functions that use them.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .._utils._errors import CatEmbedError
from .._utils._progress import Progress
from ..datasets import InputSpec, resolve_input, split_list
from ..evaluation.roles import Roles, column_roles

__all__ = ["InputSpec", "Roles", "check_outputs", "check_ragged", "column_roles",
           "freeze_imports", "int_in", "progress_for", "resolve_input", "split_list",
           "thaw_imports"]


#: set while a command's objects are frozen (:func:`freeze_imports`)
_FROZEN: list[bool] = []


def freeze_imports() -> None:
    """Leave the objects alive now (the modules a command has imported: pandas,
    scikit-learn, catembed) out of the garbage collector's later passes (``gc.freeze``)
    until the command ends (:func:`thaw_imports`, called by ``catembed.cli.main``). Every
    full collection walked them all: on ``catembed cluster`` of a 30 x 200 table one full
    collection cost 0.07-0.09 CPU s of the 0.35 after the imports (issue 55). The results
    do not change."""
    import gc

    gc.freeze()
    _FROZEN.append(True)


def thaw_imports() -> None:
    """Undo :func:`freeze_imports` at the end of a command, so that a process that runs
    ``main`` many times (a test session, a notebook) collects those objects again."""
    if _FROZEN:
        import gc

        _FROZEN.clear()
        gc.unfreeze()


def check_ragged(args: argparse.Namespace, spec: InputSpec) -> int | None:
    """Rows of a CSV with another field count than the header: a warning naming their lines
    (a refusal with ``--strict``; a command without that flag, ``args.strict`` absent, only
    warns). Returns the row count (None for Parquet). See :func:`catembed.io.check_ragged_rows`."""
    from .. import io

    return io.check_ragged_rows(spec.path, getattr(args, "strict", None))


def progress_for(args: argparse.Namespace, command: str) -> Progress:
    """The command's progress line on stderr: drawn when stderr is a terminal and not
    ``--quiet`` (:class:`catembed._utils._progress.Progress`), else a reporter that draws
    nothing."""
    return Progress(f"catembed {command}", enabled=False if args.quiet else None)


def check_outputs(args: argparse.Namespace, spec: InputSpec) -> None:
    """Refuse, before any work, outputs that are the input or cannot be written."""
    from .. import io

    inputs = [spec.path]
    if args.output:
        io.check_output_path(args.output, inputs=inputs, flag="--output")
    if args.save_model:
        io.check_output_path(args.save_model, inputs=inputs, flag="--save-model",
                             suffixes=(".npz",))
        if args.output and Path(args.output).resolve() == Path(args.save_model).resolve():
            raise CatEmbedError("--output and --save-model name the same file; give two names.")


def int_in(low: int, high: int | None, what: str) -> Any:
    """An argparse type: an integer in ``[low, high]``, refused with a one-line reason."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low or (high is not None and value > high):
            bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
            raise argparse.ArgumentTypeError(f"{text} is out of range: give an integer {bound}")
        return value

    parse.__name__ = what
    return parse
