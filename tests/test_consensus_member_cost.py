"""The cost of a Consensus member reaches the user (issue 52 item 2): LCME pools rare values
as LCME alone does, and a member's "may take N minutes" estimate is shown, not swallowed."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import LCME, CatEmbedError, CatEmbedWarning
from catembed.cluster import Consensus


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({"many": rng.integers(0, 150, 400).astype(str),
                         "a": rng.choice(list("xyz"), 400), "b": rng.choice(list("pq"), 400)})


def test_lcme_member_pools_as_lcme_alone() -> None:
    """On main the LCME member saw every value (max_categories=None): 98 s on 1,000 x 4 x
    500 values where LCME alone, pooling to 100 values a column, takes 2.5 s."""
    X = _table()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = Consensus(2, members=["lcme", "cde"], random_state=0).fit(X)
        alone = LCME().fit(X)
    lcme, cde = fitted.estimators_
    assert int(lcme.stats_.sizes.max()) == int(alone.stats_.sizes.max()) == 100
    assert int(cde.stats_.sizes.max()) == X["many"].nunique()  # the others see every value


def test_member_cost_warning_is_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    """On main the member's fit ran under warnings.simplefilter("ignore")."""
    monkeypatch.setattr(LCME, "_cost_seconds", lambda self, sizes: 600.0)
    with pytest.warns(CatEmbedWarning, match=r"^consensus member: LCME on \d+ distinct values "
                                             r"in 3 columns may take 10 minutes or more"):
        Consensus(2, members=["lcme"], random_state=0).fit(_table())


def test_member_over_the_time_limit_is_left_out(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(LCME, "_cost_seconds", lambda self, sizes: 600.0)
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "60")
    with pytest.warns(CatEmbedWarning, match=r"member 'lcme' left out: LCME on .* would take "
                                             r"about 10 minutes \(limit 60 s, "
                                             r"CATEMBED_MAX_SECONDS\)"):
        fitted = Consensus(2, members=["lcme", "idf"], random_state=0).fit(_table())
    assert fitted.members_ == ["idf"] and fitted.failed_members_ == ["lcme"]


def test_onehot_projection_counts_in_the_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    """The default ``cluster`` on 3,000 x 4 columns of about 1,300 values: after LCME pooled,
    the one-hot member's output projection (two dense 5,164 x 5,164 decompositions) took 515
    s of the 576 (2 shared cores under load), estimated 0 s on main."""
    from types import SimpleNamespace

    from catembed.cluster.consensus._members import check_member_cost, make_member
    from catembed.stats._pooling import check_fit_cost

    est = make_member("onehot", 10, np.random.RandomState(0), "category", 3)
    stats = SimpleNamespace(sizes=np.array([1300] * 4), n_rows=3000)
    with pytest.warns(CatEmbedWarning, match=r"^consensus member: OneHotEmbedder on 5200 "
                                             r"distinct values in 4 columns may take 12 "
                                             r"minutes or more"):
        check_member_cost(est, stats)
    # a table of few rows takes the Lanczos path: no such cost
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_fit_cost(est, np.array([1300] * 4), n_output_rows=1000)
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "60")
    with pytest.raises(CatEmbedError, match=r"OneHotEmbedder on 5200 distinct values in 4 "
                                            r"columns would take about 12 minutes \(limit 60 s"):
        check_member_cost(est, stats)


def test_untie_estimate_counts_a_column_of_many_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """UNTIE on a 500-value identifier column beside two small columns took 121 s (2 shared
    cores under load) where its estimate said 2.1 s: each step's kernel products cost
    ``l_j^3`` a column."""
    from catembed import UNTIE
    from catembed.stats._pooling import check_fit_cost

    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "60")
    with pytest.raises(CatEmbedError, match=r"^UNTIE on 505 distinct values in 3 columns would "
                                            r"take about 2 minutes \(limit 60 s"):
        check_fit_cost(UNTIE(max_categories=None), np.array([500, 3, 2]), n_output_rows=500)
    # balanced tables keep their estimate (l^3 / 6e7: 8.5 s for 8 columns of 100 values)
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "9")
    check_fit_cost(UNTIE(), np.array([100] * 8), n_output_rows=500)
