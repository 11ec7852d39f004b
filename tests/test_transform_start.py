"""``catembed transform``'s start-up: what loading a model imports, and when the compiled
lookup is loaded (issue 22: the command within 1.3x of the Parquet I/O floor)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from catembed import CDE, transform_file
from catembed.transform import _lookup, _lookup_kernel
from catembed.transform._lookup import LookupPlan, compiled_lookup, compiled_lookup_pays


def _table(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame({f"a{j}": np.array([f"v{k}" for k in range(5)], dtype=object)[
        rng.integers(0, 5, n)] for j in range(4)})


#: modules a transform with a saved CDE model does not need
NOT_NEEDED = ("sklearn.cluster", "sklearn.decomposition", "torch", "numba",
              "catembed.embed.autoencoders", "catembed.embed.untie", "catembed.embed.lcme")


def test_cli_transform_gives_the_estimators_bytes_and_imports_what_it_needs(tmp_path):
    """A fresh ``catembed transform`` on a saved model writes the values of the estimator's
    own transform (bit for bit) and the bytes of :func:`transform_file`, and imports neither
    the other methods' modules nor scikit-learn's clustering and PCA, nor numba for a small
    file."""
    est = CDE(random_state=0, n_components=6).fit(_table(300, 0))
    model = tmp_path / "m.npz"
    est.save(model)
    data = tmp_path / "in.parquet"
    new = _table(2000, 1)
    pq.write_table(pa.Table.from_pandas(new, preserve_index=False), data, row_group_size=700)
    out = tmp_path / "out.parquet"
    code = ("import sys, json; from catembed.__main__ import main; "
            f"rc = main(['transform', '-q', {str(model)!r}, {str(data)!r}, '-o', {str(out)!r}]); "
            f"print(json.dumps([rc, sorted(m for m in {list(NOT_NEEDED)!r} if m in sys.modules)]))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    rc, imported = json.loads(run.stdout.strip().splitlines()[-1])
    assert rc == 0
    assert imported == []
    got = pd.read_parquet(out)
    np.testing.assert_array_equal(got.to_numpy(), est.transform(new))
    assert list(got.columns) == list(est.get_feature_names_out())
    ref = tmp_path / "ref.parquet"
    transform_file(est, data, ref, progress=False)
    assert out.read_bytes() == ref.read_bytes()


def test_compiled_lookup_pays_when_loaded_or_large(monkeypatch):
    monkeypatch.setattr(_lookup, "loaded", lambda: False)
    assert not compiled_lookup_pays(None)
    assert not compiled_lookup_pays(10_000_000 * 32)  # 10M rows x 32: loading costs more
    assert compiled_lookup_pays(_lookup._COMPILED_MIN_CELLS)
    monkeypatch.setattr(_lookup, "loaded", lambda: True)
    assert compiled_lookup_pays(None)
    assert compiled_lookup_pays(1)


def test_compiled_lookup_off_takes_the_numpy_path_with_the_same_values(monkeypatch):
    rng = np.random.default_rng(5)
    tables = [rng.normal(size=(6, 8)) for _ in range(3)]
    codes = rng.integers(-1, 5, (20_000, 3)).astype(np.int32)
    plan = LookupPlan(tables, "sum", np.float32)
    ref = plan(codes)  # the compiled gather where numba is there

    def refuse() -> None:
        raise AssertionError("the compiled lookup was asked for")

    monkeypatch.setattr(_lookup, "_kernel", refuse)
    with compiled_lookup(False):
        got = plan(codes, out=np.empty(ref.shape, np.float32, order="F"))
    np.testing.assert_array_equal(got, ref)
    with compiled_lookup(True), pytest.raises(AssertionError, match="asked for"):
        plan(codes)


def test_loaded_is_false_when_numba_is_off(monkeypatch):
    monkeypatch.setenv("CATEMBED_NUMBA", "0")
    assert not _lookup_kernel.loaded()


def test_embed_package_names_resolve_lazily():
    import catembed.embed as embed

    assert set(embed.__all__) <= set(dir(embed))
    for name in embed.__all__:
        cls = getattr(embed, name)
        assert cls.__name__ == name
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        embed.Nope  # noqa: B018


def test_in_memory_lookup_takes_the_numpy_path_unless_the_compiled_one_pays(monkeypatch):
    """A transform of a table too small to pay for loading numba does not ask for it (issue
    55: 0.5-0.9 s of a first OneHotPCA fit_transform at 50,000 rows), with the same bytes."""
    rng = np.random.default_rng(7)
    plan = LookupPlan([rng.normal(size=(6, 32)) for _ in range(3)], "sum", np.float32)
    codes = rng.integers(-1, 5, (50_000, 3)).astype(np.int8)
    ref = plan(codes)

    def refuse() -> None:
        raise AssertionError("the compiled lookup was asked for")

    monkeypatch.setattr(_lookup, "loaded", lambda: False)
    monkeypatch.setattr(_lookup, "_kernel", refuse)
    got = plan.in_memory(codes, np.empty(ref.shape, np.float32))
    np.testing.assert_array_equal(got, ref)
