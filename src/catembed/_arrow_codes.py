"""Codes of Arrow dictionary columns: each batch's dictionary matched once, one gather a row.

A Parquet string column read dictionary-encoded (:func:`catembed.io.iter_parquet_batches`)
arrives as integer indices into its row group's dictionary of distinct values.
:class:`DictionaryCodes` encodes each new dictionary with the transform's own value encoding
(:func:`catembed._lookup.encode_values`: the same matching, pooling of rare values and
missing-value rules as a DataFrame column) and takes every row's index through that small
table: the per-row work is one ``int32`` gather, with no string hashing and no DataFrame, and
the codes are those :meth:`ValueEmbedder._encode_values` gives the same rows as a DataFrame
(whose Parquet string columns are ``category`` columns of the same dictionaries).

A batch it cannot code this way (a column that is not dictionary-encoded, nulls or a missing
value under ``handle_missing="error"``) gives ``None``: the caller takes the DataFrame path,
which raises or warns with the usual messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from ._lookup import encode_values
from ._validation import CatEmbedError

__all__ = ["DictionaryCodes"]

_CACHED = 8  # dictionaries kept per column (row groups usually repeat a few orders)


class DictionaryCodes:
    """The code matrix of a record batch of dictionary columns, in fitted categories.

    Parameters
    ----------
    names : list of str
        The fitted categorical columns (``feature_names_``), in order.
    categories : list of ndarray
        Their fitted categories (``categories_``).
    infrequent : list of (ndarray or None), or None
        Pooled rare values per column (``infrequent_categories_``).
    handle_missing : str
        The model's ``handle_missing``.
    """

    def __init__(self, names: Sequence[str], categories: Sequence[np.ndarray],
                 infrequent: Sequence[np.ndarray | None] | None, handle_missing: str) -> None:
        self.names = [str(n) for n in names]
        self.categories = list(categories)
        self.infrequent = None if infrequent is None else list(infrequent)
        self.handle_missing = handle_missing
        self._cache: list[list[tuple[Any, np.ndarray | None]]] = [[] for _ in self.names]

    def __call__(self, batch: Any) -> np.ndarray | None:
        """The ``n x m`` column-major ``int32`` codes of ``batch`` (``-1``: not seen in fit,
        no ``handle_unknown`` applied), or ``None`` where the DataFrame path must decide."""
        import pyarrow as pa
        import pyarrow.compute as pc

        cols = []
        for name in self.names:
            col = batch.column(name)
            if not pa.types.is_dictionary(col.type):
                return None
            cols.append(col)
        codes = np.empty((batch.num_rows, len(cols)), dtype=np.int32, order="F")
        for j, col in enumerate(cols):
            table = self._table(j, col.dictionary)
            if table is None:
                return None
            idx = col.indices
            if idx.null_count:
                if self.handle_missing == "error":
                    return None
                idx = pc.fill_null(idx, len(col.dictionary))  # the table's missing entry
            np.take(table, idx.to_numpy(), out=codes[:, j], mode="clip")
        return codes

    def _table(self, j: int, dictionary: Any) -> np.ndarray | None:
        """Codes of the dictionary's values, then of a missing value (a null index)."""
        cache = self._cache[j]
        for d, table in cache:
            if d.equals(dictionary):
                return table
        values = dictionary.to_pylist()
        if self.handle_missing != "error":
            values.append(None)
        frame = pd.DataFrame({self.names[j]: pd.Series(values, dtype=object)})
        try:
            table = encode_values(
                frame, [self.names[j]], [self.categories[j]],
                None if self.infrequent is None else [self.infrequent[j]],
                self.handle_missing,
            )[:, 0].astype(np.int32)
        except CatEmbedError:  # a missing value under handle_missing="error"
            table = None
        cache.insert(0, (dictionary, table))
        del cache[_CACHED:]
        return table
