"""The pools of threads the service keeps (adjudicator/home/threads.py): their threads
serve one use after another, and a forked child makes its own."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from adjudicator.home.threads import KeptPool


def test_a_kept_pool_serves_one_use_after_another_with_its_own_threads() -> None:
    pool = KeptPool("test", workers=3)
    seen: set[threading.Thread] = set()  # the threads themselves, kept alive to be told apart
    for _ in range(20):
        seen.update(pool.run_all(threading.current_thread, (), (), ()))
    # A pool made for each use would have started 60 threads.
    assert 1 <= len(seen) <= 3
    assert threading.current_thread() not in seen


def test_a_kept_pool_gives_the_results_in_order_and_raises_the_first_error() -> None:
    pool = KeptPool("test", workers=2)
    assert pool.run_all(lambda n: n * n, *[(n,) for n in range(7)]) == [n * n for n in range(7)]

    def fails(n: int) -> int:
        if n:
            raise ValueError(f"fails {n}")
        return n

    with pytest.raises(ValueError, match="fails 1"):
        pool.run_all(fails, (0,), (1,), (2,))
    assert pool.run_all(fails, (0,)) == [0]  # the pool still works


def test_a_forked_child_uses_threads_of_its_own() -> None:
    """The parent's pool, full and idle, has no threads in a child: a child that used it
    would wait for ever. The child makes its own (and says so by its exit code)."""
    pool = KeptPool("test", workers=1)
    assert pool.run_all(os.getpid, ()) == [os.getpid()]
    child = os.fork()
    if child == 0:  # pragma: no cover (the child's outcome is its exit code)
        signal.alarm(10)
        ok = False
        try:
            ok = pool.run_all(os.getpid, ()) == [os.getpid()]
        finally:
            os._exit(0 if ok else 1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
