"""Maps whose axis holds no dimension: rounding noise is never drawn as if it were one.

The gallery's Soybean value map had an x axis spanning +-4e-15: two perfectly coupled
attributes (4 values) carry the first principal axis and the other 54 values sit at 0 on it,
up to rounding; the zoom on the bulk then magnified the rounding.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from catembed import CDE, plot  # noqa: E402
from catembed.plot.map2d import axis_spread, robust_limits  # noqa: E402


def _carried_by_four(n_bulk: int = 54) -> np.ndarray:
    """A map whose x axis is carried by four points, the bulk at 0 up to rounding."""
    rng = np.random.default_rng(0)
    bulk = np.column_stack([rng.uniform(-4e-15, 4e-15, n_bulk), rng.normal(0.1, 0.1, n_bulk)])
    few = np.array([[-2.4, -0.26], [2.4, -0.26], [-0.8, 0.65], [0.8, 0.65]])
    return np.vstack([bulk, few])


def test_robust_limits_never_zoom_on_rounding_noise():
    xy = _carried_by_four()
    limits, outside = robust_limits(xy)
    assert limits[0, 0] < -2.4 and limits[0, 1] > 2.4  # the x axis keeps the points' range
    # a point is beyond the axes only for its y
    beyond_y = (xy[:, 1] < limits[1, 0]) | (xy[:, 1] > limits[1, 1])
    assert (outside == beyond_y).all()
    # the y axis, which has a bulk with a spread, is still zoomed as before
    lo, hi = np.quantile(xy[:, 1], [0.05, 0.95])
    assert limits[1, 1] == pytest.approx(hi + 0.5 * (hi - lo))


def test_axis_spread_counts_the_points_off_the_common_position():
    xy = _carried_by_four()
    assert axis_spread(xy).tolist() == [4, 58]
    flat = np.column_stack([np.linspace(-1, 1, 9), np.full(9, 3e-17)])
    assert axis_spread(flat).tolist() == [8, 0]  # the median point is not "off"


@pytest.fixture(scope="module")
def soybean_model():
    from catembed.datasets import load_dataset

    with warnings.catch_warnings():  # single-valued columns are dropped, with a warning
        warnings.simplefilter("ignore")
        X = load_dataset("soybean_small", preset="complete").features
        return CDE(random_state=0).fit(X)


def test_soybean_value_map_draws_no_degenerate_axis(soybean_model):
    ax = plot.values(soybean_model)
    try:
        # was an x axis of 8e-15 (the bulk's rounding noise); the coupling axes span the
        # values on both axes, and an axis label flags a flat axis or one carried by a few
        for lo, hi in (ax.get_xlim(), ax.get_ylim()):
            assert hi - lo > 1.0
        assert "flat" not in ax.get_xlabel() + ax.get_ylabel()
        xy = np.vstack([c.get_offsets() for c in ax.collections if len(c.get_offsets())])
        few = axis_spread(xy) * 2 < len(xy)
        for flagged, label in zip(few, (ax.get_xlabel(), ax.get_ylabel()), strict=True):
            assert ("carried by" in label) == bool(flagged)
    finally:
        plt.close(ax.figure)


def test_flat_axis_of_an_object_map_is_flagged_and_drawn_at_zero():
    # a rank-one embedding: its second principal axis is rounding noise
    t = np.linspace(-1.0, 1.0, 40)
    z = np.outer(t, [1.0, 2.0, -0.5]) + 1e-17 * np.sin(np.arange(40))[:, None]
    ax = plot.objects(None, None, labels=(t > 0).astype(int), embedding=z)
    try:
        y0, y1 = ax.get_ylim()
        assert y1 - y0 > 1e-3  # not a +-1e-16 axis
        assert "flat" in ax.get_ylabel() and "flat" not in ax.get_xlabel()
        ys = np.concatenate([c.get_offsets()[:, 1] for c in ax.collections])
        assert (ys == 0.0).all()
    finally:
        plt.close(ax.figure)
