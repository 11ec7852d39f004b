"""Thread limits for small linear algebra, and catembed's own threads, in one place.

The value-level matrices of every method are small (``l x l``, ``l`` the number of values, or
``r x r`` for UNTIE's low-rank solve). Multi-threaded BLAS and OpenMP gain nothing on them and,
on a machine whose cores are busy, lose a lot to spin-waiting threads: the first SVD of a
72 x 296 matrix took 2.1 s with two OpenBLAS threads at load average 8 on 2 cores, 14 ms with
one. :func:`small_problem_threads` runs such work with one thread.

The :class:`threadpoolctl.ThreadpoolController` (a scan of the loaded libraries, about 10 ms)
is made once, at first use; libraries loaded after that (PyTorch's OpenMP, say) keep their own
settings.

catembed's own parallel loop (the compiled lookup) runs on :func:`own_threads` threads
(``CATEMBED_NUM_THREADS``, else ``OMP_NUM_THREADS``, else the CPUs this process may use) by
:func:`run_parts`: the calling thread and a small pool of helpers take parts of the rows in
turn.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

__all__ = ["SMALL_VALUE_SET", "one_thread", "own_threads", "run_parts", "small_problem_threads"]

#: value sets up to this size are fitted with one BLAS / OpenMP thread
SMALL_VALUE_SET = 1024

_CONTROLLER: list[Any] = []
_POOLS: dict[tuple[int, int], Any] = {}  # (process id, workers) -> executor
_POOL_LOCK = threading.Lock()


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


def _pool(workers: int) -> ThreadPoolExecutor:
    """The helper threads of :func:`run_parts`, one pool per helper count, made at first use
    (again after a fork, whose child has none of its parent's threads). A pool is never shut
    down while the process lives, so a call with another count (``CATEMBED_NUM_THREADS``
    changed meanwhile) cannot stop a pool that a concurrent call is using."""
    key = (os.getpid(), workers)
    with _POOL_LOCK:
        if key not in _POOLS:
            if any(pid != key[0] for pid, _ in _POOLS):  # a forked child: its parent's
                _POOLS.clear()  # pools have no threads here
            _POOLS[key] = ThreadPoolExecutor(workers, thread_name_prefix="catembed")
        return _POOLS[key]


def run_parts(fn: Callable[[int, int], Any], parts: Sequence[tuple[int, int]],
              threads: int) -> list[Any]:
    """``[fn(start, stop) for start, stop in parts]``, the parts taken in turn by the calling
    thread and ``threads - 1`` helper threads (``fn`` must release the GIL to gain).

    The caller works too and waits only for parts a helper has begun: on a busy machine a
    helper that never gets a core costs nothing (measured: waiting for every helper made a
    2-thread lookup of 100k rows 5x slower than one thread at load 4.7 on 2 cores).
    """
    results: list[Any] = [None] * len(parts)
    if threads <= 1 or len(parts) <= 1:
        return [fn(s, e) for s, e in parts]
    taken = itertools.count()  # next() is atomic under the GIL
    left = [len(parts)]
    lock = threading.Lock()
    done = threading.Event()

    def work() -> None:
        while (i := next(taken)) < len(parts):
            try:
                results[i] = fn(*parts[i])
            except BaseException as exc:  # noqa: BLE001 - raised again by the caller
                results[i] = exc
            with lock:
                left[0] -= 1
                if not left[0]:
                    done.set()

    pool = _pool(threads - 1)
    for _ in range(threads - 1):
        pool.submit(work)
    work()
    done.wait()
    for r in results:
        if isinstance(r, BaseException):
            raise r
    return results
