"""Reading a model file's ``.npz`` archive without trusting the sizes it declares.

``numpy.load`` decompresses a member when it is asked for, whatever its size; a model file
is read here instead, in this order, so that nothing large is decompressed before it is
known to fit: every member's ``.npy`` header (dtype, shape; never a Python object) read from
the start of its compressed stream, its uncompressed size (``ZipInfo.file_size``) compared
with the header's ``shape x itemsize``, then the metadata (of bounded size) and the 0-d
arrays; :func:`catembed.persist._model_shapes.check_declared_shapes` compares every declared shape
with the metadata, the total with the memory limit; only then is each array read, once
(:func:`numpy.lib.format.read_array` into its own buffer, no second copy).
"""

from __future__ import annotations

import math
import zipfile
from dataclasses import dataclass
from typing import Any, BinaryIO

import numpy as np

from ._model_checks import bad

__all__ = ["MAX_META_BYTES", "Member", "read_archive"]

#: the largest metadata entry (``__meta__``, stored as UTF-32 text: 64M characters)
MAX_META_BYTES = 256 * 2**20
#: a file whose arrays declare more than this many bytes is compared with the memory limit
_LARGE = 2**30


@dataclass(frozen=True)
class Member:
    """One ``.npy`` member of the archive as its header declares it."""

    info: zipfile.ZipInfo
    dtype: np.dtype
    shape: tuple[int, ...]

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize


def _members(path: str, zf: zipfile.ZipFile) -> dict[str, Member]:
    """Every member's declared dtype and shape, from its header alone."""
    out: dict[str, Member] = {}
    fmt = np.lib.format
    for info in zf.infolist():
        name = info.filename
        if not name.endswith(".npy") or info.is_dir():
            raise bad(path, f"it holds an entry {name!r} that is not an array")
        key = name[: -len(".npy")]
        if key in out:
            raise bad(path, f"it holds the array {key} twice")
        with zf.open(info) as f:
            version = fmt.read_magic(f)
            if version == (1, 0):
                shape, _, dtype = fmt.read_array_header_1_0(f)
            elif version == (2, 0):
                shape, _, dtype = fmt.read_array_header_2_0(f)
            else:
                raise bad(path, f"array {key} is in .npy format version {version}")
            header = f.tell()
        if dtype.hasobject:  # would need pickle: never in a model file
            raise bad(path, f"array {key} holds Python objects (dtype {dtype})")
        member = Member(info, dtype, tuple(int(n) for n in shape))
        if info.file_size != header + member.nbytes:
            raise bad(path, f"array {key} declares shape {member.shape} of {dtype} "
                             f"({member.nbytes:,} bytes) but its archive entry holds "
                             f"{info.file_size - header:,}")
        out[key] = member
    return out


def _read(zf: zipfile.ZipFile, member: Member) -> np.ndarray:
    with zf.open(member.info) as f:
        return np.lib.format.read_array(f, allow_pickle=False)


def read_archive(path: str, fh: BinaryIO, check_meta: Any, check_shapes: Any
                 ) -> tuple[str, dict[str, Any], Any, dict[str, np.ndarray]]:
    """``(metadata text, metadata, checksum entry or None, arrays)`` of the archive ``fh``.

    ``check_meta(text) -> meta`` parses and checks the metadata (format, version);
    ``check_shapes(meta, declared, scalars)`` compares the declared shapes with it."""
    with zipfile.ZipFile(fh) as zf:
        if "__meta__.npy" not in zf.namelist():
            from .._utils._validation import CatEmbedError

            raise CatEmbedError(f"{path} is not a catembed model file (no __meta__ entry).")
        members = _members(path, zf)
        meta_member = members.pop("__meta__")
        if (meta_member.dtype.kind != "U" or meta_member.shape != ()
                or meta_member.nbytes > MAX_META_BYTES):
            raise bad(path, "the metadata is not a text entry of at most "
                             f"{MAX_META_BYTES // 4:,} characters")
        meta_text = str(_read(zf, meta_member))
        meta = check_meta(meta_text)
        checksum = members.pop("__checksum__", None)
        if checksum is not None:
            if checksum.dtype.kind != "U" or checksum.shape != () or checksum.nbytes > 1024:
                raise bad(path, "the checksum is not a text entry")
            checksum = _read(zf, checksum)
        scalars = {k: _read(zf, m) for k, m in members.items() if m.shape == ()}
        check_shapes(meta, {k: (m.dtype, m.shape) for k, m in members.items()}, scalars)
        total = sum(m.nbytes for m in members.values())
        if total > _LARGE:
            from .._utils._limits import memory_limit, size

            limit = memory_limit()
            if total > limit:
                raise bad(path, f"its arrays declare {size(total)}, above the "
                                 f"memory limit of {size(limit)} (CATEMBED_MAX_MEMORY)")
        data = {k: scalars[k] if k in scalars else _read(zf, m) for k, m in members.items()}
    return meta_text, meta, checksum, data
