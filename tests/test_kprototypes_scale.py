"""KPrototypes warns when numeric columns are not standardised (issue 11, defect 3)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError, CatEmbedWarning
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


@pytest.mark.parametrize("bad", [np.inf, -np.inf, 1.7e308])
def test_infinite_or_overflowing_numbers_are_refused_by_name(bad):
    # Squared distances of such numbers overflow float64 (inf - inf = nan in the
    # prototype distances); refuse them instead of clustering on nan.
    X = _table(1.0)
    X.loc[7, "n"] = bad
    with pytest.raises(CatEmbedError, match=r"column 'n' has infinite values.*rescale"):
        _kp().fit(X)
    fitted = _kp().fit(_table(1.0))
    with pytest.raises(CatEmbedError, match="column 'n'"):
        fitted.predict(X)


def test_large_but_safe_numbers_cluster_without_runtime_warnings():
    X = _table(1.0)
    X["n"] *= 1e140
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("ignore", CatEmbedWarning)
        labels = _kp().fit(X).labels_
    assert np.isin(labels, [0, 1]).all()
