"""The one check of every file catembed opens for reading, before it is opened.

:func:`check_input_file` refuses a path that is not a regular file (a FIFO, socket or
device would block a reader forever or never end; symbolic links are followed) or that is
larger than its kind of file may be; :func:`open_input_file` opens a file so checked without
blocking (and checks what it opened again: the name may have changed in between), and
:func:`read_text_file` reads a side file (``meta.json``, a preset or paper table) through
it. Tables (:mod:`catembed.io`) and model files (:func:`catembed.persist.read_model`) are
checked here too; :func:`refuse_dash` says why ``-`` (standard input) is not a table.
Standard library only: the CLI's argument parser reads the presets without importing
pandas.
"""

from __future__ import annotations

import os
import stat
from typing import BinaryIO

from ._errors import CatEmbedError

__all__ = ["MAX_TEXT_BYTES", "check_input_file", "open_input_file", "read_text_file"]

#: the largest side file (``meta.json``, a preset or paper table) catembed reads as text
MAX_TEXT_BYTES = 64 * 2**20


def check_input_file(path: str | os.PathLike, *, what: str = "input file",
                     kind: str = "table file", max_bytes: int | None = None) -> int:
    """Refuse, before anything opens it, a path that is not a regular file of at most
    ``max_bytes`` bytes; return its size.

    Every file catembed reads goes through here (tables, model files, ``meta.json``, presets,
    paper tables): a FIFO, socket or device (after resolving symbolic links) would block a
    reader forever or never end, and a side file far larger than any real one is refused
    before it is read. ``what`` names the file in "not found", ``kind`` what it should be.
    """
    try:
        st = os.stat(path)  # follows symbolic links: the file a reader would open
    except (FileNotFoundError, NotADirectoryError):
        raise CatEmbedError(f"{what} not found: {path}") from None
    except OSError as exc:  # a link loop, a name too long, no permission on a folder
        raise CatEmbedError(f"cannot read {path} ({exc.strerror or exc}).") from None
    if stat.S_ISDIR(st.st_mode):
        raise CatEmbedError(f"{path} is a folder, not a {kind}.")
    if not stat.S_ISREG(st.st_mode):
        raise CatEmbedError(f"{path} is not a regular file (a FIFO, socket or device); "
                            f"give a {kind}.")
    if max_bytes is not None and st.st_size > max_bytes:
        raise CatEmbedError(f"{path} has {st.st_size:,} bytes; a {kind} has at most "
                            f"{max_bytes:,}.")
    return int(st.st_size)


def open_input_file(path: str | os.PathLike, *, what: str, kind: str,
                    max_bytes: int | None = None) -> BinaryIO:
    """``path`` opened for reading in binary after :func:`check_input_file`; the open never
    blocks (``O_NONBLOCK``: a FIFO put in its place after the check is refused too)."""
    check_input_file(path, what=what, kind=kind, max_bytes=max_bytes)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise CatEmbedError(f"cannot read {path} ({exc.strerror or exc}).") from None
    fh = os.fdopen(fd, "rb")
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or (max_bytes is not None and st.st_size > max_bytes):
        fh.close()
        check_input_file(path, what=what, kind=kind, max_bytes=max_bytes)  # its message
        raise CatEmbedError(f"{path} changed while it was opened; try again.")
    return fh


def read_text_file(path: str | os.PathLike, *, kind: str, encoding: str = "utf-8",
                   max_bytes: int | None = None) -> str:
    """The text of a side file (``meta.json``, a preset or paper table), checked first by
    :func:`check_input_file` (a regular file of at most ``max_bytes``, default
    :data:`MAX_TEXT_BYTES`); ``UnicodeDecodeError`` as :meth:`bytes.decode` raises it."""
    max_bytes = MAX_TEXT_BYTES if max_bytes is None else max_bytes
    with open_input_file(path, what=kind, kind=kind, max_bytes=max_bytes) as fh:
        return fh.read(max_bytes + 1).decode(encoding)


def refuse_dash(text: str) -> None:
    """Refuse ``-``, the Unix spelling of standard input, unless a file has that name: a
    table is read more than once (its rows, then its shape or numbers), so it must be a
    regular file."""
    if text == "-" and not os.path.lexists(text):
        raise CatEmbedError("'-' (standard input) is not read: the table is read more than "
                            "once, so it must be a regular file; save it (e.g. "
                            "'... > table.csv') and give that path.")
