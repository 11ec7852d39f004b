"""Value embedding methods: one method per module."""

from .autoencoders import CDEAutoencoder, OneHotAutoencoder
from .baselines import IDFEmbedder, OneHotEmbedder, OneHotPCA
from .cde import CDE
from .cdepp import CDEPlusPlus
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
