"""LCME (catembed's own method): hand-computed cases and invariants."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.embed import LCME, MCA
from catembed.embed.lcme import pairwise_latent_classes
from catembed.stats import compute_statistics


def _table(n: int = 120, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    cols = {}
    for j, size in enumerate((3, 4, 2, 5)):
        keep = rng.random(n) < 0.7
        cols[f"c{j}"] = [f"v{v}" for v in np.where(keep, g % size, rng.integers(0, size, n))]
    return pd.DataFrame(cols)


def test_one_class_is_the_value_frequencies():
    """K = 1: one EM step gives theta_v = cnt(v) / n exactly (the pairwise row sums)."""
    df = _table()
    st = compute_statistics(df, columns=list(df.columns))
    theta, pi, _, _ = pairwise_latent_classes(st, 1, random_state=0)
    np.testing.assert_allclose(theta[:, 0], st.counts / st.n_rows, atol=1e-12)
    np.testing.assert_allclose(pi, [1.0])


def test_hand_computed_perfectly_coupled_pair():
    """a == b on 4 rows (x, x, y, y): two classes, one per value, and the latent view of
    each row is +-(1, -1) / sqrt(2) (Jeffreys smoothing gives log-odds +-log 5 per value)."""
    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["x", "x", "y", "y"]})
    st = compute_statistics(df, columns=["a", "b"])
    theta, pi, ll, _ = pairwise_latent_classes(st, 2, random_state=0)
    np.testing.assert_allclose(np.sort(pi), [0.5, 0.5], atol=1e-6)
    # values (a=x, a=y, b=x, b=y): each class holds x on both columns, or y on both
    assert np.all(np.isclose(theta, 0.0, atol=1e-4) | np.isclose(theta, 1.0, atol=1e-4))
    np.testing.assert_allclose(theta[:2], theta[2:])
    np.testing.assert_allclose(theta[0] + theta[1], [1.0, 1.0])
    assert theta[0, 0] != pytest.approx(theta[0, 1])
    # the model reproduces the empirical pair distribution: sum N log P = log(1/2)
    assert ll == pytest.approx(np.log(0.5), abs=1e-6)
    est = LCME(n_components=2, random_state=0).fit(df)
    names = list(est.get_feature_names_out())
    assert names == ["mca0", "mca1", "lc0", "lc1"]
    lc = est.transform(df)[:, 2:]
    half = 1 / np.sqrt(2)
    np.testing.assert_allclose(np.abs(lc), half, atol=1e-4)
    np.testing.assert_allclose(lc[:, 0], -lc[:, 1], atol=1e-8)
    np.testing.assert_allclose(lc[0], lc[1])
    np.testing.assert_allclose(lc[2], -lc[0], atol=1e-8)
    # the MCA view's first axis is MCA's, scaled to unit mean squared norm (eigenvalue 1)
    mca = MCA(1).fit_transform(df)[:, 0]
    np.testing.assert_allclose(np.abs(est.transform(df)[:, 0]), np.abs(mca), atol=1e-8)


def test_views_are_centred_and_unit_scaled_on_training_rows():
    df = _table()
    est = LCME(n_components=4, random_state=1).fit(df)
    out = est.transform(df)
    np.testing.assert_allclose(out.mean(axis=0), 0.0, atol=1e-10)
    for view in (out[:, :4], out[:, 4:]):
        assert float((view ** 2).sum(axis=1).mean()) == pytest.approx(1.0, rel=1e-9)


def test_row_order_and_determinism():
    df = _table()
    perm = np.random.default_rng(3).permutation(len(df))
    a = LCME(n_components=3, random_state=7).fit(df)
    b = LCME(n_components=3, random_state=7).fit(df.iloc[perm].reset_index(drop=True))
    np.testing.assert_allclose(a.transform(df), b.transform(df), atol=1e-10)
    c = LCME(n_components=3, random_state=7).fit(df)
    np.testing.assert_array_equal(a.transform(df), c.transform(df))


def test_column_permutation_equivariance():
    """Reordering the columns changes nothing: the EM starts are drawn in a canonical value
    order and MCA's axis signs are fixed by their largest entry."""
    df = _table()
    cols = ["c2", "c0", "c3", "c1"]
    a = LCME(n_components=3, random_state=0).fit(df)
    b = LCME(n_components=3, random_state=0).fit(df[cols])
    np.testing.assert_allclose(a.transform(df), b.transform(df[cols]), atol=1e-8)
    assert a.composite_loglik_ == pytest.approx(b.composite_loglik_, abs=1e-12)


def test_chunked_fit_equals_whole_fit():
    df = _table(200)
    whole = LCME(n_components=3, random_state=2).fit(df)
    chunked = LCME(n_components=3, random_state=2).fit_chunks(
        lambda: (df.iloc[i:i + 37] for i in range(0, len(df), 37)))
    np.testing.assert_array_equal(whole.transform(df), chunked.transform(df))
    st = compute_statistics((df.iloc[i:i + 50] for i in range(0, len(df), 50)),
                            columns=list(df.columns))
    from_stats = LCME(n_components=3, random_state=2).fit_statistics(st)
    np.testing.assert_array_equal(whole.transform(df), from_stats.transform(df))


def test_output_api_and_persistence(tmp_path):
    df = _table()
    est = LCME(n_components=2, random_state=0).set_output(transform="pandas").fit(df)
    out = est.transform(df)
    assert list(out.columns) == ["mca0", "mca1", "lc0", "lc1"]
    assert est.n_components_ == 4
    path = tmp_path / "lcme.npz"
    est.save(path)
    back = LCME.load(path)
    np.testing.assert_array_equal(back.transform(df), est.transform(df).to_numpy())
    assert back.composite_loglik_ == est.composite_loglik_


def test_errors_name_the_parameter():
    df = _table()
    with pytest.raises(CatEmbedError, match="n_init"):
        LCME(n_init=0).fit(df)
    with pytest.raises(CatEmbedError, match="n_components"):
        LCME(n_components=0).fit(df)
    with pytest.raises(CatEmbedError, match="at least 2 categorical"):
        LCME().fit(df[["c0"]])
