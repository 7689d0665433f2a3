"""Pools of threads kept for the life of the process.

The service hands work to threads several times a move (the SMTP sessions of a delivery
run, the flushes of the messages it queues), and a pool made for each use started its
threads anew every time: about 3 ms a move. A kept pool's idle threads take the next
work; a new thread starts only when all of them are busy, up to the pool's size.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any


class KeptPool:
    """A ThreadPoolExecutor made on first use in each process and kept: one made before
    a fork has no threads in the child (a gunicorn worker), which makes its own."""

    def __init__(self, name: str, workers: int) -> None:
        self.name, self.workers = name, workers
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None
        self._pid = os.getpid()

    def _get(self) -> ThreadPoolExecutor:
        if self._pid != os.getpid():  # forked: the parent's pool and lock are not ours
            self._lock, self._pool, self._pid = threading.Lock(), None, os.getpid()
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix=self.name)
            return self._pool

    def run_all(self, work: Callable[..., Any], *calls: tuple[Any, ...]) -> list[Any]:
        """`work(*args)` for each `args` of `calls`, at once in the pool's threads; their
        results in order, once all have ended (the first exception raised, if any)."""
        pool = self._get()
        futures: list[Future[Any]] = [pool.submit(work, *args) for args in calls]
        wait(futures)
        return [future.result() for future in futures]
