"""The retention of what the service keeps of its past work (docs/email.md#retention).

Each record the service keeps to answer a repeated request as the first time grows with
every move: the outbox holds every message sent (tens of kilobytes each), the inbound
messages' records and the webhook deliveries answered one each. After `retention_days`
(a day's job of the scheduler, and `pamir prune`):

- the outbox empties the messages sent, written or expired, keeping what says their key
  was queued (the row in PostgreSQL mode, an empty file in embedded mode), so that a
  message queued again under its key is still refused as a duplicate, and the times the
  players' clocks read; the messages refused for good are kept whole for the host;
- the records of inbound messages handled (accepted or refused) are removed: a mail
  server gives up on a message long before (5 days, as Postfix does);
- the webhook deliveries answered are removed in PostgreSQL mode (the embedded mode keeps
  the last DELIVERIES_KEPT of them, adjudicator/forge/deliveries.py): forges redeliver
  within days.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from adjudicator.forge.deliveries import deliveries
from adjudicator.home.settings import Settings
from adjudicator.mail import inbound_records, outbox
from adjudicator.schedule.jobs import utc_now

log = logging.getLogger(__name__)

PRUNE_HOURS = 24  # how often the scheduler prunes


@dataclass(frozen=True)
class Pruned:
    """What one prune removed."""

    before: datetime
    messages: int
    message_bytes: int
    inbound: int
    deliveries: int

    def describe(self) -> str:
        return (
            f"before {self.before.isoformat(timespec='seconds')}: {self.messages} messages "
            f"emptied ({self.message_bytes} bytes), {self.inbound} inbound records and "
            f"{self.deliveries} webhook deliveries removed"
        )


def prune(settings: Settings, now: datetime | None = None) -> Pruned:
    """Remove what is older than `retention_days` at `now` (default: the real time)."""
    before = (now or utc_now()) - timedelta(days=settings.retention_days)
    emptied = outbox.of(settings).prune(before)
    done = Pruned(
        before,
        emptied.messages,
        emptied.bytes,
        inbound_records.of(settings).prune(before),
        deliveries(settings).prune(before),
    )
    log.info("pruned %s", done.describe())
    return done


def prune_tick(settings: Settings) -> None:
    """The scheduler's job (a failure is logged by APScheduler, and tried a day on)."""
    prune(settings)
