"""The profile statistics (issue 54), hand-computed: :mod:`catembed.stats._profile_tests`."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from catembed.stats._profile_tests import chi2_test, numeric_tests, paragons, value_tests


def test_value_tests_on_a_2x2_by_hand():
    # 10 rows; cluster 0 has 4, the value red 4, red in cluster 0: 3. X hypergeometric
    # (10 rows, 4 red, 4 drawn): P(X = k) = C(4, k) C(6, 4 - k) / 210 = 15, 80, 90, 24, 1
    t = value_tests([[3, 1], [1, 5]])  # rows: red, blue; columns: clusters 0, 1
    assert t["Mod/Cla"][0, 0] == pytest.approx(75.0)  # 3 of cluster 0's 4 rows
    assert t["Cla/Mod"][0, 0] == pytest.approx(75.0)  # 3 of the 4 red rows
    assert t["Global"][0].tolist() == pytest.approx([40.0, 40.0])
    # mid-p, two-sided: min(2 P(X < 3) + P(X = 3), 2 P(X > 3) + P(X = 3)) = (2 + 24) / 210
    assert t["p.value"][0, 0] == pytest.approx(26 / 210, rel=1e-12)
    assert t["v.test"][0, 0] == pytest.approx(stats.norm.isf(13 / 210), rel=1e-12)
    # blue in cluster 0: 1 of 4, below its 60 %: the same p, a negative v-test
    assert t["p.value"][1, 0] == pytest.approx(26 / 210, rel=1e-12)
    assert t["v.test"][1, 0] == pytest.approx(-stats.norm.isf(13 / 210), rel=1e-12)
    # red in cluster 1: 1 of 6 (X hypergeometric, 6 drawn: P(X = 1) = C(4,1) C(6,5) / 210 =
    # 24/210, P(X = 0) = 1/210): p = (2 + 24) / 210, under-represented
    assert t["v.test"][0, 1] == pytest.approx(-stats.norm.isf(13 / 210), rel=1e-12)


def test_value_tests_tail_and_expected_count():
    # the tail: all 100 rows of a value in a cluster of 100 of 200: p = 1 / C(200, 100)
    t = value_tests([[100, 0], [0, 100]])
    p = float(stats.hypergeom(200, 100, 100).pmf(100))  # P(X > 100) = 0
    assert t["p.value"][0, 0] == pytest.approx(p, rel=1e-9)
    assert t["v.test"][0, 0] == pytest.approx(stats.norm.isf(p / 2), rel=1e-9)
    assert t["v.test"][0, 0] > 16 and t["v.test"][1, 0] < -16
    # a count exactly at its expectation (symmetric: P(X < x) = P(X > x)): p = 1, v = 0
    t = value_tests([[2, 2], [2, 2]])
    assert t["p.value"][0, 0] == pytest.approx(1.0, rel=1e-12)
    assert t["v.test"][0, 0] == pytest.approx(0.0, abs=1e-12)


def test_chi2_against_scipy():
    rng = np.random.default_rng(1)
    table = rng.integers(1, 40, size=(4, 3))
    stat, df, p = chi2_test(table)
    ref = stats.chi2_contingency(table, correction=False)
    assert stat == pytest.approx(ref.statistic, rel=1e-12)
    assert df == ref.dof == 6
    assert p == pytest.approx(ref.pvalue, rel=1e-10)
    # a 2 x 2: no continuity correction (catdes' correct = FALSE)
    stat, df, p = chi2_test([[3, 1], [1, 5]])
    ref = stats.chi2_contingency([[3, 1], [1, 5]], correction=False)
    assert (stat, df, p) == pytest.approx((ref.statistic, 1, ref.pvalue), rel=1e-12)
    # empty rows and columns leave the degrees of freedom
    assert chi2_test([[3, 0, 1], [0, 0, 0], [1, 0, 5]])[1] == 1
    assert chi2_test([[3, 4]]) == (0.0, 0, 1.0)


def test_numeric_tests_by_hand():
    # x = 1, 2, 3 | 4, 10 (and a missing number left out): mean 4, variance 50 / 5 = 10;
    # cluster 1: 2 rows, mean 7: v = 3 / sqrt(10 / 2 * 3 / 4); Eta2 = (12 + 18) / 50
    x = np.array([1.0, 2.0, 3.0, 4.0, 10.0, np.nan])
    codes = np.array([0, 0, 0, 1, 1, 1])
    t = numeric_tests(x, codes, 2)
    assert t["count"].tolist() == [3, 2]
    assert t["mean_overall"] == pytest.approx(4.0)
    assert t["sd_overall"] == pytest.approx(np.sqrt(10.0))
    assert t["mean_in_cluster"].tolist() == pytest.approx([2.0, 7.0])
    assert t["sd_in_cluster"].tolist() == pytest.approx([np.sqrt(2 / 3), 3.0])
    assert t["v.test"][1] == pytest.approx(3 / np.sqrt(3.75), rel=1e-12)
    assert t["v.test"][0] == pytest.approx(-2 / np.sqrt(10 / 3 * 2 / 4), rel=1e-12)
    assert t["p.value"][1] == pytest.approx(2 * stats.norm.sf(3 / np.sqrt(3.75)), rel=1e-12)
    assert t["Eta2"] == pytest.approx(0.6, rel=1e-12)
    ref = stats.f_oneway([1.0, 2.0, 3.0], [4.0, 10.0])
    assert t["F p.value"] == pytest.approx(ref.pvalue, rel=1e-10)
    # a constant column: no test
    flat = numeric_tests(np.ones(6), codes, 2)
    assert np.isnan(flat["Eta2"]) and np.isnan(flat["v.test"]).all()


def test_paragons_nearest_first():
    Z = np.array([[0.0], [3.0], [1.0], [10.0], [12.0], [11.0], [1.0]])
    labels = np.array([0, 0, 0, 1, 1, 1, 0])
    found = paragons(Z, labels, [[1.0], [11.0]], n_paragons=2)
    assert found == [(0, 0, 2, 0.0), (0, 1, 6, 0.0), (1, 0, 5, 0.0), (1, 1, 3, 1.0)]
    assert len(paragons(Z, labels, [[1.0], [11.0]], n_paragons=9)) == 7


def test_paragons_of_float32_rows_are_those_of_their_float64_copy():
    # float32 coordinates are converted a block at a time (2,184 rows of 60 columns): the
    # distances, hence the rows and their order, are those of the whole float64 copy
    rng = np.random.default_rng(3)
    Z = rng.normal(size=(5000, 60)).astype(np.float32)
    labels = rng.integers(0, 4, 5000)
    centers = rng.normal(size=(4, 60))
    found = paragons(Z, labels, centers, n_paragons=3)
    assert found == paragons(Z.astype(np.float64), labels, centers, n_paragons=3)
    diff = Z.astype(np.float64)[[f[2] for f in found]] - centers[[f[0] for f in found]]
    np.testing.assert_allclose([f[3] for f in found], np.sqrt((diff * diff).sum(axis=1)),
                               rtol=1e-12)


def test_hypergeom_parts_match_scipy():
    from catembed.stats._profile_tests import hypergeom_parts

    rng = np.random.default_rng(0)
    for total in [1, 2, 10, 55, 300, 8403, 10**6]:
        k = rng.integers(0, total + 1, 60)
        n = rng.integers(0, total + 1, 60)
        lo, hi = np.maximum(0, n - (total - k)), np.minimum(n, k)
        x = lo + (rng.random(60) * (hi - lo + 1)).astype(np.int64)
        mass, below, above = hypergeom_parts(x, total, k, n)
        ref = stats.hypergeom(total, k, n)
        np.testing.assert_allclose(mass, ref.pmf(x), rtol=1e-8, atol=1e-300)
        np.testing.assert_allclose(below, ref.cdf(x - 1), rtol=1e-8, atol=1e-14)
        np.testing.assert_allclose(above, ref.sf(x), rtol=1e-8, atol=1e-14)


def test_relative_entropy_by_hand():
    from catembed.stats._profile_tests import relative_entropy

    assert relative_entropy([[1.0, 0.0], [0.0, 1.0]]) == pytest.approx(1.0)
    assert relative_entropy([[0.5, 0.5], [0.5, 0.5]]) == pytest.approx(0.0, abs=1e-15)
    # one row certain, one uniform over 2 classes, counted 3 times: 1 - 3 log 2 / (4 log 2)
    assert relative_entropy([[1.0, 0.0], [0.5, 0.5]], [1, 3]) == pytest.approx(0.25)
    assert relative_entropy([[1.0], [1.0]]) == 1.0


def test_v_test_stays_finite_where_the_p_value_underflows():
    """At 10M rows a value's p.value is below 1e-308: its v-test was +-inf (printed ``v=+inf``
    in the summary, ties in the ranking). It now comes from the tail's logarithm."""
    from catembed.stats._profile_tests import hypergeom_parts, log_half_p

    # where both are finite, the logarithm is the log of the direct half p.value
    x, total = np.array([30, 5, 90, 0]), np.array([1000, 1000, 5000, 2000])
    r, n = np.array([100, 100, 300, 500]), np.array([200, 200, 400, 600])
    mass, below, above = hypergeom_parts(x, total, r, n)
    np.testing.assert_allclose(log_half_p(x, total, r, n),
                               np.log(np.minimum(below, above) + mass / 2), rtol=1e-12)
    # 10M rows: finite, signed, and a stronger over-representation ranks higher
    weak = value_tests(np.array([[3_000_000, 1_000_000], [1_100_000, 4_900_000]]))
    strong = value_tests(np.array([[4_000_000, 100_000], [100_000, 5_800_000]]))
    for out in (weak, strong):
        assert np.isfinite(out["v.test"]).all() and (out["p.value"] == 0).all()
        assert (np.sign(out["v.test"]) == [[1, -1], [-1, 1]]).all()
    assert strong["v.test"][0, 0] > weak["v.test"][0, 0] > 37.5  # ndtri(1e-308) is -37.5
