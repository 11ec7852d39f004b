"""One thread for small value-level linear algebra (catembed._utils._threads)."""

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_info

from catembed import CDE
from catembed._utils._threads import small_problem_threads


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


def test_small_problems_run_with_one_blas_thread_and_restore():
    before = _blas_threads()
    with small_problem_threads(10):
        assert _blas_threads() == {1}
    assert _blas_threads() == before
    with small_problem_threads(10_000):  # above the limit: the libraries' own settings
        assert _blas_threads() == before


def test_limit_does_not_change_results():
    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.choice(list("abcd"), size=(300, 4)), columns=list("wxyz"))
    a = CDE(random_state=0, n_components=4).fit(X).transform(X)
    with small_problem_threads(0):  # the fit nested inside an outer limit
        b = CDE(random_state=0, n_components=4).fit(X).transform(X)
    np.testing.assert_array_equal(a, b)
