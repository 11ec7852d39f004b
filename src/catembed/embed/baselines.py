"""The encoding baselines of CDE Table 1: one-hot (0-1), one-hot + PCA (0-1P) and IDF.

All three are fitted from the shared value statistics, so they stream like every other
method. One-hot uses scikit-learn's :class:`~sklearn.preprocessing.OneHotEncoder` with the
categories the statistics found.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.preprocessing import OneHotEncoder

from .._validation import CatEmbedError
from ..base import ValueEmbedder
from ..stats import ValueStatistics

__all__ = ["OneHotEmbedder", "OneHotPCA", "IDFEmbedder"]

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
        ``n_bins`` quantile bins embedded as values (bins learned in ``fit``, NaN missing); or
        standardised and appended after the embedding (NaN becomes 0, the fitted mean).
    n_bins : int, default=5
        Quantile bins per numeric column for ``numeric="discretize"``.
    n_components, dtype :
        Compact output (a bounded width, float32): see :class:`catembed.ValueEmbedder`.
"""


class OneHotEmbedder(ValueEmbedder):
    """One-hot (0-1) encoding, the "0-1" column of CDE Table 1.

    A thin wrapper of scikit-learn's ``OneHotEncoder`` that shares catembed's vocabulary
    (missing values, unseen values, column selection, streaming fit from statistics).

    Parameters
    ----------
    {shared}
    Attributes
    ----------
    encoder_ : OneHotEncoder
        The fitted scikit-learn encoder doing the work.
    categories_ : list of ndarray
    feature_names_ : ndarray of str
    n_features_in_ : int
    """

    _feature_prefix = "onehot"

    def __init__(
        self,
        *,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        n_components: int | None = None,
        dtype: Any = None,
    ) -> None:
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.n_components = n_components
        self.dtype = dtype

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray]:
        self._build_encoder()
        return [np.eye(len(c)) for c in self.categories_]

    def _build_encoder(self) -> None:
        cats = [list(c) for c in self.categories_]
        height = max(len(c) for c in cats)
        frame = pd.DataFrame(
            {f: np.resize(np.asarray(c, dtype=object), height)
             for f, c in zip(self.feature_names_, cats, strict=True)}
        )
        self.encoder_ = OneHotEncoder(
            categories=cats, handle_unknown="ignore", sparse_output=False, dtype=np.float64
        ).fit(frame)

    def _transform_codes(self, codes: np.ndarray, df: pd.DataFrame) -> np.ndarray:
        # the codes carry the unknown and missing policies; scikit-learn encodes the values
        values = {}
        for j, f in enumerate(self.feature_names_):
            cats = self.categories_[j]
            # canonical values: what the encoder knows (missing -> nan), unseen -> marker
            canon = np.append(cats, np.array([_UNSEEN], dtype=object))
            values[f] = canon[np.where(codes[:, j] < 0, len(cats), codes[:, j])]
        return self.encoder_.transform(pd.DataFrame(values, index=df.index))

    def _embedding_names(self) -> list[str]:
        """scikit-learn's names: ``{column}_{value}``."""
        return list(self.encoder_.get_feature_names_out())

    def _restore_extra_state(self, arrays, meta):
        self._build_encoder()


_UNSEEN = "\x00catembed-unseen\x00"


class OneHotPCA(ValueEmbedder):
    """One-hot + PCA (0-1P), CDE Table 1, computed from the value statistics.

    The covariance of the one-hot matrix is ``C / n - p p^T`` (``C`` the co-occurrence counts),
    so the principal axes come from an ``l x l`` eigendecomposition and no ``n x l`` matrix is
    built. An object's score is ``(o - p) V``, a sum over its attributes of per-value rows, so
    ``transform`` adds value vectors instead of concatenating them.

    The beta rule (CDE spec: drop components whose range is below ``beta``) is applied to the
    components' standard deviation: a component is kept when its variance exceeds the
    numerical rank tolerance (``l * eps * largest eigenvalue``) and its standard deviation is at
    least ``beta``. (The range of a component over the objects is never smaller than its
    standard deviation, and a component with no variance has no range; the per-object range
    itself would need a second pass over the rows.)

    Parameters
    ----------
    beta : float, default=1e-10
    n_components : int or None, default=None
        Keep at most this many components (after the beta rule).
    {shared}
    Attributes
    ----------
    components_ : ndarray of shape (l, r)
        Principal axes in value space.
    explained_variance_ : ndarray of shape (r,)
    n_components_ : int
    """

    _combine = "sum"
    _feature_prefix = "onehotpca"
    _own_n_components = True

    def __init__(
        self,
        *,
        beta: float = 1e-10,
        n_components: int | None = None,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        dtype: Any = None,
    ) -> None:
        self.beta = beta
        self.n_components = n_components
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.dtype = dtype

    def _fit_values(self, stats: ValueStatistics) -> list[np.ndarray]:
        n = stats.n_rows
        p = stats.probabilities()
        cov = stats.cooc_dense() / n - np.outer(p, p)
        evals, evecs = np.linalg.eigh(cov)
        order = np.argsort(evals)[::-1]
        evals, evecs = evals[order], evecs[:, order]
        tol = max(evals[0], 0.0) * len(evals) * np.finfo(float).eps
        keep = (evals > tol) & (np.sqrt(np.maximum(evals, 0)) >= self.beta)
        evals, evecs = evals[keep], evecs[:, keep]
        if evecs.shape[1] == 0:
            raise CatEmbedError("0-1P kept no principal component; lower beta.")
        if self.n_components is not None:
            if int(self.n_components) < 1:
                raise CatEmbedError("n_components must be at least 1.")
            evals, evecs = evals[: self.n_components], evecs[:, : self.n_components]
        # deterministic signs: largest |entry| of each axis positive (as svd_flip does)
        big = np.argmax(np.abs(evecs), axis=0)
        evecs = evecs * np.sign(evecs[big, np.arange(evecs.shape[1])])
        self.components_ = evecs
        self.explained_variance_ = evals * n / max(n - 1, 1)
        self.n_components_ = evecs.shape[1]
        offs = stats.offsets
        tables = []
        for j in range(stats.n_features):
            block = evecs[offs[j] : offs[j + 1]]
            tables.append(block - p[offs[j] : offs[j + 1]] @ block)
        return tables

    def _extra_state(self):
        return {"components": self.components_, "explained_variance": self.explained_variance_}, {}

    def _restore_extra_state(self, arrays, meta):
        self.components_ = arrays["components"]
        self.explained_variance_ = arrays["explained_variance"]
        self.n_components_ = self.components_.shape[1]


class IDFEmbedder(ValueEmbedder):
    """Inverse document frequency encoding (IDF), CDE Table 1.

    The value ``v`` of attribute ``j`` is encoded as ``log(n / cnt(v))``: one column per
    attribute. An unseen value (``handle_unknown="ignore"``) gets 0.

    Parameters
    ----------
    {shared}
    """

    _feature_prefix = "idf"

    def __init__(
        self,
        *,
        handle_unknown: str = "error",
        handle_missing: str = "category",
        categorical_features: Any = "auto",
        numeric: str = "drop",
        n_bins: int = 5,
        n_components: int | None = None,
        dtype: Any = None,
    ) -> None:
        self.handle_unknown = handle_unknown
        self.handle_missing = handle_missing
        self.categorical_features = categorical_features
        self.numeric = numeric
        self.n_bins = n_bins
        self.n_components = n_components
        self.dtype = dtype

    def _fit_values(self, stats: ValueStatistics) -> np.ndarray:
        return np.log(stats.n_rows / stats.counts.astype(float))[:, None]

    def _embedding_names(self) -> list[str]:
        """``{column}__idf`` for each embedded column."""
        return [f"{f}__idf" for f in self.feature_names_]


for _cls in (OneHotEmbedder, OneHotPCA, IDFEmbedder):
    _cls.__doc__ = _cls.__doc__.replace("{shared}", _SHARED_DOC.strip("\n").lstrip())
