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

_CLI: ContextVar[bool] = ContextVar("catembed_cli_spelling", default=False)


@contextmanager
def cli_spelling() -> Iterator[None]:
    """Messages raised inside name the command line's options."""
    token = _CLI.set(True)
    try:
        yield
    finally:
        _CLI.reset(token)


def in_cli() -> bool:
    """Whether the messages now name the command line's options."""
    return _CLI.get()


def spell(python: str, cli: str) -> str:
    """``cli`` inside :func:`cli_spelling`, else ``python``."""
    return cli if _CLI.get() else python
