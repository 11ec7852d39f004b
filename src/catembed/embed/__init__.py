"""Value embedding methods: one method per module.

The classes are imported on first use (PEP 562 module ``__getattr__``): loading a saved
model imports its own class's module only (``catembed transform`` starts faster), and
``from catembed.embed import CDE`` works as usual.
"""

from __future__ import annotations

import importlib

# public name -> the module that defines it
_CLASSES = {
    "CDE": ".cde",
    "CDEAutoencoder": ".autoencoders",
    "CDEPlusPlus": ".cdepp",
    "Couplings": ".couplings",
    "FAMD": ".mca",
    "IDFEmbedder": ".baselines",
    "LCME": ".lcme",
    "MCA": ".mca",
    "OneHotAutoencoder": ".autoencoders",
    "OneHotEmbedder": ".baselines",
    "OneHotPCA": ".baselines",
    "UNTIE": ".untie",
}

__all__ = sorted(_CLASSES)


def __getattr__(name: str) -> object:
    if name not in _CLASSES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_CLASSES[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
