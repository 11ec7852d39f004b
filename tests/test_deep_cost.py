"""The deep clusterers' memory and time guard (issue 52 item 8): refused before training,
through CATEMBED_MAX_MEMORY / CATEMBED_MAX_SECONDS, with the library's error."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("torch")

from catembed import CatEmbedError, CatEmbedWarning  # noqa: E402
from catembed.deep import IDEC, AttentionClusterer, AutoencoderKMeans  # noqa: E402
from catembed.deep._cost import deep_cost  # noqa: E402


class Trained(Exception):
    """Raised in place of training: the guard let the fit through."""


@pytest.fixture
def no_training(monkeypatch: pytest.MonkeyPatch) -> None:
    import catembed.deep._estimator as estimator

    def refuse(*args, **kwargs):
        raise Trained

    monkeypatch.setattr(estimator, "fit_restarts", refuse)


def _table(n: int, m: int) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame(rng.choice(list("abcd"), size=(n, m)),
                        columns=[f"c{j}" for j in range(m)])


def test_attention_over_the_memory_limit_is_refused(monkeypatch, no_training) -> None:
    """On main: trained (30 x 20,000: 511 s, then torch's request for 96 GB)."""
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "256M")
    with pytest.raises(CatEmbedError, match=r"^AttentionClusterer on 30 rows x 600 columns "
                                            r"would need about .* GiB \(limit 0\.2 GiB, "
                                            r"CATEMBED_MAX_MEMORY\); every column is a token"):
        AttentionClusterer(3, random_state=0).fit(_table(30, 600))


def test_over_the_time_limit_is_refused(monkeypatch, no_training) -> None:
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "5")
    with pytest.raises(CatEmbedError, match=r"^IDEC on 40 rows x 3 columns would take about "
                                            r".* \(limit 5 s, CATEMBED_MAX_SECONDS\)"):
        IDEC(2, random_state=0).fit(_table(40, 3))


def test_a_long_fit_warns(no_training) -> None:
    with pytest.warns(CatEmbedWarning, match=r"^AutoencoderKMeans on 40 rows x 3 columns "
                                             r"\(12 distinct values\) may take \d+ minutes"):
        with pytest.raises(Trained):
            AutoencoderKMeans(2, pretrain_steps=20_000, max_epochs=None,
                              random_state=0).fit(_table(40, 3))


def test_estimates() -> None:
    # attention: batch x heads x tokens^2 scores dominate (30 x 20,000: hundreds of GiB)
    need, seconds = deep_cost(AttentionClusterer(3), 30, 20_000, 0, 80_000)
    assert need > 400 * 2**30 and seconds > 12 * 3600
    # the defaults on a small table: well inside any limit, no warning
    need, seconds = deep_cost(IDEC(4), 500, 10, 2, 60)
    assert need < 64 * 2**20 and 10 < seconds < 120
    # memory grows with the values (embeddings, decoder head), time with the steps
    small = deep_cost(IDEC(4), 500, 10, 0, 60)
    assert deep_cost(IDEC(4), 500, 10, 0, 60_000)[0] > 100 * small[0]
    assert deep_cost(IDEC(4, pretrain_steps=2000, max_epochs=None), 500, 10, 0, 60)[1] > small[1]
    # max_epochs bounds the steps of a small table (issue 55)
    assert deep_cost(IDEC(4, max_epochs=None), 500, 10, 0, 60)[1] > small[1]


@pytest.mark.parametrize("name", ["VAEWD", "BiGANWD"])
def test_wide_deep_over_the_limits_is_refused(monkeypatch, name: str) -> None:
    import catembed.deep as deep

    est = getattr(deep, name)(random_state=0)
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "0.5")
    with pytest.raises(CatEmbedError, match=rf"^{name} on 40 rows x 3 columns would take "
                                            r"about .* \(limit 0 s, CATEMBED_MAX_SECONDS\); "
                                            r".*lower max_steps or batch_size"):
        est.fit(_table(40, 3))
    monkeypatch.delenv("CATEMBED_MAX_SECONDS")
    assert est.set_params(max_steps=5).fit(_table(40, 3)).transform(_table(5, 3)).shape[0] == 5
