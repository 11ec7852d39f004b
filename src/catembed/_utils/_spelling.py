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

__all__ = ["cli_spelling", "in_cli", "spell"]

_CLI: ContextVar[str | None] = ContextVar("catembed_cli_spelling", default=None)


@contextmanager
def cli_spelling(command: str = "cluster") -> Iterator[None]:
    """Messages raised inside name the command line's options, as read in ``catembed
    <command>``."""
    token = _CLI.set(command)
    try:
        yield
    finally:
        _CLI.reset(token)


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
    if command is None or running == command:
        return cli
    return elsewhere if elsewhere is not None else f"catembed {command} {cli}"
