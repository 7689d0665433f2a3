"""PostgreSQL mode (docs/cluster.md): the connections, the schema and its migrations.

With `database_url` set (PAMIR_DATABASE_URL), several service nodes coordinate through
one PostgreSQL database: the locks (adjudicator/home/locks.py), the election of the one
active scheduler, the webhook deliveries handled, the inbound messages handled (by
Message-ID) and the nodes' heartbeats. With it
unset nothing here is used and the service runs from PAMIR_HOME alone.

The schema is versioned: `MIGRATIONS` lists every step in order, `pamir db upgrade`
applies those a database lacks (each in its own transaction, under an advisory lock so
that two nodes upgrading at once apply each step once), and a node refuses to start on a
database whose schema is not the one its code expects (`require_schema`), rather than
failing later in the middle of a move.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from adjudicator.home.settings import Settings

if TYPE_CHECKING:  # the client is imported where it is used: only PostgreSQL mode loads it
    import psycopg
    from psycopg_pool import ConnectionPool


class DatabaseError(RuntimeError):
    """The database cannot be reached, or its schema is not the one this code expects."""


@dataclass(frozen=True)
class Migration:
    version: int
    description: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "nodes and webhook deliveries",
        """
        CREATE TABLE pamir_nodes (
            name text PRIMARY KEY,
            host text NOT NULL,
            pid integer NOT NULL,
            started_at timestamptz NOT NULL,
            seen_at timestamptz NOT NULL
        );
        CREATE TABLE pamir_webhook_deliveries (
            delivery text PRIMARY KEY,
            outcome jsonb,
            received_at timestamptz NOT NULL DEFAULT now()
        );
        """,
    ),
    Migration(
        2,
        "inbound messages",
        """
        CREATE TABLE pamir_inbound_messages (
            game_id text NOT NULL,
            message_key text NOT NULL,
            record jsonb NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (game_id, message_key)
        );
        """,
    ),
    Migration(
        3,
        "the outbox",
        # One row per message (adjudicator/mail/outbox/table.py). A node claims a pending
        # row for outbox_lease_seconds (claimed_by, claimed_until) in a statement of its
        # own, sends it, and marks it sent; a claim whose node died expires and the row is
        # sent by another node. The key is unique: queuing a key twice keeps the first.
        # The scheduler's jobs: APScheduler's SQLAlchemy job store, in its own layout.
        """
        CREATE TABLE pamir_outbox (
            id bigserial PRIMARY KEY,
            message_key text NOT NULL UNIQUE,
            name text NOT NULL,
            game_id text NOT NULL,
            player text NOT NULL,
            message bytea NOT NULL,
            state text NOT NULL DEFAULT 'pending'
                CHECK (state IN ('pending', 'sent', 'written', 'failed', 'expired')),
            attempts integer NOT NULL DEFAULT 0,
            next_attempt timestamptz,
            last_error text,
            claimed_by text,
            claimed_until timestamptz,
            queued_at timestamptz NOT NULL DEFAULT now(),
            accepted_at timestamptz,
            done_at timestamptz,
            failure jsonb
        );
        CREATE INDEX pamir_outbox_pending ON pamir_outbox (id) WHERE state = 'pending';
        CREATE INDEX pamir_outbox_game ON pamir_outbox (game_id, state);
        CREATE TABLE pamir_scheduler_jobs (
            id varchar(191) PRIMARY KEY,
            next_run_time double precision,
            job_state bytea NOT NULL
        );
        CREATE INDEX pamir_scheduler_jobs_next ON pamir_scheduler_jobs (next_run_time);
        """,
    ),
    Migration(
        4,
        "the service's records (adjudicator/home/store.py) and the registry of games",
        """
        CREATE TABLE pamir_store (
            name text PRIMARY KEY,
            data bytea NOT NULL,
            sealed boolean NOT NULL,
            updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE pamir_games (
            game_id text PRIMARY KEY,
            url text NOT NULL,
            registered_at timestamptz NOT NULL DEFAULT now()
        );
        """,
    ),
    Migration(
        5,
        "the registry's games found by their forge URL, and the forge's head of each",
        # url_key: the URL's comparable form (games/hosting.py `normalize_url`), written by
        # `register`, filled in for older rows by the first lookup of each process. head:
        # the game's branch on the forge as the last node to push or fetch it saw it, which
        # a node compares with its clone's before it serves a page (docs/cluster.md).
        """
        ALTER TABLE pamir_games ADD COLUMN url_key text;
        ALTER TABLE pamir_games ADD COLUMN head text;
        CREATE INDEX pamir_games_url_key ON pamir_games (url_key);
        """,
    ),
    Migration(
        6,
        "indexes for every query of the service, and the retention of old rows",
        # Each index names the queries it serves. The prefix queries compare names under
        # the "C" collation (bytes, as Python's str order), a range the generic plans of
        # prepared statements can take to an index whatever the database's collation.
        # `pruned_at`: when the retention emptied a message's bytes, its key kept.
        """
        ALTER TABLE pamir_outbox ADD COLUMN pruned_at timestamptz;
        -- messages_in, counts, backlog's and failures' counts of one state, in order
        CREATE INDEX pamir_outbox_state ON pamir_outbox (state, id);
        -- accepted_at: a game's messages whose key starts with a prefix
        CREATE INDEX pamir_outbox_game_key ON pamir_outbox (game_id, message_key COLLATE "C");
        -- is_pending: a pending message whose key starts with a prefix
        CREATE INDEX pamir_outbox_pending_key ON pamir_outbox (message_key COLLATE "C")
            WHERE state = 'pending';
        -- the retention: the messages done long ago whose bytes are still kept
        CREATE INDEX pamir_outbox_prunable ON pamir_outbox (done_at)
            WHERE pruned_at IS NULL AND state IN ('sent', 'written', 'expired');
        CREATE INDEX pamir_webhook_deliveries_received ON pamir_webhook_deliveries (received_at);
        CREATE INDEX pamir_inbound_messages_updated ON pamir_inbound_messages (updated_at);
        -- names and delete_folder of adjudicator/home/store.py: the records in a folder
        CREATE INDEX pamir_store_name_c ON pamir_store (name COLLATE "C");
        -- schedule/health.py: the deadline jobs, by the prefix of their ids
        CREATE INDEX pamir_scheduler_jobs_id_c ON pamir_scheduler_jobs (id COLLATE "C");
        """,
    ),
)
SCHEMA_VERSION = MIGRATIONS[-1].version
_VERSION_TABLE = """
    CREATE TABLE IF NOT EXISTS pamir_schema (
        version integer PRIMARY KEY,
        description text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
    )
"""
# A node whose machine is lost sends no FIN: the server finds its sessions dead (and
# releases their advisory locks, the scheduler's among them) by TCP keepalive, which these
# per-session settings bring from the system's two hours down to about 25 seconds.
SESSION_OPTIONS = (
    "-c tcp_keepalives_idle=10 -c tcp_keepalives_interval=5 -c tcp_keepalives_count=3"
    " -c tcp_user_timeout=25000"
)
POOL_SIZE = 32  # connections per node: a thread holding game locks keeps one
POOL_TIMEOUT = 60.0  # seconds a thread waits for a free connection before it fails
OUTAGE_SECONDS = 2.0  # ... while the server is away: a connection was lost lately
OUTAGE_MEMORY = 30.0  # seconds a lost connection says the server is away
# How long the pool goes on trying to replace a lost connection in the background, its
# waits doubling from 1 s. The pool's own 5 minutes would leave it waiting 8 s or more
# by the time the server is back; after this it stops, and the next request that finds no
# connection tries at once.
RECONNECT_SECONDS = 2.0


def advisory_key(name: str) -> int:
    """The 64-bit advisory lock key of a lock's name (stable across nodes and versions)."""
    digest = hashlib.sha256(b"pamir-lock:" + name.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def prefix_bounds(prefix: str) -> tuple[str, str]:
    """The range of the names that start with `prefix` under the "C" collation: every
    such name is >= the first and < the second. A query written as this range (with the
    exact `starts_with` beside it) takes the "C" index of its column even in a generic
    plan, where `starts_with(name, $1)` or `LIKE $1` never can."""
    stem = prefix.rstrip(chr(0x10FFFF))
    if not stem:
        raise ValueError(f"no range for the prefix {prefix!r}")
    following = ord(stem[-1]) + 1
    if 0xD800 <= following <= 0xDFFF:  # surrogates are not characters of a text value
        following = 0xE000
    return prefix, stem[:-1] + chr(following)


def node_name(settings: Settings) -> str:
    """This node's name: the `node_name` setting, else the host name and process id."""
    return settings.node_name or f"{socket.gethostname()}-{os.getpid()}"


def _application_name(settings: Settings, role: str) -> str:
    # What pg_stat_activity shows; `pamir nodes` finds the scheduler's leader by it.
    return f"pamir {role} {node_name(settings)}"[:63]


_pools: dict[str, ConnectionPool] = {}
_pools_lock = threading.Lock()


def pool(settings: Settings) -> ConnectionPool:
    """This process's pool of connections to the settings' database (autocommit)."""
    from psycopg_pool import ConnectionPool  # the client: PostgreSQL mode only

    url = _url(settings)
    with _pools_lock:
        found = _pools.get(url)
        if found is None:
            # One connection first: a database that refuses it fails at once with the
            # server's reason, where the pool would retry until its timeout.
            connect(settings, "node").close()
            found = ConnectionPool(
                url,
                min_size=1,
                max_size=POOL_SIZE,
                timeout=POOL_TIMEOUT,
                reconnect_timeout=RECONNECT_SECONDS,
                check=_checker(url),
                kwargs={
                    "autocommit": True,
                    "application_name": _application_name(settings, "node"),
                    "options": SESSION_OPTIONS,
                },
                open=False,
            )
            try:
                found.open(wait=True, timeout=POOL_TIMEOUT)
            except Exception as error:  # the pool's own timeout, with the reason logged
                found.close()
                raise DatabaseError(f"cannot connect to the database: {error}") from None
            _pools[url] = found
    return found


class _Lent(threading.local):
    """The connection this thread has from each pool (by URL), and how many blocks use it."""

    def __init__(self) -> None:
        self.connections: dict[str, tuple[psycopg.Connection[tuple[object, ...]], int]] = {}


_lent = _Lent()


@contextmanager
def connection(settings: Settings) -> Iterator[psycopg.Connection[tuple[object, ...]]]:
    """This thread's connection to the database: the one it already has (it holds its
    advisory locks on it, or an outer block uses it), else one from the pool, given back
    when the outermost block ends.

    A thread never holds two connections of the pool, so a thread waiting for one holds
    none, and a full pool makes threads wait for each other's work, never deadlock.
    """
    import psycopg  # the client: PostgreSQL mode only (loaded by `pool` already)

    url = _url(settings)
    lent, uses = _lent.connections.get(url, (None, 0))
    if lent is None:
        lent = _getconn(pool(settings), url)
    _lent.connections[url] = (lent, uses + 1)
    try:
        yield lent
    except psycopg.OperationalError:
        _lose(url)  # the server went away, or the network to it
        raise
    finally:
        lent, uses = _lent.connections.pop(url)
        if uses > 1:
            _lent.connections[url] = (lent, uses - 1)
        else:
            pool(settings).putconn(lent)


# When each pool (by URL) last lost a connection to an error of the server or the network.
_lost: dict[str, float] = {}
_checking: set[str] = set()  # the pools whose idle connections are being checked
_checking_lock = threading.Lock()


def _is_away(url: str) -> bool:
    return time.monotonic() - _lost.get(url, -OUTAGE_MEMORY) < OUTAGE_MEMORY


def _lose(url: str) -> None:
    """A connection of the pool was lost: the others idle in it are likely broken too
    (the server restarted, or went away), and are checked in the background, each
    replaced at once, so that no request meets one once the server is back."""
    _lost[url] = time.monotonic()
    with _checking_lock:
        if url in _checking or url not in _pools:
            return
        _checking.add(url)
    threading.Thread(target=_check_idle, args=(url,), name="pool check", daemon=True).start()


def _check_idle(url: str) -> None:
    try:
        found = _pools.get(url)
        if found is not None:
            found.check()
    except Exception:  # a pool closed meanwhile: nothing to check
        pass
    finally:
        with _checking_lock:
            _checking.discard(url)


def _checker(url: str) -> Callable[[psycopg.Connection[tuple[object, ...]]], None]:
    """The pool's check of a connection it lends: while the server is away (and until a
    connection is lent again), a round trip, so that a connection broken while idle is
    replaced rather than lent; none otherwise, as it costs one."""
    from psycopg_pool import ConnectionPool  # the client: PostgreSQL mode only

    def check(connection: psycopg.Connection[tuple[object, ...]]) -> None:
        if _is_away(url):
            ConnectionPool.check_connection(connection)

    return check


def _getconn(
    found: ConnectionPool, url: str, patience: float = POOL_TIMEOUT
) -> psycopg.Connection[tuple[object, ...]]:
    """A connection of the pool, waited for `patience` seconds. While the server is away
    (a connection was lost within OUTAGE_MEMORY seconds and none is free), wait only
    OUTAGE_SECONDS, not the POOL_TIMEOUT a busy pool deserves: the request fails as
    temporary at once (web/outage.py), and the pool's own reconnection brings
    connections back."""
    import psycopg_pool  # the client: PostgreSQL mode only (loaded by `pool` already)

    away = _is_away(url) and not found.get_stats().get("pool_available")
    try:
        lent = found.getconn(timeout=min(OUTAGE_SECONDS, patience) if away else patience)
    except psycopg_pool.PoolTimeout:
        if away:
            _lost[url] = time.monotonic()
        raise
    _lost.pop(url, None)
    return lent


@atexit.register
def close_pools() -> None:
    with _pools_lock:
        for opened in _pools.values():
            opened.close()
        _pools.clear()


def connect(settings: Settings, role: str) -> psycopg.Connection[tuple[object, ...]]:
    """A connection of its own (not from the pool), for a lock held a long time."""
    import psycopg  # the client: PostgreSQL mode only

    try:
        return psycopg.connect(
            _url(settings),
            autocommit=True,
            application_name=_application_name(settings, role),
            options=SESSION_OPTIONS,
        )
    except psycopg.Error as error:
        raise DatabaseError(f"cannot connect to the database: {error}") from None


def _url(settings: Settings) -> str:
    if settings.database_url is None:
        raise DatabaseError("no database is configured (PAMIR_DATABASE_URL)")
    return settings.database_url


def sqlalchemy_url(settings: Settings) -> str:
    """The database's URL as SQLAlchemy takes it with psycopg 3 (APScheduler's job store)."""
    return "postgresql+psycopg://" + _url(settings).split("://", 1)[1]


def schema_version(connection: psycopg.Connection[tuple[object, ...]]) -> int:
    """The version of the schema in the database (0: none yet)."""
    found = connection.execute("SELECT to_regclass('pamir_schema') IS NOT NULL").fetchone()
    if not found or not found[0]:
        return 0
    row = connection.execute("SELECT coalesce(max(version), 0) FROM pamir_schema").fetchone()
    return int(str(row[0])) if row else 0


def upgrade(settings: Settings) -> list[Migration]:
    """Apply the migrations the database lacks; return them (none: it was up to date)."""
    applied: list[Migration] = []
    with connect(settings, "upgrade") as connection:
        connection.execute("SELECT pg_advisory_lock(%s)", (advisory_key("schema"),))
        connection.execute(_VERSION_TABLE)
        current = schema_version(connection)
        if current > SCHEMA_VERSION:
            raise DatabaseError(
                f"the database's schema is version {current}, newer than this pamir's "
                f"{SCHEMA_VERSION}: upgrade pamir on this node"
            )
        for step in MIGRATIONS:
            if step.version <= current:
                continue
            with connection.transaction():
                connection.execute(step.sql.encode())
                connection.execute(
                    "INSERT INTO pamir_schema (version, description) VALUES (%s, %s)",
                    (step.version, step.description),
                )
            applied.append(step)
    return applied


def require_schema(settings: Settings) -> None:
    """Refuse to run on a database whose schema is not this code's (no silent fallback to
    the files of PAMIR_HOME): nothing when no database is configured. The secret key is
    checked against the database's by `backend.Clustered.check`."""
    if settings.database_url is None:
        return
    with connection(settings) as lent:
        version = schema_version(lent)
    if version < SCHEMA_VERSION:
        raise DatabaseError(
            f"the database's schema is version {version}, this pamir needs {SCHEMA_VERSION}: "
            "run `pamir db upgrade`"
        )
    if version > SCHEMA_VERSION:
        raise DatabaseError(
            f"the database's schema is version {version}, newer than this pamir's "
            f"{SCHEMA_VERSION}: upgrade pamir on this node"
        )


HEALTH_SECONDS = 5.0  # how long /healthz waits for a connection before it says unavailable


def problem(settings: Settings) -> str | None:
    """Why the database cannot be used right now, or None when it answers (within
    HEALTH_SECONDS: a load balancer's health check must not wait for the pool's timeout;
    while the server is away, within OUTAGE_SECONDS, as a request would wait)."""
    import psycopg  # the client: PostgreSQL mode only

    url = _url(settings)
    try:
        found = pool(settings)
        lent = _getconn(found, url, HEALTH_SECONDS)
        try:
            lent.execute("SELECT 1")
        finally:
            found.putconn(lent)
    except Exception as error:  # refused, timed out, broken: each says why
        if isinstance(error, psycopg.OperationalError):
            _lose(url)
        text = str(error).strip().splitlines()
        return text[0] if text else type(error).__name__
    return None
