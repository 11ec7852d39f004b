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

``tests/test_text_escaping.py`` checks that the rendering modules do not bypass them.
"""

from __future__ import annotations

import html
import json
from typing import Any

__all__ = ["html_text", "plot_text", "script_json", "value_text", "value_texts"]

# the characters that can end or change a <script> element's raw text, and the two line
# separators that older JavaScript did not allow in a string literal
_SCRIPT_UNSAFE = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                "\u2028": "\\u2028", "\u2029": "\\u2029"})
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
