"""gunicorn's workers in PostgreSQL mode (adjudicator/web/gunicorn_config.py), real ones on
a real server: a worker stopped with SIGTERM removes its row of `pamir_nodes` as it ends,
rather than leave it to show as a silent node for a day.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from liveserver import fetch
from mailserver import free_port
from pgserver import SECRET_KEY, scratch_database, wait_for

from adjudicator.home import database
from adjudicator.home.settings import load_settings

pytestmark = pytest.mark.usefixtures("home")

ROOT = Path(__file__).resolve().parents[2]


def node_pids(url: str) -> set[int]:
    with psycopg.connect(url, autocommit=True) as connection:
        rows = connection.execute("SELECT pid FROM pamir_nodes").fetchall()
    return {int(str(pid)) for (pid,) in rows}


@pytest.fixture
def served(tmp_path: Path, home: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """gunicorn with one worker on a scratch database: the database's URL, the master."""
    with scratch_database() as url:
        database.upgrade(load_settings({"home": home, "database_url": url}))
        port = free_port()
        environment = {"PAMIR_HOME": str(home), "PAMIR_DATABASE_URL": url}
        environment["PAMIR_SECRET_KEY"] = SECRET_KEY
        environment.pop("PAMIR_NODE_NAME", None)  # each worker's name: the host and its pid
        log_path = tmp_path / "gunicorn.log"
        with log_path.open("wb") as log:
            master = subprocess.Popen(
                [
                    sys.executable,
                    *("-m", "gunicorn", "-c", "python:adjudicator.web.gunicorn_config"),
                    *("--bind", f"127.0.0.1:{port}", "--workers", "1", "--graceful-timeout", "10"),
                    "adjudicator.web:create_app()",
                ],
                cwd=ROOT,
                env={**os.environ, **environment},
                stdout=log,
                stderr=log,
            )
        try:
            wait_for(lambda: node_pids(url), 60, f"a worker's heartbeat ({log_path})")
            assert fetch(f"http://127.0.0.1:{port}/healthz").status == 200
            yield url, master
        finally:
            master.terminate()
            master.wait(timeout=30)


def test_a_worker_stopped_with_sigterm_removes_its_node_row(
    served: tuple[str, subprocess.Popen[bytes]],
) -> None:
    url, master = served
    [worker] = node_pids(url)
    os.kill(worker, signal.SIGTERM)  # the master starts another in its place
    wait_for(lambda: worker not in node_pids(url), 15, f"worker {worker}'s row to go")
    wait_for(lambda: len(node_pids(url)) == 1, 60, "the new worker's heartbeat")
    assert master.poll() is None


def test_the_workers_remove_their_rows_when_the_master_stops(
    served: tuple[str, subprocess.Popen[bytes]],
) -> None:
    url, master = served
    master.terminate()
    master.wait(timeout=30)
    started = time.monotonic()
    assert node_pids(url) == set(), time.monotonic() - started
