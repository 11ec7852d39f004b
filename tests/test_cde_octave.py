"""CDE's value influence matrices against the authors' CDE.m run in Octave (issue 25 item 3).

The authors' code (github.com/jiansonglei/CDE, ``CDE.m`` and ``NMI.m``) is not part of this
repository: the test looks for ``CDE.m`` at ``$CATEMBED_CDE_M`` (``NMI.m`` beside it) and
skips without it or without ``octave``. It runs the deterministic head of ``CDE.m`` (up to
its ``%% d_o and d_r`` section: the value graph, the attributes' NMI and the two influence
matrices), cut out of the file at run time, on a small table, and compares the matrices
with :func:`catembed.embed.cde.cde_influence_matrices` entry by entry.
"""

import os
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
