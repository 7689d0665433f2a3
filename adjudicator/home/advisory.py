"""PostgreSQL advisory locks: the locks of the service in PostgreSQL mode (docs/cluster.md).

A lock is held on the thread's connection from the node's pool (`database.connection`)
for as long as the lock is held (a thread holding several keeps them on one connection).
If the node dies, its connections close and the server releases its locks: a killed node
never leaves a game locked. The leadership of the scheduler is held on a connection of its
own, for as long as the node leads; a node standing by tries it on that one connection,
kept between tries. Imported only in PostgreSQL mode
(`adjudicator/home/locks.py`), so that the embedded mode never loads the database client.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

from adjudicator.home import database
from adjudicator.home.settings import Settings

Connection = psycopg.Connection[tuple[object, ...]]
log = logging.getLogger(__name__)


@contextmanager
def advisory_lock(settings: Settings, name: str) -> Iterator[None]:
    """Hold the advisory lock of `name`, waiting for it as long as another node holds it.
    It is held on this thread's connection (`database.connection`), kept while held."""
    key = database.advisory_key(name)
    with database.connection(settings) as connection:
        try:
            connection.execute("SELECT pg_advisory_lock(%s)", (key,))
        except psycopg.Error as error:
            raise database.DatabaseError(f"cannot take the lock {name}: {error}") from None
        try:
            yield
        finally:
            _unlock(connection, name, key)


def _unlock(connection: Connection, name: str, key: int) -> None:
    try:
        row = connection.execute("SELECT pg_advisory_unlock(%s)", (key,)).fetchone()
    except psycopg.Error:
        row = None
        # The pool drops a broken connection when it is given back.
        connection.close()
    if not row or not row[0]:
        # The connection broke while the lock was held, and the server released the lock
        # with it: the work done meanwhile was not exclusive. Git's refs and the outbox's
        # keys still keep it from being applied twice, but the operator should know.
        log.error("the lock %s was lost while held (the database connection broke)", name)


class HeldLeadership:
    """A leadership held as an advisory lock on a connection of its own."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection

    def holds(self) -> bool:
        """Whether the connection holding the lock still answers (if not, the server has
        released the lock, and another node may lead by now)."""
        try:
            self.connection.execute("SELECT 1")
        except psycopg.Error:
            return False
        return True


@contextmanager
def elected(
    settings: Settings, name: str, stop: threading.Event, every: float
) -> Iterator[HeldLeadership | None]:
    """Stand by, trying the advisory lock of `name` every `every` seconds, until elected
    (yield the leadership) or until `stop` is set (yield None)."""
    connection = _elect(settings, name, stop, every)
    if connection is None:
        yield None
        return
    with connection:  # closing it releases the lock, whatever happened
        yield HeldLeadership(connection)


def _elect(settings: Settings, name: str, stop: threading.Event, every: float) -> Connection | None:
    """Try the lock every `every` seconds on one connection kept for the purpose (a node
    standing by for hours would otherwise open and close one at every try), made again
    only when it breaks; return it once it holds the lock, or None when `stop` is set."""
    key = database.advisory_key(name)
    kept: Connection | None = None
    try:
        while not stop.is_set():
            if kept is None:
                try:
                    kept = database.connect(settings, name)
                except database.DatabaseError:
                    stop.wait(every)  # the database is away: stand by until it is back
                    continue
            try:
                row = kept.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()
            except psycopg.Error:  # the server closed it (a restart): another next time
                kept.close()
                kept, row = None, None
            if row and row[0]:
                elected, kept = kept, None
                return elected
            stop.wait(every)
        return None
    finally:
        if kept is not None:
            kept.close()


def held_locks(connection: Connection) -> list[tuple[int, str]]:
    """The advisory locks granted in the connection's database: (key, as `advisory_key`
    makes it, and the application name of the session holding it)."""
    rows = connection.execute(
        "SELECT (l.classid::bigint << 32) | l.objid::bigint, a.application_name"
        " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
        " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"
        " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
    ).fetchall()
    found = []
    for key, holder in rows:
        unsigned = int(str(key))
        found.append((unsigned - (1 << 64) if unsigned >= 1 << 63 else unsigned, str(holder)))
    return found


def leader_of(settings: Settings, name: str) -> str | None:
    """The application name of the session holding `name`'s leadership, if any."""
    key = database.advisory_key(name)
    with database.connection(settings) as connection:
        holders = [holder for found, holder in held_locks(connection) if found == key]
    return holders[0] if holders else None
