"""Shared fixtures: the watermelon toy table (UNTIE paper, Table I) and data paths."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SHARED = Path(os.environ.get("CATEMBED_SHARED", Path(__file__).resolve().parents[2] / "shared"))
DATASETS = SHARED / "datasets"


@pytest.fixture
def watermelon() -> pd.DataFrame:
    """UNTIE Table I: six watermelons, three attributes (sweetness is the label)."""
    return pd.DataFrame(
        {
            "texture": ["clear", "blurry", "blurry", "clear", "blurry", "clear"],
            "color": ["white", "yellow", "yellow", "green", "green", "black"],
            "root": ["straight", "straight", "curled", "slightly curled", "curled",
                     "slightly curled"],
        },
        index=[f"A{i}" for i in range(1, 7)],
    )


@pytest.fixture
def shared_datasets() -> Path:
    """The shared data-set folder (``$CATEMBED_SHARED/datasets`` or ``../shared/datasets``),
    skipping the test when it is absent."""
    if not DATASETS.is_dir():
        pytest.skip(f"shared data sets not available (looked in {DATASETS})")
    return DATASETS


def shared_dataset(name: str) -> Path:
    """Path of a data set in ../shared/datasets, skipping the test when it is absent."""
    path = DATASETS / name
    if not (path / "data.csv").exists():
        pytest.skip(f"shared data set {name} not available")
    return path


@pytest.fixture(scope="module")
def thread_client():
    """A Dask ``Client`` on a one-worker ``LocalCluster`` of threads (no processes: fast),
    one per test module; the test is skipped without ``distributed``."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=2,
                                       dashboard_address=None)
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture(params=["local_cluster", "default"])
def dask_scheduler(request):
    """Run the test twice: on :func:`thread_client`, then on Dask's threaded scheduler
    (whatever client an earlier test started)."""
    if request.param == "local_cluster":
        request.getfixturevalue("thread_client")
        yield
    else:
        import dask

        with dask.config.set(scheduler="threads"):
            yield


def cluster_stdout(df: pd.DataFrame, tmp_path: Path, capsys, k: int) -> str:
    """What ``catembed cluster TABLE -k K --seed 0 -o labels.csv`` prints on ``df`` written as
    a CSV file (the command asserted to succeed)."""
    from catembed.cli import main

    src = tmp_path / "table.csv"
    df.to_csv(src, index=False)
    assert main(["cluster", str(src), "-k", str(k), "--seed", "0", "-o",
                 str(tmp_path / "labels.csv")]) == 0
    return capsys.readouterr().out


def grouped_frame(n: int, seed: int, n_columns: int, numeric: bool = False) -> pd.DataFrame:
    """``n`` rows of 3 planted groups: ``n_columns`` string columns ``c0 ..`` of 4 values, each
    the group's value with probability 0.7, 5 % of ``c1`` missing; with ``numeric``, a column
    ``x`` of 10 x group + N(0, 3) + 1e6 (a large offset: moments must not cancel), 5 % NaN.
    The Dask tests' table."""
    rng = np.random.default_rng(seed)
    g = rng.integers(0, 3, n)
    cols = {}
    for j in range(n_columns):
        v = np.where(rng.random(n) < 0.7, g, rng.integers(0, 4, n))
        cols[f"c{j}"] = np.array(["a", "b", "c", "d"], dtype=object)[v]
    cols["c1"][rng.random(n) < 0.05] = None  # missing values are a value of their own
    if numeric:
        x = 10.0 * g + rng.normal(0, 3, n) + 1e6
        x[rng.random(n) < 0.05] = np.nan
        cols["x"] = x
    return pd.DataFrame(cols)
