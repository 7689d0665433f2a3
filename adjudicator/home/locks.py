"""The service's locks: a file lock under PAMIR_HOME, or a PostgreSQL advisory lock.

Every lock of the service has a name (`game:kabul`, `outbox:deliver`, ...) and a file
under PAMIR_HOME. With no database configured the file is locked with an flock (the
scheduler's leader lock, taken once, through `filelock`), as on one machine.
With one (docs/cluster.md) the lock is a session-level advisory lock on the name's key
(adjudicator/home/advisory.py), so that it excludes the threads and processes of every
node; the file is not used. A database that cannot be reached is an error, never a
reason to fall back to the file (two nodes would then lock different things).

The database client is imported only in PostgreSQL mode: the embedded mode's short-lived
commands (the Git hooks, `pamir inbound-email`) do not pay for loading it.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol

from filelock import FileLock, Timeout

from adjudicator.home.settings import Settings

ELECTION_SECONDS = 2.0  # how often a standing-by node tries to become the leader


@contextmanager
def exclusive(settings: Settings, name: str, path: Path) -> Iterator[None]:
    """Hold the lock `name` (with no database: a file lock on `path`) while the block runs."""
    if settings.database_url is None:
        with file_lock(path):
            yield
    else:
        from adjudicator.home.advisory import advisory_lock  # loads the database client

        with advisory_lock(settings, name):
            yield


# One lock per lock file for the threads of this process, taken before the file: a thread
# that waits for another thread of its own process blocks on it and is woken when it is
# released, instead of polling the file (filelock tries again every 50 ms, and fifty
# webhook threads polling the outbox's lock kept the interpreter switching between them).
# Only threads of other processes are waited for by polling. Neither lock is re-entrant:
# a thread that asks again for a lock it holds is told so (as filelock tells it), rather
# than waiting for itself for ever.
_thread_locks: dict[str, threading.Lock] = {}
_thread_locks_guard = threading.Lock()
_held = threading.local()  # .paths: the lock files this thread holds


def _forget_thread_locks() -> None:
    """In a child process made by fork: the threads that held locks are not in it."""
    global _thread_locks_guard
    _thread_locks.clear()
    _thread_locks_guard = threading.Lock()


os.register_at_fork(after_in_child=_forget_thread_locks)


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    key = os.path.abspath(path)
    held: set[str] = _held.__dict__.setdefault("paths", set())
    if key in held:
        raise RuntimeError(f"this thread already holds the lock {key}")
    with _thread_locks_guard:
        lock = _thread_locks.get(key)
        if lock is None:
            lock = _thread_locks[key] = threading.Lock()
    with lock:
        # An flock of its own rather than filelock's FileLock, which took about 100 us
        # of bookkeeping a lock (its checks for a fork, a filesystem without flock, a
        # file another account owns) for none of which a folder of PAMIR_HOME, the
        # service's own, has a use; this takes 4, and some ten locks are taken a move.
        # Blocking, without polling: the kernel wakes the waiter when the holder closes.
        # The descriptor is not inherited (PEP 446): a `git` started meanwhile cannot
        # keep the lock after this process lets it go.
        descriptor = os.open(key, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
            held.add(key)
            try:
                yield
            finally:
                held.discard(key)
        finally:
            os.close(descriptor)  # which ends the flock


class Leadership(Protocol):
    """The right to run something on one node only (the scheduler), while `holds()`."""

    def holds(self) -> bool: ...


class FileLeadership:
    """A leadership held as a file lock, which holds for as long as the process lives."""

    def holds(self) -> bool:
        return True


class LeaderRunning(RuntimeError):
    """Another process holds the leader's file lock (no database configured)."""


@contextmanager
def leadership(
    settings: Settings, name: str, path: Path, stop: threading.Event
) -> Iterator[Leadership | None]:
    """Lead for `name`: yield a Leadership, or None if `stop` was set first.

    With no database, a file lock on `path` that must be free (else `LeaderRunning`). With
    one, the node stands by, trying the advisory lock every ELECTION_SECONDS until it is
    elected (the leader's node died or stepped down) or `stop` is set.
    """
    if settings.database_url is not None:
        from adjudicator.home.advisory import elected  # loads the database client

        with elected(settings, name, stop, ELECTION_SECONDS) as held:
            yield held
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    taken = FileLock(path, blocking=False)
    try:
        taken.acquire()
    except Timeout:
        raise LeaderRunning(str(path)) from None
    try:
        yield FileLeadership()
    finally:
        taken.release()
