"""Dask DataFrames: fit and transform without computing the table (``docs/design.md``, "Dask").

The fit runs the same steps as an in-memory fit, each as an exact reduction over the
partitions: the numeric summaries (value counts, sums) and the value statistics are counted
partition by partition on the Dask scheduler and merged exactly. ``transform`` maps the
fitted lookup over the partitions and returns a lazy Dask DataFrame.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from .._utils._validation import is_dask_collection
from ..stats._compute import compute_statistics
from ..stats._numeric import apply_numeric, numeric_summary
from ._lookup import empty_aligned

__all__ = ["DaskAwareTransformer", "fit_dask", "transform_dask"]

#: rows encoded and looked up at a time within one partition
_SLICE = 1 << 20


def fit_dask(est: Any, ddf: Any) -> Any:
    """``est.fit`` of a Dask DataFrame: the columns are chosen on its ``_meta``, the numeric
    policy reduces exact mergeable summaries (value counts for ``"discretize"``, whose
    quantiles equal ``numpy.quantile`` of the whole column; sums for ``"passthrough"``),
    and the statistics are merged over the partitions."""
    table = est._start_fit(ddf._meta, sample=True)
    numeric = table.numeric
    summaries: list[Any] = []
    if numeric:
        import dask

        policy = est._numeric_policy()
        summaries = list(dask.compute(*[
            ddf[c].map_partitions(numeric_summary, policy, meta=(c, "float64"))
            for c in numeric
        ]))
    est._set_numeric_from_summaries(summaries)
    bins = est.numeric_bins_
    if bins:
        ddf = ddf.map_partitions(apply_numeric, bins, meta=apply_numeric(table.frame, bins))
    stats = compute_statistics(ddf[table.categorical], columns=table.categorical,
                               handle_missing=est.handle_missing)
    est._fit_statistics(stats)
    return est


def transform_dask(est: Any, ddf: Any) -> Any:
    """``est.transform`` of a Dask DataFrame: a lazy Dask DataFrame, partition by partition,
    its columns named as ``set_output(transform="pandas")`` would name them."""
    names = [str(n) for n in est.get_feature_names_out()]
    dtype = est._output_dtype()
    meta = pd.DataFrame({n: np.array([], dtype=dtype) for n in names},
                        index=ddf._meta.index[:0])
    return ddf.map_partitions(_transform_partition, est, names, _SLICE, meta=meta)


def _transform_partition(part: pd.DataFrame, est: Any, names: list[str],
                         rows: int) -> pd.DataFrame:
    """The embedding of one partition as a frame over one column-major block
    (:func:`_arrow_block`): each column is contiguous, so ``to_parquet`` hands it to Arrow
    without a copy (a row-major block would be copied column by column: 32 more bytes per
    row at 8 float32 columns). A partition over ``rows`` rows is encoded and looked up
    slice by slice, so its codes and temporaries are those of one slice."""
    n = len(part)
    out = _arrow_block(n, len(names), est._output_dtype())
    if n <= rows:
        est._transform_array(part, out=out)
    else:
        for start in range(0, n, rows):
            out[start : start + rows] = est._transform_array(part.iloc[start : start + rows])
    return pd.DataFrame(out, columns=names, index=part.index, copy=False)


def _arrow_block(n: int, k: int, dtype: Any) -> np.ndarray:
    """An empty ``n x k`` column-major block in Arrow's memory pool: the pool keeps the
    memory the partition's Parquet read freed, and ``to_parquet`` writes from the same
    pool, so a worker reuses one set of pages (NumPy's own allocation would add fresh ones
    on top: 100-140 MiB more peak RSS per worker at 5M-row partitions)."""
    try:
        import pyarrow as pa
    except ImportError:  # pragma: no cover
        return empty_aligned((n, k), dtype, order="F")
    dtype = np.dtype(dtype)
    buf = pa.allocate_buffer(max(n * k * dtype.itemsize, 1))
    return np.frombuffer(buf, dtype=dtype, count=n * k).reshape((n, k), order="F")


class _ArrayTransformer(TransformerMixin, BaseEstimator):
    """A transformer whose ``transform`` is the array embedding (``_transform_array``):
    scikit-learn wraps it in its ``set_output`` container, as it wraps the ``transform``
    every class defines."""

    def transform(self, X: Any) -> np.ndarray:
        return self._transform_array(X)


class DaskAwareTransformer(_ArrayTransformer, auto_wrap_output_keys=None):
    """``transform`` and ``fit_transform`` that return a lazy Dask DataFrame for a Dask
    input and scikit-learn's ``set_output`` container for any other.

    The class opts out of scikit-learn's automatic wrapping (``auto_wrap_output_keys=None``)
    so that a Dask result passes unchanged; every other input goes through the wrapped
    ``transform`` of :class:`_ArrayTransformer`. Subclasses get ``set_output`` back (their
    ``auto_wrap_output_keys`` is the default) without their inherited ``transform`` being
    wrapped twice.
    """

    def transform(self, X: Any) -> Any:
        """Embed each row: look up its values' vectors.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            A Dask DataFrame gives a lazy Dask DataFrame (named as with
            ``set_output(transform="pandas")``), computed partition by partition.

        Returns
        -------
        ndarray of shape (n_samples, n_features_out)
            Or a DataFrame with ``set_output(transform="pandas")``.
        """
        if is_dask_collection(X):
            check_is_fitted(self, "_tables")
            return transform_dask(self, X)
        return super().transform(X)  # scikit-learn's set_output container

    def fit_transform(self, X: Any, y: Any = None, **fit_params: Any) -> Any:
        """``fit(X).transform(X)``; a Dask DataFrame gives a lazy Dask DataFrame. The
        transform reuses the value codes the fit computed (:meth:`_keeping_fit_codes`)."""
        if is_dask_collection(X):
            return self.fit(X, y, **fit_params).transform(X)
        with self._keeping_fit_codes():
            self.fit(X, y, **fit_params)
            return self.transform(X)  # scikit-learn's set_output container

    @contextlib.contextmanager
    def _keeping_fit_codes(self) -> Iterator[None]:
        """A context in which ``fit`` may keep the codes it factorised the table into
        (``_kept_fit_codes``, see :func:`catembed.transform._lookup.keep_fit_codes`) for the
        ``transform`` of the same table; dropped on leaving."""
        self._kept_fit_codes = None
        try:
            yield
        finally:
            self.__dict__.pop("_kept_fit_codes", None)
