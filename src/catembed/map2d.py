"""The old name of :mod:`catembed.plot.map2d` (coupling_axes, column_dependence, arrange_labels).

Kept importable since the package root was grouped by the flow (issue 43). This name is the
same module object, so an attribute set on one is seen on the other.
"""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("catembed.plot.map2d")
