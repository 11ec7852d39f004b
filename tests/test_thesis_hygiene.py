"""Estimator hygiene of the deep models (issue 20, part A): scikit-learn's common checks
with the embedders' input tags, pickling, and the input errors of predict / transform."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")

from sklearn.utils.estimator_checks import parametrize_with_checks  # noqa: E402

from catembed import CatEmbedError  # noqa: E402
from catembed.deep import (  # noqa: E402
    IDEC,
    VAEWD,
    AttentionClusterer,
    AutoencoderKMeans,
    BiGANWD,
    ThesisClusterer,
)

# tiny step counts keep every check's fit to a fraction of a second
_FAST = dict(pretrain_steps=3, cluster_steps=3, update_interval=2, batch_size=32,
             random_state=0)
CHECKED = [
    AutoencoderKMeans(2, pretrain_steps=3, batch_size=32, random_state=0),
    IDEC(2, **_FAST),
    AttentionClusterer(2, embedding_dim=4, **_FAST),
    VAEWD(2, max_steps=3, random_state=0),
    BiGANWD(2, max_steps=3, random_state=0),
    ThesisClusterer(2, network="ft-transformer", clustering="dcn", epochs=2, cluster_epochs=1,
                    n_blocks=1, random_state=0),
]


@parametrize_with_checks(CHECKED, expected_failed_checks=lambda est: {})
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def mixed():
    rng = np.random.default_rng(0)
    n = 40
    return pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("pq"), n),
                         "num": rng.normal(size=n)})


@pytest.mark.parametrize("est", CHECKED, ids=lambda e: type(e).__name__)
def test_pickle_round_trip_gives_the_same_transform(est, mixed):
    fitted = est.fit(mixed)
    again = pickle.loads(pickle.dumps(fitted))
    np.testing.assert_array_equal(again.transform(mixed), fitted.transform(mixed))


@pytest.mark.parametrize("est", CHECKED, ids=lambda e: type(e).__name__)
def test_wrong_feature_count_and_empty_input(est, mixed):
    fitted = est.fit(mixed)
    method = fitted.predict if hasattr(fitted, "predict") else fitted.transform
    with pytest.raises(CatEmbedError, match="3 features"):
        method(mixed.to_numpy()[:, :2])
    with pytest.raises(CatEmbedError, match="3 features"):
        method(mixed.assign(extra=1.0))
    with pytest.raises(CatEmbedError, match="0 sample"):
        method(mixed.iloc[:0])
    with pytest.raises(CatEmbedError, match="0 sample"):
        type(est)(**est.get_params()).fit(mixed.iloc[:0])
    with pytest.raises(CatEmbedError, match="0 feature"):
        type(est)(**est.get_params()).fit(mixed[[]])


@pytest.mark.parametrize("est", [e for e in CHECKED if hasattr(e, "predict")],
                         ids=lambda e: type(e).__name__)
def test_predict_after_set_output_pandas(est, mixed):
    """set_output(transform="pandas") wraps transform only: predict still gives the same
    labels (ThesisClusterer.predict read the wrapped transform and failed on a DataFrame)."""
    from sklearn.base import clone

    fitted = clone(est).fit(mixed)
    labels = fitted.predict(mixed)
    fitted.set_output(transform="pandas")
    assert isinstance(fitted.transform(mixed), pd.DataFrame)
    np.testing.assert_array_equal(fitted.predict(mixed), labels)
