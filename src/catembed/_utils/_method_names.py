"""The command line's method names and their estimator classes, by name: nothing imported.

:data:`METHOD_CLASSES` is the one place for them; :data:`METHOD_NAMES` (the package root and
the command line, without importing any estimator) and ``METHODS`` (the classes,
:mod:`catembed.embed.registry`) are derived from it.

Method names are case-insensitive everywhere (the command line, ``catembed.METHODS``, the
evaluation registry, Consensus members): :func:`resolve_name` finds a name as spelt in a
registry, or refuses it with a "did you mean" for a near miss.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from ._errors import CatEmbedError

__all__ = ["METHOD_CLASSES", "METHOD_NAMES", "close_name", "resolve_name", "unknown_message"]

#: the methods the command line knows: name -> estimator class (by name, in this package).
#: The one place for them: :data:`METHOD_NAMES` (no import) and ``METHODS`` (the classes,
#: imported on first use) are derived from it.
METHOD_CLASSES: dict[str, str] = {
    "cde": "CDE",
    "onehot": "OneHotEmbedder",
    "onehot-pca": "OneHotPCA",
    "idf": "IDFEmbedder",
    "cdepp": "CDEPlusPlus",
    "cde-ae": "CDEAutoencoder",
    "onehot-ae": "OneHotAutoencoder",
    "untie": "UNTIE",
    "couplings": "Couplings",
    "mca": "MCA",
    "lcme": "LCME",
}
#: the command line's method names, known without importing any estimator
METHOD_NAMES: tuple[str, ...] = tuple(METHOD_CLASSES)


def close_name(name: object, known: Iterable[str]) -> str | None:
    """The name of ``known`` nearest to ``name`` (case-insensitive, :mod:`difflib`), if any
    is near enough to be a slip of the keyboard."""
    names = list(known)
    lowered = {k.lower(): k for k in names}
    close = difflib.get_close_matches(str(name).strip().lower(), list(lowered), n=1,
                                      cutoff=0.6)
    return lowered[close[0]] if close else None


def resolve_name(name: object, known: Iterable[str], *, what: str = "method",
                 suffix: str = "") -> str:
    """``name`` as spelt in ``known``, matched case-insensitively (surrounding spaces
    ignored).

    Raises
    ------
    CatEmbedError
        ``unknown <what> 'x'; did you mean 'y'? choose from ...`` (the question only for a
        near miss); ``suffix`` ends the message (e.g. ``" (--method)"``).
    """
    names = list(known)
    if isinstance(name, str):
        key = name.strip().lower()
        for k in names:
            if k.lower() == key:
                return k
    raise CatEmbedError(unknown_message(name, names, what=what, suffix=suffix))


def unknown_message(name: object, known: Iterable[str], *, what: str = "method",
                    suffix: str = "") -> str:
    """The refusal of an unknown name: a "did you mean" for a near miss, then the choices."""
    names = list(known)
    near = close_name(name, names)
    did = f"did you mean {near!r}? " if near is not None else ""
    return f"unknown {what} {name!r}; {did}choose from {', '.join(names)}{suffix}."
