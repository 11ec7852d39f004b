#!/usr/bin/env bash
# Build the sdist and the wheel, install the wheel in a fresh virtual environment (not the
# source tree), and run the README's quick start (`catembed cluster`), `catembed embed` and
# `catembed report` from it.
# Usage: bash .ci/wheel_check.sh [WORKDIR]   (from the repository root; WORKDIR is made if absent)
set -euo pipefail
root="$(pwd)"
work="${1:-$(mktemp -d)}"
mkdir -p "$work"
version="$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' src/catembed/_version.py)"
echo "wheel check in $work (catembed $version from src/catembed/_version.py)"

python -m venv "$work/build-venv"
"$work/build-venv/bin/pip" install -q build
"$work/build-venv/bin/python" -m build -o "$work/dist" . >"$work/build.log" 2>&1 \
    || { cat "$work/build.log"; exit 1; }
ls -l "$work/dist"
wheel="$work/dist/catembed-$version-py3-none-any.whl"
test -f "$wheel" && test -f "$work/dist/catembed-$version.tar.gz"

# what both archives must carry: py.typed, the bundled data sets and the paper tables
"$work/build-venv/bin/python" - "$work/dist" "$version" <<'PY'
import pathlib, sys, tarfile, zipfile
dist, version = pathlib.Path(sys.argv[1]), sys.argv[2]
src = pathlib.Path("src")
want = {"catembed/py.typed", "catembed/datasets/presets.json"}
want |= {p.relative_to(src).as_posix() for p in src.glob("catembed/datasets/data/*/*.csv")}
want |= {p.relative_to(src).as_posix() for p in src.glob("catembed/datasets/data/*/*.json")}
want |= {p.relative_to(src).as_posix() for p in src.glob("catembed/evaluation/tables/*.json")}
wheel = zipfile.ZipFile(dist / f"catembed-{version}-py3-none-any.whl")
in_wheel = set(wheel.namelist())
prefix = f"catembed-{version}/src/"
with tarfile.open(dist / f"catembed-{version}.tar.gz") as sdist:
    in_sdist = {n[len(prefix):] for n in sdist.getnames() if n.startswith(prefix)}
missing = sorted(f"wheel: {f}" for f in want - in_wheel) + sorted(f"sdist: {f}" for f in want - in_sdist)
meta = wheel.read(f"catembed-{version}.dist-info/METADATA").decode()
if f"\nVersion: {version}\n" not in meta:
    missing.append(f"wheel metadata version is not {version}")
if missing:
    sys.exit("packaging check failed:\n  " + "\n  ".join(missing))
print(f"wheel and sdist carry py.typed and {len(want) - 1} data files; metadata version {version}")
PY

# a fresh environment with only the wheel and its dependencies (no torch, no source tree)
python -m venv "$work/wheel-venv"
"$work/wheel-venv/bin/pip" install -q --find-links "$work/dist" "catembed==$version"
mkdir -p "$work/quickstart"
cd "$work/quickstart"
export PATH="$work/wheel-venv/bin:$PATH"
python -c 'import catembed, sys; sys.exit(0 if "wheel-venv" in catembed.__file__ else "catembed imported from " + catembed.__file__)'
test "$(catembed --version)" = "catembed $version"
catembed --version
# the README's quick start, as written there (tests/test_packaging.py checks they agree)
catembed cluster soybean_small -o soybean_clusters.csv
test "$(wc -l < soybean_clusters.csv)" -eq 48   # a header and Soybean-small's 47 rows
catembed embed soybean_small --target class -o soybean_cde.csv
test -s soybean_cde.csv
catembed report soybean_small --target class -o report.html -q
test -s report.html
echo "wheel quick start ok: $(wc -l < soybean_clusters.csv) lines in soybean_clusters.csv, $(wc -l < soybean_cde.csv) in soybean_cde.csv, report.html $(wc -c < report.html) bytes"
cd "$root"
