"""The retention (docs/email.md#retention), in both modes on real files and a real
PostgreSQL server: the mail sent is emptied after `retention_days` and its key still
refuses a second copy; the inbound messages' records and the webhook deliveries are
forgotten, those still pending kept; `pamir prune` and the scheduler's job do it.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from gitgame import pamir
from mailserver import settings_for
from pgserver import SECRET_KEY, scratch_database
from test_cluster import secret_key  # noqa: F401 - the fixture: the key of the database's secrets

from adjudicator.forge.deliveries import deliveries
from adjudicator.home import database
from adjudicator.home.settings import Settings
from adjudicator.mail import inbound_records, outbox
from adjudicator.schedule.jobs import utc_now
from adjudicator.schedule.retention import prune
from adjudicator.schedule.scheduler import PRUNE_JOB, build_scheduler

pytestmark = pytest.mark.usefixtures("home", "secret_key")

KEYS = [f"g1-{n:04d}-alice-report-{n:012x}" for n in range(1, 6)]
LATER = timedelta(days=31)  # past the default retention of 30 days


@pytest.fixture(params=["embedded", "postgresql"])
def settings(request: pytest.FixtureRequest, home: Path) -> Iterator[Settings]:
    """A service with no smtp_host (its messages are written), in either mode."""
    if request.param == "embedded":
        yield settings_for(home, None)
        return
    with scratch_database() as url:
        found = settings_for(home, None, database_url=url, secret_key=SECRET_KEY)
        database.upgrade(found)
        yield found


def message(number: int) -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = "pamir@pamir.example"
    mail["To"] = "alice@players.example"
    mail["Subject"] = f"message {number}"
    mail["X-Pamir-Game"] = "g1"
    mail["X-Pamir-Player"] = "alice"
    mail["X-Pamir-Move"] = str(number)
    mail.set_content("x" * 20_000 + "\n")
    return mail


def test_mail_sent_is_emptied_and_its_key_still_refuses_a_second_copy(settings: Settings) -> None:
    box = outbox.of(settings)
    box.queue_many([(message(n), key) for n, key in enumerate(KEYS, 1)])
    assert len(outbox.deliver(settings).written) == len(KEYS)
    assert prune(settings).messages == 0  # nothing is old yet

    done = prune(settings, utc_now() + LATER)
    assert done.messages == len(KEYS) and done.message_bytes > 20_000 * len(KEYS)
    for key in KEYS:  # queued again after the prune: refused, as before it
        found = box.queued(key)
        assert found is not None and found.parent.name == outbox.WRITTEN
        assert box.queue(message(9), key) == found
    assert outbox.deliver(settings).written == []  # no second copy goes out
    assert box.counts()[outbox.WRITTEN] == len(KEYS)
    assert box.counts()[outbox.PENDING] == 0
    assert prune(settings, utc_now() + LATER).messages == 0  # emptied once


def test_inbound_records_and_deliveries_are_forgotten_but_pending_ones(
    settings: Settings,
) -> None:
    records = inbound_records.of(settings)
    records.write("g1", "handled", {"status": "accepted", "player": "alice"})
    records.write("g1", "underway", {"status": "pending", "player": "alice"})
    log = deliveries(settings)
    log.remember("github:delivery-1", {"game": "g1"})
    assert prune(settings).inbound == 0

    done = prune(settings, utc_now() + LATER)
    assert done.inbound == 1
    assert records.read("g1", "handled") is None
    assert records.read("g1", "underway") == {"status": "pending", "player": "alice"}
    # The database forgets deliveries by age; the file keeps the last 2,000, by count.
    forgotten = settings.database_url is not None
    assert done.deliveries == (1 if forgotten else 0)
    assert log.seen("github:delivery-1") is not forgotten


def test_pamir_prune_says_what_it_removed(settings: Settings) -> None:
    outbox.queue(settings, message(1), KEYS[0])
    env = {"PAMIR_RETENTION_DAYS": "7", "PAMIR_DATABASE_URL": settings.database_url or ""}
    done = pamir("prune", env={k: v for k, v in env.items() if v})
    assert done.returncode == 0, done.stderr
    assert "0 messages emptied (0 bytes), 0 inbound records and 0 webhook deliveries removed" in (
        done.stdout
    )


def test_the_scheduler_prunes_daily(settings: Settings) -> None:
    scheduler = build_scheduler(settings)
    job = scheduler.get_job(PRUNE_JOB)
    assert job is not None and job.trigger.interval == timedelta(hours=24)


def test_a_retention_under_a_week_is_refused(home: Path) -> None:
    with pytest.raises(ValueError, match="retention_days"):
        settings_for(home, None, retention_days=6)
