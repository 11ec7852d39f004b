"""Value embedding methods: one method per module."""

from .baselines import IDFEmbedder, OneHotEmbedder, OneHotPCA
from .cde import CDE
from .cdepp import CDEAutoencoder, CDEPlusPlus, OneHotAutoencoder
from .couplings import Couplings
from .lcme import LCME
from .mca import FAMD, MCA
from .untie import UNTIE

__all__ = [
    "CDE",
    "CDEAutoencoder",
    "CDEPlusPlus",
    "Couplings",
    "FAMD",
    "IDFEmbedder",
    "LCME",
    "MCA",
    "OneHotAutoencoder",
    "OneHotEmbedder",
    "OneHotPCA",
    "UNTIE",
]
