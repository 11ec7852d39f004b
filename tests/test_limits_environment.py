"""One parser for CATEMBED_MAX_MEMORY and CATEMBED_MAX_SECONDS (issue 52 item 6)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from catembed import CDE, CatEmbedError, CatEmbedWarning
from catembed._utils._limits import check_limits, memory_limit, seconds_limit, size
from catembed.cluster import MGR, Consensus


@pytest.mark.parametrize(("text", "value"), [
    ("8G", 8 * 2**30), ("8g", 8 * 2**30), ("8GB", 8 * 2**30), ("8GiB", 8 * 2**30),
    ("500M", 500 * 2**20), ("1.5T", 1.5 * 2**40), ("100K", 100 * 2**10),
    ("1000000", 1e6), (" 2G ", 2 * 2**30), ("1e3", 1000.0), ("64B", 64.0)])
def test_memory_forms(monkeypatch: pytest.MonkeyPatch, text: str, value: float) -> None:
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", text)
    assert memory_limit() == value


@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "NaN", "-8G", "0", "0G", "lots",
                                  "8X", "G", "8 G B", "1e999"])
def test_memory_refused_verbatim(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """nan / inf used to turn every guard off, a negative limit refused every fit, and the
    message echoed the text upper-cased."""
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", text)
    with pytest.raises(CatEmbedError) as err:
        memory_limit()
    msg = str(err.value)
    assert msg.startswith(f"CATEMBED_MAX_MEMORY={text!r} is not a size")
    assert "8G" in msg and "unset it" in msg


@pytest.mark.parametrize(("text", "value"), [("600", 600.0), ("1e-9", 1e-9), (" 3.5 ", 3.5)])
def test_seconds_forms(monkeypatch: pytest.MonkeyPatch, text: str, value: float) -> None:
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", text)
    assert seconds_limit(1.0) == value


@pytest.mark.parametrize("text", ["ten", "nan", "inf", "-5", "0", "10s", "1e999"])
def test_seconds_refused(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", text)
    with pytest.raises(CatEmbedError, match=f"^CATEMBED_MAX_SECONDS={text!r} is not a number "
                                            "of seconds: set it to a positive number"):
        seconds_limit(1.0)


def test_unset_or_empty_is_the_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", " ")
    assert seconds_limit(7.0) == 7.0 and seconds_limit(None) is None
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "")
    assert memory_limit() > 0


def _table() -> pd.DataFrame:
    rng = np.random.default_rng(0)
    return pd.DataFrame({c: rng.choice(list("xyz"), 60) for c in "abc"})


@pytest.mark.parametrize(("name", "text"), [("CATEMBED_MAX_MEMORY", "lots"),
                                            ("CATEMBED_MAX_MEMORY", "nan"),
                                            ("CATEMBED_MAX_SECONDS", "ten"),
                                            ("CATEMBED_MAX_SECONDS", "-5")])
def test_consensus_says_it_once(monkeypatch: pytest.MonkeyPatch, name: str, text: str) -> None:
    """On main: every member left out with Python's float error (or a refusal against a
    negative limit), then "no consensus member could be fitted on this table"; with nan
    the guards were off and the fit went on."""
    monkeypatch.setenv(name, text)
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        with pytest.raises(CatEmbedError, match=f"^{name}={text!r} is not"):
            Consensus(2, random_state=0).fit(_table())
    assert not [w for w in got if "left out" in str(w.message)]


@pytest.mark.parametrize("est", [CDE(), MGR(2)])
def test_estimators_refuse_nan(monkeypatch: pytest.MonkeyPatch, est: object) -> None:
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "nan")
    with pytest.raises(CatEmbedError, match="CATEMBED_MAX_MEMORY='nan' is not a size"):
        est.fit(_table())


def test_check_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1M")
    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "60")
    with pytest.raises(CatEmbedError, match=r"^step would need about 2 MiB \(limit 1 MiB, "
                                            r"CATEMBED_MAX_MEMORY\); do less\.$"):
        check_limits("step", 2.0 * 2**20, 1.0, "do less")
    with pytest.raises(CatEmbedError, match=r"would take about 2 minutes \(limit 60 s, "
                                            r"CATEMBED_MAX_SECONDS\)"):
        check_limits("step", 1.0, 121.0, "do less")

    monkeypatch.setenv("CATEMBED_MAX_SECONDS", "1000")
    with pytest.warns(CatEmbedWarning, match="step may take 5 minutes or more; to be faster"):
        check_limits("step", 1.0, 300.0, "do less")


@pytest.mark.parametrize(("n_bytes", "text"), [
    (0, "0 KiB"), (640 * 2**10, "640 KiB"), (2**20, "1 MiB"), (12.4 * 2**20, "12 MiB"),
    (0.1 * 2**30, "0.1 GiB"), (4.14 * 2**30, "4.1 GiB"), (298 * 2**30, "298.0 GiB")])
def test_size_never_reads_zero(n_bytes: float, text: str) -> None:
    """A small limit or need is not printed as "0.0 GiB" (it read as no memory at all)."""
    assert size(n_bytes) == text


@pytest.mark.parametrize(("name", "text"), [("CATEMBED_MAX_MEMORY", "lots"),
                                            ("CATEMBED_MAX_SECONDS", "ten")])
def test_cluster_command_says_it_once(monkeypatch: pytest.MonkeyPatch, tmp_path, capsys,
                                      name: str, text: str) -> None:
    """On main: five "consensus member ... left out" warnings, then "no consensus member
    could be fitted on this table" (exit 2)."""
    from catembed.cli import main

    path = tmp_path / "t.csv"
    _table().to_csv(path, index=False)
    monkeypatch.setenv(name, text)
    code = main(["cluster", str(path), "-k", "2", "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count(f"{name}={text!r} is not") == 1
    assert "left out" not in err and "no consensus member" not in err
    assert not (tmp_path / "out.csv").exists()
