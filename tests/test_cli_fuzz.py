"""CLI fuzz test: generated malformed files through ``catembed embed`` (issue 11, the
standing guard).

Every case writes one generated file (random bytes, empty, header only, NUL bytes, mixed
encodings, huge fields, ragged rows, BOM, compressed or damaged archives, Parquet with
indexes, nested or MultiIndex columns...) and runs ``catembed.cli.main`` in-process with
random flags (including bad ones and an output that is the input). It asserts that the exit
status is 0 or 2 (never 1, "internal error"), that no traceback is printed, that the input
file is unchanged, and that a refused run leaves neither an output nor a temporary file.

The fast profile (CI) runs 24 cases; ``CATEMBED_FUZZ_LONG=1`` runs 500. ``python
tests/test_cli_fuzz.py [N]`` runs N cases (default 500) and prints the tally and wall time.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import random
import zipfile
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

N_CASES = 500 if os.environ.get("CATEMBED_FUZZ_LONG") else 24
FAST_METHODS = ["cde", "onehot", "idf", "onehot-pca", "couplings"]


# ------------------------------------------------------------------ table pieces

def _words(rng: random.Random, n: int, alphabet: str = "abcxyz") -> list[str]:
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 3))) for _ in range(n)]


def _frame(rng: random.Random, n_rows: int | None = None, n_cols: int | None = None
           ) -> pd.DataFrame:
    n_rows = n_rows if n_rows is not None else rng.randint(1, 60)
    n_cols = n_cols if n_cols is not None else rng.randint(1, 5)
    cols = {}
    for j in range(n_cols):
        kind = rng.random()
        if kind < 0.6:
            vals: list = [rng.choice(["a", "b", "c", "", "d e", "é", "x,y", '"q"'])
                          for _ in range(n_rows)]
        elif kind < 0.8:
            vals = [rng.randint(0, 4) for _ in range(n_rows)]
        else:
            vals = [round(rng.random() * 10, rng.randint(0, 3)) for _ in range(n_rows)]
        cols[f"c{j}"] = vals
    return pd.DataFrame(cols)


def _csv_text(rng: random.Random) -> str:
    return _frame(rng).to_csv(index=False)


# ------------------------------------------------------------------ file kinds

def _random_bytes(rng, d):
    p = d / rng.choice(["r.csv", "r.parquet", "r.csv.gz", "r.tsv"])
    p.write_bytes(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 400))))
    return p


def _empty(rng, d):
    p = d / rng.choice(["e.csv", "e.parquet", "e.csv.gz"])
    p.write_bytes(b"")
    return p


def _header_only(rng, d):
    p = d / "h.csv"
    p.write_text(",".join(_words(rng, rng.randint(1, 4))) + rng.choice(["", "\n", "\n\n"]))
    return p


def _one_column(rng, d):
    p = d / "one.csv"
    p.write_text("a\n" + "\n".join(_words(rng, rng.randint(1, 30))) + "\n")
    return p


def _huge_field(rng, d):
    p = d / "huge.csv"
    big = "z" * rng.choice([140_000, 300_000])
    rows = [f"{rng.choice('xy')},{rng.choice('uv')}" for _ in range(10)]
    rows[rng.randrange(10)] = f"{big},u"
    p.write_text("a,b\n" + "\n".join(rows) + "\n")
    return p


def _nul_bytes(rng, d):
    p = d / "nul.csv"
    text = _csv_text(rng).encode()
    pos = [rng.randrange(len(text)) for _ in range(rng.randint(1, 5))]
    for i in sorted(pos, reverse=True):
        text = text[:i] + b"\x00" + text[i:]
    p.write_bytes(text)
    return p


def _mixed_encoding(rng, d):
    p = d / "enc.csv"
    rows = ["café,x".encode(), "thé,y".encode("latin-1"), "naïve,z".encode("cp1252"),
            "ok,w".encode("utf-16-le")]
    rng.shuffle(rows)
    p.write_bytes(b"\n".join([b"a,b", *rows]) + b"\n")
    return p


def _latin1(rng, d):
    p = d / "latin.csv"
    p.write_bytes(_csv_text(rng).replace("a", "à").encode("latin-1"))
    return p


def _bom(rng, d):
    p = d / "bom.csv"
    p.write_text(_csv_text(rng), encoding="utf-8-sig")
    return p


def _trailing(rng, d):
    p = d / "trail.csv"
    lines = _csv_text(rng).splitlines()
    header_too = rng.random() < 0.5
    p.write_text("\n".join(line + "," if (i or header_too) else line
                           for i, line in enumerate(lines)) + "\n")
    return p


def _ragged(rng, d):
    p = d / "ragged.csv"
    lines = _csv_text(rng).splitlines()
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(1, len(lines)) if len(lines) > 1 else 0
        lines[i] = rng.choice([lines[i] + ",extra", lines[i].rsplit(",", 1)[0], ""])
    p.write_text("\n".join(lines) + "\n")
    return p


def _unnamed_index(rng, d):
    p = d / "idx.csv"
    _frame(rng).to_csv(p)
    return p


def _header_names(rng, d):
    p = d / "names.csv"
    df = _frame(rng)
    pool = [" a ", "", "a", "b c", "  ", "Unnamed: 0", "é", "x,y", '"q"', "1", "a"]
    df.columns = [rng.choice(pool) for _ in df.columns]
    text = df.to_csv(index=False)
    p.write_text(text)
    return p


def _quotes(rng, d):
    p = d / "quotes.csv"
    rows = ['"x\ny",u', '"unbalanced,v', 'z,"w""w"', '"",""', "p,q"]
    rng.shuffle(rows)
    p.write_text("\n".join(["a,b", *rows[: rng.randint(1, 5)]]) + "\n")
    return p


def _numeric_only(rng, d):
    p = d / "num.csv"
    n = rng.randint(2, 40)
    pd.DataFrame({"x": [rng.random() for _ in range(n)],
                  "y": [rng.randint(0, 3) for _ in range(n)]}).to_csv(p, index=False)
    return p


def _constant(rng, d):
    p = d / "const.csv"
    n = rng.randint(1, 10)
    p.write_text("a,b\n" + "x,y\n" * n)
    return p


def _all_missing(rng, d):
    p = d / "miss.csv"
    n = rng.randint(1, 20)
    p.write_text("a,b,c\n" + "".join(f",{rng.choice('uv')},\n" for _ in range(n)))
    return p


def _line_ends(rng, d):
    p = d / "ends.csv"
    p.write_bytes(_csv_text(rng).replace("\n", rng.choice(["\r\n", "\r"])).encode())
    return p


def _tsv(rng, d):
    p = d / "t.tsv"
    _frame(rng).to_csv(p, sep=rng.choice(["\t", ","]), index=False)
    return p


def _wide(rng, d):
    p = d / "wide.csv"
    _frame(rng, n_rows=rng.randint(2, 6), n_cols=rng.randint(50, 200)).to_csv(p, index=False)
    return p


def _delims_only(rng, d):
    p = d / "delims.csv"
    p.write_text(rng.choice([",,,\n,,,\n", "\n\n\n", ",\n", " \n \n", "a\n\n\n"]))
    return p


def _compressed(rng, d):
    ext = rng.choice([".gz", ".bz2", ".xz", ".zip"])
    p = d / f"c.csv{ext}"
    data = _csv_text(rng).encode()
    if ext == ".gz":
        blob = gzip.compress(data)
    elif ext == ".bz2":
        blob = bz2.compress(data)
    elif ext == ".xz":
        blob = lzma.compress(data)
    else:
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as zf:
            for k in range(rng.choice([1, 1, 2])):
                zf.writestr(f"m{k}.csv", data)
        blob = buf.getvalue()
    if rng.random() < 0.4:  # damaged: truncated or a flipped byte
        blob = blob[: rng.randrange(1, len(blob))] if rng.random() < 0.5 else (
            blob[:10] + bytes([blob[10] ^ 0xFF]) + blob[11:])
    p.write_bytes(blob)
    return p


def _parquet(rng, d):
    p = d / "t.parquet"
    df = _frame(rng)
    kind = rng.choice(["named_index", "dup_index", "multi", "nested", "types", "empty",
                       "damaged", "plain"])
    if kind in ("named_index", "dup_index"):
        m = len(df) if kind == "named_index" else 3
        df.index = pd.Index([f"k{i % m}" for i in range(len(df))], name="key")
    elif kind == "multi":
        df.columns = pd.MultiIndex.from_tuples([("g", c) for c in df.columns])
    elif kind == "nested":
        df["lst"] = [[1, 2]] * len(df)
        df["st"] = [{"k": i} for i in range(len(df))]
    elif kind == "types":
        n = len(df)
        df["flag"] = [bool(i % 2) for i in range(n)]
        df["when"] = pd.to_datetime(["2020-01-01", None] * n)[:n]
        df["raw"] = [b"ab" if i % 2 else b"cd" for i in range(n)]
        df["cat"] = pd.Categorical([rng.choice("pq") for _ in range(n)])
    elif kind == "empty":
        df = df.iloc[:0]
    df.to_parquet(p, index=kind in ("named_index", "dup_index"))
    if kind == "damaged":
        blob = p.read_bytes()
        p.write_bytes(blob[: rng.randrange(4, len(blob))])
    return p


def _folder(rng, d):
    import json

    f = d / "set"
    f.mkdir()
    df = _frame(rng, n_cols=rng.randint(2, 5))
    df["label"] = [rng.choice("AB") for _ in range(len(df))]
    df.to_csv(f / "data.csv", index=False)
    kinds = {c: rng.choice(["categorical", "numeric", "binary", "id", "split"])
             for c in df.columns}
    kinds["label"] = "target"
    meta = {"name": "set", "target": rng.choice(["label", "label", "nope"]),
            "id_columns": [c for c, k in kinds.items() if k == "id"], "columns": kinds}
    text = json.dumps(meta)
    r = rng.random()
    if r < 0.1:
        text = text[: len(text) // 2]  # broken JSON
    elif r < 0.2:
        text = json.dumps(rng.choice([[meta], {**meta, "columns": list(kinds)},
                                      {**meta, "id_columns": "c0"}, {**meta, "target": 3},
                                      {**meta, "columns": {"c0": None}}]))
    (f / "meta.json").write_text(text)
    return f / "data.csv"


KINDS: list[Callable] = [
    _random_bytes, _empty, _header_only, _one_column, _huge_field, _nul_bytes, _mixed_encoding,
    _latin1, _bom, _trailing, _ragged, _unnamed_index, _header_names, _quotes, _numeric_only,
    _constant, _all_missing, _line_ends, _tsv, _wide, _delims_only, _compressed, _parquet,
    _folder,
]


def _flags(rng: random.Random, path: Path, d: Path) -> list[str]:
    """Random flags: mostly valid ones (so that most cases reach the reader and the fit),
    sometimes bad values, unknown columns or an output that is the input."""
    from catembed import CatEmbedError
    from catembed.io import read_columns

    try:
        names = read_columns(path) or ["nope"]
    except (CatEmbedError, OSError):
        names = ["nope"]
    argv: list[str] = ["--method", rng.choice(FAST_METHODS)]
    for flag in ("--target", "--id", "--drop"):
        if rng.random() < 0.15:
            argv += [flag, rng.choice(names) if rng.random() < 0.9 else "nope"]
    r = rng.random()
    if r < 0.05:
        argv += ["-o", str(path)]  # the input itself
    elif r < 0.8:
        argv += ["-o", str(d / rng.choice(["out.csv", "out.parquet", "out.tsv"] * 8
                                          + ["out.xlsx"]))]
    if rng.random() < 0.15:
        argv += ["--save-model", str(rng.choice([d / "m.npz"] * 4 + [d, path,
                                                                     d / "nodir" / "m.npz"]))]
    if rng.random() < 0.3:
        argv += ["--chunksize", str(rng.choice([1, 3, 7, 1000] * 3 + [0, -2]))]
    if rng.random() < 0.2:
        argv += ["--numeric", rng.choice(["drop", "discretize", "passthrough"])]
    if rng.random() < 0.1:
        argv += ["--seed", str(rng.choice([0, 5, 2**32 - 1, -1, 2**32]))]
    if rng.random() < 0.1:
        argv += ["--strict"]
    if rng.random() < 0.1:
        argv += ["--handle-unknown", rng.choice(["ignore", "warn", "error"])]
    argv.append("-q")
    return argv


def _snapshot(d: Path) -> dict[str, bytes]:
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def fuzz_case(seed: int, root: Path) -> tuple[int, str, str]:
    """Run case ``seed`` in folder ``root``; returns (exit status, kind, stderr).

    Raises AssertionError when the CLI broke a rule.
    """
    import contextlib

    from catembed.cli import main

    rng = random.Random(seed)
    d = root / f"case{seed}"
    d.mkdir(parents=True)
    make = KINDS[seed % len(KINDS)]
    path = make(rng, d)
    argv = ["embed", str(path), *_flags(rng, path, d)]
    before = _snapshot(d)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    stderr = err.getvalue()
    context = f"case {seed} ({make.__name__}): catembed {' '.join(argv)}\n{stderr}"
    assert code in (0, 2), context
    assert "Traceback" not in stderr and "internal error" not in stderr, context
    after = _snapshot(d)
    for name, data in before.items():
        assert after.get(name) == data, f"{name} changed: {context}"
    new = set(after) - set(before)
    assert not [n for n in new if ".tmp" in n or ".probe" in n], f"temp file left: {context}"
    if code != 0:
        assert not new, f"a refused run wrote {sorted(new)}: {context}"
    else:
        outputs = [a for i, a in enumerate(argv) if argv[i - 1] in ("-o", "--save-model")]
        assert all(Path(o).exists() for o in outputs), context
    return code, make.__name__, stderr


@pytest.mark.parametrize("seed", range(N_CASES))
def test_cli_fuzz(seed, tmp_path):
    fuzz_case(seed, tmp_path)


def test_every_kind_is_generated():
    assert len({k.__name__ for k in KINDS}) == len(KINDS) <= N_CASES


if __name__ == "__main__":  # the long profile with a tally: python tests/test_cli_fuzz.py 500
    import sys
    import tempfile
    import time
    import warnings
    from collections import Counter

    n = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 500
    tally: Counter = Counter()
    failures = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, warnings.catch_warnings():
        for seed in range(n):
            try:
                code, kind, err = fuzz_case(seed, Path(tmp))
                tally[f"exit {code}"] += 1
                if "-v" in sys.argv:
                    print(seed, kind, code, err.strip().splitlines()[-1][:150] if err else "")
            except AssertionError as exc:
                tally["rule broken"] += 1
                failures.append(str(exc).splitlines()[0])
    wall = time.perf_counter() - t0
    print(f"{n} files: " + ", ".join(f"{k}: {v}" for k, v in sorted(tally.items()))
          + f"; wall {wall:.1f} s")
    for f in failures[:20]:
        print("FAIL", f)
