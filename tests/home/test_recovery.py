"""PostgreSQL mode: a node comes back with its database, on a real server.

The database is taken away from the node as a restart or a failover does it: every
connection to it closed by the server and new ones refused (ALLOW_CONNECTIONS false), for
long enough that the pool's doubling waits between its tries would leave it seconds
behind; then it is given back.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from pgserver import SERVER_URL, scratch_database
from psycopg import sql
from test_cluster import secret_key  # noqa: F401 - the fixture: the key of the database's secrets

from adjudicator.home import database, nodes
from adjudicator.home.settings import Settings, load_settings
from adjudicator.web import create_app

pytestmark = pytest.mark.usefixtures("home", "secret_key")

OUTAGE_SECONDS = 10.0
BACK_WITHIN = 2.0  # seconds after the database's return, at most, until /healthz says ok


@pytest.fixture
def settings(home: object) -> Iterator[Settings]:
    with scratch_database() as url:
        found = load_settings({"home": home, "database_url": url, "node_name": "n1"})
        database.upgrade(found)
        yield found
        nodes.stop_heartbeat(found)


@contextmanager
def database_away(url: str) -> Iterator[None]:
    """The database refuses connections and has closed every one, until the block ends."""
    name = sql.Identifier(url.rsplit("/", 1)[-1])
    with psycopg.connect(SERVER_URL, autocommit=True) as admin:
        admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS false").format(name))
        try:
            admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> pg_backend_pid()",
                (url.rsplit("/", 1)[-1],),
            )
            yield
        finally:
            admin.execute(sql.SQL("ALTER DATABASE {} ALLOW_CONNECTIONS true").format(name))


def test_healthz_says_ok_within_2_s_of_the_databases_return(settings: Settings) -> None:
    client = create_app({"home": settings.home, "database_url": settings.database_url})
    web = client.test_client()
    assert web.get("/healthz").status_code == 200
    with database_away(str(settings.database_url)):
        went = time.monotonic()
        while time.monotonic() - went < OUTAGE_SECONDS:  # a load balancer asking
            started = time.monotonic()
            assert web.get("/healthz").status_code == 503
            assert time.monotonic() - started < 3.0  # the outage's wait, not the pool's
            time.sleep(0.2)
    back = time.monotonic()
    while web.get("/healthz").status_code != 200:
        assert time.monotonic() - back < 30, "/healthz never recovered"
        time.sleep(0.05)
    assert time.monotonic() - back < BACK_WITHIN
    assert web.get("/").status_code == 200  # and the pages are served again
