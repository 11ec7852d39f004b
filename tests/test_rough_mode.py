"""The k-modes mode update under Cao et al.'s (2012) Rough measure (issue 25 item 2).

Per attribute and cluster ``l`` with ``n_l(v)`` members holding ``v`` (``N(v)`` in the data):
- value-pair form (``metric="rough"``, a match costs ``1 - 1/N(v)``): the cluster's cost with
  mode ``v`` is ``|C_l| - n_l(v) / N(v)``, minimised by ``argmax n_l(v) / N(v)``;
- cluster form (``metric="rough-cluster"``, a match costs ``1 - n_l(v)/N(v)``): the cost is
  ``|C_l| - n_l(v)^2 / N(v)``, minimised by ``argmax n_l(v)^2 / N(v)``;
neither is the most frequent value in general.
"""

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.cluster import KModes
from catembed.cluster._kmodes_core import _modes_from, _padded_tables, kmodes_lloyd
from catembed.similarity.tables import ValueTables

# one attribute, values a, b, c with N = (5, 1, 9) in the data; one cluster holding
# a 4 times, b once, c 5 times (|C| = 10)
N = np.array([5.0, 1.0, 9.0, 0.0])  # the padded (unseen) value last
H = [np.array([[4.0, 1.0, 5.0, 0.0]])]
PAIR = [np.array([[1 - 1 / 5, 1, 1], [1, 1 - 1 / 1, 1], [1, 1, 1 - 1 / 9]])]


def _ptabs():
    return _padded_tables(ValueTables("rough", PAIR, "sum"))


def test_mode_by_hand():
    old = np.array([[0]])
    # frequency: c (5 members)
    assert _modes_from(H, _ptabs(), old, None, "frequency")[0, 0] == 2
    # pair form: costs 10 - n/N = 10 - .8, 10 - 1, 10 - .556: b
    assert _modes_from(H, _ptabs(), old)[0, 0] == 1
    # cluster form: costs 10 - n^2/N = 10 - 3.2, 10 - 1, 10 - 2.778: a
    assert _modes_from(H, _ptabs(), old, [N], "objective")[0, 0] == 0


def _cluster_cost(codes, mode, counts):
    """Cluster-form cost of one cluster (all rows) with a given mode, from the definition."""
    total = 0.0
    for j in range(codes.shape[1]):
        n_l = np.bincount(codes[:, j], minlength=len(counts[j]))
        for x in codes[:, j]:
            total += 1.0 - n_l[x] / counts[j][x] if x == mode[j] else 1.0
    return total


def test_cluster_form_mode_is_the_brute_force_minimum():
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 4, size=(12, 3))
    counts = [np.bincount(codes[:, j], minlength=4).astype(float) + rng.integers(0, 5, 4)
              for j in range(3)]  # the data's counts: this cluster's plus other clusters'
    hists = [np.bincount(codes[:, j], minlength=5).astype(float)[None, :] for j in range(3)]
    ptabs = [np.ones((5, 5)) for _ in range(3)]
    mode = _modes_from(hists, ptabs, np.zeros((1, 3), dtype=np.int64),
                       [np.append(c, 0) for c in counts])[0]
    best = min(_cluster_cost(codes, m, counts) for m in np.ndindex(4, 4, 4))
    assert _cluster_cost(codes, mode, counts) == pytest.approx(best)


def _table(seed=0, n=60):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"a{j}": rng.choice(list("pqrst"), size=n, p=[.4, .3, .15, .1, .05])
                         for j in range(5)})


@pytest.mark.parametrize("seed", range(5))
def test_rough_objective_never_increases(seed):
    X = _table(seed)
    km = KModes(n_clusters=3, metric="rough", init="huang", random_state=0).fit(X)
    codes = km.distance_.fit_codes_.astype(np.int64)
    ptabs = _padded_tables(km.distance_.tables_)
    rng = np.random.default_rng(seed)
    init = codes[rng.choice(len(codes), 3, replace=False)]
    hist: list[float] = []
    kmodes_lloyd(codes, init, ptabs, history=hist)
    assert len(hist) >= 2
    assert all(b <= a + 1e-9 for a, b in zip(hist, hist[1:], strict=False))


def test_kmodes_mode_update_option():
    X = _table(1)
    a = KModes(n_clusters=3, metric="rough-cluster", random_state=0).fit(X)
    b = KModes(n_clusters=3, metric="rough-cluster", mode_update="frequency",
               random_state=0).fit(X)
    assert a.get_params()["mode_update"] == "objective"
    assert a.labels_.shape == b.labels_.shape == (60,)
    with pytest.raises(CatEmbedError, match="mode_update"):
        KModes(n_clusters=2, mode_update="median").fit(X)


def test_hamming_objective_is_frequency():
    X = _table(2)
    a = KModes(n_clusters=3, random_state=0).fit(X)
    b = KModes(n_clusters=3, mode_update="frequency", random_state=0).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
