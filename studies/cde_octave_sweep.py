"""Does our CDE granularity sweep behave as the authors' CDE.m in Octave (granularities, columns
kept, widths)? (issue 25)

Answer used in: docs/reproducing.md, "CDE against the authors' CDE.m (Octave)".

CDE's multi-granularity sweep, ours beside the authors' CDE.m run in Octave (issue 25).

Needs ``octave`` with the ``statistics`` package and the authors' ``CDE.m`` (and ``NMI.m``
beside it; github.com/jiansonglei/CDE, not part of this repository) at ``$CATEMBED_CDE_M``.
The file is instrumented at run time (a copy in a temporary folder gets one ``fprintf``
after each step of its two sweeps) and run on the same integer-coded table as ours; both
sides run ``--runs`` seeds (their k-means streams differ, so the comparison is of the
distributions: number of granularities, columns kept per step, width before and after
the PCA). Usage::

    CATEMBED_CDE_M=/tmp/cde/CDE.m python studies/cde_octave_sweep.py soybean_small zoo
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from catembed.datasets import apply_preset, load_dataset
from catembed.embed.cde import CDE
from catembed.stats import ValueStatistics

STEP = ("fprintf('STEP {tag} %d %d %d\\n', i, size({full},2), size({kept},2));")


def _instrumented(src: Path, tmp: Path) -> None:
    text = src.read_text(encoding="utf-8", errors="replace")
    text = re.sub(r"function\s+data_vector\s*=\s*CDE\(data\)",
                  "function data_vector=cde_traced(data)", text, count=1)
    for tag, full, kept in (("Mc", "cluster_matrix_i", "cluster_matrix_i_d"),
                            ("Mo", "cluster_matrix_fre", "cluster_matrix_fre_d")):
        line = f"cluster_matrix=horzcat(cluster_matrix,{kept});"
        assert line in text, f"CDE.m changed: {line!r} not found"
        text = text.replace(line, line + STEP.format(tag=tag, full=full, kept=kept), 1)
    line = "dimension_after=size(embedding_matrix,2);"
    assert line in text
    text = text.replace(line, line + "fprintf('WIDTH %d %d\\n', dimension_before, "
                        "dimension_after);", 1)
    (tmp / "cde_traced.m").write_text(text, encoding="utf-8")


def _parse(out: str) -> dict:
    steps: dict[str, list[tuple[int, int, int]]] = {"Mc": [], "Mo": []}
    width = (0, 0)
    for line in out.splitlines():
        p = line.split()
        if p[:1] == ["STEP"]:
            steps[p[1]].append((int(p[2]), int(p[3]), int(p[4])))
        elif p[:1] == ["WIDTH"]:
            width = (int(p[1]), int(p[2]))
    return {"steps": steps, "width": width}


def octave_runs(codes: np.ndarray, offsets: np.ndarray, runs: int) -> list[dict]:
    src = Path(os.environ["CATEMBED_CDE_M"]).resolve()
    out = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _instrumented(src, tmp)
        np.savetxt(tmp / "data.txt", codes + offsets[:-1][None, :] + 1, fmt="%d")
        for seed in range(runs):
            script = (f"pkg load statistics; addpath('{src.parent}'); addpath('{tmp}');"
                      f"rand('seed', {seed}); rand('state', {seed}); randn('state', {seed});"
                      f"data = load('{tmp / 'data.txt'}'); cde_traced(data);")
            res = subprocess.run(["octave", "--no-gui", "--quiet", "--eval", script],
                                 capture_output=True, text=True, timeout=600)
            rec = _parse(res.stdout)
            rec["error"] = res.returncode != 0 and res.stderr.strip().splitlines()[-1:]
            out.append(rec)
    return out


def our_runs(X, runs: int) -> list[dict]:
    out = []
    for seed in range(runs):
        m = CDE(random_state=seed).fit(X)
        steps = {k: [(s.k, s.n_nonempty, s.n_kept) for s in v]
                 for k, v in m.granularity_steps_.items()}
        out.append({"steps": {"Mc": steps["M_c"], "Mo": steps["M_o"]},
                    "width": (m._indicator.shape[1], m.n_components_), "error": False})
    return out


def _summary(name: str, recs: list[dict]) -> str:
    ok = [r for r in recs if not r["error"]]
    if not ok:
        return f"  {name}: every run failed: {recs[0]['error']}"
    g = {t: [len(r["steps"][t]) for r in ok] for t in ("Mc", "Mo")}
    kept = {t: [sum(s[2] for s in r["steps"][t]) for r in ok] for t in ("Mc", "Mo")}
    w0 = [r["width"][0] for r in ok]
    w1 = [r["width"][1] for r in ok]
    first = ok[0]["steps"]
    return (f"  {name} ({len(ok)}/{len(recs)} runs): granularities Mc {g['Mc']} Mo {g['Mo']}; "
            f"kept columns Mc {kept['Mc']} Mo {kept['Mo']}; width before PCA {w0}, after {w1}"
            f"\n    first run, (k, clusters, kept) per step: Mc {first['Mc']}; Mo {first['Mo']}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    for name in a.datasets:
        data = apply_preset(load_dataset(name), "cde")
        X = data.features
        stats = ValueStatistics.from_frame(X)
        codes = np.column_stack([
            np.searchsorted(stats.categories[j].astype(str), X.iloc[:, j].astype(str))
            for j in range(X.shape[1])])
        print(f"{name}: {X.shape[0]} rows, {stats.n_values} values")
        print(_summary("CDE.m (Octave)", octave_runs(codes, np.asarray(stats.offsets), a.runs)))
        print(_summary("catembed CDE", our_runs(X, a.runs)))


if __name__ == "__main__":
    main()
