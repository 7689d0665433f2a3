"""The nodes of a service in PostgreSQL mode, as their heartbeats tell (`pamir nodes`).

Every process that serves (`pamir serve`, each gunicorn worker, `pamir scheduler`)
writes its row in `pamir_nodes` every HEARTBEAT_SECONDS and removes it when it stops
cleanly (a gunicorn worker stopped with SIGTERM, or replaced after `--max-requests`, too).
A node whose row has not been written for SILENT_AFTER seconds is shown as silent: it
died, or cannot reach the database. Who runs the scheduler is not written anywhere: it
is whoever holds the scheduler's advisory lock, as the server reports it.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from dataclasses import dataclass
from datetime import datetime

from adjudicator.home import database
from adjudicator.home.settings import Settings

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0
SILENT_AFTER = 3 * HEARTBEAT_SECONDS
FORGET_AFTER = "1 day"  # rows of nodes silent this long are removed by the others


@dataclass(frozen=True)
class Node:
    name: str
    host: str
    pid: int
    started_at: datetime
    seen_at: datetime
    silent_seconds: float

    @property
    def is_alive(self) -> bool:
        return self.silent_seconds < SILENT_AFTER


class Heartbeat:
    """This process's row in `pamir_nodes`, written by a background thread."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.name = database.node_name(settings)
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="heartbeat", daemon=True)

    def start(self) -> Heartbeat:
        self.beat()
        self.thread.start()
        return self

    def beat(self) -> None:
        with database.connection(self.settings) as connection:
            connection.execute(
                "INSERT INTO pamir_nodes (name, host, pid, started_at, seen_at)"
                " VALUES (%s, %s, %s, now(), now())"
                " ON CONFLICT (name) DO UPDATE SET seen_at = now(),"
                " host = excluded.host, pid = excluded.pid",
                (self.name, socket.gethostname(), os.getpid()),
            )
            connection.execute(
                f"DELETE FROM pamir_nodes WHERE seen_at < now() - interval '{FORGET_AFTER}'"
            )

    def _run(self) -> None:
        while not self.stopping.wait(HEARTBEAT_SECONDS):
            try:
                self.beat()
            except Exception as error:  # the database is away: try again at the next beat
                log.warning("heartbeat of node %s failed: %s", self.name, error)

    def stop(self) -> None:
        self.stopping.set()
        self.thread.join(timeout=10)
        try:  # a node stopping does not wait long for a database that has gone away
            pool = database.pool(self.settings)
            with pool.connection(timeout=database.HEALTH_SECONDS) as connection:
                connection.execute("DELETE FROM pamir_nodes WHERE name = %s", (self.name,))
        except Exception:  # it will show as silent, then be forgotten
            log.warning("node %s could not remove its heartbeat", self.name)


_started: dict[str, Heartbeat] = {}
_started_lock = threading.Lock()


def start_heartbeat(settings: Settings) -> Heartbeat | None:
    """Start this process's heartbeat once (None with no database configured)."""
    if settings.database_url is None:
        return None
    with _started_lock:
        key = f"{settings.database_url} {database.node_name(settings)}"
        if key not in _started:
            _started[key] = Heartbeat(settings).start()
        return _started[key]


def stop_heartbeat(settings: Settings) -> None:
    if settings.database_url is None:
        return
    with _started_lock:
        found = _started.pop(f"{settings.database_url} {database.node_name(settings)}", None)
    if found is not None:
        found.stop()


def stop_heartbeats() -> None:
    """Stop every heartbeat this process started, each removing its row: for a process
    that ends without its settings at hand (a gunicorn worker told to stop,
    adjudicator/web/gunicorn_config.py)."""
    with _started_lock:
        found = list(_started.values())
        _started.clear()
    for beat in found:
        beat.stop()


def list_nodes(settings: Settings) -> list[Node]:
    with database.connection(settings) as connection:
        rows = connection.execute(
            "SELECT name, host, pid, started_at, seen_at,"
            " extract(epoch FROM now() - seen_at)::float8 FROM pamir_nodes ORDER BY name"
        ).fetchall()
    found = []
    for name, host, pid, started, seen, silent in rows:
        assert isinstance(started, datetime) and isinstance(seen, datetime)
        found.append(Node(str(name), str(host), int(str(pid)), started, seen, float(str(silent))))
    return found
