"""The old name of :mod:`catembed.stats._profiles` (cluster_profiles).

Kept importable since the package root was grouped by the flow (issue 43). This name is the
same module object, so an attribute set on one is seen on the other.
"""

import importlib
import sys

sys.modules[__name__] = importlib.import_module("catembed.stats._profiles")
