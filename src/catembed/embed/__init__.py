"""Value embedding methods: one method per module."""

from .baselines import IDFEmbedder, OneHotEmbedder, OneHotPCA
from .cde import CDE
from .cdepp import CDEAutoencoder, CDEPlusPlus, OneHotAutoencoder
from .untie import UNTIE, Couplings

__all__ = [
    "CDE",
    "CDEAutoencoder",
    "CDEPlusPlus",
    "Couplings",
    "IDFEmbedder",
    "OneHotAutoencoder",
    "OneHotEmbedder",
    "OneHotPCA",
    "UNTIE",
]
