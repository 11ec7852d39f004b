"""catembed's error and warning classes, in a module that imports nothing.

They live here (re-exported by :mod:`catembed._utils._validation` and :mod:`catembed`) so that the
command line and the data-set helpers can raise and catch them without importing NumPy or
pandas at start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # for the annotation only: this module imports nothing at run time
    from collections.abc import Iterable

__all__ = ["CatEmbedError", "CatEmbedTypeError", "CatEmbedWarning", "FallbackWarning", "named"]


class CatEmbedError(ValueError):
    """An error in the user's input, with a message meant to be read by a person."""


class CatEmbedTypeError(CatEmbedError, TypeError):
    """An input of the wrong type (a sparse matrix, None, a string, a dict, an iterator...).

    Catchable as :class:`CatEmbedError` (hence ``ValueError``) and as ``TypeError``, which
    scikit-learn raises for such inputs.
    """


class CatEmbedWarning(UserWarning):
    """A problem in the input that catembed worked around (dropped column, unseen value...)."""


class FallbackWarning(CatEmbedWarning):
    """A method returned another method's partition instead of its own (a fallback).

    ``partition`` names the partition returned, ``reason`` why; the evaluation protocol
    marks such a run ``status: fallback`` (issue 53)."""

    def __init__(self, message: str, *, partition: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.partition = partition
        self.reason = reason


def named(items: Iterable[object], limit: int = 10) -> str:
    """Up to ``limit`` of ``items`` as text, comma-separated, then "and N more" for the
    others: a message names what it can and says how much it leaves out."""
    texts = [str(x) for x in items]
    more = f" and {len(texts) - limit} more" if len(texts) > limit else ""
    return ", ".join(texts[:limit]) + more
