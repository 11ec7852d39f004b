"""Dask on an external cluster: a scheduler and a worker started as their own processes
(``python -m distributed.cli.dask_scheduler``/``dask_worker``, as ``dask scheduler`` and
``dask worker`` would on other machines), and a ``Client`` that connects by address only.
The recipe of ``docs/design.md`` ("Dask", "An external cluster"). Skipped without
``distributed``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import catembed  # noqa: E402
from catembed import CDE  # noqa: E402


def _wait_for(path: Path, seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists() and path.stat().st_size > 0:
            try:
                return json.loads(path.read_text())
            except json.JSONDecodeError:
                pass  # being written
        time.sleep(0.05)
    pytest.fail(f"the scheduler wrote no {path.name} in {seconds} s")


@pytest.fixture(scope="module")
def address(tmp_path_factory):
    """The address of a scheduler with one worker, each in its own process."""
    folder = tmp_path_factory.mktemp("cluster")
    info = folder / "scheduler.json"
    env = dict(os.environ)
    # the worker imports this checkout's catembed, as a cluster's workers need it installed
    src = str(Path(catembed.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src, env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    common = ["--no-dashboard", "--scheduler-file", str(info)]
    procs = [subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", "0", *common], env=env, cwd=folder,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        addr = _wait_for(info, 60)["address"]
        procs.append(subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", "--nthreads", "1",
             "--nworkers", "1", "--no-nanny", "--host", "127.0.0.1", *common],
            env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        yield addr
    finally:
        for p in reversed(procs):  # worker first; a graceful close can wait on the scheduler
            p.terminate()
            try:
                p.wait(2)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(5)


def _frame(n: int = 300) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    g = rng.integers(0, 3, n)
    return pd.DataFrame({
        "color": np.array(["red", "green", "blue"])[(g + (rng.random(n) < 0.2)) % 3],
        "shape": np.array(["sq", "ci", "tr", "st"])[(g + rng.integers(0, 2, n)) % 4],
        "size": np.array(["s", "m", "l"])[rng.integers(0, 3, n)],
    })


def test_fit_transform_on_a_cluster_at_an_address(address, tmp_path):
    df = _frame()
    with distributed.Client(address, timeout="60s") as client:
        client.wait_for_workers(1, timeout=60)
        workers = client.run(lambda: os.getpid())
        assert os.getpid() not in workers.values()  # the work runs in another process
        ddf = dd.from_pandas(df, npartitions=3)
        lazy = CDE(random_state=0, n_components=3).fit(ddf)
        out = tmp_path / "emb"
        lazy.transform(ddf).to_parquet(str(out), write_index=False)
    eager = CDE(random_state=0, n_components=3).fit(df)
    np.testing.assert_array_equal(lazy.stats_.counts, eager.stats_.counts)
    np.testing.assert_array_equal(lazy.stats_.cooc_dense(), eager.stats_.cooc_dense())
    z = pd.read_parquet(out)
    assert list(z.columns) == list(eager.get_feature_names_out())
    np.testing.assert_allclose(z.to_numpy(), eager.transform(df), rtol=0, atol=1e-6)
