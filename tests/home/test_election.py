"""The scheduler's election (home/advisory.py `elected`) on a real server: a node standing
by tries the lock on one connection it keeps, not a new one at every try; it is elected on
that connection when the leader goes, and makes another when the server closes it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from pgserver import holders, scratch_database, wait_for

from adjudicator.home import advisory, database
from adjudicator.home.settings import Settings, load_settings

TRY_SECONDS = 0.1  # the standby's tries, faster than the service's 2 s, to see many


@pytest.fixture
def settings(home: Path) -> Iterator[Settings]:
    with scratch_database() as url:
        found = load_settings({"home": home, "database_url": url, "node_name": "standby"})
        database.upgrade(found)
        yield found


def standby_sessions(url: str) -> list[tuple[int, object]]:
    """The sessions of the standby's election: (pid, when each began)."""
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute(
            "SELECT pid, backend_start FROM pg_stat_activity"
            " WHERE application_name = 'pamir scheduler standby'"
        ).fetchall()
    return [(int(str(pid)), began) for pid, began in rows]


class Standby:
    """`elected` in a thread, standing by until the lock is free."""

    def __init__(self, settings: Settings) -> None:
        self.stop = threading.Event()
        self.won = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(settings,), daemon=True)
        self.thread.start()

    def _run(self, settings: Settings) -> None:
        with advisory.elected(settings, "scheduler", self.stop, TRY_SECONDS) as held:
            if held is not None:
                self.won.set()
                self.stop.wait()

    def end(self) -> None:
        self.stop.set()
        self.thread.join(timeout=10)


@pytest.fixture
def leader(settings: Settings) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """Another node's leadership: the lock held on a connection of the test's."""
    with psycopg.connect(str(settings.database_url), autocommit=True) as connection:
        connection.execute("SELECT pg_advisory_lock(%s)", (database.advisory_key("scheduler"),))
        yield connection


def watch_sessions(url: str, seconds: float) -> list[list[tuple[int, object]]]:
    samples = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        samples.append(standby_sessions(url))
        time.sleep(0.01)
    return samples


def test_a_standby_tries_on_one_kept_connection_and_is_elected_on_it(
    settings: Settings, leader: psycopg.Connection[tuple[object, ...]]
) -> None:
    url = str(settings.database_url)
    standby = Standby(settings)
    try:
        wait_for(lambda: standby_sessions(url), 10, "the standby's connection")
        samples = watch_sessions(url, 30 * TRY_SECONDS)  # some thirty tries
        seen = {session for sample in samples for session in sample}
        assert len(seen) == 1, seen  # one connection all along, never a new one per try
        assert all(sample == samples[0] for sample in samples)
        assert not standby.won.is_set()

        leader.execute("SELECT pg_advisory_unlock_all()")  # the leader goes
        assert standby.won.wait(10)
        assert standby_sessions(url) == samples[0]  # elected on the connection it kept
        assert holders(url, "scheduler") == ["pamir scheduler standby"]
    finally:
        standby.end()
    wait_for(lambda: not standby_sessions(url), 10, "the standby's connection closed")


def test_a_standby_whose_connection_the_server_closed_makes_another(
    settings: Settings, leader: psycopg.Connection[tuple[object, ...]]
) -> None:
    url = str(settings.database_url)
    standby = Standby(settings)
    try:
        wait_for(lambda: standby_sessions(url), 10, "the standby's connection")
        [(pid, _)] = standby_sessions(url)
        leader.execute("SELECT pg_terminate_backend(%s)", (pid,))
        wait_for(lambda: [p for p, _ in standby_sessions(url)] not in ([], [pid]), 10, "another")
        leader.execute("SELECT pg_advisory_unlock_all()")
        assert standby.won.wait(10)
    finally:
        standby.end()
