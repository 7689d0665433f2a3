"""What both outboxes share: the states of a message, the `Outbox` protocol, what a
delivery run reports, the retry back-off, and the reading of a queued message's headers
and envelope.
"""

from __future__ import annotations

import hashlib
import re
import smtplib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesHeaderParser
from email.utils import getaddresses, parseaddr
from pathlib import Path
from typing import Any, Protocol

from adjudicator.home.settings import Settings
from adjudicator.mail.compose.operator import undeliverable_message

PENDING = "pending"


SENT = "sent"


WRITTEN = "written"


FAILED = "failed"  # refused for good by the mail server (5xx): never tried again


EXPIRED = "expired"  # reminders whose deadline passed before the server took them


QUEUED_TIME = "%Y%m%dT%H%M%S%f"  # a message file's name starts with when it was queued


DEADLINE_HEADER = "X-Pamir-Deadline"  # a message that is pointless after this instant


MAX_RETRY_SECONDS = 6 * 3600


@dataclass(frozen=True)
class Backlog:
    """What waits in the outbox: the messages pending and those refused for good, and
    when the oldest pending one was queued (None when none is)."""

    pending: int
    failed: int
    oldest: datetime | None


@dataclass(frozen=True)
class Waiting:
    """A pending message that failed before: how often, when it is tried next, and why."""

    name: str
    attempts: int
    next_attempt: datetime | None
    last_error: str | None


class Outbox(Protocol):
    """Where every message waits until the mail server takes it: files under
    PAMIR_HOME/outbox/ (`files.FileOutbox`) or rows of `pamir_outbox` (`table.TableOutbox`),
    with the same rules (docs/email.md#the-outbox). A message is named by its path, as the
    file is or would be named (`PAMIR_HOME/outbox/STATE/NAME.eml`)."""

    def where(self, path: Path) -> str:
        """Where an operator finds the message `path` names."""
        ...

    def messages_in(self, state: str) -> list[Path]:
        """The messages in `state` (PENDING, SENT, ...), oldest first."""
        ...

    def listing(self) -> str:
        """Where the messages are, for `pamir outbox`."""
        ...

    def counts(self) -> dict[str, int]:
        """How many messages are in each state."""
        ...

    def retries(self) -> list[Waiting]:
        """The pending messages that failed at least once, oldest first."""
        ...

    def failures(self) -> list[tuple[str, dict[str, Any]]]:
        """The messages refused for good, oldest first, with their records (reason,
        recipients, failed_at, game, player)."""
        ...

    def backlog(self) -> Backlog: ...

    def queued(self, key: str) -> Path | None:
        """The message queued under `key` (pending, sent or written), if any."""
        ...

    def queue(self, message: EmailMessage, key: str | None = None) -> Path:
        """Queue a message; with a `key` already queued, keep that one and return it."""
        ...

    def queue_many(self, messages: Sequence[tuple[EmailMessage | bytes, str]]) -> list[Path]:
        """Queue several messages, each with its key, as `queue` one after the other would."""
        ...

    def undeliverable(self, game_id: str) -> list[Undeliverable]:
        """The game's messages the server refused for good, oldest first."""
        ...

    def accepted_at(self, game_id: str, prefix: str) -> datetime | None:
        """When the server last accepted a message of the game whose key starts with
        `prefix` (None: never, as far as the record goes)."""
        ...

    def is_pending(self, prefix: str) -> bool:
        """Whether a message whose key starts with `prefix` waits to be sent."""
        ...

    def deliver(self, now: datetime, force: bool) -> DeliveryReport:
        """Send what is due at `now` (everything with `force`)."""
        ...

    def prune(self, before: datetime) -> Pruned:
        """Empty the messages sent, written or expired before `before`, keeping what
        tells their keys were queued (docs/email.md#retention)."""
        ...


@dataclass(frozen=True)
class Pruned:
    """What a prune of the outbox emptied: how many messages, and their bytes."""

    messages: int
    bytes: int


def message_bytes(message: EmailMessage | bytes) -> bytes:
    return message if isinstance(message, bytes) else message.as_bytes()


@dataclass
class DeliveryReport:
    """What one `deliver` run did with the pending messages."""

    sent: list[Path] = field(default_factory=list)  # accepted by the server (now in sent/)
    written: list[Path] = field(default_factory=list)  # no SMTP configured (now in written/)
    deferred: list[Path] = field(default_factory=list)  # failed now; retried later
    failed: list[Path] = field(default_factory=list)  # refused for good (now in failed/)
    expired: list[Path] = field(default_factory=list)  # too late to send (now in expired/)
    waiting: list[Path] = field(default_factory=list)  # not due yet
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"sent {len(self.sent)}, written {len(self.written)}, "
            f"deferred {len(self.deferred)}, failed {len(self.failed)}, "
            f"expired {len(self.expired)}, waiting {len(self.waiting)}"
        )


class Tally:
    """What a delivery run did with each message, noted from any of its sessions' threads
    and written to its DeliveryReport in the messages' order (`order`: the message's place
    among the due ones), whatever order the sessions finished in."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._noted: list[tuple[int, str, Path | str]] = []

    def add(self, order: int, outcome: str, value: Path | str) -> None:
        """`outcome`: the DeliveryReport list that `value` goes to (`sent`, `errors`, ...)."""
        with self._lock:
            self._noted.append((order, outcome, value))

    def into(self, report: DeliveryReport) -> None:
        with self._lock:  # sorted on the order alone: a message's own notes keep theirs
            for _, outcome, value in sorted(self._noted, key=lambda noted: noted[0]):
                getattr(report, outcome).append(value)


def retry_delay(settings: Settings, attempts: int) -> int:
    """Seconds to wait after the `attempts`-th failure: doubling, capped."""
    return int(min(settings.outbox_retry_seconds * 2 ** max(attempts - 1, 0), MAX_RETRY_SECONDS))


def permanent_refusal(error: smtplib.SMTPException) -> str | None:
    """The server's words when it refused a recipient or the message for good (a 5xx
    answer to RCPT or DATA), or None when trying again later may succeed (4xx). A refused
    sender is never taken as permanent: the sender is ours, the same in every message, so
    its refusal is the host's configuration to fix, not this message's fault."""
    answers: list[tuple[int, bytes | str]] = []
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        answers = list(error.recipients.values())
    elif isinstance(error, smtplib.SMTPDataError):
        answers = [(error.smtp_code, error.smtp_error)]
    if not answers or not all(500 <= code < 600 for code, _ in answers):
        return None
    return "; ".join(f"{code} {_text(words)}" for code, words in answers)


def _text(words: bytes | str) -> str:
    text = words.decode("utf-8", "replace") if isinstance(words, bytes) else words
    return " ".join(text.split())


@dataclass(frozen=True)
class Undeliverable:
    """A player of a game whose mail the server refused for good."""

    player: str
    recipients: tuple[str, ...]
    reason: str
    failed_at: str


def failure_record(
    data: bytes, reason: str, recipients: list[str], now: datetime
) -> dict[str, Any]:
    """What is kept of a message refused for good (`data`), and what the host is told."""
    headers = header_block(data)
    return {
        "reason": reason,
        "recipients": recipients,
        "failed_at": now.isoformat(),
        "game": str(headers.get("X-Pamir-Game", "")),
        "player": str(headers.get("X-Pamir-Player", "")),
    }


def alert_failure(
    settings: Settings, outbox: Outbox, name: str, where: str, record: dict[str, Any]
) -> None:
    """Queue the host's alert of the message `name` (kept at `where`) refused for good,
    before the message is marked failed: a crash between the two leaves the message
    pending, to fail again, and the alert's key keeps it from being queued twice. Nothing
    without an `operator_email`; a refused alert begets no other."""
    if settings.operator_email is None or record["player"] == "operator":
        return
    key = "operator-undeliverable-" + hashlib.sha256(name.encode()).hexdigest()[:12]
    if outbox.queued(key) is None:
        outbox.queue(undeliverable_message(settings, where, record), key)


BLANK_LINE = re.compile(rb"\r?\n\r?\n")


def header_block(data: bytes) -> EmailMessage:
    """A message's headers, parsed from the bytes before its first blank line only: the
    parser reads every line it is given, and a report's body (its picture in base64) is
    about a hundred times longer than its headers."""
    end = BLANK_LINE.search(data)
    head = data if end is None else data[: end.end()]
    headers = BytesHeaderParser(policy=policy.default).parsebytes(head)
    assert isinstance(headers, EmailMessage)
    return headers


def deadline_passed(data: bytes, now: datetime, headers: EmailMessage | None = None) -> bool:
    """A reminder is pointless once its deadline has passed: what was played instead
    reaches the player in the report of the move made for them. (`headers`: the message's,
    when the caller parsed them already.)"""
    headers = header_block(data) if headers is None else headers
    value = headers.get(DEADLINE_HEADER)
    if value is None:
        return False
    try:
        return datetime.fromisoformat(str(value).strip()) <= now
    except ValueError:
        return False


def envelope(
    settings: Settings, data: bytes, headers: EmailMessage | None = None
) -> tuple[str, list[str]]:
    """The sender and the recipients of a message (`headers`: its, if parsed already)."""
    headers = header_block(data) if headers is None else headers
    recipients = [a for _, a in getaddresses([str(v) for v in headers.get_all("To", [])]) if a]
    return parseaddr(settings.mail_from)[1] or settings.mail_from, recipients


def crlf(data: bytes) -> bytes:
    """SMTP's line endings (smtplib sends bytes as they are; .eml files use newlines).
    Two replaces instead of a regular expression: a report's hundreds of base64 lines
    took the expression about a millisecond."""
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
