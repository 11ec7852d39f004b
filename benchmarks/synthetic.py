"""Synthetic categorical tables with planted value clusters, for the benchmark scripts.

Each row belongs to one of ``n_groups`` hidden groups. Every attribute has ``n_values``
values split into ``n_groups`` blocks; a row takes a value from its group's block with
probability ``purity`` and a uniformly random value otherwise. So the values of one block
co-occur far more often than chance: the value clusters CDE and UNTIE are meant to find.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def planted_codes(
    n_rows: int,
    n_features: int = 20,
    n_values: int = 10,
    n_groups: int = 5,
    purity: float = 0.7,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, groups)``: an ``n_rows x n_features`` int32 code matrix and the hidden group."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n_rows)
    block = max(n_values // n_groups, 1)
    codes = np.empty((n_rows, n_features), dtype=np.int32)
    for j in range(n_features):
        inside = (groups * block + rng.integers(0, block, n_rows)) % n_values
        noise = rng.integers(0, n_values, n_rows)
        codes[:, j] = np.where(rng.random(n_rows) < purity, inside, noise)
    return codes, groups


def noisy_codes(
    n_rows: int,
    n_features: int = 20,
    n_values: int = 10,
    n_groups: int = 5,
    purity: float = 0.7,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, groups)`` as :func:`planted_codes`, but each attribute has one preferred value
    per group (taken with probability ``purity``) and its other values are noise only (issue
    40: with many values per column most of them are noise)."""
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n_rows)
    codes = np.empty((n_rows, n_features), dtype=np.int32)
    for j in range(n_features):
        pref = rng.choice(n_values, size=n_groups, replace=n_values < n_groups)
        noise = rng.integers(0, n_values, n_rows)
        codes[:, j] = np.where(rng.random(n_rows) < purity, pref[groups], noise)
    return codes, groups


def planted_frame(n_rows: int, n_features: int = 20, n_values: int = 10, **kwargs) -> pd.DataFrame:
    """The same table as strings (``"a3_v7"``), one column per attribute (``noisy=True``: the
    table of :func:`noisy_codes`)."""
    make = noisy_codes if kwargs.pop("noisy", False) else planted_codes
    codes, _ = make(n_rows, n_features, n_values, **kwargs)
    data = {}
    for j in range(n_features):
        labels = np.array([f"a{j}_v{v}" for v in range(n_values)], dtype=object)
        data[f"a{j}"] = pd.Categorical.from_codes(codes[:, j], labels).astype(object)
    return pd.DataFrame(data)


def planted_mixed(
    n_rows: int,
    n_categorical: int = 6,
    n_numeric: int = 3,
    n_values: int = 8,
    n_groups: int = 4,
    purity: float = 0.5,
    separation: float = 1.0,
    imbalance: float = 1.0,
    seed: int = 0,
) -> tuple[pd.DataFrame, np.ndarray]:
    """``(frame, groups)``: a mixed table with planted groups.

    Categorical columns as :func:`planted_codes` (strings ``"v3"``); every numeric column has
    a mean per group drawn from ``N(0, separation^2)`` plus ``N(0, 1)`` noise, and every
    other numeric column is log-normal-skewed (``exp`` of itself) so that the numbers are
    not all Gaussian. Group ``g`` is drawn with probability proportional to
    ``imbalance ** g`` (1: equal groups).
    """
    rng = np.random.default_rng(seed)
    p = imbalance ** np.arange(n_groups, dtype=np.float64)
    groups = rng.choice(n_groups, size=n_rows, p=p / p.sum())
    block = max(n_values // n_groups, 1)
    data: dict[str, object] = {}
    for j in range(n_categorical):
        inside = (groups * block + rng.integers(0, block, n_rows)) % n_values
        noise = rng.integers(0, n_values, n_rows)
        codes = np.where(rng.random(n_rows) < purity, inside, noise)
        data[f"c{j}"] = np.array([f"v{v}" for v in codes], dtype=object)
    for j in range(n_numeric):
        means = rng.normal(0.0, separation, n_groups)
        x = means[groups] + rng.normal(0.0, 1.0, n_rows)
        data[f"x{j}"] = np.exp(x / 2) if j % 2 else x
    return pd.DataFrame(data), groups


def wide_noise_frame(n_rows: int = 400, n_signal: int = 4, n_wide: int = 3, decimals: int = 2,
                     purity: float = 0.7, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """``(frame, groups)``: two planted groups seen by ``n_signal`` binary columns (each
    ``purity`` pure), plus ``n_wide`` noise columns of log-normal numbers rounded to
    ``decimals`` and written as text, so that read as categories they have one value per
    number (tens to hundreds of values, nearly all rare). UNTIE's wide-column near-collapse."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n_rows)
    data = {f"s{j}": np.where(rng.random(n_rows) < purity, g,
                              rng.integers(0, 2, n_rows)).astype(str) for j in range(n_signal)}
    for j in range(n_wide):
        data[f"x{j}"] = np.round(np.exp(rng.normal(0.0, 1.0, n_rows)), decimals).astype(str)
    return pd.DataFrame(data), g


def credit_like_frame(n_rows: int = 690, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray]:
    """``(frame, groups)``: two groups; one strong binary attribute (85% pure), two weak
    binary ones (30% pure), two wide codes (14 and 9 values, Zipf-like counts, 20% of rows
    shifted by the group), two skewed 3- and 4-valued noise attributes, and a missing marker
    ``"?"`` in four attributes on the same 1.5% of rows. Only the shape of a credit table
    (public descriptions), no data."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 2, n_rows)
    data = {"s0": np.where(rng.random(n_rows) < 0.85, g, 1 - g).astype(str)}
    for j in (1, 2):
        data[f"s{j}"] = np.where(rng.random(n_rows) < 0.3, g,
                                 rng.integers(0, 2, n_rows)).astype(str)
    for j, n_values in ((0, 14), (1, 9)):
        p = 1.0 / np.arange(1, n_values + 1)
        v = rng.choice(n_values, n_rows, p=p / p.sum())
        shift = np.where(rng.random(n_rows) < 0.2, g, 0)
        data[f"w{j}"] = ((v + shift) % n_values).astype(str)
    data["n0"] = rng.choice(3, n_rows, p=[0.7, 0.25, 0.05]).astype(str)
    data["n1"] = rng.choice(4, n_rows, p=[0.6, 0.3, 0.08, 0.02]).astype(str)
    frame = pd.DataFrame(data)
    missing = rng.random(n_rows) < 0.015
    for c in ("w0", "w1", "n0", "n1"):
        frame.loc[missing, c] = "?"
    return frame, g


def planted_arrow_part(seed: int, n: int, n_features: int = 8, n_values: int = 10,
                       n_groups: int = 5, purity: float = 0.7):
    """One file's part of a planted table (the model above, drawn in int8 from
    ``default_rng(seed)``) as a ``pyarrow.Table`` of dictionary-encoded strings ``a{j}_v{v}``
    in columns ``a0 ..``, with its groups (int8): the Dask benchmarks' Parquet files."""
    import pyarrow as pa

    block = n_values // n_groups
    rng = np.random.default_rng(seed)
    groups = rng.integers(0, n_groups, n).astype(np.int8)
    columns = []
    for j in range(n_features):
        dictionary = pa.array([f"a{j}_v{v}" for v in range(n_values)])
        inside = (groups * block + rng.integers(0, block, n, dtype=np.int8)) % n_values
        noise = rng.integers(0, n_values, n, dtype=np.int8)
        codes = np.where(rng.random(n, dtype=np.float32) < purity, inside, noise)
        columns.append(pa.DictionaryArray.from_arrays(codes.astype(np.int8), dictionary))
    return pa.table(columns, names=[f"a{j}" for j in range(n_features)]), groups
