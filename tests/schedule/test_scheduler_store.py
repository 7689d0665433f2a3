"""The scheduler's jobs in APScheduler's SQLAlchemy job store (PostgreSQL mode), on a real
server: the leader stores its jobs, and a job stored under one leader is run by the next
when the first is killed (docs/cluster.md#the-scheduler).
"""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from apscheduler.schedulers.background import (  # type: ignore[import-untyped, unused-ignore]
    BackgroundScheduler,
)
from apscheduler.triggers.date import DateTrigger  # type: ignore[import-untyped, unused-ignore]
from pgserver import Node, scratch_database, wait_for
from test_cluster import (
    leader,
    node_env,
    secret_key,  # noqa: F401 - the fixture: the key of the database's secrets
)

from adjudicator.home import database
from adjudicator.home.settings import Settings, load_settings
from adjudicator.schedule import jobstore
from adjudicator.schedule import scheduler as sched

pytestmark = pytest.mark.usefixtures("home", "secret_key")


@pytest.fixture
def clustered(home: Path) -> Iterator[Settings]:
    with scratch_database() as url:
        settings = load_settings({"home": home, "database_url": url})
        database.upgrade(settings)
        yield settings


def stored(url: str) -> dict[str, dict[str, object]]:
    """The jobs in the store: id -> the job's pickled state."""
    with psycopg.connect(url) as connection:
        rows = connection.execute(f"SELECT id, job_state FROM {jobstore.JOBS_TABLE}").fetchall()
    return {str(key): pickle.loads(bytes(state)) for key, state in rows}


def store_probe(settings: Settings, when: datetime) -> None:
    """Put a job in the store as a leader would: the outbox job once more, at `when`."""
    store = jobstore.job_store(settings)
    writer = BackgroundScheduler(jobstores={"default": store}, timezone=UTC)
    writer.add_job(
        sched.run_stored,
        DateTrigger(run_date=when, timezone=UTC),
        args=["mail_tick"],
        id="probe",
    )
    writer.start(paused=True)  # writes the job, runs nothing
    writer.shutdown(wait=True)
    store.engine.dispose()


def test_the_jobs_are_stored_and_the_next_leader_runs_them(clustered: Settings) -> None:
    url = str(clustered.database_url)
    env = node_env(url, 1)
    nodes = {name: Node(name, clustered.home, env, scheduler=True) for name in ("n1", "n2")}
    try:
        wait_for(lambda: leader(url) is not None, 20, "a scheduler leader")
        wait_for(lambda: sched.POLL_JOB in stored(url), 20, "the leader's jobs in the store")
        jobs = stored(url)
        assert {sched.POLL_JOB, sched.WATCH_JOB, sched.OUTBOX_JOB, sched.DIGEST_JOB} <= set(jobs)
        for job in jobs.values():  # only plain arguments: no settings, no scheduler
            assert job["func"] == "adjudicator.schedule.scheduler:run_stored"
            assert all(isinstance(a, str) for a in job["args"]), job["args"]  # type: ignore[attr-defined]

        store_probe(clustered, datetime.now(UTC) + timedelta(seconds=6))
        first = str(leader(url))
        nodes[first].kill()  # before the probe is due: the next leader must run it
        other = next(name for name in nodes if name != first)
        wait_for(lambda: leader(url) == other, 20, f"{other} to take over")
        assert "probe" in stored(url)
        # A job run at its date leaves the store: run by the new leader.
        wait_for(lambda: "probe" not in stored(url), 30, "the new leader to run the probe")
        assert sched.POLL_JOB in stored(url)
    finally:
        for node in nodes.values():
            node.stop()
