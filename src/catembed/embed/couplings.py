"""The "Couplings" ablation of UNTIE (Table IV): the coupling spaces concatenated, no kernels.

The coupling spaces (UNTIE Eqs. 1-5) are :func:`~catembed.embed._untie_spaces.coupling_spaces`;
:class:`~catembed.embed.untie.UNTIE` puts them through a kernel bank and learns weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..base import ValueEmbedder
from ..stats._value_statistics import ValueStatistics
from ._untie_spaces import coupling_spaces

__all__ = ["Couplings"]

_SHARED_DOC = """
    handle_unknown : {"error", "ignore", "warn"}, default="error"
        A value not seen in fit: raise, or embed as the zero vector (with a warning for
        ``"warn"``).
    handle_missing : {"category", "error"}, default="category"
        NaN, None and empty strings are a value of their own, or an error.
    categorical_features : "auto", "all", list or mask, default="auto"
        Columns to embed; other columns are dropped with a warning.
    numeric : {"drop", "discretize", "passthrough"}, default="drop"
        Numeric columns not selected as categorical: dropped with a warning; cut into
        ``n_bins`` quantile bins embedded as values; or standardised and appended.
    n_bins : int, default=5
        Quantile bins per numeric column for ``numeric="discretize"``.
    dtype : {None, numpy.float32, numpy.float64}, default=None
        Output dtype (see :class:`catembed.ValueEmbedder`); ``None`` is float64 for UNTIE,
        whose ``n_components="all"`` keeps the Eq. 21 distances exactly (pass
        ``numpy.float32`` for half the memory). ``Couplings`` also takes ``n_components``.
"""



class Couplings(ValueEmbedder):
    """The "Couplings" ablation of UNTIE Table IV: concatenated coupling spaces, no kernels.

    Each value of attribute ``j`` maps to ``[p(v), p(v | u) for u in the other attributes]``
    (UNTIE Eqs. 1 and 4), ``1 + l - l_j`` numbers; an object concatenates its values'
    vectors. No kernels, no weights.

    Parameters
    ----------
    min_frequency : int, float or None, default=None
        Values seen fewer than ``min_frequency`` times (a float: a fraction of the rows)
        are pooled into one ``infrequent`` value per column (scikit-learn's
        ``OneHotEncoder`` meaning), in the statistics, with a warning; at transform the
        pooled values get the infrequent value's vector.
    max_categories : int or None, default=100
        At most this many values per column (the infrequent value included); the least
        frequent are pooled.
        Default 100 (cost quadratic in the number of values: ``l x l`` matrices or per
        column tables); every data set of the papers has at most 41 values per column, so
        their results are unchanged.
    {shared}
    Attributes
    ----------
    categories_ : list of ndarray
    feature_names_ : ndarray of str
    """

    _feature_prefix = "coupling"
    _combine = "concat"

    def __init__(
        self,
        *,
        min_frequency: int | float | None = None,
        max_categories: int | None = 100,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        n_components: int | None = None,
        dtype: Any = None,
    ) -> None:
        self.min_frequency = min_frequency
        self.max_categories = max_categories
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.n_components = n_components
        self.dtype = dtype

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray]:
        return [np.hstack([intra, inter]) for intra, inter in coupling_spaces(stats)]



Couplings.__doc__ = Couplings.__doc__.replace("{shared}", _SHARED_DOC.strip("\n").lstrip() + "\n")
