"""User text on its way into a page or a figure: one function per target.

Every string that comes from the user's data or call (a value, a column name, a class, a
title) and reaches the report's HTML, the JSON data block inside it, or a matplotlib label
goes through exactly one of these, so that it is shown as the text it is and never read as
markup, script or math:

* :func:`html_text`: text or an attribute value in HTML (``html.escape``, quotes included);
* :func:`script_json`: a JSON document inside a ``<script>`` element: ``<``, ``>`` and ``&``
  (and U+2028/U+2029) are written as ``\\u`` escapes, so that no ``</script>``, ``<!--`` or
  ``<script`` can occur in the block and ``JSON.parse`` gives back the original strings;
* :func:`plot_text`: a title, axis label, tick label, legend entry or annotation in
  matplotlib: every ``$`` becomes ``\\$``, so mathtext never parses user text (``$x^$`` or
  ``$\\frac{1}{$`` would raise) and matplotlib draws it as written.

Before any of these, a value becomes text by one rule, :func:`value_text` (one cell) or
:func:`value_texts` (a column): ``str``, except that bytes (a Parquet binary column, read as
bytes everywhere, as ``catembed embed`` reads it) are decoded as UTF-8 with each byte that is
not UTF-8, and each control character, written ``\\xNN``: ``b"\\x00\\xff"`` is shown as
the eight characters ``\\x00\\xff``, as Python writes it (pandas' ``astype(str)`` raised
``UnicodeDecodeError`` on it: issue 52, item 4).

A cell of a CSV file meant for a spreadsheet (``catembed cluster --profiles``) goes through
:func:`spreadsheet_text`: a text that a spreadsheet would run as a formula (it starts with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return, and is not a plain number) gets a
leading ``'``, as OWASP's "CSV injection" page advises, so ``=HYPERLINK(...)`` is shown as
the text it is (issue 52, item 14).

``tests/test_text_escaping.py`` checks that the rendering modules do not bypass them.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

__all__ = ["html_text", "plot_text", "script_json", "spreadsheet_frame", "spreadsheet_text",
           "value_text", "value_texts"]

# the characters that can end or change a <script> element's raw text, and the two line
# separators that older JavaScript did not allow in a string literal
_SCRIPT_UNSAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                "\u2028": "\\u2028", "\u2029": "\\u2029"})
# what starts a formula in a spreadsheet cell, and a plain number (which is not one)
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# the control characters of a bytes value, written as Python writes them in a bytes literal
_CONTROL = {c: f"\\x{c:02x}" for c in (*range(32), 127)}


def html_text(value: Any) -> str:
    """``value`` as HTML text or a quoted attribute value (``str(value)`` escaped)."""
    return html.escape(str(value), quote=True)


def script_json(obj: Any) -> str:
    """``obj`` as compact JSON that is safe as the raw text of a ``<script>`` element.

    ``<``, ``>`` and ``&`` occur in JSON only inside strings, where the ``\\u`` escapes
    mean the same characters, so ``JSON.parse`` (and :func:`json.loads`) return ``obj``.
    """
    return json.dumps(obj, separators=(",", ":")).translate(_SCRIPT_UNSAFE)


def plot_text(value: Any) -> str:
    """``str(value)`` for a matplotlib text artist, drawn as written: never mathtext.

    matplotlib reads a text with an even number of unescaped ``$`` as math, and draws
    ``\\$`` as ``$``; escaping every ``$`` therefore leaves no math and shows each
    character as given (a backslash before a ``$`` included).
    """
    return str(value).replace("$", "\\$")


def value_text(value: Any) -> str:
    """One cell as text: ``str(value)``; bytes decoded as UTF-8, a byte that is not UTF-8 and
    a control character written ``\\xNN`` (``b"caf\\xc3\\xa9"`` -> ``"café"``,
    ``b"\\x00\\xff"`` -> ``"\\\\x00\\\\xff"``)."""
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).decode("utf-8", "backslashreplace").translate(_CONTROL)
    return str(value)


def value_texts(values: Any) -> Any:
    """The cells of a column (array-like) as a NumPy array of ``str``, by :func:`value_text`'s
    rule; a column that holds no bytes goes through pandas' ``astype(str)`` as it did, so its
    texts are unchanged (and fast)."""
    import numpy as np
    import pandas as pd

    cells = np.asarray(values, dtype=object)
    if cells.ndim == 1 and pd.api.types.infer_dtype(cells, skipna=False) in ("bytes", "mixed"):
        cells = np.array([value_text(v) if isinstance(v, bytes | bytearray | memoryview)
                          else v for v in cells.tolist()], dtype=object)
    return pd.Series(cells, dtype=object).astype(str).to_numpy(dtype=object)


def spreadsheet_text(value: Any) -> Any:
    """A cell for a CSV file opened in a spreadsheet: a text that would be read as a formula
    (it starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return and is not a plain
    number such as ``-1.5``) with a leading ``'``, which spreadsheets show as text; any other
    value unchanged."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _NUMBER.fullmatch(
            value):
        return "'" + value
    return value


def spreadsheet_frame(frame: Any) -> Any:
    """``frame`` with each text cell through :func:`spreadsheet_text` (a copy when any cell
    changes; numbers are never touched)."""
    import pandas as pd

    out = frame
    for c in frame.columns:
        col = frame[c]
        if not (pd.api.types.is_object_dtype(col) or pd.api.types.is_string_dtype(col)):
            continue
        safe = col.map(spreadsheet_text, na_action="ignore")
        if not safe.equals(col):
            out = out.copy() if out is frame else out
            out[c] = safe
    return out
