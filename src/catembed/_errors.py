"""catembed's error and warning classes, in a module that imports nothing.

They live here (re-exported by :mod:`catembed._validation` and :mod:`catembed`) so that the
command line and the data-set helpers can raise and catch them without importing NumPy or
pandas at start-up.
"""

from __future__ import annotations

__all__ = ["CatEmbedError", "CatEmbedWarning"]


class CatEmbedError(ValueError):
    """An error in the user's input, with a message meant to be read by a person."""


class CatEmbedWarning(UserWarning):
    """A problem in the input that catembed worked around (dropped column, unseen value...)."""
