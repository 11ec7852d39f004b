"""The cost of a Consensus member reaches the user (issue 52 item 2): LCME pools rare values
as LCME alone does, and a member's "may take N minutes" estimate is shown, not swallowed."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import LCME, CatEmbedWarning
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
