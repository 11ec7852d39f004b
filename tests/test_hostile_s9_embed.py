"""Hostile inputs to the value-coupling embedders and their CLI (sweep s9, embedders)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from catembed import CatEmbedError
from catembed.embed import LCME, OneHotEmbedder

X = pd.DataFrame({
    "a": list("xyzxyzxyzxyz"),
    "b": list("ppqqppqqppqq"),
    "c": list("uvwwvuuvwwvu"),
})


def test_lcme_n_components_beyond_memory_is_refused_before_the_k_by_k_scaling(monkeypatch):
    # the view scaling holds a k x k matrix: 2000**2 float64 = 32 MB > the 10 MB limit
    monkeypatch.setenv("CATEMBED_MAX_MEMORY", "10M")
    with pytest.raises(CatEmbedError, match=r"LCME on .* with n_components=2000 would need "
                       r"about .* lower n_components"):
        LCME(n_components=2000, n_init=1, max_iter=1, random_state=0).fit(X)


def test_fit_chunks_of_numpy_arrays_equals_the_fit():
    arr = X.to_numpy()
    chunked = OneHotEmbedder().fit_chunks(lambda: [arr[:6], arr[6:]])
    assert not hasattr(chunked, "feature_names_in_")
    np.testing.assert_array_equal(chunked.transform(arr), OneHotEmbedder().fit_transform(arr))
