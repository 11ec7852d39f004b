"""Codes of Arrow dictionary columns: each batch's dictionary matched once, one gather a row.

A Parquet string column read dictionary-encoded (:func:`catembed.io.iter_parquet_batches`)
arrives as integer indices into its row group's dictionary of distinct values.
:class:`DictionaryCodes` encodes each new dictionary with the transform's own value encoding
(:func:`catembed.transform._lookup.encode_values`: the same matching, pooling of rare values and
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

from .._utils._validation import CatEmbedError
from ._lookup import encode_values

__all__ = ["DictionaryCodes"]

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
        # per column: the code of each fitted value met so far (a value's code depends on it
        # alone), and of the values not seen in fit of the recent dictionaries only (a row
        # group's dictionary grows batch by batch: each value is matched once), so that a
        # column of ever new values (identifiers) keeps memory flat
        self._known: list[dict[str, int]] = [{} for _ in self.names]
        self._unseen: list[dict[str, int]] = [{} for _ in self.names]
        self._missing: list[int | None] = [None] * len(self.names)
        # per column: the last dictionary and its table (the batches of a row group share
        # their dictionary: its unseen values are matched once, not once a batch)
        self._last: list[tuple[Any, np.ndarray] | None] = [None] * len(self.names)
        self._buf = np.empty(0, dtype=np.int32)  # the codes of every batch, reused

    def __call__(self, batch: Any) -> np.ndarray | None:
        """The ``n x m`` column-major ``int32`` codes of ``batch`` (``-1``: not seen in fit,
        no ``handle_unknown`` applied), or ``None`` where the DataFrame path must decide.
        The matrix is a view of a buffer that the next call overwrites."""
        import pyarrow as pa
        import pyarrow.compute as pc

        cols = []
        for name in self.names:
            col = batch.column(name)
            t = col.type
            if not (pa.types.is_dictionary(t) and (pa.types.is_string(t.value_type)
                                                   or pa.types.is_large_string(t.value_type))):
                return None
            cols.append(col)
        n = batch.num_rows
        if self._buf.size < n * len(cols):  # one buffer reused: fresh pages cost more than
            self._buf = np.empty(n * len(cols), dtype=np.int32)  # the gather
        # column-major and contiguous for any n (a row slice of a taller matrix is not: the
        # compiled lookup would load a second variant, 0.3 s, for a batch's last rows)
        codes = self._buf[: n * len(cols)].reshape((n, len(cols)), order="F")
        for j, col in enumerate(cols):
            idx = col.indices
            nulls = idx.null_count > 0
            if nulls and self.handle_missing == "error":
                return None
            table = self._table_of(j, col.dictionary, nulls)
            if table is None:
                return None
            if nulls:
                idx = pc.fill_null(idx, len(col.dictionary))  # the table's missing entry
            np.take(table, idx.to_numpy(), out=codes[:, j], mode="clip")
        return codes

    def _table_of(self, j: int, dictionary: Any, nulls: bool) -> np.ndarray | None:
        """:meth:`_table` of ``dictionary``, that of the last batch if it is the same."""
        last = self._last[j]
        if (last is not None and (not nulls or self._missing[j] is not None)
                and last[0].equals(dictionary)):
            table = last[1]
        else:
            table = self._table(j, dictionary.to_pylist(), nulls)
            if table is None:
                return None
            self._last[j] = (dictionary, table)
        table[-1] = -1 if self._missing[j] is None else self._missing[j]
        return table

    def _table(self, j: int, values: list[Any], nulls: bool) -> np.ndarray | None:
        """Codes of the dictionary's ``values``, then of a missing value (a null index)."""
        known, unseen = self._known[j], self._unseen[j]
        new = [v for v in values if v not in known and v not in unseen]
        if nulls and self._missing[j] is None:
            new.append(None)
        if new:
            try:
                got = self._encode(j, new)
            except CatEmbedError:  # a missing value under handle_missing="error"
                return None
            for v, c in zip(new, got.tolist(), strict=True):
                if v is None:
                    self._missing[j] = c
                else:
                    (known if c >= 0 else unseen)[v] = c
        table = np.empty(len(values) + 1, dtype=np.int32)
        table[: len(values)] = [known[v] if v in known else unseen[v] for v in values]
        if len(unseen) > len(values):  # some from earlier dictionaries: let them go
            self._unseen[j] = {v: unseen[v] for v in values if v in unseen}
        table[-1] = -1 if self._missing[j] is None else self._missing[j]
        return table

    def _encode(self, j: int, values: list[Any]) -> np.ndarray:
        """The transform's codes of some values of column ``j``, as a DataFrame column."""
        frame = pd.DataFrame({self.names[j]: pd.Series(values, dtype=object)})
        return encode_values(
            frame, [self.names[j]], [self.categories[j]],
            None if self.infrequent is None else [self.infrequent[j]], self.handle_missing,
        )[:, 0]
