"""scikit-learn's common estimator checks, and the usual sklearn compositions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from catembed import CDE, LCME, IDFEmbedder, OneHotEmbedder, OneHotPCA

ESTIMATORS = [CDE(random_state=0), OneHotEmbedder(), OneHotPCA(), IDFEmbedder(),
              LCME(random_state=0)]


def _expected_failures(estimator):
    # Every check passes; the dict stays here so a reason must be written for any exception.
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_pipeline_columntransformer_clone_pandas_output(est, watermelon):
    X = watermelon.assign(weight=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    ct = ColumnTransformer(
        [("cat", clone(est), ["texture", "color", "root"]), ("num", StandardScaler(), ["weight"])]
    )
    ct.set_output(transform="pandas")
    out = ct.fit_transform(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.index) == list(X.index)
    assert out.columns[-1] == "num__weight"
    pipe = make_pipeline(clone(est).set_output(transform="pandas"))
    z = pipe.fit_transform(watermelon)
    assert list(z.columns) == list(pipe[-1].get_feature_names_out())
    assert np.allclose(z.to_numpy(), clone(est).fit_transform(watermelon))
