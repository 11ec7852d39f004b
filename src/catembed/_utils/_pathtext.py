"""A file name as text that can be printed and written anywhere; imports nothing heavy.

POSIX file names are bytes: ``out\\xff.csv`` is a valid name that is not UTF-8. Python holds
such a name as a ``str`` with a lone surrogate (``"out\\udcff.csv"``), which opens the file
but cannot be encoded: printing it to a strict stream, writing it into an HTML or Markdown
file, or handing it to pyarrow raised ``UnicodeEncodeError``. :func:`path_text` is the one
way catembed turns a path (or a message that holds one) into text: the bytes that are not
UTF-8 shown as ``\\xff``, as the shell's ``$'out\\xff.csv'`` writes them; any other text is
returned unchanged.
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["path_text"]


def path_text(path: Any) -> str:
    """``path`` (a str, bytes or path-like object, or a message holding a path) as text that
    encodes to UTF-8: bytes of the name that are not UTF-8 become ``\\xNN``.

    >>> path_text("out\\udcff.csv")
    'out\\\\xff.csv'
    >>> path_text(b"caf\\xc3\\xa9.csv")
    'café.csv'
    """
    if not isinstance(path, str | bytes | os.PathLike):
        path = str(path)  # a message, an exception
    try:
        raw = os.fsencode(path)
    except UnicodeError:  # a surrogate that stands for no byte ("\ud800")
        return str(path).encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode(sys.getfilesystemencoding(), "backslashreplace")
