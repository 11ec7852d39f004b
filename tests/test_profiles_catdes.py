"""Issue 54's oracle: :func:`catembed.cluster.describe_clusters` against FactoMineR's ``catdes``.

R exports three of FactoMineR's tables with a fixed partition (``tea`` and ``poison``: HCPC's
cut of their MCA, no consolidation; ``hobbies``: its ``Age`` column, with missing
professions) and ``catdes(proba = 1)``'s every cell, at test time, into a temporary folder;
nothing of R's is committed. Skipped where ``Rscript`` or FactoMineR is missing (Debian:
``apt-get install r-base-core r-cran-factominer``).
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pandas as pd
import pytest

from catembed.cluster import describe_clusters
from catembed.cluster.consensus._describe import profile_lines, summary_rows

RSCRIPT = shutil.which("Rscript")


def _has_factominer() -> bool:
    if RSCRIPT is None:
        return False
    done = subprocess.run([RSCRIPT, "-e", "library(FactoMineR)"], capture_output=True,
                          timeout=120, check=False)
    return done.returncode == 0


pytestmark = pytest.mark.skipif(RSCRIPT is None, reason="needs Rscript (and FactoMineR)")

EXPORT = r"""
suppressMessages(library(FactoMineR))
out <- commandArgs(TRUE)[1]
cells <- function(res, part) do.call(rbind, lapply(names(res[[part]]), function(cl) {
  m <- res[[part]][[cl]]
  if (is.null(m)) return(NULL)
  data.frame(cluster = cl, name = rownames(m), m, check.names = FALSE)
}))
dump <- function(name, df, clusters) {
  df$cluster <- factor(clusters)
  path <- function(what) file.path(out, paste0(name, "_", what, ".csv"))
  write.csv(df, path("data"), row.names = FALSE, na = "")
  res <- catdes(df, num.var = ncol(df), proba = 1)
  write.csv(cells(res, "category"), path("category"), row.names = FALSE)
  write.csv(cells(res, "quanti"), path("quanti"), row.names = FALSE)
  write.csv(data.frame(name = rownames(res$test.chi2), res$test.chi2, check.names = FALSE),
            path("chi2"), row.names = FALSE)
  write.csv(data.frame(name = rownames(res$quanti.var), res$quanti.var, check.names = FALSE),
            path("eta2"), row.names = FALSE)
}
data(tea); data(poison); data(hobbies)
mca <- MCA(tea, quanti.sup = 19, quali.sup = 20:36, graph = FALSE)
dump("tea", tea, HCPC(mca, nb.clust = 3, consol = FALSE, graph = FALSE)$data.clust$clust)
mca <- MCA(poison, quanti.sup = 1:2, quali.sup = 3:4, graph = FALSE)
dump("poison", poison, HCPC(mca, nb.clust = 4, consol = FALSE, graph = FALSE)$data.clust$clust)
dump("hobbies", hobbies[, names(hobbies) != "Age"], hobbies$Age)
"""

NUMERIC = {"tea": ["age"], "poison": ["Age", "Time"], "hobbies": ["nb.activitees"]}


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    if not _has_factominer():  # asked here, not at collection: R starts only for these tests
        pytest.skip("needs the R package FactoMineR")
    folder = tmp_path_factory.mktemp("catdes")
    script = folder / "export.R"
    script.write_text(EXPORT)
    subprocess.run([RSCRIPT, str(script), str(folder)], check=True, capture_output=True,
                   timeout=600)
    return folder


def _read(folder, name, what):
    return pd.read_csv(folder / f"{name}_{what}.csv", keep_default_na=False,
                       na_values=[""], dtype={"cluster": str})


def _profiles(folder, name):
    head = pd.read_csv(folder / f"{name}_data.csv", nrows=1).columns
    data = pd.read_csv(folder / f"{name}_data.csv", keep_default_na=False, na_values=[""],
                       dtype={c: str for c in head if c not in NUMERIC[name]})
    labels = data.pop("cluster").to_numpy()
    prof = describe_clusters(data, labels, numeric_features=NUMERIC[name])
    # catdes' names: spaces in column names become dots, a missing value is the level "NA"
    prof["name"] = prof["column"].str.replace(" ", ".")
    cat = prof["kind"] == "category"
    prof.loc[cat, "name"] += "=" + prof.loc[cat, "value"].replace("(missing)", "NA")
    return data, labels, prof


def _v_tests_equal(ours, theirs) -> None:
    """catdes' v-tests, but where R's p.value underflows to 0 and its v.test is +-Inf ours is
    finite (from the tail's logarithm), of the same sign, beyond any finite quantile of R's."""
    ours, theirs = np.asarray(ours, dtype=float), np.asarray(theirs, dtype=float)
    inf = np.isinf(theirs)
    np.testing.assert_allclose(ours[~inf], theirs[~inf], rtol=1e-9, atol=1e-6, err_msg="v.test")
    assert np.isfinite(ours[inf]).all() and (np.sign(ours[inf]) == np.sign(theirs[inf])).all()
    assert (np.abs(ours[inf]) > 37.5).all()


@pytest.mark.parametrize("name", ["tea", "poison", "hobbies"])
def test_v_tests_and_p_values_equal_catdes(exported, name):
    data, labels, prof = _profiles(exported, name)
    if name == "hobbies":
        assert data["Profession"].isna().sum() == 1498  # the missing values are a value
    ours = prof[prof["kind"] == "category"].set_index(["cluster", "name"])
    theirs = _read(exported, name, "category").set_index(["cluster", "name"])
    assert len(ours) == len(theirs) and set(ours.index) == set(theirs.index)
    ours = ours.loc[theirs.index]
    for col in ["Cla/Mod", "Mod/Cla", "Global", "p.value"]:
        np.testing.assert_allclose(ours[col], theirs[col], rtol=1e-9, atol=1e-6, err_msg=col)
    _v_tests_equal(ours["v.test"], theirs["v.test"])
    # the p-values far below 1e-6 too: relative, where R's is not 0
    small = (theirs["p.value"] > 0).to_numpy()
    np.testing.assert_allclose(ours["p.value"][small], theirs["p.value"][small], rtol=1e-9)
    chi = _read(exported, name, "chi2").set_index("name")
    cols = prof[prof["kind"] == "category"].drop_duplicates("column")
    cols = cols.set_index(cols["column"].str.replace(" ", ".")).loc[chi.index]
    np.testing.assert_allclose(cols["column_p.value"], chi["p.value"], rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(cols["column_df"], chi["df"])
    # numbers: v-test, means, standard deviations, Eta2 and the F-test
    num = prof[prof["kind"] == "number"].set_index(["cluster", "name"])
    quanti = _read(exported, name, "quanti").set_index(["cluster", "name"])
    num = num.loc[quanti.index]
    for ours_col, theirs_col in [("v.test", "v.test"), ("p.value", "p.value"),
                                 ("mean_in_cluster", "Mean in category"),
                                 ("mean_overall", "Overall mean"),
                                 ("sd_in_cluster", "sd in category"),
                                 ("sd_overall", "Overall sd")]:
        np.testing.assert_allclose(num[ours_col], quanti[theirs_col], rtol=1e-9, atol=1e-6,
                                   err_msg=ours_col)
    eta = _read(exported, name, "eta2").set_index("name")
    first = prof[prof["kind"] == "number"].drop_duplicates("column").set_index("name")
    np.testing.assert_allclose(first.loc[eta.index, "Eta2"], eta["Eta2"], rtol=1e-9)
    np.testing.assert_allclose(first.loc[eta.index, "column_p.value"], eta["P-value"],
                               rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("name", ["tea", "poison", "hobbies"])
def test_summary_names_distinct_significant_columns(exported, name):
    data, labels, prof = _profiles(exported, name)
    lines = profile_lines(prof, len(labels))
    chosen = summary_rows(prof)
    assert len(lines) == len(chosen) == len(set(labels))
    named = 0
    for line, (cluster, size, over, under) in zip(lines, chosen, strict=True):
        assert line.startswith(f"cluster {cluster} (n={size}, ")
        both = pd.concat([over, under])
        assert both["column"].is_unique, line
        assert (both["p"] <= 0.05).all()
        assert (over["v"].abs() >= 1.959).all() and (under["v"] <= -1.959).all()
        # what a cluster is not: its most under-represented value of another column
        if len(under):
            assert "; not: " in line or line.split(": ", 1)[1].startswith("not: ")
        named += len(both)
    assert named > 0


CATDES_OF_LABELS = r"""
suppressMessages(library(FactoMineR))
args <- commandArgs(TRUE)
df <- read.csv(args[1], check.names = FALSE, stringsAsFactors = TRUE, na.strings = "")
df$cluster <- factor(df$cluster)
res <- catdes(df, num.var = ncol(df), proba = 1)
cells <- do.call(rbind, lapply(names(res$category), function(cl) {
  m <- res$category[[cl]]
  data.frame(cluster = cl, name = rownames(m), m, check.names = FALSE)
}))
write.csv(cells, args[2], row.names = FALSE)
q <- do.call(rbind, lapply(names(res$quanti), function(cl) {
  m <- res$quanti[[cl]]
  data.frame(cluster = cl, name = rownames(m), m, check.names = FALSE)
}))
write.csv(q, args[3], row.names = FALSE)
"""


@pytest.mark.filterwarnings("ignore::catembed.CatEmbedWarning")  # weak structure at k = 3
def test_consensus_profiles_equal_catdes_of_its_labels(exported, tmp_path):
    """``Consensus.profiles_`` itself, on tea: catdes of the consensus labels."""
    from catembed.cluster import Consensus

    head = pd.read_csv(exported / "tea_data.csv", nrows=1).columns
    data = pd.read_csv(exported / "tea_data.csv", keep_default_na=False, na_values=[""],
                       dtype={c: str for c in head if c != "age"}).drop(columns="cluster")
    model = Consensus(3, members=["mca", "idf"], n_init=2, random_state=0).fit(data)
    assert model.numeric_features_ == ["age"]
    table = data.assign(cluster=model.labels_)
    table.to_csv(tmp_path / "labelled.csv", index=False)
    script = tmp_path / "catdes.R"
    script.write_text(CATDES_OF_LABELS)
    subprocess.run([RSCRIPT, str(script), str(tmp_path / "labelled.csv"),
                    str(tmp_path / "cells.csv"), str(tmp_path / "quanti.csv")],
                   check=True, capture_output=True, timeout=300)
    prof = model.profiles_.assign(cluster=lambda p: p["cluster"].astype(str))
    prof["name"] = prof["column"] + "=" + prof["value"]
    ours = prof[prof["kind"] == "category"].set_index(["cluster", "name"])
    theirs = pd.read_csv(tmp_path / "cells.csv", keep_default_na=False,
                         dtype={"cluster": str}).set_index(["cluster", "name"])
    assert set(ours.index) == set(theirs.index)
    ours = ours.loc[theirs.index]
    for col in ["p.value", "Cla/Mod", "Mod/Cla", "Global"]:
        np.testing.assert_allclose(ours[col], theirs[col], rtol=1e-9, atol=1e-6, err_msg=col)
    _v_tests_equal(ours["v.test"], theirs["v.test"])
    quanti = pd.read_csv(tmp_path / "quanti.csv", dtype={"cluster": str})
    num = prof[prof["kind"] == "number"].set_index(["cluster", "column"])
    num = num.loc[list(zip(quanti["cluster"], quanti["name"], strict=True))]
    np.testing.assert_allclose(num["v.test"], quanti["v.test"], rtol=1e-9, atol=1e-6)
    np.testing.assert_allclose(num["p.value"], quanti["p.value"], rtol=1e-9, atol=1e-6)
    assert (prof["kind"] == "paragon").sum() == 15
