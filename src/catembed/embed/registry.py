"""``METHODS``: the command line's embedders, name -> estimator class.

Built from :data:`catembed._method_names.METHOD_CLASSES`, in its order; ``catembed.METHODS``
is this dict. The modules that need the classes by name (the report, the studies, the mixed
protocol) import it from here rather than from the package root.
"""

from __future__ import annotations

from .._method_names import METHOD_CLASSES
from .autoencoders import CDEAutoencoder, OneHotAutoencoder
from .baselines import IDFEmbedder, OneHotEmbedder, OneHotPCA
from .cde import CDE
from .cdepp import CDEPlusPlus
from .couplings import Couplings
from .lcme import LCME
from .mca import MCA
from .untie import UNTIE

__all__ = ["METHODS"]

_CLASSES = {cls.__name__: cls for cls in (
    CDE, OneHotEmbedder, OneHotPCA, IDFEmbedder, CDEPlusPlus, CDEAutoencoder,
    OneHotAutoencoder, UNTIE, Couplings, MCA, LCME,
)}
#: method name -> estimator class
METHODS: dict[str, type] = {name: _CLASSES[cls] for name, cls in METHOD_CLASSES.items()}
