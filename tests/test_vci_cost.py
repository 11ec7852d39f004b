"""VCI without the value-by-value matrix, and its cost through the common guard (issue 52
item 7)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.metrics import vci


def test_vci_hand_computed() -> None:
    # attribute a: class 0 has {x, y}, class 1 has {y}: Jaccard distance 1 - 1/2
    # attribute b: class 0 has {u}, class 1 has {v, None}: distance 1
    X = pd.DataFrame({"a": ["x", "y", "y", "y"], "b": ["u", "u", "v", None]})
    assert vci(X, [0, 0, 1, 1]) == pytest.approx((0.5 + 1.0) / 2)
    assert vci(X, [0, 0, 0, 0]) == 0.0


def test_vci_of_an_identifier_column_needs_no_dense_matrix(monkeypatch) -> None:
    """On main, ``vci`` built the dense co-occurrence matrix of every value: 50,000 rows with
    an identifier column asked for 18.6 GiB; here 2,000 such rows, no dense matrix allowed."""
    from catembed.stats import ValueStatistics

    def refuse(self):
        raise AssertionError("the dense value-by-value matrix")

    monkeypatch.setattr(ValueStatistics, "cooc_dense", refuse)
    n = 2000
    rng = np.random.default_rng(0)
    X = pd.DataFrame({"id": [f"r{i}" for i in range(n)], "a": rng.choice(list("xyz"), n)})
    y = rng.choice(["A", "B", "C"], n)
    # id: each class holds its own rows' ids (distance 1); a: every class holds x, y, z (0)
    assert vci(X, y) == pytest.approx(0.5)


def test_vci_of_too_many_classes_is_refused(monkeypatch) -> None:
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "1M")
    X = pd.DataFrame({"a": list("xyz") * 200})
    with pytest.raises(CatEmbedError, match=r"^the value cluster index \(VCI\) of 600 classes "
                                            r"would need about .*CATEMBED_MAX_MEMORY"):
        vci(X, np.arange(600))


def test_report_leaves_the_vci_line_out_with_a_note(monkeypatch) -> None:
    pytest.importorskip("matplotlib")
    from catembed.report import build_report

    rng = np.random.default_rng(0)
    X = pd.DataFrame({c: rng.choice(list("xyzw"), 300) for c in "abc"})
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "2M")  # VCI of 300 classes: 2.8 MiB
    rep = build_report(X, np.arange(300).astype(str), methods=[], n_clusters=3, quiet=True)
    assert "VCI (CDE Eq. 8)" not in rep.summary
    assert any(n.startswith("The VCI line is left out: the value cluster index (VCI) of 300 "
                            "classes would need") for n in rep.notes)
