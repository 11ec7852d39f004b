"""Thread limits for small linear algebra, in one place.

The value-level matrices of every method are small (``l x l``, ``l`` the number of values, or
``r x r`` for UNTIE's low-rank solve). Multi-threaded BLAS and OpenMP gain nothing on them and,
on a machine whose cores are busy, lose a lot to spin-waiting threads: the first SVD of a
72 x 296 matrix took 2.1 s with two OpenBLAS threads at load average 8 on 2 cores, 14 ms with
one. :func:`small_problem_threads` runs such work with one thread.

The :class:`threadpoolctl.ThreadpoolController` (a scan of the loaded libraries, about 10 ms)
is made once, at first use; libraries loaded after that (PyTorch's OpenMP, say) keep their own
settings.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["SMALL_VALUE_SET", "one_thread", "own_threads", "small_problem_threads"]

#: value sets up to this size are fitted with one BLAS / OpenMP thread
SMALL_VALUE_SET = 1024

_CONTROLLER: list[Any] = []


def one_thread(user_api: str | None = None) -> Any:
    """Context manager: one thread for ``user_api`` (``"blas"``, ``"openmp"``, or all)."""
    if not _CONTROLLER:
        from threadpoolctl import ThreadpoolController

        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api=user_api)


@contextmanager
def small_problem_threads(
    size: int, limit: int = SMALL_VALUE_SET, user_api: str | None = None
) -> Iterator[None]:
    """One thread while ``size <= limit``; otherwise the libraries' own settings."""
    if size > limit:
        yield
        return
    with one_thread(user_api):
        yield


def own_threads() -> int:
    """Threads for catembed's own parallel loops (the compiled lookup).

    ``CATEMBED_NUM_THREADS`` if set, else ``OMP_NUM_THREADS`` if set (the limit a batch
    scheduler or a user sets for every library), else the CPUs this process may run on;
    never more than those, never fewer than one.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    for name in ("CATEMBED_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").split(",")[0].strip()
        if value.isdigit():
            return max(1, min(int(value), cpus))
    return max(1, cpus)
