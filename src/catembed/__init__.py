"""catembed: unsupervised embeddings of categorical and mixed-type tables.

The public API: the value statistics every method starts from, the embedding estimators
(scikit-learn transformers), and saving/loading fitted models.

Attributes are imported on first use (PEP 562 module ``__getattr__``), so ``import catembed``
and the command line's start-up (``catembed --version``) do not import NumPy, pandas,
scikit-learn or PyTorch; ``from catembed import CDE`` works as usual.
"""

from __future__ import annotations

import importlib

from ._utils._method_names import METHOD_CLASSES, METHOD_NAMES  # noqa: F401 - names only, re-exported
from ._version import __version__

# public name -> the module that defines it
_LAZY: dict[str, str] = {
    "CatEmbedError": "._utils._errors",
    "CatEmbedTypeError": "._utils._errors",
    "CatEmbedWarning": "._utils._errors",
    "ValueEmbedder": ".base",
    "CDE": ".embed",
    "CDEAutoencoder": ".embed",
    "CDEPlusPlus": ".embed",
    "Couplings": ".embed",
    "IDFEmbedder": ".embed",
    "OneHotAutoencoder": ".embed",
    "OneHotEmbedder": ".embed",
    "OneHotPCA": ".embed",
    "UNTIE": ".embed",
    "MCA": ".embed",
    "LCME": ".embed",
    "CategoricalDistance": ".similarity",
    "Consensus": ".cluster",
    "ValueStatistics": ".stats",
    "compute_statistics": ".stats",
    "load": ".persist",
    "register": ".persist",
    "save": ".persist",
    "transform_file": ".transform.streaming",
}
# the classes whose saved models :func:`load` restores (imported when a file names one)
_MODEL_CLASSES = (
    "CDE", "IDFEmbedder", "OneHotEmbedder", "OneHotPCA", "CDEPlusPlus", "CDEAutoencoder",
    "OneHotAutoencoder", "UNTIE", "Couplings", "MCA", "LCME", "CategoricalDistance",
    "Consensus",
)


def __getattr__(name: str) -> object:  # typing is not imported: start-up stays short
    if name == "METHODS":
        value: object = importlib.import_module(".embed.registry", __name__).METHODS
    elif name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    else:
        raise AttributeError(f"module 'catembed' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "CDE",
    "CategoricalDistance",
    "CDEAutoencoder",
    "CDEPlusPlus",
    "Consensus",
    "Couplings",
    "METHODS",
    "METHOD_NAMES",
    "CatEmbedError",
    "CatEmbedTypeError",
    "CatEmbedWarning",
    "IDFEmbedder",
    "LCME",
    "MCA",
    "OneHotAutoencoder",
    "OneHotEmbedder",
    "OneHotPCA",
    "UNTIE",
    "ValueEmbedder",
    "ValueStatistics",
    "__version__",
    "compute_statistics",
    "load",
    "register",
    "save",
    "transform_file",
]
