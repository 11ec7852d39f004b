"""CDE's value influence matrices against the authors' CDE.m run in Octave (issue 25 item 3).

The authors' code (github.com/jiansonglei/CDE, ``CDE.m`` and ``NMI.m``) is not part of this
repository: the test looks for ``CDE.m`` at ``$CATEMBED_CDE_M`` (``NMI.m`` beside it) and
skips without it or without ``octave``. It runs the deterministic head of ``CDE.m`` (up to
its ``%% d_o and d_r`` section: the value graph, the attributes' NMI and the two influence
matrices), cut out of the file at run time, on a small table, and compares the matrices
with :func:`catembed.embed.cde.cde_influence_matrices` entry by entry.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from catembed.embed.cde import cde_influence_matrices
from catembed.stats import ValueStatistics

CDE_M = os.environ.get("CATEMBED_CDE_M")

pytestmark = pytest.mark.skipif(
    not CDE_M or not Path(CDE_M).is_file() or shutil.which("octave") is None,
    reason="needs the authors' CDE.m at $CATEMBED_CDE_M and octave",
)

MARK = "%% d_o and d_r"


def _head_function(tmp: Path) -> None:
    """``cde_head.m``: CDE.m up to MARK as a function returning the two matrices."""
    text = Path(CDE_M).read_text(encoding="utf-8", errors="replace")
    assert MARK in text, "CDE.m changed: its '%% d_o and d_r' section is gone"
    head = text[: text.index(MARK)]
    first = head.index("function")
    line_end = head.index("\n", first)
    head = ("function [occurrence_matrix, frequency_matrix] = cde_head(data)"
            + head[line_end:] + "\nend\n")
    (tmp / "cde_head.m").write_text(head, encoding="utf-8")


def _octave_matrices(codes: np.ndarray, offsets: np.ndarray, tmp: Path):
    _head_function(tmp)
    data = codes + offsets[:-1][None, :] + 1  # one integer per value, 1-based, as CDE.m wants
    np.savetxt(tmp / "data.txt", data, fmt="%d")
    script = (
        f"addpath('{Path(CDE_M).resolve().parent}'); addpath('{tmp}');"
        f"data = load('{tmp / 'data.txt'}');"
        "[mc, mo] = cde_head(data);"
        f"dlmwrite('{tmp / 'mc.txt'}', mc, 'precision', '%.17g');"
        f"dlmwrite('{tmp / 'mo.txt'}', mo, 'precision', '%.17g');"
    )
    subprocess.run(["octave", "--no-gui", "--quiet", "--eval", script], check=True,
                   capture_output=True, timeout=120)
    return np.loadtxt(tmp / "mc.txt", delimiter=","), np.loadtxt(tmp / "mo.txt", delimiter=",")


def _table(seed: int) -> tuple[np.ndarray, list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    sizes = [3, 2, 4, 3]
    codes = np.column_stack([rng.integers(0, s, 30) for s in sizes])
    codes[:, 1] = (codes[:, 0] + (rng.random(30) < 0.2)) % 2  # a correlated pair
    for j, s in enumerate(sizes):  # every value present
        codes[: s, j] = np.arange(s)
    return codes, [np.array([f"v{i}" for i in range(s)], dtype=object) for s in sizes]


@pytest.mark.parametrize("seed", [0, 1])
def test_influence_matrices_match_cde_m(seed, tmp_path):
    codes, cats = _table(seed)
    stats = ValueStatistics.from_codes(codes, cats, [f"a{j}" for j in range(len(cats))])
    m_c, m_o = cde_influence_matrices(stats)
    o_c, o_o = _octave_matrices(codes, np.asarray(stats.offsets), tmp_path)
    assert o_c.shape == m_c.shape == (12, 12)
    np.testing.assert_allclose(m_c, o_c, rtol=0, atol=1e-10)
    np.testing.assert_allclose(m_o, o_o, rtol=0, atol=1e-10)


def _traced(tmp: Path) -> None:
    """``cde_traced.m``: CDE.m with its k-means calls replaced by labels read from files and
    one line printed per sweep step and for the widths."""
    text = Path(CDE_M).read_text(encoding="utf-8", errors="replace")
    text = re.sub(r"function\s+data_vector\s*=\s*CDE\(data\)",
                  "function data_vector=cde_traced(data)", text, count=1)
    for tag, matrix, full, kept in (
            ("Mc", "occurrence_matrix", "cluster_matrix_i", "cluster_matrix_i_d"),
            ("Mo", "frequency_matrix", "cluster_matrix_fre", "cluster_matrix_fre_d")):
        call = f"kmeans({matrix},i)"
        line = f"cluster_matrix=horzcat(cluster_matrix,{kept});"
        assert call in text and line in text, "CDE.m changed: its sweep is not recognised"
        text = text.replace(call, f"oracle_labels('{tag}',i)", 1)
        text = text.replace(line, line + f"fprintf('STEP {tag} %d %d %d\\n', i, "
                            f"size({full},2), size({kept},2));", 1)
    line = "dimension_after=size(embedding_matrix,2);"
    assert line in text
    text = text.replace(line, line + "fprintf('WIDTH %d %d\\n', dimension_before, "
                        "dimension_after);", 1)
    (tmp / "cde_traced.m").write_text(text, encoding="utf-8")
    (tmp / "oracle_labels.m").write_text(
        "function l = oracle_labels(tag, k)\n"
        f"  l = load(sprintf('{tmp}/labels_%s_%d.txt', tag, k)) + 1;\nend\n",
        encoding="utf-8")


@pytest.mark.parametrize("name", ["soybean_small", "zoo"])
def test_granularity_sweep_matches_cde_m(name, tmp_path):
    """Both sweeps fed the same k-means labels: the same steps, kept columns and widths."""
    from catembed.datasets import apply_preset, load_dataset
    from catembed.embed._indicator_pca import beta_pca
    from catembed.embed.cde import matlab_kmeans, multi_granularity_clustering

    X = apply_preset(load_dataset(name), "cde").features
    stats = ValueStatistics.from_frame(X)
    codes = np.column_stack([
        np.searchsorted(stats.categories[j].astype(str), X.iloc[:, j].astype(str))
        for j in range(X.shape[1])])
    ours, indicators = {}, []
    for tag, M in zip(("Mc", "Mo"), cde_influence_matrices(stats), strict=True):
        def cluster(k, M=M, tag=tag):
            labels = matlab_kmeans(M, k, random_state=k)
            np.savetxt(tmp_path / f"labels_{tag}_{k}.txt", labels, fmt="%d")
            return labels

        ind, steps = multi_granularity_clustering(M, cluster, 10)
        for k in range(steps[-1].k + 1, steps[-1].k + 4):  # in case CDE.m went on
            cluster(k)
        ours[tag] = [(s.k, s.n_nonempty, s.n_kept) for s in steps]
        indicators.append(ind)
    indicator = np.hstack(indicators)
    _traced(tmp_path)
    np.savetxt(tmp_path / "data.txt", codes + np.asarray(stats.offsets)[:-1][None, :] + 1,
               fmt="%d")
    script = (f"pkg load statistics; addpath('{Path(CDE_M).resolve().parent}');"
              f"addpath('{tmp_path}'); cde_traced(load('{tmp_path / 'data.txt'}'));")
    res = subprocess.run(["octave", "--no-gui", "--quiet", "--eval", script],
                         capture_output=True, text=True, timeout=300)
    theirs: dict[str, list] = {"Mc": [], "Mo": []}
    width = None
    for line in res.stdout.splitlines():
        p = line.split()
        if p[:1] == ["STEP"]:
            theirs[p[1]].append((int(p[2]), int(p[3]), int(p[4])))
        elif p[:1] == ["WIDTH"]:
            width = (int(p[1]), int(p[2]))
    assert theirs == ours
    assert width == (indicator.shape[1], beta_pca(indicator).shape[1])
