"""Issue 57: one ``Consensus.fit`` converts its input to a frame once and hands the checked
frame (and its codes) down to the guard, the coordinates and the profiles; the numeric
columns are binned once."""

from __future__ import annotations

import sys
import warnings
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from catembed.cluster import Consensus

N = 240  # no member's table of values has this many rows: a call on N rows is the input's


def _mixed_table(n_out: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    g = rng.integers(0, 2, N - n_out)
    df = pd.DataFrame({f"c{j}": np.where(rng.random(N - n_out) < 0.6, g,
                                         rng.integers(0, 2, N - n_out)).astype(str)
                       for j in range(6)})
    df["x"] = g * 3.0 + rng.normal(size=N - n_out)
    for r in range(n_out):  # rows of codes of their own: issue 53's guard refits without them
        df.loc[len(df)] = [f"rare{r}_{j}" for j in range(6)] + [0.5]
    return df


def _fit_counting(monkeypatch: pytest.MonkeyPatch, model: Consensus, X: pd.DataFrame
                  ) -> Counter:
    """Fit once to import every module, then again with every catembed binding of the
    conversion (``as_frame``) and of the numeric steps replaced by a counting spy."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X)
    calls: Counter = Counter()
    names = ("as_frame", "fit_numeric", "apply_numeric", "quantile_edges")
    for mod in [m for k, m in sys.modules.items() if k.startswith("catembed") and m]:
        for name in names:
            real = mod.__dict__.get(name)
            if callable(real):
                def spy(*a, _real=real, _name=name, **k):
                    if _name != "as_frame" or len(a[0]) == len(X):
                        calls[_name] += 1
                    return _real(*a, **k)
                monkeypatch.setattr(mod, name, spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model.fit(X)
    return calls


def test_fit_converts_its_input_once_and_bins_once(monkeypatch):
    X = _mixed_table()
    model = Consensus(2, random_state=0)
    calls = _fit_counting(monkeypatch, model, X)
    assert model.diagnostics_["guard"] != "refit"
    assert calls["as_frame"] == 1  # fit_guarded's; _fit, the profiles and describe take it
    assert calls["fit_numeric"] == 1 and calls["apply_numeric"] == 1
    assert calls["quantile_edges"] == 1  # one numeric column, its bins made once
    assert model.profiles_["kind"].eq("number").any()  # the numbers described, unbinned


def test_the_guards_refit_converts_the_input_once(monkeypatch):
    # the refit without the outlier rows and the labels of every row reuse the checked frame
    # and its codes (before issue 57: 10 conversions here, 3 without the refit)
    X = _mixed_table(n_out=1)
    model = Consensus(2, random_state=0)
    calls = _fit_counting(monkeypatch, model, X)
    assert model.diagnostics_["guard"] == "refit"
    assert calls["as_frame"] == 1
    # the labels are predict's: every row's nearest centre
    np.testing.assert_array_equal(model.predict(X), model.labels_)
