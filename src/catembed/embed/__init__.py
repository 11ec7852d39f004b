"""Value embedding methods: one method per module."""

from .baselines import IDFEmbedder, OneHotEmbedder, OneHotPCA
from .cde import CDE

__all__ = ["CDE", "IDFEmbedder", "OneHotEmbedder", "OneHotPCA"]
