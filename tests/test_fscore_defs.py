"""The three F-score definitions (issue 25) on contingency tables worked out by hand."""

import pytest

from catembed import CatEmbedError
from catembed.evaluation.protocol import run_clustering
from catembed.metrics import F_SCORES, clustering_scores, f_score

# classes a a a b b c, clusters 0 0 1 1 1 1; the contingency table (classes x clusters):
#        0  1   | n_i
#   a    2  1   | 3
#   b    0  2   | 2
#   c    0  1   | 1
#   m_j  2  4
Y = list("aaabbc")
P = [0, 0, 1, 1, 1, 1]


def test_hungarian_by_hand():
    # matching a<-0, b<-1 (4 objects), c unmatched: F_a = 2*2/(3+2), F_b = 2*2/(2+4), F_c = 0
    assert f_score(Y, P, "hungarian") == pytest.approx((4 / 5 + 2 / 3 + 0) / 3)  # 22/45


def test_best_match_by_hand():
    # F(i, j) = 2 n_ij / (n_i + m_j); best per class: a 4/5 (cluster 0), b 2/3 (cluster 1),
    # c 2/5 (cluster 1, which b picked too); weights 3/6, 2/6, 1/6
    assert f_score(Y, P, "best-match") == pytest.approx((3 * 4 / 5 + 2 * 2 / 3 + 2 / 5) / 6)
    assert f_score(Y, P, "best-match") == pytest.approx(31 / 45)


def test_pairwise_by_hand():
    # TP = C(2,2) + C(2,2) = 2; pairs in a cluster C(2,2) + C(4,2) = 7; pairs in a class
    # C(3,2) + C(2,2) = 4: P = 2/7, R = 1/2, F = 2PR/(P+R) = 4/11
    assert f_score(Y, P, "pairwise") == pytest.approx(4 / 11)


def test_one_cluster_by_hand():
    p = [0] * 6
    assert f_score(Y, p, "hungarian") == pytest.approx((2 / 3) / 3)
    assert f_score(Y, p, "best-match") == pytest.approx((3 * 2 / 3 + 2 * 1 / 2 + 2 / 7) / 6)
    # TP = 3 + 1 = 4 of C(6,2) = 15 cluster pairs; recall 1: F = 2 (4/15) / (19/15) = 8/19
    assert f_score(Y, p, "pairwise") == pytest.approx(8 / 19)


@pytest.mark.parametrize("definition", sorted(F_SCORES))
def test_perfect_and_relabelled(definition):
    assert f_score(Y, [5, 5, 5, 7, 7, 9], definition) == pytest.approx(1.0)
    assert f_score(Y, P, definition) == pytest.approx(
        f_score(Y, [9 if q == 0 else 3 for q in P], definition))


def test_all_singletons_pairwise_is_zero():
    assert f_score(Y, range(6), "pairwise") == 0.0


def test_unknown_definition():
    with pytest.raises(CatEmbedError, match="best-match"):
        f_score(Y, P, "micro")


def test_clustering_scores_every_definition():
    s = clustering_scores(Y, P, "pairwise")
    assert s["f_score"] == s["f_pairwise"] == pytest.approx(4 / 11)
    assert s["f_hungarian"] == pytest.approx(22 / 45)
    assert s["f_best_match"] == pytest.approx(31 / 45)


def test_protocol_f_score_option():
    import pandas as pd

    X = pd.DataFrame({"a": list("xxxyyyzz"), "b": list("pppqqqrr")})
    y = list("AAABBBCC")
    res = run_clustering(X, y, ["onehot"], runs=2, f_score="best-match")[0]
    assert res.status == "ok"
    assert all(r["f_score"] == r["f_best_match"] for r in res.runs)
    with pytest.raises(CatEmbedError):
        run_clustering(X, y, ["onehot"], runs=1, f_score="micro")


def test_bench_f_score_option_and_table_field():
    from catembed.evaluation.bench import load_table, run_table

    table = load_table("cde-1")
    assert table.get("f_score", "hungarian") == "hungarian"
    res = run_table(table, runs=1, datasets=["zoo"], columns=["0-1"], f_score="pairwise")
    assert res.table["f_score"] == "pairwise"
    cell = res.to_dict()["rows"][0]["cells"]["0-1"]["ours"]
    assert cell["f_score_mean"] == cell["f_pairwise_mean"]
    assert res.to_dict()["f_score"] == "pairwise"
