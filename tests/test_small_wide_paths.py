"""The shortcuts that issue 55 took on small wide tables give what the long ways give: the
consensus members' embeddings without re-encoding the consensus's values, and the
dependence test's pair information from a ``c log c`` table."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import catembed.cluster.consensus._auto_k as ak
import catembed.cluster.consensus._members as cm
from catembed.cluster.consensus import Consensus


def _table(n: int, m: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, (n, m))
    codes[:, 1] = np.where(rng.random(n) < 0.5, codes[:, 0], codes[:, 1])
    values = np.array(list("abcd"), dtype=object)[codes]
    values[rng.random((n, m)) < 0.05] = None  # missing cells: the value "nan" last
    return pd.DataFrame(values, columns=[f"c{j}" for j in range(m)])


@pytest.mark.parametrize("members", [["onehot", "idf"], ["mca", "onehot"]])
def test_member_embeddings_equal_the_encoded_path(monkeypatch, members):
    df = _table(60, 12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Consensus(3, members=members, random_state=0).fit(df)
    codes = model._codes_of(df)
    fast = [model._member_embed(est, codes) for est in model.estimators_]
    assert any(cm._same_values(est, list(range(12)), model.categories_)
               for est in model.estimators_)
    monkeypatch.setattr(cm, "_same_values", lambda *a: False)
    slow = [model._member_embed(est, codes) for est in model.estimators_]
    for a, b in zip(fast, slow, strict=True):
        assert a.dtype == b.dtype == np.float32
        assert np.array_equal(a, b)


def test_pooled_or_other_categories_take_the_encoded_path():
    df = _table(60, 6, seed=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = Consensus(2, members=["onehot"], random_state=0).fit(df)
    est, cats, index = model.estimators_[0], model.categories_, list(range(6))
    assert cm._same_values(est, index, cats)
    assert not cm._same_values(est, index, [c.copy() for c in cats])  # equal, not the same
    est.infrequent_categories_ = [None] * 5 + [np.array(["d"], dtype=object)]
    assert not cm._same_values(est, index, cats)


@pytest.mark.parametrize(("n", "m", "v"), [(30, 200, 4), (300, 12, 3), (1000, 6, 2)])
def test_dense_pair_information_equals_the_value_statistics(monkeypatch, n, m, v):
    rng = np.random.default_rng(n)
    codes = rng.integers(0, v, (n, m))
    codes[:, 1] = np.where(rng.random(n) < 0.4, codes[:, 0], codes[:, 1])
    codes, cats = ak._compact(codes)
    dense = ak._total_mi(codes, cats)
    monkeypatch.setattr(ak, "DENSE_MI_VALUES", 0)
    assert dense == pytest.approx(ak._total_mi(codes, cats), rel=1e-12)


def test_cli_thaws_what_its_command_froze(tmp_path, monkeypatch):
    import gc

    from catembed.cli import main

    path = tmp_path / "t.csv"
    _table(40, 6, seed=2).to_csv(path, index=False)
    froze = []
    real = gc.freeze
    monkeypatch.setattr(gc, "freeze", lambda: (froze.append(gc.get_count()), real())[1])
    before = gc.get_freeze_count()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["cluster", str(path), "-k", "2", "-q", "-o", str(tmp_path / "o.csv")]) == 0
    assert len(froze) == 1
    assert gc.get_freeze_count() == before
