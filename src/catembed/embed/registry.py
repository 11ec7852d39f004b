"""``METHODS``: the command line's embedders, name -> estimator class.

Built from :data:`catembed._utils._method_names.METHOD_CLASSES`, in its order; ``catembed.METHODS``
is this dict. The modules that need the classes by name (the report, the studies, the mixed
protocol) import it from here rather than from the package root.
"""

from __future__ import annotations

from typing import Any

from .._utils._errors import CatEmbedError
from .._utils._method_names import METHOD_CLASSES, resolve_name
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


class _MethodRegistry(dict):
    """A dict whose keys (method names) are matched case-insensitively: ``METHODS["MCA"]``
    is ``METHODS["mca"]``; an unknown name's ``KeyError`` says "did you mean" for a near
    miss."""

    def _key(self, key: Any) -> Any:
        try:
            return resolve_name(key, self)
        except CatEmbedError:
            return None

    def __missing__(self, key: Any) -> type:
        try:
            return dict.__getitem__(self, resolve_name(key, self))
        except CatEmbedError as exc:
            raise KeyError(str(exc)) from None

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self._key(key) is not None

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self else default


#: method name -> estimator class (names case-insensitive)
METHODS: dict[str, type] = _MethodRegistry(
    (name, _CLASSES[cls]) for name, cls in METHOD_CLASSES.items())
