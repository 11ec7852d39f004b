"""Issue 54 item 4: the API pages' glitches. Every public estimator's numpydoc
``Parameters`` section lists each ``__init__`` parameter at the section's own indent (a
shared block pasted one indent too deep ran ``handle_unknown`` into the previous entry);
``n_components`` is positional wherever it is an embedder's first parameter; a table
without a class column is not summarised as "1 classes"."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import catembed
import catembed.cluster
import catembed.embed
from catembed.datasets import Dataset


def _public_estimators():
    seen = {}
    for mod in (catembed, catembed.embed, catembed.cluster):
        for name in getattr(mod, "__all__", dir(mod)):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj) and hasattr(obj, "fit") and obj.__doc__:
                seen[obj.__name__] = obj
    return [seen[k] for k in sorted(seen)]


def _parameter_lines(doc: str) -> list[str]:
    text = inspect.cleandoc(doc)
    m = re.search(r"^Parameters\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", text, re.S | re.M)
    return m.group(1).splitlines() if m else []


@pytest.mark.parametrize("cls", _public_estimators(), ids=lambda c: c.__name__)
def test_every_init_parameter_is_a_top_level_entry(cls):
    lines = _parameter_lines(cls.__doc__)
    if not lines:
        pytest.skip("no Parameters section")
    top = {ln.split(" :")[0].split(",")[0].strip() for ln in lines
           if ln and not ln.startswith(" ") and " :" in ln}
    nested = [ln.strip() for ln in lines if re.match(r"^\s+\w+ : ", ln)]
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    # a parameter entry indented under another one reads as part of its description
    assert not [ln for ln in nested if ln.split(" :")[0] in params], cls.__name__
    assert "handle_unknown" not in params or "handle_unknown" in top


def test_onehot_pca_takes_n_components_first():
    from catembed.embed import FAMD, MCA, OneHotPCA

    for cls in (OneHotPCA, MCA, FAMD):
        first = list(inspect.signature(cls.__init__).parameters.values())[1]
        assert first.name == "n_components" and first.kind is first.POSITIONAL_OR_KEYWORD
    X = pd.DataFrame({"a": list("xyzxyzxy"), "b": list("ppqqppqq"), "c": list("uvuvwwuv")})
    est = OneHotPCA(2).fit(X)
    assert est.n_components == 2 and est.n_components_ == 2
    assert np.allclose(est.transform(X), OneHotPCA(n_components=2).fit_transform(X))


def test_summary_counts_classes_only_with_a_class_column():
    frame = pd.DataFrame({"a": list("xyxy"), "b": list("pqpq"), "y": list("1111")})
    kinds = {"a": "categorical", "b": "categorical", "y": "target"}
    one = Dataset("t", frame, {"target": "y", "columns": kinds}, Path("."))
    assert one.summary() == "t: 4 rows, 2 attributes, 4 values, 1 class"
    none = Dataset("t", frame, {"target": "y", "columns": kinds, "no_target": True},
                   Path("."))
    assert none.summary() == "t: 4 rows, 2 attributes, 4 values"


def test_consensus_chooses_k_by_default_as_the_command_does():
    from catembed.cluster import Consensus

    assert Consensus().n_clusters == "auto"
    assert inspect.signature(Consensus).parameters["n_clusters"].default == "auto"
