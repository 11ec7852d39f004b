"""A package's public names imported on first use (PEP 562 module ``__getattr__``).

``catembed.stats``, ``catembed.embed`` and ``catembed.deep`` list their public names with the
module that defines each; importing the package imports none of those modules, so a caller
that needs one piece (the transform path needs the value encoding, not SciPy; the command
line needs no PyTorch) pays for that piece only.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(package: str, where: Mapping[str, str]
                 ) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package`` whose public names are ``where``'s
    keys, each defined in the submodule ``where[name]`` (``"_compute"``, relative to the
    package). A name is imported on first use and then kept in the package's namespace."""

    def __getattr__(name: str) -> object:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{where[name]}"), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
