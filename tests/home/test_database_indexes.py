"""Every query the service makes on its growing tables is served by an index
(home/database.py, migration 6), on a real server with enough rows that the planner
would rather scan the table than use a poor index: EXPLAIN shows no sequential scan.

The queries a node repeats (a folder of the store, a turn mail's prefix) are planned as
psycopg's prepared statements are after their fifth run: generically, their values
unknown, which is where `starts_with(name, $1)` or `LIKE $1` alone cannot use an index;
the daily prune's, run once per connection, with their values.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from pgserver import scratch_database

from adjudicator.forge import deliveries
from adjudicator.home import database, store
from adjudicator.home.settings import load_settings
from adjudicator.mail import inbound_records
from adjudicator.mail.outbox import table
from adjudicator.schedule import health

Connection = psycopg.Connection[tuple[object, ...]]
ROWS = 20_000


@pytest.fixture(scope="module")
def filled() -> Iterator[Connection]:
    """A database with the schema and ROWS rows in each table, analyzed."""
    with scratch_database() as url:
        database.upgrade(load_settings({"home": Path("/nonexistent"), "database_url": url}))
        with psycopg.connect(url, autocommit=True) as connection:
            _fill(connection)
            yield connection


def _fill(connection: Connection) -> None:
    connection.execute(
        "INSERT INTO pamir_store (name, data, sealed)"
        " SELECT 'private/g' || (n %% 500) || '/' || lpad(n::text, 6, '0') || '-alice.md',"
        " '\\x00'::bytea, true FROM generate_series(1, %(rows)s) AS n"
        " UNION ALL SELECT 'forge/g' || n || '.json', '\\x00'::bytea, false"
        " FROM generate_series(1, 10) AS n",
        {"rows": ROWS},
    )
    connection.execute(
        "INSERT INTO pamir_outbox (message_key, name, game_id, player, message, state,"
        " done_at, accepted_at, pruned_at)"
        " SELECT 'g' || (n %% 200) || '-' || lpad((n / 200)::text, 4, '0') || '-alice-report-'"
        " || n, n || '.eml', 'g' || (n %% 200), 'alice', '\\x00'::bytea,"
        " CASE WHEN n %% 1000 = 0 THEN 'pending' ELSE 'sent' END,"
        " now() - (n || ' minutes')::interval, now(),"
        " CASE WHEN n > 100 THEN now() END"
        " FROM generate_series(1, %(rows)s) AS n",
        {"rows": ROWS},
    )
    connection.execute(
        "INSERT INTO pamir_webhook_deliveries (delivery, received_at)"
        " SELECT 'github:' || n, now() - (n || ' minutes')::interval"
        " FROM generate_series(1, %(rows)s) AS n",
        {"rows": ROWS},
    )
    connection.execute(
        "INSERT INTO pamir_inbound_messages (game_id, message_key, record, updated_at)"
        " SELECT 'g' || (n %% 200), md5(n::text), '{\"status\": \"accepted\"}',"
        " now() - (n || ' minutes')::interval FROM generate_series(1, %(rows)s) AS n",
        {"rows": ROWS},
    )
    connection.execute(
        "INSERT INTO pamir_scheduler_jobs (id, next_run_time, job_state)"
        " SELECT CASE WHEN n %% 100 = 0 THEN 'deadline:g' ELSE 'reminder:g' END || n, n,"
        " '\\x00'::bytea FROM generate_series(1, %(rows)s) AS n",
        {"rows": ROWS},
    )
    connection.execute("ANALYZE")


def _numbered(query: str) -> tuple[str, list[str]]:
    """The query with $1, $2, ... for psycopg's placeholders, and their names in order."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return f"${names.index(match.group(1)) + 1}"

    return re.sub(r"%\((\w+)\)s", number, query), names


def generic_plan(connection: Connection, query: str, values: dict[str, object]) -> str:
    """The plan of `query` prepared, as a generic plan (its values not looked at)."""
    numbered, names = _numbered(query)
    connection.execute(f"PREPARE probe AS {numbered}".encode(), prepare=False)
    connection.execute("SET plan_cache_mode = force_generic_plan")
    try:
        client = psycopg.ClientCursor(connection)
        arguments = ", ".join(["%s"] * len(names))
        execute = client.mogrify(f"EXPLAIN EXECUTE probe({arguments})", [values[n] for n in names])
        rows = connection.execute(execute.encode(), prepare=False).fetchall()
    finally:
        connection.execute("RESET plan_cache_mode")
        connection.execute("DEALLOCATE probe")
    return "\n".join(str(row[0]) for row in rows)


def custom_plan(connection: Connection, query: str, values: dict[str, object]) -> str:
    rows = psycopg.ClientCursor(connection).execute("EXPLAIN " + query, values).fetchall()
    return "\n".join(str(row[0]) for row in rows)


def bounds(prefix: str) -> dict[str, object]:
    low, high = database.prefix_bounds(prefix)
    return {"low": low, "high": high}


Queries = dict[str, tuple[str, dict[str, object]]]
REPEATED: Queries = {
    "the records of a folder": (store.NAMES_QUERY, {**bounds("forge/"), "after": 7}),
    "a folder deleted": (store.DELETE_FOLDER_QUERY, bounds("forge/")),
    "when a turn mail was accepted": (
        table.ACCEPTED_AT_QUERY,
        {**bounds("g7-0042-alice-report-"), "game": "g7"},
    ),
    "whether a turn mail is pending": (table.IS_PENDING_QUERY, bounds("g7-0042-alice-report-")),
    "the earliest deadline job": (health.EARLIEST_DEADLINE_QUERY, bounds("deadline:")),
}
WEEKS_AGO = datetime.now(UTC) - timedelta(days=10)
DAILY: Queries = {
    "the mail to empty": (table.PRUNE_QUERY, {"before": WEEKS_AGO}),
    "the deliveries to forget": (deliveries.PRUNE_QUERY, {"before": WEEKS_AGO}),
    "the inbound records to forget": (inbound_records.PRUNE_QUERY, {"before": WEEKS_AGO}),
}


@pytest.mark.parametrize("what", REPEATED)
def test_a_repeated_query_takes_an_index_in_its_generic_plan(filled: Connection, what: str) -> None:
    query, values = REPEATED[what]
    plan = generic_plan(filled, query, values)
    assert "Seq Scan" not in plan and "Index" in plan, plan


@pytest.mark.parametrize("what", DAILY)
def test_the_prune_takes_an_index(filled: Connection, what: str) -> None:
    query, values = DAILY[what]
    plan = custom_plan(filled, query, values)
    assert "Seq Scan" not in plan and "Index" in plan, plan


def test_a_prefix_range_holds_exactly_the_names_that_start_with_it() -> None:
    assert database.prefix_bounds("mail/ledger/") == ("mail/ledger/", "mail/ledger0")
    assert database.prefix_bounds("a\U0010ffff") == ("a\U0010ffff", "b")
    assert database.prefix_bounds("\ud7ff"[0]) == ("\ud7ff", "\ue000")
    with pytest.raises(ValueError):
        database.prefix_bounds("")
