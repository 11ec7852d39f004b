"""Value embedding methods: one method per module."""

from .baselines import IDFEmbedder, OneHotEmbedder, OneHotPCA
from .cde import CDE
from .cdepp import CDEAutoencoder, CDEPlusPlus, OneHotAutoencoder

__all__ = [
    "CDE",
    "CDEAutoencoder",
    "CDEPlusPlus",
    "IDFEmbedder",
    "OneHotAutoencoder",
    "OneHotEmbedder",
    "OneHotPCA",
]
