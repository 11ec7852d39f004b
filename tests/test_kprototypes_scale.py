"""KPrototypes warns when numeric columns are not standardised (issue 11, defect 3)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedWarning
from catembed.cluster import KPrototypes


def _table(scale: float) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, 200)
    return pd.DataFrame({"a": np.where(g, "x", "y"), "b": np.where(g, "u", "v"),
                         "n": rng.normal(0, scale, 200)})


def _kp(**kw) -> KPrototypes:
    return KPrototypes(n_clusters=2, categorical_features=["a", "b"], random_state=0, **kw)


def test_unscaled_numeric_column_warns_with_the_fix():
    with pytest.warns(CatEmbedWarning, match=r"column\(s\) n are not standardised.*Standardise"):
        _kp().fit(_table(1e4))


def test_standardised_or_explicit_gamma_is_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error", CatEmbedWarning)
        _kp().fit(_table(1.0))
        _kp(gamma=5.0).fit(_table(1e4))
