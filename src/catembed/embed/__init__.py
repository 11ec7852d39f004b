"""Value embedding methods: one method per module.

The classes are imported on first use (PEP 562 module ``__getattr__``): loading a saved
model imports its own class's module only (``catembed transform`` starts faster), and
``from catembed.embed import CDE`` works as usual.
"""

from __future__ import annotations

from .._utils._lazy import lazy_exports

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

__getattr__, __dir__ = lazy_exports(__name__, {k: v[1:] for k, v in _CLASSES.items()})
