"""catembed: unsupervised embeddings of categorical and mixed-type tables.

The public API: the value statistics every method starts from, the embedding estimators
(scikit-learn transformers), and saving/loading fitted models.
"""

from ._validation import CatEmbedError, CatEmbedWarning
from ._version import __version__
from .base import ValueEmbedder
from .embed import (
    CDE,
    UNTIE,
    CDEAutoencoder,
    CDEPlusPlus,
    Couplings,
    IDFEmbedder,
    OneHotAutoencoder,
    OneHotEmbedder,
    OneHotPCA,
)
from .persist import load, register, save
from .similarity import CategoricalDistance
from .stats import ValueStatistics, compute_statistics
from .streaming import transform_file

for _cls in (
    CDE, IDFEmbedder, OneHotEmbedder, OneHotPCA, CDEPlusPlus, CDEAutoencoder, OneHotAutoencoder,
    UNTIE, Couplings,
):
    register(_cls)
register(CategoricalDistance)

#: the methods the command line knows, by name
METHODS = {
    "cde": CDE,
    "onehot": OneHotEmbedder,
    "onehot-pca": OneHotPCA,
    "idf": IDFEmbedder,
    "cdepp": CDEPlusPlus,
    "cde-ae": CDEAutoencoder,
    "onehot-ae": OneHotAutoencoder,
    "untie": UNTIE,
    "couplings": Couplings,
}

__all__ = [
    "CDE",
    "CategoricalDistance",
    "CDEAutoencoder",
    "CDEPlusPlus",
    "Couplings",
    "METHODS",
    "CatEmbedError",
    "CatEmbedWarning",
    "IDFEmbedder",
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
