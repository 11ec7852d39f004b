"""The command line's method names and their estimator classes, by name: nothing imported.

:data:`METHOD_CLASSES` is the one place for them; :data:`METHOD_NAMES` (the package root and
the command line, without importing any estimator) and ``METHODS`` (the classes,
:mod:`catembed.embed.registry`) are derived from it.
"""

from __future__ import annotations

__all__ = ["METHOD_CLASSES", "METHOD_NAMES"]

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
