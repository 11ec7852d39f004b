"""The cluster profiles read a table's cells as text column by column (issue 40 item 5: wide
tables): the fast path for text and object columns gives the codes and texts of pandas'
``astype(object).where(notna, "(missing)").astype(str)``, whatever the cells hold."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import catembed.stats._frame_codes as frame_codes
from catembed.stats._profiles import _text_codes


def _old(col: pd.Series):
    text = col.astype(object).where(col.notna(), "(missing)").astype(str)
    return pd.factorize(text.to_numpy(), sort=True)


@pytest.mark.parametrize("chunk_cells", [1 << 22, 12, 1])  # all at once; 2 columns; 1
def test_text_codes_equal_pandas_text_on_every_kind_of_column(chunk_cells, monkeypatch):
    # a tall table's text columns are read a few at a time (bounded memory): the same
    monkeypatch.setattr(frame_codes, "CHUNK_CELLS", chunk_cells)
    df = pd.DataFrame({
        "text": ["b", "a", None, "b", "c", "a"],
        "mixed": ["1", 1, 2.5, None, np.nan, True],
        "ints": [3, 1, 2, 3, 1, 2],
        "floats": [1.0, np.nan, 2.5, 1.0, 0.1, 2.5],
        "bools": [True, False, True, True, False, False],
        "cat": pd.Categorical(["x", "y", None, "x", "y", "y"]),
        "when": pd.to_datetime(["2020-01-01", None, "2021-05-02", "2020-01-01", None, None]),
        "string": pd.array(["u", pd.NA, "v", "u", "w", "w"], dtype="string"),
        7: ["p", "q", "p", "q", "p", "q"],  # a name that is not text
    })
    got = list(_text_codes(df))
    assert [g[0] for g in got] == list(df.columns)
    for name, codes, uniques in got:
        want_codes, want_uniques = _old(df[name])
        np.testing.assert_array_equal(codes, want_codes, err_msg=str(name))
        assert list(uniques) == list(want_uniques), name
    # "1" and 1 are one text; missing values are the text "(missing)"
    mixed = dict(zip(["name", "codes", "uniques"], got[1], strict=True))
    assert list(mixed["uniques"]) == ["(missing)", "1", "2.5", "True"]
