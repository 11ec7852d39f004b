"""Which spelling of an option a message names: the command line's (``-k auto``) while a
``catembed`` command runs the fit, the Python one (``n_clusters='auto'``) otherwise
(issue 53: every warning names the spelling of the interface it is read in).

The command sets it around the fit with :func:`cli_spelling`; :func:`spell` picks. Imports
nothing heavy (the command line loads it at start-up).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["cli_spelling", "current_spelling", "in_cli", "k_asked", "rows_below_k", "spell"]

_CLI: ContextVar[str | None] = ContextVar("catembed_cli_spelling", default=None)

#: commands that fit the models with none of the fitting options (``catembed bench`` runs a
#: paper's protocol): an option "every command has" is named as ``catembed cluster``'s there
_NO_OPTIONS = frozenset({"bench"})

#: how each command that fits a clusterer names the number of clusters it was given
_K_OPTION = {"cluster": "-k {k}", "report": "--clusters {k}",
             "evaluate": "k = {k} (the number of classes)",
             "bench": "k = {k} (the number of classes)"}


@contextmanager
def cli_spelling(command: str | None = "cluster") -> Iterator[None]:
    """Messages raised inside name the command line's options, as read in ``catembed
    <command>`` (``None``: the Python spelling, e.g. to pass :func:`current_spelling` on to
    a worker process)."""
    token = _CLI.set(command)
    try:
        yield
    finally:
        _CLI.reset(token)


def current_spelling() -> str | None:
    """The command whose options the messages now name (``None``: Python's)."""
    return _CLI.get()


def in_cli() -> bool:
    """Whether the messages now name the command line's options."""
    return _CLI.get() is not None


def spell(python: str, cli: str, *, command: str | None = "cluster",
          elsewhere: str | None = None) -> str:
    """``python`` outside :func:`cli_spelling`; inside it, ``cli`` when the command running
    is ``command``, the one whose option ``cli`` names (``None``: every command that fits
    the model has it), else ``elsewhere`` (by default ``catembed <command> <cli>``: the
    option of another command, e.g. ``-k auto`` read in ``catembed evaluate``)."""
    running = _CLI.get()
    if running is None:
        return python
    if running == command or (command is None and running not in _NO_OPTIONS):
        return cli
    command = command or "cluster"  # bench: the option is catembed cluster's
    return elsewhere if elsewhere is not None else f"catembed {command} {cli}"


def k_asked(k: int) -> str:
    """The number of clusters asked for, as the interface spells it: ``n_clusters=3`` in
    Python, ``-k 3`` in ``catembed cluster``, ``--clusters 3`` in ``catembed report``, and
    "k = 3 (the number of classes)" in ``catembed evaluate`` (the protocol's k)."""
    running = _CLI.get()
    if running is None or running not in _K_OPTION:
        return f"n_clusters={k}"
    return _K_OPTION[running].format(k=k)


def rows_below_k(n: int, k: int) -> str:
    """"A table of ``n`` rows cannot hold ``k`` clusters", in the spelling of the
    interface (Python keeps scikit-learn's ``n_samples=... should be >= n_clusters=...``)."""
    if _CLI.get() is None:
        return f"n_samples={n} should be >= n_clusters={k}"
    return f"the table has only {n} row(s), fewer than {k_asked(k)}"
