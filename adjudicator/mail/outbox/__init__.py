"""The outbox: every message the service sends waits here until the mail server takes it.

A message is first queued (written whole, under a key when it has one: see
`compose.messages.message_key`, so that queuing it again after a crash makes no second
copy), then sent by `deliver` over SMTP. One the server did not take waits for a retry,
the wait doubling after each failure from `outbox_retry_seconds` up to
MAX_RETRY_SECONDS; one refused for good (5xx) is kept as failed and the operator told
once; a reminder whose deadline passed is dropped as expired. With no `smtp_host`
configured, messages are written out for the operator to read instead. docs/email.md
describes it all for players and operators.

There are two implementations of `Outbox`, and the service's backend picks one when the
outbox is first used (adjudicator/home/backend.py): files under PAMIR_HOME/outbox/
(`files.FileOutbox`), or in PostgreSQL mode the rows of `pamir_outbox`, which any node
sends from (`table.TableOutbox`). The functions below are the outbox of the settings given.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

from adjudicator.home import backend, metrics
from adjudicator.home.settings import Settings
from adjudicator.mail.outbox.common import (
    EXPIRED,
    FAILED,
    MAX_RETRY_SECONDS,
    PENDING,
    SENT,
    WRITTEN,
    Backlog,
    DeliveryReport,
    Outbox,
    Undeliverable,
)
from adjudicator.mail.outbox.files import FileOutbox

__all__ = [
    "EXPIRED",
    "FAILED",
    "MAX_RETRY_SECONDS",
    "PENDING",
    "SENT",
    "WRITTEN",
    "Backlog",
    "DeliveryReport",
    "Outbox",
    "Undeliverable",
    "accepted_at",
    "backlog",
    "deliver",
    "is_pending",
    "messages_in",
    "of",
    "queue",
    "queue_many",
    "queued",
    "undeliverable",
]


OUTBOX: backend.Kind[Outbox] = backend.Kind("mail.outbox")


def _table(settings: Settings) -> Outbox:
    # Imported here: only PostgreSQL mode loads the database client.
    from adjudicator.mail.outbox.table import TableOutbox

    return TableOutbox(settings)


def of(settings: Settings) -> Outbox:
    """The outbox of these settings' mode."""
    return backend.of(settings).service(OUTBOX, FileOutbox, _table)


def messages_in(settings: Settings, state: str) -> list[Path]:
    """The messages in `state` (PENDING, SENT, ...), oldest first (names start with the
    time they were queued)."""
    return of(settings).messages_in(state)


def backlog(settings: Settings) -> Backlog:
    """What waits: for /metrics (the messages sent or written, which only grow, are not read)."""
    return of(settings).backlog()


def queued(settings: Settings, key: str) -> Path | None:
    """The message queued under `key` (pending, sent or written), if any."""
    return of(settings).queued(key)


def queue(settings: Settings, message: EmailMessage, key: str | None = None) -> Path:
    """Queue a message (written atomically); return its path. With a `key`, a message
    already queued (or sent, or written) under it is kept and its path returned."""
    return of(settings).queue(message, key)


def queue_many(
    settings: Settings, messages: Sequence[tuple[EmailMessage | bytes, str]]
) -> list[Path]:
    """Queue several messages, each with its key, as `queue` would one after the other (a
    key already queued, or earlier in `messages`, keeps its first message); return their
    paths in order. None is told queued before all are."""
    return of(settings).queue_many(messages)


def undeliverable(settings: Settings, game_id: str) -> list[Undeliverable]:
    """The game's messages the server refused for good, oldest first."""
    return of(settings).undeliverable(game_id)


def accepted_at(settings: Settings, game_id: str, prefix: str) -> datetime | None:
    """When the server last accepted a message of the game whose key starts with
    `prefix`, or None if it never did (as far as the record goes)."""
    return of(settings).accepted_at(game_id, prefix)


def is_pending(settings: Settings, prefix: str) -> bool:
    """Whether a message whose key starts with `prefix` waits to be sent."""
    return of(settings).is_pending(prefix)


def deliver(
    settings: Settings, now: datetime | None = None, *, force: bool = False
) -> DeliveryReport:
    """Send the pending messages that are due (all of them with `force`). With no
    smtp_host, write them all out and log where they are. The messages the server did not
    take are counted for /metrics."""
    report = of(settings).deliver(now or datetime.now(UTC), force)
    metrics.smtp_failures(len(report.deferred) + len(report.failed))
    return report
