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


@pytest.fixture
def no_thesis_training(monkeypatch: pytest.MonkeyPatch) -> None:
    from catembed.deep.thesis import ThesisClusterer

    def refuse(*args, **kwargs):
        raise Trained

    monkeypatch.setattr(ThesisClusterer, "_fit_one", refuse)


def test_thesis_transformer_over_the_memory_limit_is_refused(monkeypatch,
                                                               no_thesis_training) -> None:
    """Stop 58's note: ThesisClusterer had no cost guard (its Transformer on 30 x 600 asks for
    gigabytes of attention scores and encoder weights)."""
    from catembed.deep import ThesisClusterer

    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "256M")
    with pytest.raises(CatEmbedError, match=r"^ThesisClusterer\(network='transformer'\) on 30 "
                                            r"rows x 600 columns \(\d+ distinct values\) would "
                                            r"need about .* GiB \(limit 0\.2 GiB, "):
        ThesisClusterer(3, network="transformer", random_state=0).fit(_table(30, 600))


def test_thesis_long_fit_warns(no_thesis_training) -> None:
    from catembed.deep import ThesisClusterer

    with pytest.warns(CatEmbedWarning, match=r"^ThesisClusterer\(network='ae'\) on 400 rows x "
                                             r"3 columns \(12 distinct values\) may take \d+ "
                                             r"minutes or more; to be faster, drop"):
        with pytest.raises(Trained):
            ThesisClusterer(2, epochs=5_000, random_state=0).fit(_table(400, 3))


def test_thesis_estimates() -> None:
    from catembed.deep import ThesisClusterer
    from catembed.deep._cost import thesis_cost

    # the defaults on a small table: inside any limit, seconds (measured 0.5-1.1x, 7 Dec 2026)
    need, seconds = thesis_cost(ThesisClusterer(3), 500, [5] * 10, 0)
    assert need < 64 * 2**20 and 1 < seconds < 60
    # every column a 32-wide token: a Transformer on 30 x 20,000 needs terabytes
    need, _ = thesis_cost(ThesisClusterer(3, network="transformer"), 30, [4] * 20_000, 0)
    assert need > 2**40
    # the clustering stages add epochs: IDEC's chain (dcn, dec, idec) costs more than k-means
    assert (thesis_cost(ThesisClusterer(3, clustering="idec"), 500, [5] * 10, 2)[1]
            > thesis_cost(ThesisClusterer(3), 500, [5] * 10, 2)[1])
