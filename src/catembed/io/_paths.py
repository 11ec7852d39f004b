"""File names and output paths: the format a suffix names, and writing without harm.

:func:`table_format` reads a file's format from its name (a compression suffix skipped).
:func:`check_output_path` refuses, before any work, an output that is an input (the same
file, also through links), a missing or unwritable folder and an unknown suffix;
:func:`atomic_output` writes to a temporary file in the target folder and renames it into
place only on success (removed on failure or Ctrl-C), with the permissions a plain write
would give (:func:`output_mode`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from .._utils._files import MAX_TEXT_BYTES, check_input_file, read_text_file
from .._utils._pathtext import path_text
from .._utils._validation import CatEmbedError

__all__ = ["MAX_TEXT_BYTES", "atomic_output", "check_input_file", "check_not_input",
           "check_output_path", "output_mode", "read_text_file", "table_format",
           "write_text_atomic"]

_PARQUET = (".parquet", ".pq", ".parq")
_CSV = (".csv", ".txt", ".tsv", ".data")
_COMPRESSED = (".gz", ".bz2", ".xz", ".zip")
_OUTPUT_TABLE = _PARQUET + (".csv", ".tsv", ".txt")


def _plain_suffix(path: Path) -> str:
    """The format suffix, skipping a compression suffix (``t.csv.gz`` -> ``.csv``)."""
    suffixes = [s.lower() for s in path.suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    return suffixes[-1] if suffixes else ""


def _compression(path: Path) -> str | None:
    suffix = path.suffix.lower()
    return suffix if suffix in _COMPRESSED else None


def table_format(path: str | os.PathLike) -> str:
    """``"parquet"`` or ``"csv"`` from the file name (``.parquet``/``.pq``; anything else CSV)."""
    return "parquet" if _plain_suffix(Path(path)) in _PARQUET else "csv"


def _sep(path: Path) -> str:
    return "\t" if _plain_suffix(path) == ".tsv" else ","


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return os.path.realpath(a) == os.path.realpath(b)


def check_not_input(output: str | os.PathLike, inputs: Sequence[str | os.PathLike],
                    flag: str = "--output") -> None:
    """Refuse an output path that is one of ``inputs`` (same file, also via symbolic or hard
    links), so that no command ever writes over what it reads."""
    out = Path(output)
    for inp in inputs:
        if inp is not None and _same_file(out, Path(inp)):
            raise CatEmbedError(
                f"{flag} {output} is the input file {inp}; writing it would destroy the input. "
                f"Give {flag} a new file name."
            )


def check_output_path(path: str | os.PathLike, *, inputs: Sequence[str | os.PathLike] = (),
                      flag: str = "--output", suffixes: Sequence[str] = _OUTPUT_TABLE) -> None:
    """Check, before any work is done, that ``path`` can be written.

    Refuses a suffix not in ``suffixes`` (default: CSV/TSV/Parquet), a folder, an output that
    is one of ``inputs`` (:func:`check_not_input`), a missing folder and a folder where a file
    cannot be created (probed with a temporary file, removed at once).
    """
    path = Path(path)
    size, most = len(os.fsencode(path.name)), _name_max(path.parent)
    if size > most:  # checked first: os.stat of such a name raises "File name too long"
        raise CatEmbedError(f"{flag}: the file name {path.name} has {size} bytes; the folder "
                            f"{path.parent} takes names of at most {most}. Give a shorter name.")
    if path.is_dir():
        raise CatEmbedError(f"{flag} {path} is a folder; give a file name inside it, e.g. "
                            f"{path / ('model.npz' if '.npz' in suffixes else 'out.csv')}.")
    suffix = path.suffix.lower()
    if suffix not in suffixes:
        raise CatEmbedError(
            f"cannot write {path.name}: {flag} must end in {', '.join(suffixes)}."
        )
    check_not_input(path, inputs, flag)
    parent = path.parent
    if not parent.is_dir():
        raise CatEmbedError(f"{flag}: the folder {parent} does not exist; create it first.")
    probe = None
    try:
        while True:  # a probe file in the folder, removed at once
            probe = _side_name(path, "probe")
            if _reserve(probe):
                break
    except OSError as exc:
        raise CatEmbedError(f"{flag}: cannot write in the folder {parent} "
                            f"({exc.strerror or exc}).") from None
    finally:
        if probe is not None:
            with contextlib.suppress(OSError):
                probe.unlink()
    if path.exists() and not os.access(path, os.W_OK):
        raise CatEmbedError(f"{flag} {path} exists and is read-only; give another name or "
                            "make it writable.")


def output_mode(path: str | os.PathLike) -> int:
    """The permission bits a plain ``open(path, "w")`` would leave: an existing file's own
    mode, else ``0o666`` less the process umask (temporary files are made ``0o600``, so an
    atomic write sets this mode on its temporary file before renaming it into place)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except OSError:
        umask = os.umask(0o022)
        os.umask(umask)
        return 0o666 & ~umask


def arrow_file(path: str | os.PathLike, mode: str = "rb") -> Any:
    """``path`` as pyarrow takes it: the name itself, or, for a name that is not UTF-8 (valid
    on POSIX; pyarrow encodes names as UTF-8 and raised ``UnicodeEncodeError``), the file
    opened by its bytes (a ``pyarrow.OSFile`` in ``mode``, which the caller closes)."""
    name = os.fspath(path)
    try:
        name.encode("utf-8")  # bytes: AttributeError
    except (UnicodeEncodeError, AttributeError):
        import pyarrow as pa

        return pa.OSFile(os.fsencode(name), mode)
    return name


def _name_max(folder: Path) -> int:
    """The longest file name the folder's file system takes, in bytes (NAME_MAX; 255 when
    it cannot say)."""
    try:
        value = os.pathconf(folder, "PC_NAME_MAX")
    except (AttributeError, ValueError, OSError):
        value = -1
    return value if value and value > 0 else 255


def _side_name(path: Path, tag: str) -> Path:
    """``.NAME.RANDOM.TAG`` in ``path``'s folder (a temporary file or a probe), with NAME cut
    (whole characters) so that the name fits in NAME_MAX: a valid output name of 238 to 255
    bytes was refused as "cannot write in the folder (File name too long)", the temporary
    name adding 17 to 19 bytes to it."""
    token = secrets.token_hex(5)
    room = _name_max(path.parent) - len(os.fsencode(f"..{token}.{tag}"))
    name = path.name[:max(room, 0)]
    while name and len(os.fsencode(name)) > room:
        name = name[:-1]
    return path.parent / f".{name}.{token}.{tag}"


def _temp_name(path: Path) -> Path:
    """A free temporary name in ``path``'s folder (``.NAME.RANDOM.tmpSUFFIX``, NAME cut for a
    long name: :func:`_side_name`); not created."""
    suffix = path.suffix if len(os.fsencode(path.suffix)) <= 16 else ""
    return _side_name(path, f"tmp{suffix}")


def _reserve(tmp: Path) -> bool:
    """Create the empty file ``tmp`` (``0o600``, never through a link); False if it exists.

    Callers record ``tmp`` *before* calling this, so that a signal (SIGTERM, Ctrl-C) that
    ends the program at any moment finds the name to remove (with :func:`tempfile.mkstemp`
    the file existed for a moment before its name was kept anywhere)."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(tmp, flags, 0o600)
    except FileExistsError:
        return False
    os.close(fd)
    return True


def _publish(tmp: Path, target: Path, mode: int) -> None:
    """Rename ``tmp`` to ``target`` with the permission bits ``mode``."""
    os.chmod(tmp, mode)
    os.replace(tmp, target)


@contextlib.contextmanager
def atomic_output(path: str | os.PathLike) -> Iterator[Path]:
    """Yield a temporary path in ``path``'s folder (same suffix); on success rename it to
    ``path``, on any exception (Ctrl-C included) remove it, leaving ``path`` untouched."""
    target = Path(path)
    mode = output_mode(target)
    tmp: Path | None = None
    try:
        while True:
            tmp = _temp_name(target)
            if _reserve(tmp):
                break
        yield tmp
        _publish(tmp, target, mode)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                tmp.unlink()
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through :func:`atomic_output`: nothing is left
    behind on failure, and the file gets the permissions a plain write would give. A file
    name that is not UTF-8 quoted in ``text`` is written as ``\\xNN``
    (:func:`~catembed._utils._pathtext.path_text`), not refused by the encoder."""
    target = Path(path)
    with atomic_output(target) as tmp:
        tmp.write_text(path_text(text), encoding="utf-8")
    return target
