"""The outbox in PostgreSQL mode: the table `pamir_outbox` (docs/cluster.md).

With no database configured the outbox is files under PAMIR_HOME/outbox/
(`adjudicator.mail.outbox.files`); with one, it is `TableOutbox`, which keeps the same
rules in rows: a message is queued once per key (the key is unique), sent when due,
retried with the same back-off, refused for good (state `failed`, the operator alerted
once), dropped when its deadline passed (`expired`), and the time the server accepted it is
kept in the row (`accepted_at`).

Any node sends, and none sends a message twice: a node claims one due row at a time, in a
statement of its own (`FOR UPDATE SKIP LOCKED`: nodes claiming at once get different rows
and never wait for each other), by writing its claim and a lease (`claimed_by`,
`claimed_until`, `outbox_lease_seconds` away, longer than one SMTP transaction takes). It then
sends the message, holding no transaction, and marks the row sent only if its claim is
still there. Claimed rows are sent over up to `smtp_connections` sessions at once, each
recipient's in order on one (adjudicator.mail.sessions); a row that waited behind its
recipient's earlier ones has its lease renewed before it is sent. A node that dies while
it holds a claim leaves a lease that expires: another node sends the message after the
lease. The one window left is the usual one of SMTP: the
server accepted the message and the node died (or lost the database) before its mark was
written; the message is then sent again once the lease expires. It is at most one
duplicate per message and per dead node, never a lost message.

With no smtp_host configured, the delivering node writes each message to its own
PAMIR_HOME/outbox/written/ (as in embedded mode, for an operator to read) and marks the row
`written`. The paths these functions return name the rows as the files would be named
(`PAMIR_HOME/outbox/STATE/NAME.eml`); only written messages exist as files.

Imported only in PostgreSQL mode (`adjudicator.mail.outbox.of`), so that the embedded mode
never loads the database client.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import smtplib
import time
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import psycopg

from adjudicator.home import database
from adjudicator.home.faults import fault
from adjudicator.home.files import write_atomically
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
    Pruned,
    Tally,
    Undeliverable,
    Waiting,
    alert_failure,
    crlf,
    deadline_passed,
    envelope,
    failure_record,
    header_block,
    message_bytes,
    permanent_refusal,
    retry_delay,
)
from adjudicator.mail.outbox.folders import state_folder
from adjudicator.mail.records import FAILURE
from adjudicator.mail.sessions import SessionLost, send_over_sessions
from adjudicator.mail.smtp import connect, release

log = logging.getLogger(__name__)

Row = tuple[Any, ...]


def _path(settings: Settings, state: str, name: str) -> Path:
    return settings.outbox_dir / state / name


# -- queuing -------------------------------------------------------------------------------


def queue(settings: Settings, message: EmailMessage, key: str | None) -> Path:
    """Insert the message as a pending row; with a key already in the table (in whatever
    state), keep the first message and return its path."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    game = str(message.get("X-Pamir-Game", "pamir"))
    player = str(message.get("X-Pamir-Player", "someone"))
    number = int(str(message.get("X-Pamir-Move", "0")))
    if key is None:  # a message of its own: a key nobody else has
        key = f"{game}-{number:04d}-{player}-{secrets.token_hex(4)}"
    name = f"{stamp}-{key}.eml"
    with database.connection(settings) as connection:
        row = connection.execute(
            "INSERT INTO pamir_outbox (message_key, name, game_id, player, message)"
            " VALUES (%s, %s, %s, %s, %s) ON CONFLICT (message_key) DO NOTHING RETURNING name",
            (key, name, game, player, message.as_bytes()),
        ).fetchone()
        if row is not None:
            return _path(settings, PENDING, str(row[0]))
    found = queued(settings, key)
    assert found is not None  # the conflicting row; rows are never deleted
    return found


def queue_many(
    settings: Settings, messages: Sequence[tuple[EmailMessage | bytes, str]]
) -> list[Path]:
    """Insert the messages as pending rows in one statement (a key already in the table, or
    earlier in `messages`, keeps its first message); return their paths in order."""
    stamp = datetime.now(UTC)
    rows: dict[str, tuple[str, str, str, str, bytes]] = {}
    for message, key in messages:
        if key not in rows:  # names a microsecond apart keep the order given
            at = stamp + timedelta(microseconds=len(rows))
            headers = message if isinstance(message, EmailMessage) else header_block(message)
            game = str(headers.get("X-Pamir-Game", "pamir"))
            player = str(headers.get("X-Pamir-Player", "someone"))
            name = f"{at.strftime('%Y%m%dT%H%M%S%f')}-{key}.eml"
            rows[key] = (key, name, game, player, message_bytes(message))
    if not rows:
        return []
    with database.connection(settings) as connection:
        connection.execute(
            "INSERT INTO pamir_outbox (message_key, name, game_id, player, message) VALUES "
            + ", ".join(["(%s, %s, %s, %s, %s)"] * len(rows))
            + " ON CONFLICT (message_key) DO NOTHING",
            [value for row in rows.values() for value in row],
        )
        found = connection.execute(
            "SELECT message_key, state, name FROM pamir_outbox WHERE message_key = ANY(%s)",
            (list(rows),),
        ).fetchall()
    paths = {str(key): _path(settings, str(state), str(name)) for key, state, name in found}
    return [paths[key] for _, key in messages]


def queued(settings: Settings, key: str) -> Path | None:
    """The path of the message queued under this key (in any state), if any."""
    with database.connection(settings) as connection:
        row = connection.execute(
            "SELECT state, name FROM pamir_outbox WHERE message_key = %s", (key,)
        ).fetchone()
    return None if row is None else _path(settings, str(row[0]), str(row[1]))


# -- what the outbox holds -----------------------------------------------------------------


def messages_in(settings: Settings, state: str) -> list[Path]:
    """The messages in a state, oldest first."""
    with database.connection(settings) as connection:
        rows = connection.execute(
            "SELECT name FROM pamir_outbox WHERE state = %s ORDER BY id", (state,)
        ).fetchall()
    return [_path(settings, state, str(name)) for (name,) in rows]


def counts(settings: Settings) -> dict[str, int]:
    """How many messages are in each state (`pamir outbox`, `pamir nodes`)."""
    with database.connection(settings) as connection:
        rows = connection.execute(
            "SELECT state, count(*) FROM pamir_outbox GROUP BY state"
        ).fetchall()
    found = {state: 0 for state in (PENDING, SENT, WRITTEN, FAILED, EXPIRED)}
    found.update({str(state): int(str(n)) for state, n in rows})
    return found


def backlog(settings: Settings) -> Backlog:
    """The pending messages, found by the index of pending rows, and those refused for
    good, by the index of states (the table keeps a row for every message sent)."""
    with database.connection(settings) as connection:
        pending = connection.execute(
            "SELECT count(*), min(queued_at) FROM pamir_outbox WHERE state = 'pending'"
        ).fetchone()
        failed = connection.execute(
            "SELECT count(*) FROM pamir_outbox WHERE state = 'failed'"
        ).fetchone()
    assert pending is not None and failed is not None
    oldest = pending[1] if isinstance(pending[1], datetime) else None
    return Backlog(int(str(pending[0])), int(str(failed[0])), oldest)


def retries(settings: Settings) -> list[Waiting]:
    """The pending messages that failed at least once, oldest first."""
    with database.connection(settings) as connection:
        rows = connection.execute(
            "SELECT name, attempts, next_attempt, last_error FROM pamir_outbox"
            " WHERE state = 'pending' AND attempts > 0 ORDER BY id"
        ).fetchall()
    return [Waiting(str(n), int(str(a)), when, err) for n, a, when, err in rows]  # type: ignore[arg-type]


def failures(settings: Settings, game_id: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    """The messages refused for good (of one game, or all), oldest first, with their
    records (reason, recipients, failed_at, game, player)."""
    query = "SELECT name, failure FROM pamir_outbox WHERE state = 'failed'"
    values: tuple[str, ...] = ()
    if game_id is not None:
        query += " AND game_id = %s"
        values = (game_id,)
    with database.connection(settings) as connection:
        rows = connection.execute(query + " ORDER BY id", values).fetchall()
    return [(str(name), _failure(str(name), record)) for name, record in rows]


def _failure(name: str, record: object) -> dict[str, Any]:
    """A row's failure record, checked ({} for a row failed before records were kept)."""
    if not record:
        return {}
    found: dict[str, Any] = FAILURE.plain(FAILURE.check(name, record))
    return found


def undeliverable(settings: Settings, game_id: str) -> list[Undeliverable]:
    return [
        Undeliverable(
            str(info.get("player", "")),
            tuple(str(r) for r in info.get("recipients", [])),
            str(info.get("reason", "")),
            str(info.get("failed_at", "")),
        )
        for _, info in failures(settings, game_id)
    ]


# The keys that start with a prefix: a range under the "C" collation, which migration 6's
# indexes serve in every plan (database.prefix_bounds), and the exact test beside it.
_KEY_STARTS = (
    'message_key COLLATE "C" >= %(low)s AND message_key COLLATE "C" < %(high)s'
    " AND starts_with(message_key, %(low)s)"
)
ACCEPTED_AT_QUERY = (
    "SELECT max(accepted_at) FROM pamir_outbox WHERE game_id = %(game)s AND " + _KEY_STARTS
)
IS_PENDING_QUERY = (
    "SELECT EXISTS (SELECT 1 FROM pamir_outbox WHERE state = 'pending' AND " + _KEY_STARTS + ")"
)
# By the partial index pamir_outbox_prunable; the sizes read before the update empties them.
PRUNE_QUERY = (
    "WITH old AS (SELECT id, octet_length(message) AS size FROM pamir_outbox"
    " WHERE pruned_at IS NULL AND state IN ('sent', 'written', 'expired')"
    " AND done_at < %(before)s FOR UPDATE),"
    " emptied AS (UPDATE pamir_outbox AS o SET message = '', last_error = NULL,"
    " pruned_at = now() FROM old WHERE o.id = old.id RETURNING old.size)"
    " SELECT count(*), coalesce(sum(size), 0) FROM emptied"
)


def _prefix(prefix: str) -> dict[str, str]:
    return dict(zip(("low", "high"), database.prefix_bounds(prefix), strict=True))


def accepted_at(settings: Settings, game_id: str, prefix: str) -> datetime | None:
    with database.connection(settings) as connection:
        row = connection.execute(ACCEPTED_AT_QUERY, {**_prefix(prefix), "game": game_id}).fetchone()
    found = row[0] if row else None
    return found if isinstance(found, datetime) else None


def is_pending(settings: Settings, prefix: str) -> bool:
    with database.connection(settings) as connection:
        row = connection.execute(IS_PENDING_QUERY, _prefix(prefix)).fetchone()
    return bool(row and row[0])


def prune(settings: Settings, before: datetime) -> Pruned:
    """Empty the messages sent, written or expired before `before`, keeping each row (its
    key, never queued again; its times, which the players' clocks read): how many, bytes."""
    with database.connection(settings) as connection:
        row = connection.execute(PRUNE_QUERY, {"before": before}).fetchone()
    assert row is not None
    return Pruned(int(str(row[0])), int(str(row[1])))


# -- delivering ----------------------------------------------------------------------------

# A row whose lease ran out is anyone's again, except this run's own: the run still has it
# in hand (waiting behind its recipient's earlier mail), and claiming it a second time
# would send it twice.
_DUE = (
    "state = 'pending' AND (%(force)s OR next_attempt IS NULL OR next_attempt <= %(now)s)"
    " AND (claimed_until IS NULL OR claimed_until < now())"
    " AND claimed_by IS DISTINCT FROM %(owner)s"
)


class Claims:
    """One delivery run's claims, under a name no other run has."""

    def __init__(self, settings: Settings, now: datetime, force: bool) -> None:
        self.settings = settings
        self.now = now
        self.force = force
        self.owner = f"{database.node_name(settings)} {os.getpid()} {secrets.token_hex(4)}"
        self.lease = timedelta(seconds=settings.outbox_lease_seconds)

    def _values(self) -> dict[str, Any]:
        return {"force": self.force, "now": self.now, "owner": self.owner, "lease": self.lease}

    def next(self) -> Row | None:
        """Claim the oldest due message no one holds: (id, name, message, attempts)."""
        with database.connection(self.settings) as connection:
            return connection.execute(
                "UPDATE pamir_outbox SET claimed_by = %(owner)s,"
                " claimed_until = now() + %(lease)s"
                " WHERE id = (SELECT id FROM pamir_outbox WHERE " + _DUE + " ORDER BY id"
                " LIMIT 1 FOR UPDATE SKIP LOCKED)"
                " RETURNING id, name, message, attempts",
                self._values(),
            ).fetchone()

    def finish(self, row: Row, state: str, **columns: Any) -> bool:
        """Move a claimed row to `state` (setting `columns` too) and let go of it; False
        when the claim was no longer this run's (its lease expired and another took it)."""
        assignments = "".join(f", {column} = %({column})s" for column in columns)
        with database.connection(self.settings) as connection:
            done = connection.execute(
                "UPDATE pamir_outbox SET state = %(state)s, done_at = now(),"
                " claimed_by = NULL, claimed_until = NULL" + assignments + " WHERE id = %(id)s"
                " AND claimed_by = %(owner)s RETURNING id",
                {**self._values(), **columns, "state": state, "id": row[0]},
            ).fetchone()
        if done is None:
            log.error("mail %s: its claim expired while it was being sent", row[1])
        return done is not None

    def defer(self, row: Row, error: str) -> None:
        """Let go of a claimed row, to be tried again after the back-off."""
        attempts = int(row[3]) + 1
        later = self.now + timedelta(seconds=retry_delay(self.settings, attempts))
        with database.connection(self.settings) as connection:
            connection.execute(
                "UPDATE pamir_outbox SET attempts = %s, next_attempt = %s, last_error = %s,"
                " claimed_by = NULL, claimed_until = NULL WHERE id = %s AND claimed_by = %s",
                (attempts, later, error, row[0], self.owner),
            )
        log.warning(
            "mail %s not delivered (attempt %d: %s); next attempt at %s",
            row[1],
            attempts,
            error,
            later.isoformat(),
        )

    def count_due(self, most: int) -> int:
        """How many more due messages no one holds (counted up to `most`)."""
        with database.connection(self.settings) as connection:
            row = connection.execute(
                "SELECT count(*) FROM (SELECT 1 FROM pamir_outbox WHERE " + _DUE + " LIMIT "
                f"{int(most)}) AS due",
                self._values(),
            ).fetchone()
        return int(str(row[0])) if row else 0

    def renewed(self, claimed: _Claimed) -> bool:
        """Whether the claim still holds, for a full lease from now if the row waited behind
        another message to its recipient (the lease must cover its SMTP transaction)."""
        if time.monotonic() - claimed.at < self.lease.total_seconds() / 4:
            return True
        with database.connection(self.settings) as connection:
            held = connection.execute(
                "UPDATE pamir_outbox SET claimed_until = now() + %(lease)s"
                " WHERE id = %(id)s AND claimed_by = %(owner)s RETURNING id",
                {**self._values(), "id": claimed.row[0]},
            ).fetchone()
        if held is None:
            log.error("mail %s: its claim expired before it was sent", claimed.row[1])
        return held is not None

    def defer_all(self, error: str) -> list[Path]:
        """Put off every due message no one holds (the mail server cannot be reached)."""
        values = {**self._values(), "error": error, "first": self.settings.outbox_retry_seconds}
        # retry_delay in one statement: SET reads the attempts before the increment.
        with database.connection(self.settings) as connection:
            rows = connection.execute(
                "UPDATE pamir_outbox SET attempts = attempts + 1, last_error = %(error)s,"
                " next_attempt = %(now)s + least(%(first)s * power(2, attempts),"
                f" {MAX_RETRY_SECONDS}) * interval '1 second'"
                " WHERE " + _DUE + " RETURNING name",
                values,
            ).fetchall()
        return [_path(self.settings, PENDING, str(name)) for (name,) in rows]

    def waiting(self) -> list[Path]:
        """The pending messages not due yet."""
        with database.connection(self.settings) as connection:
            rows = connection.execute(
                "SELECT name FROM pamir_outbox WHERE state = 'pending'"
                " AND NOT %(force)s AND next_attempt > %(now)s ORDER BY id",
                self._values(),
            ).fetchall()
        return [_path(self.settings, PENDING, str(name)) for (name,) in rows]


def deliver(settings: Settings, now: datetime, force: bool) -> DeliveryReport:
    """Send the due messages no other node holds, one claim at a time (see the module's
    documentation); with no smtp_host, write them to this node's outbox/written/."""
    report = DeliveryReport()
    claims = Claims(settings, now, force)
    try:
        row = claims.next()
    except psycopg.Error as error:
        raise database.DatabaseError(f"cannot read the outbox: {error}") from None
    if row is None:
        report.waiting = claims.waiting()
        return report
    if settings.smtp_host is None:
        while row is not None:
            report.written.append(_write(settings, claims, row))
            row = claims.next()
        return report
    fault("before-send")
    _send_claimed(settings, claims, row, report)
    report.waiting = claims.waiting()
    return report


@dataclass(frozen=True)
class _Claimed:
    """A claimed row, and when it was claimed (its lease is renewed if it waited)."""

    row: Row
    at: float


def _send_claimed(settings: Settings, claims: Claims, first: Row, report: DeliveryReport) -> None:
    """Send `first` and the rows claimed after it over up to `smtp_connections` sessions,
    each recipient's in order (adjudicator.mail.sessions), claiming one row at a time."""
    tally = Tally()
    unsent = [_Claimed(first, time.monotonic())]

    def source() -> _Claimed | None:
        if unsent:
            return unsent.pop()
        row = claims.next()
        return None if row is None else _Claimed(row, time.monotonic())

    def send(smtp: smtplib.SMTP, claimed: _Claimed) -> None:
        if claims.renewed(claimed):
            _send(settings, claims, smtp, claimed.row, tally)

    def lose(claimed: _Claimed, error: str) -> None:
        claims.defer(claimed.row, f"session lost: {error}")
        tally.add(claimed.row[0], "deferred", _path(settings, PENDING, str(claimed.row[1])))

    try:
        outcome = send_over_sessions(
            min(settings.smtp_connections, 1 + claims.count_due(settings.smtp_connections)),
            lambda: connect(settings),
            source,
            lambda claimed: envelope(settings, bytes(claimed.row[2]))[1],
            send,
            lose,
            lambda smtp, usable: release(settings, smtp, usable=usable),
        )
        if not outcome.emptied and not outcome.opened:  # the server cannot be reached
            where = f"{settings.smtp_host}:{settings.smtp_port}"
            reason = f"cannot reach {where}: {outcome.unreachable}"
            tally.add(-1, "errors", reason)
            for claimed in unsent:
                claims.defer(claimed.row, reason)
                tally.add(claimed.row[0], "deferred", _path(settings, PENDING, str(claimed.row[1])))
            report.deferred.extend(claims.defer_all(reason))
        elif not outcome.emptied:  # every session broke: the rest waits
            report.deferred.extend(claims.defer_all(f"session lost: {outcome.lost}"))
    finally:
        leftover = report.deferred
        report.deferred = []
        tally.into(report)
        report.deferred.extend(leftover)


def _write(settings: Settings, claims: Claims, row: Row) -> Path:
    target = state_folder(settings, WRITTEN) / str(row[1])
    write_atomically(target, bytes(row[2]))
    claims.finish(row, WRITTEN)
    log.info("no smtp_host configured: mail written to %s", target)
    return target


def _send(settings: Settings, claims: Claims, smtp: smtplib.SMTP, row: Row, tally: Tally) -> None:
    """Send one claimed message; `SessionLost` when the SMTP session broke (the message is
    deferred, and so are the others the session had left)."""
    name, data, order = str(row[1]), bytes(row[2]), int(row[0])
    sender, recipients = envelope(settings, data)
    if deadline_passed(data, claims.now):
        claims.finish(row, EXPIRED)
        tally.add(order, "expired", _path(settings, EXPIRED, name))
        log.info("mail %s not sent: its deadline has passed", name)
        return
    try:
        smtp.sendmail(sender, recipients, crlf(data))
    except (
        smtplib.SMTPRecipientsRefused,
        smtplib.SMTPSenderRefused,
        smtplib.SMTPDataError,
    ) as error:
        tally.add(order, "errors", f"{name}: {error}")
        permanent = permanent_refusal(error)
        if permanent is None:
            claims.defer(row, str(error))
            tally.add(order, "deferred", _path(settings, PENDING, name))
        else:
            tally.add(order, "failed", _fail(settings, claims, row, permanent, recipients))
        with suppress(OSError, smtplib.SMTPException):
            smtp.rset()
        return
    except (OSError, smtplib.SMTPException) as error:
        tally.add(order, "errors", f"{name}: {error}")
        claims.defer(row, f"session lost: {error}")
        tally.add(order, "deferred", _path(settings, PENDING, name))
        raise SessionLost(str(error)) from None
    # Accepted by the server. Until the mark below is written, a death of this node makes
    # the message go out again once its lease expires: the one at-least-once window.
    fault("after-send")
    claims.finish(row, SENT, accepted_at=claims.now)
    tally.add(order, "sent", _path(settings, SENT, name))
    log.info("mail %s sent to %s", name, ", ".join(recipients))


def _fail(settings: Settings, claims: Claims, row: Row, reason: str, recipients: list[str]) -> Path:
    record = failure_record(bytes(row[2]), reason, recipients, claims.now)
    target = _path(settings, FAILED, str(row[1]))
    alert_failure(
        settings, TableOutbox(settings), target.name, TableOutbox.where_named(target), record
    )
    failure = FAILURE.plain(FAILURE.check(str(row[1]), record))
    claims.finish(row, FAILED, failure=json.dumps(failure), last_error=reason)
    log.error("mail %s to %s cannot be delivered: %s", row[1], ", ".join(recipients), reason)
    return target


class TableOutbox:
    """The outbox as the rows of `pamir_outbox` (PostgreSQL mode)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @staticmethod
    def where_named(path: Path) -> str:
        return f"{path.name} (table pamir_outbox)"

    def where(self, path: Path) -> str:
        return self.where_named(path)

    def listing(self) -> str:
        return "table pamir_outbox"

    def counts(self) -> dict[str, int]:
        return counts(self.settings)

    def retries(self) -> list[Waiting]:
        return retries(self.settings)

    def failures(self) -> list[tuple[str, dict[str, Any]]]:
        return failures(self.settings)

    def messages_in(self, state: str) -> list[Path]:
        return messages_in(self.settings, state)

    def backlog(self) -> Backlog:
        return backlog(self.settings)

    def queued(self, key: str) -> Path | None:
        return queued(self.settings, key)

    def queue(self, message: EmailMessage, key: str | None = None) -> Path:
        return queue(self.settings, message, key)

    def queue_many(self, messages: Sequence[tuple[EmailMessage | bytes, str]]) -> list[Path]:
        return queue_many(self.settings, messages)

    def undeliverable(self, game_id: str) -> list[Undeliverable]:
        return undeliverable(self.settings, game_id)

    def accepted_at(self, game_id: str, prefix: str) -> datetime | None:
        return accepted_at(self.settings, game_id, prefix)

    def is_pending(self, prefix: str) -> bool:
        return is_pending(self.settings, prefix)

    def deliver(self, now: datetime, force: bool) -> DeliveryReport:
        return deliver(self.settings, now, force)

    def prune(self, before: datetime) -> Pruned:
        return prune(self.settings, before)
