"""Helpers for the PostgreSQL-mode tests: a database of their own on the local server, and
`pamir serve` nodes sharing it.

The server is the machine's (127.0.0.1:5432, user postgres, trust authentication; `make
test` starts it when it is stopped), or the one PAMIR_TEST_DATABASE_SERVER names (a URL
to a database the tests may create others from). Each test gets a fresh database, dropped
afterwards. Without a server these tests skip, except under CI, where they fail.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from gitgame import PAMIR
from psycopg import sql

from adjudicator.home import database
from adjudicator.home.advisory import held_locks

SERVER_URL = os.environ.get(
    "PAMIR_TEST_DATABASE_SERVER", "postgresql://postgres@127.0.0.1:5432/postgres"
)
UNDER_CI = os.environ.get("CI", "").strip().lower() not in {"", "0", "false", "no"}
START_TIMEOUT = 60.0
# The key the nodes seal the database's secrets with (PAMIR_SECRET_KEY): 32 bytes, base64.
SECRET_KEY = "cGFtaXItdGVzdHMtc2VjcmV0LWtleS0zMi1ieXRlcyE="


def _admin() -> psycopg.Connection[tuple[object, ...]]:
    try:
        return psycopg.connect(SERVER_URL, autocommit=True, connect_timeout=10)
    except psycopg.OperationalError as error:
        message = f"no PostgreSQL server at {SERVER_URL} ({error}); `make test` starts it"
        if UNDER_CI:
            pytest.fail(message)
        pytest.skip(message)


@contextmanager
def scratch_database() -> Iterator[str]:
    """A new, empty database on the server; its URL. Dropped afterwards, connections and
    all (this process's pools are closed first)."""
    name = f"pamir_test_{secrets.token_hex(6)}"
    with _admin() as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    parts = urlsplit(SERVER_URL)
    try:
        yield urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, ""))
    finally:
        database.close_pools()
        with _admin() as admin:
            admin.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def advisory_locks(url: str) -> list[tuple[int, str]]:
    """The advisory locks granted in the database: (key, application name of the holder)."""
    with psycopg.connect(url, autocommit=True) as connection:
        return held_locks(connection)


def holders(url: str, name: str) -> list[str]:
    """The application names of the connections holding the advisory lock `name`."""
    key = database.advisory_key(name)
    return [holder for found, holder in advisory_locks(url) if found == key]


def wait_for(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


class Node:
    """`pamir serve` on 127.0.0.1 and a free port, as node `name` of the service."""

    def __init__(self, name: str, home: Path, env: dict[str, str], *, scheduler: bool) -> None:
        self.name = name
        self.out = home.parent / f"{name}.out"
        self.log = home.parent / f"{name}.log"
        arguments = [str(PAMIR), "serve", "--host", "127.0.0.1", "--port", "0"]
        if not scheduler:
            arguments.append("--no-scheduler")
        with open(self.out, "wb") as out, open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                arguments,
                env={**os.environ, **env, "PAMIR_HOME": str(home), "PAMIR_NODE_NAME": name},
                stdout=out,
                stderr=log,
                start_new_session=True,  # its own process group, killed whole by `kill`
            )
        self.url = self._address()

    def _address(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            for line in self.out.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("pamir: serving "):
                    return line.split()[2].rstrip("/")
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise AssertionError(f"node {self.name} did not start:\n{self.tail()}")

    def tail(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")[-3000:]

    def kill(self) -> None:
        """SIGKILL to the node and the git processes it runs: no cleanup of any kind, as
        when its machine is lost."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
