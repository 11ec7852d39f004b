"""Value distance tables on hand-computed toys; chunked object distances; Gower."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError, ValueStatistics
from catembed.similarity import (
    CategoricalDistance,
    GowerDistance,
    dilca_context,
    dm_distances,
    dm_parameters,
    gower_distances,
    kneighbors_from_codes,
    pairwise_from_codes,
    value_tables,
)

# UNTIE paper (Zhu, Cao, Yin), Table I: the watermelon information table.
WATERMELON = pd.DataFrame(
    {
        "texture": ["clear", "blurry", "blurry", "clear", "blurry", "clear"],
        "color": ["white", "yellow", "yellow", "green", "green", "black"],
        "root": ["straight", "straight", "curled", "slightly curled", "curled",
                 "slightly curled"],
    },
    index=[f"A{i}" for i in range(1, 7)],
)
# sorted values: texture (blurry, clear); color (black, green, white, yellow);
# root (curled, slightly curled, straight)


@pytest.fixture(scope="module")
def stats() -> ValueStatistics:
    return ValueStatistics.from_frame(WATERMELON)


def _table(stats, metric, j):
    return value_tables(stats, metric).tables[j]


def test_hamming_and_rough(stats):
    for metric in ("hamming", "rough-cluster"):
        np.testing.assert_array_equal(_table(stats, metric, 1), 1 - np.eye(4))


def test_rough_is_one_minus_rough_membership_of_one_object(stats):
    # Cao et al. (2012) between two objects: a match on v costs 1 - 1/cnt(v), a mismatch 1
    cnt = stats.counts[stats.offsets[1]:stats.offsets[2]].astype(float)
    expected = np.ones((4, 4))
    np.fill_diagonal(expected, 1 - 1 / cnt)
    np.testing.assert_allclose(_table(stats, "rough", 1), expected)


def test_ahmad_root_by_hand(stats):
    # curled/straight: texture sum-max 1.5, color 1.5 -> (0.5 + 0.5)/2
    # curled/slightly: texture 2 -> 1, color 1.5 -> 0.5 -> 0.75; slightly/straight 0.75
    expected = np.array([[0, 0.75, 0.5], [0.75, 0, 0.75], [0.5, 0.75, 0]])
    np.testing.assert_allclose(_table(stats, "ahmad", 2), expected)
    np.testing.assert_allclose(_table(stats, "algo", 2), expected)


def test_ahmad_texture_by_hand(stats):
    # blurry (A2 A3 A5) vs clear (A1 A4 A6): colours yellow 2/3, green 1/3 vs white, green,
    # black 1/3 each -> sum max 5/3 -> 2/3; roots: straight 1/3, curled 2/3 vs straight 1/3,
    # slightly 2/3 -> sum max 5/3 -> 2/3; mean over the 2 other attributes: 2/3
    np.testing.assert_allclose(_table(stats, "ahmad", 0), [[0, 2 / 3], [2 / 3, 0]])


def test_cos_root_by_hand(stats):
    # intra 2*2/(2+2+4) = 1/2; inter = 1 - ALGO -> similarities 1/8, 1/4, 1/8
    sim = np.array([[1, 0.125, 0.25], [0.125, 1, 0.125], [0.25, 0.125, 1]])
    np.testing.assert_allclose(_table(stats, "cos", 2), 1 - sim)
    from catembed.similarity import cos_similarity_tables

    np.testing.assert_allclose(cos_similarity_tables(stats)[2], sim)


def test_dilca_context_and_root_by_hand(stats):
    # SU(root, texture) = 0.5158 < mean 0.5200 <= SU(root, color) = 0.5242
    assert dilca_context(stats)[2].tolist() == [1]
    # p(root | colour u) for u = black, green, white, yellow
    curled = np.array([0, 0.5, 0, 0.5])
    slightly = np.array([1, 0.5, 0, 0])
    straight = np.array([0, 0, 1, 0.5])

    def d(a, b):
        return np.sqrt(((a - b) ** 2).sum() / 4)

    expected = np.array(
        [[0, d(curled, slightly), d(curled, straight)],
         [d(curled, slightly), 0, d(slightly, straight)],
         [d(curled, straight), d(slightly, straight), 0]]
    )
    np.testing.assert_allclose(_table(stats, "dilca", 2), expected)
    assert expected[0, 1] == pytest.approx(np.sqrt(1.25 / 4))
    assert expected[1, 2] == pytest.approx(np.sqrt(2.5 / 4))


def test_dm_tables_by_hand(stats):
    # p(v) p'(v) = cnt/6 * (cnt-1)/5: 1/5 for texture (cnt 3), 1/15 for cnt 2, 0 for cnt 1
    np.testing.assert_allclose(_table(stats, "dm", 0), [[0, 0.4], [0.4, 0]])
    color = _table(stats, "dm", 1)  # black, green, white, yellow
    assert color[0, 2] == 0.0  # two single-object values
    assert color[0, 1] == pytest.approx(1 / 15)
    assert color[1, 3] == pytest.approx(2 / 15)
    np.testing.assert_allclose(_table(stats, "dm", 2), (2 / 15) * (1 - np.eye(3)))


def _dm_naive(df: pd.DataFrame, beta=None) -> np.ndarray:
    """Jia et al.'s object distance computed pair by pair from the raw rows."""
    x = df.to_numpy()
    n, m = x.shape

    def pp(mask):
        c = mask.sum()
        return c / n * max(c - 1, 0) / (n - 1)

    st = ValueStatistics.from_frame(df)
    par = dm_parameters(st, beta)
    rs, ps, pf = par["R_relevant"], par["ps"], par["pf"]
    out = np.zeros((n, n))
    for i, j in itertools.product(range(n), range(n)):
        num = den = 0.0
        for r in range(m):
            d = 0.0
            for l_ in range(m):
                if rs[r, l_] == 0:
                    continue
                qi = pp((x[:, r] == x[i, r]) & (x[:, l_] == x[i, l_]))
                qj = pp((x[:, r] == x[j, r]) & (x[:, l_] == x[j, l_]))
                if x[i, r] != x[j, r] or x[i, l_] != x[j, l_]:
                    d += rs[r, l_] * (qi + qj)
            w = ps[r] if x[i, r] != x[j, r] else pf[r]
            num += w * d
            den += w
        out[i, j] = num / den
    return out


def test_dm_object_distance_matches_pairwise_definition(stats):
    codes = CategoricalDistance(metric="dm").fit(WATERMELON).encode(WATERMELON)
    got = dm_distances(stats, codes, chunk_size=2)
    np.testing.assert_allclose(got, _dm_naive(WATERMELON))
    np.testing.assert_allclose(got, got.T)
    np.testing.assert_allclose(np.diag(got), 0.0)
    par = dm_parameters(stats)
    assert par["R"][0, 0] == 1.0
    assert par["beta"] == pytest.approx(par["R"].mean())


@pytest.mark.parametrize("metric", ["hamming", "ahmad", "dilca", "cos", "dm", "rough"])
def test_chunked_pairwise_matches_direct_sum(metric):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.choice(list("abcd"), size=(40, 4)), columns=list("pqrs"))
    cd = CategoricalDistance(metric=metric, dm_full=False, chunk_size=7).fit(df)
    vt = cd.tables_
    codes = cd.encode(df)
    direct = np.zeros((40, 40))
    for j, t in enumerate(vt.tables):
        direct += t[codes[:, j]][:, codes[:, j]] ** vt.power
    if vt.power == 2:
        direct = np.sqrt(direct)
    np.testing.assert_allclose(cd.pairwise(df), direct, atol=1e-12)
    np.testing.assert_allclose(pairwise_from_codes(codes, None, vt, chunk_size=40), direct,
                               atol=1e-12)
    # a query row searched among the fitted rows finds itself (scikit-learn semantics)
    dist_x, _ = cd.kneighbors(df.iloc[:5], n_neighbors=3)
    np.testing.assert_allclose(dist_x, np.sort(direct[:5], axis=1)[:, :3], atol=1e-12)
    # (at its own distance: 0, or Rough's sum of 1 - 1/cnt(v) over its matching values)
    np.testing.assert_allclose(dist_x[:, 0], np.diag(direct)[:5], atol=1e-12)
    # no X: the fitted rows' neighbours, a row not its own
    dist, ind = cd.kneighbors(n_neighbors=3)
    np.fill_diagonal(direct, np.inf)
    np.testing.assert_allclose(dist, np.sort(direct, axis=1)[:, :3], atol=1e-12)
    assert (ind != np.arange(40)[:, None]).all()
    g = cd.kneighbors_graph(n_neighbors=3)
    assert g.shape == (40, 40) and g.nnz == 120
    assert cd.kneighbors_graph(df.iloc[:4], n_neighbors=2).shape == (4, 40)


def test_hamming_object_distance_counts_mismatches():
    cd = CategoricalDistance(metric="hamming").fit(WATERMELON)
    d = cd.pairwise(WATERMELON)
    assert d[0, 1] == 2 and d[0, 5] == 2 and d[2, 4] == 1 and d[0, 0] == 0


def test_unknown_values_match_nothing():
    cd = CategoricalDistance(metric="ahmad", handle_unknown="ignore").fit(WATERMELON)
    new = pd.DataFrame({"texture": ["clear"], "color": ["purple"], "root": ["straight"]})
    d = cd.pairwise(new, WATERMELON)
    worst = cd.tables_.tables[1].max()
    ref = cd.pairwise(WATERMELON.iloc[[0]], WATERMELON)
    col = cd.tables_.tables[1][cd.encode(WATERMELON)[:, 1]][:, 2]  # distance from "white"
    np.testing.assert_allclose(d[0], ref[0] - col + worst)
    with pytest.raises(CatEmbedError, match="not seen during fit"):
        CategoricalDistance().fit(WATERMELON).pairwise(new)


def test_transform_is_distance_profile():
    cd = CategoricalDistance(metric="cos").fit(WATERMELON)
    prof = cd.transform(WATERMELON)
    assert prof.shape == (6, 2 + 4 + 3)
    onehot = pd.get_dummies(WATERMELON[["texture", "color", "root"]]).to_numpy(float)
    np.testing.assert_allclose(prof @ onehot.T, cd.pairwise(WATERMELON))
    assert cd.get_feature_names_out()[0] == "texture__dist0"


def test_bad_options():
    with pytest.raises(CatEmbedError, match="metric"):
        CategoricalDistance(metric="jaccard").fit(WATERMELON)
    cd = CategoricalDistance().fit(WATERMELON)
    with pytest.raises(CatEmbedError, match="n_neighbors"):
        cd.kneighbors(n_neighbors=6)
    with pytest.raises(CatEmbedError, match="n_neighbors"):
        cd.kneighbors(WATERMELON, n_neighbors=0)


def test_save_load_roundtrip(tmp_path):
    cd = CategoricalDistance(metric="dilca").fit(WATERMELON)
    cd.save(tmp_path / "d.npz")
    back = CategoricalDistance.load(tmp_path / "d.npz")
    np.testing.assert_allclose(back.pairwise(WATERMELON), cd.pairwise(WATERMELON))
    np.testing.assert_array_equal(back.kneighbors(n_neighbors=2)[1],
                                  cd.kneighbors(n_neighbors=2)[1])


def test_kneighbors_like_sklearn_nearest_neighbors():
    """Hamming distance = Manhattan distance between one-hot rows (halved): the same
    neighbour distances as scikit-learn's NearestNeighbors on the one-hot table."""
    from sklearn.neighbors import NearestNeighbors

    rng = np.random.default_rng(1)
    train = pd.DataFrame(rng.choice(list("abc"), size=(30, 3)), columns=list("xyz"))
    query = pd.DataFrame(rng.choice(list("abc"), size=(6, 3)), columns=list("xyz"))
    onehot = pd.get_dummies(pd.concat([train, query])).to_numpy(float)
    nn = NearestNeighbors(n_neighbors=4, metric="manhattan").fit(onehot[:30])
    cd = CategoricalDistance(metric="hamming", n_neighbors=4).fit(train)
    np.testing.assert_allclose(cd.kneighbors(query)[0], nn.kneighbors(onehot[30:])[0] / 2)
    np.testing.assert_allclose(cd.kneighbors()[0], nn.kneighbors()[0] / 2)
    fitted_from_stats = CategoricalDistance().fit_statistics(cd.stats_)
    with pytest.raises(CatEmbedError, match="call fit"):
        fitted_from_stats.kneighbors()


# ---------------------------------------------------------------------- Gower
MIXED = pd.DataFrame(
    {"c1": ["a", "b", "a", None], "x": [1.0, 3.0, np.nan, 2.0], "c2": ["x", "x", "y", "x"]}
)


def test_gower_by_hand_with_missing_values():
    d = gower_distances(MIXED)
    # range of x = 2. (0,1): c1 0, x 0, c2 1 -> S 1/3; (0,2): c1 1, c2 0 -> 1/2;
    # (0,3): x 1/2, c2 1 -> 3/4; (1,3): x 1/2, c2 1; (2,3): c2 0 only -> 0
    expected = np.array(
        [[0, 2 / 3, 1 / 2, 1 / 4],
         [2 / 3, 0, 1, 1 / 4],
         [1 / 2, 1, 0, 1],
         [1 / 4, 1 / 4, 1, 0]]
    )
    np.testing.assert_allclose(d, expected)
    assert not np.isnan(d).any()
    np.testing.assert_allclose(gower_distances(MIXED, sqrt=True), np.sqrt(expected))


def test_gower_chunks_and_new_rows():
    g = GowerDistance(chunk_size=1).fit(MIXED)
    np.testing.assert_allclose(g.pairwise(MIXED), gower_distances(MIXED))
    new = pd.DataFrame({"c1": ["zzz"], "x": [5.0], "c2": ["x"]})
    d = g.pairwise(new, MIXED)
    # unseen "zzz" matches nothing; |5-1|/2 = 2 -> s = -1 (outside the fitted range)
    assert d[0, 0] == pytest.approx(1 - (0 + (1 - 2) + 1) / 3)
    assert g.ranges_.tolist() == [2.0]


def test_gower_all_missing_pair_is_one():
    df = pd.DataFrame({"c": ["a", None], "x": [np.nan, 1.0]})
    assert gower_distances(df)[0, 1] == 1.0


def test_kneighbors_from_codes_excludes_self_and_sorts():
    st = ValueStatistics.from_frame(WATERMELON)
    vt = value_tables(st, "hamming")
    codes = CategoricalDistance().fit(WATERMELON).encode(WATERMELON)
    dist, ind = kneighbors_from_codes(codes, None, vt, 2, chunk_size=4)
    assert (np.diff(dist, axis=1) >= 0).all()
    assert (ind != np.arange(6)[:, None]).all()
