"""The service's locks: a file lock under PAMIR_HOME, or a PostgreSQL advisory lock.

Every lock of the service has a name (`game:kabul`, `outbox:deliver`, ...) and a file
under PAMIR_HOME. With no database configured the file is `flock`ed, as on one machine.
With one (docs/cluster.md) the lock is a session-level advisory lock on the name's key,
so that it excludes the threads and processes of every node; the file is not used.

An advisory lock is held on a connection taken from the node's pool for as long as the
lock is held (a thread holding several keeps them on one connection). If the node dies,
its connections close and the server releases its locks: a killed node never leaves a
game locked. A database that cannot be reached is an error, never a reason to fall back
to the file (two nodes would then lock different things).
"""

from __future__ import annotations

import fcntl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from adjudicator.home import database
from adjudicator.home.settings import Settings

Connection = psycopg.Connection[tuple[object, ...]]


@contextmanager
def exclusive(settings: Settings, name: str, path: Path) -> Iterator[None]:
    """Hold the lock `name` (with no database: an flock on `path`) while the block runs."""
    if settings.database_url is None:
        with file_lock(path):
            yield
    else:
        with advisory_lock(settings, name):
            yield


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="ascii") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class _Held(threading.local):
    """The connection this thread holds its advisory locks on, and how many it holds."""

    connection: Connection | None = None
    count = 0


_held = _Held()


@contextmanager
def advisory_lock(settings: Settings, name: str) -> Iterator[None]:
    """Hold the advisory lock of `name`, waiting for it as long as another node holds it."""
    key = database.advisory_key(name)
    if _held.connection is None:
        _held.connection = database.pool(settings).getconn()
    connection = _held.connection
    _held.count += 1
    try:
        try:
            connection.execute("SELECT pg_advisory_lock(%s)", (key,))
        except psycopg.Error as error:
            raise database.DatabaseError(f"cannot take the lock {name}: {error}") from None
        try:
            yield
        finally:
            _unlock(connection, key)
    finally:
        _held.count -= 1
        if _held.count == 0:
            _held.connection = None
            database.pool(settings).putconn(connection)


def _unlock(connection: Connection, key: int) -> None:
    try:
        connection.execute("SELECT pg_advisory_unlock(%s)", (key,))
    except psycopg.Error:
        # The connection broke, and the server released the lock with it; the pool drops
        # a broken connection when it is given back.
        connection.close()


class Leadership:
    """The right to run something on one node only (the scheduler), while `holds()`."""

    def __init__(self, connection: Connection | None) -> None:
        self.connection = connection  # None: a file lock, which holds as long as we live

    def holds(self) -> bool:
        """Whether the leadership still holds: with a database, whether the connection
        holding its advisory lock still answers (lost, another node may lead by now)."""
        if self.connection is None:
            return True
        try:
            self.connection.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True


ELECTION_SECONDS = 2.0  # how often a standing-by node tries to become the leader


@contextmanager
def leadership(
    settings: Settings, name: str, path: Path, stop: threading.Event
) -> Iterator[Leadership | None]:
    """Lead for `name`: yield a Leadership, or None if `stop` was set first.

    With no database, an flock on `path` that must be free (else `LeaderRunning`). With
    one, the node stands by, trying the advisory lock every ELECTION_SECONDS until it is
    elected (the leader's node died or stepped down) or `stop` is set.
    """
    if settings.database_url is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="ascii") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise LeaderRunning(str(path)) from None
            try:
                yield Leadership(None)
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    connection = _elected(settings, name, stop)
    if connection is None:
        yield None
        return
    with connection:  # closing it releases the lock, whatever happened
        yield Leadership(connection)


def _elected(settings: Settings, name: str, stop: threading.Event) -> Connection | None:
    key = database.advisory_key(name)
    while not stop.is_set():
        try:
            connection = database.connect(settings, name)
        except database.DatabaseError:
            stop.wait(ELECTION_SECONDS)  # the database is away: stand by until it is back
            continue
        try:
            row = connection.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
        except psycopg.Error:
            row = None
        if row and row[0]:
            return connection
        connection.close()
        stop.wait(ELECTION_SECONDS)
    return None


class LeaderRunning(RuntimeError):
    """Another process holds the leader's file lock (no database configured)."""


def leader_of(settings: Settings, name: str) -> str | None:
    """The application name of the connection holding `name`'s leadership, if any."""
    key = database.advisory_key(name) & 0xFFFFFFFFFFFFFFFF
    with database.pool(settings).connection() as connection:
        row = connection.execute(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
            " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
            " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            " AND l.classid::bigint = %s AND l.objid::bigint = %s",
            (key >> 32, key & 0xFFFFFFFF),
        ).fetchone()
    return str(row[0]) if row else None
