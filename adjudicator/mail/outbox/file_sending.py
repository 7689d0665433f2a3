"""Delivering the embedded outbox's files: one run at a time (a lock across processes),
the due messages sent over up to `smtp_connections` SMTP sessions, each recipient's in
order on one (adjudicator/mail/sessions.py); each accepted moves to sent/, each refused
for good to failed/ (the operator told once), each whose deadline passed to expired/, and
the others wait for their retry.
"""

from __future__ import annotations

import logging
import smtplib
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

from adjudicator.home import locks
from adjudicator.home.faults import fault
from adjudicator.home.files import write_atomically
from adjudicator.home.settings import Settings
from adjudicator.mail.outbox.common import (
    EXPIRED,
    FAILED,
    PENDING,
    SENT,
    WRITTEN,
    DeliveryReport,
    Outbox,
    Tally,
    alert_failure,
    crlf,
    deadline_passed,
    envelope,
    failure_record,
    header_block,
    permanent_refusal,
    retry_delay,
)
from adjudicator.mail.outbox.folders import (
    FAILURE_SUFFIX,
    messages_in,
    move_to,
    record_accepted,
    retry_file,
    retry_info,
    save_accepted,
    state_folder,
)
from adjudicator.mail.records import FAILURE, RETRY, Retry
from adjudicator.mail.sessions import SessionLost, send_over_sessions
from adjudicator.mail.smtp import connect, release

log = logging.getLogger(__name__)


def _due(path: Path, now: datetime, force: bool) -> bool:
    if force:
        return True
    when = retry_info(path).get("next_attempt")
    return when is None or datetime.fromisoformat(when) <= now


def _defer(settings: Settings, path: Path, error: str, now: datetime) -> None:
    attempts = int(retry_info(path).get("attempts", 0)) + 1
    later = now + timedelta(seconds=retry_delay(settings, attempts))
    record = Retry(attempts=attempts, next_attempt=later.isoformat(), last_error=error)
    write_atomically(retry_file(path), RETRY.dump(record))
    log.warning(
        "mail %s not delivered (attempt %d: %s); next attempt at %s",
        path.name,
        attempts,
        error,
        later.isoformat(),
    )


def _fail(
    settings: Settings, queue: Outbox, path: Path, reason: str, recipients: list[str], now: datetime
) -> Path:
    """Move a message refused for good to outbox/failed/, with why; tell the host."""
    record = failure_record(path.read_bytes(), reason, recipients, now)
    target = state_folder(settings, FAILED) / path.name
    alert_failure(settings, queue, target.name, str(target), record)
    target = move_to(settings, path, FAILED)
    meta = target.with_name(target.name + FAILURE_SUFFIX)
    write_atomically(meta, FAILURE.dump(FAILURE.check(str(meta), record)))
    log.error(
        "mail %s to %s cannot be delivered: %s; moved to %s",
        target.name,
        ", ".join(recipients),
        reason,
        target.parent,
    )
    return target


@contextmanager
def _delivery_lock(settings: Settings) -> Iterator[None]:
    """One delivery run at a time (across processes and nodes), so nothing is sent twice."""
    path = state_folder(settings, PENDING).parent / ".deliver.lock"
    with locks.exclusive(settings, "outbox:deliver", path):
        yield


def deliver(settings: Settings, queue: Outbox, now: datetime, force: bool) -> DeliveryReport:
    """Send the pending messages that are due (all of them with `force`), each the server
    accepted moved to outbox/sent; with no smtp_host, move them all to outbox/written."""
    report = DeliveryReport()
    with _delivery_lock(settings):
        pending = messages_in(settings, PENDING)
        if not pending:
            return report
        if settings.smtp_host is None:
            for path in pending:
                target = move_to(settings, path, WRITTEN)
                report.written.append(target)
                log.info("no smtp_host configured: mail written to %s", target)
            return report
        due = [p for p in pending if _due(p, now, force)]
        report.waiting = [p for p in pending if p not in due]
        if not due:
            return report
        fault("before-send")
        _send_due(settings, queue, due, now, report)
    return report


def _send_due(
    settings: Settings, queue: Outbox, due: list[Path], now: datetime, report: DeliveryReport
) -> None:
    """Send the due messages over up to `smtp_connections` sessions, each recipient's in
    order (adjudicator.mail.sessions); what no session could send waits for the next run."""
    sending = _Sending(settings, queue, due, now)
    try:
        outcome = send_over_sessions(
            min(settings.smtp_connections, len(due)),
            lambda: connect(settings),
            sending.next,
            sending.addresses,
            sending.send,
            sending.lose,
            lambda smtp, usable: release(settings, smtp, usable=usable),
        )
        if not outcome.emptied and not outcome.opened:  # the server cannot be reached
            sending.unreachable(str(outcome.unreachable))
        elif not outcome.emptied:  # every session broke: the rest waits
            for path in sending.left:
                sending.lose(path, str(outcome.lost))
    finally:
        save_accepted(settings, sending.accepted)
        sending.tally.into(report)


class _Sending:
    """One delivery run's due files, sent from any of its sessions' threads; what became
    of each is noted in `tally`, in the order of `due`."""

    def __init__(self, settings: Settings, queue: Outbox, due: list[Path], now: datetime) -> None:
        self.settings, self.queue, self.now = settings, queue, now
        self.order = {path: index for index, path in enumerate(due)}
        self.left = iter(due)
        # What `addresses` read of each message taken, for `send`: its bytes, its headers
        # (parsed once: the envelope, the deadline and the game come from them) and envelope.
        self.read: dict[Path, tuple[bytes, EmailMessage, tuple[str, list[str]]]] = {}
        self.tally = Tally()
        self.accepted: dict[str, dict[str, str]] = {}
        self._accepting = threading.Lock()

    def next(self) -> Path | None:
        return next(self.left, None)

    def addresses(self, path: Path) -> list[str]:
        data = path.read_bytes()
        headers = header_block(data)
        self.read[path] = (data, headers, envelope(self.settings, data, headers))
        return self.read[path][2][1]

    def send(self, smtp: smtplib.SMTP, path: Path) -> None:
        """Send one message; `SessionLost` when the session broke (the message deferred)."""
        settings, now, index = self.settings, self.now, self.order[path]
        data, headers, (sender, recipients) = self.read.pop(path)
        if deadline_passed(data, now, headers):
            target = move_to(settings, path, EXPIRED)
            self.tally.add(index, "expired", target)
            log.info("mail %s not sent: its deadline has passed", target.name)
            return
        try:
            smtp.sendmail(sender, recipients, crlf(data))
        except (
            smtplib.SMTPRecipientsRefused,
            smtplib.SMTPSenderRefused,
            smtplib.SMTPDataError,
        ) as error:
            # This message only: the session goes on with the next one.
            self.tally.add(index, "errors", f"{path.name}: {error}")
            permanent = permanent_refusal(error)
            if permanent is None:
                _defer(settings, path, str(error), now)
                self.tally.add(index, "deferred", path)
            else:
                self.tally.add(
                    index, "failed", _fail(settings, self.queue, path, permanent, recipients, now)
                )
            with suppress(OSError, smtplib.SMTPException):
                smtp.rset()
            return
        except (OSError, smtplib.SMTPException) as error:
            # The session broke: this message and the others it had left wait.
            self.tally.add(index, "errors", f"{path.name}: {error}")
            self.lose(path, str(error))
            raise SessionLost(str(error)) from None
        # Accepted by the server. Until the rename below, a death sends the message again
        # on the next run: the one at-least-once window (docs/email.md, the outbox).
        fault("after-send")
        target = move_to(settings, path, SENT)
        with self._accepting:
            record_accepted(target, now, self.accepted, headers)
        self.tally.add(index, "sent", target)
        log.info("mail %s sent to %s", target.name, ", ".join(recipients))

    def lose(self, path: Path, error: str) -> None:
        """Put off a message of a session that broke."""
        self.read.pop(path, None)
        _defer(self.settings, path, f"session lost: {error}", self.now)
        self.tally.add(self.order[path], "deferred", path)

    def unreachable(self, error: str) -> None:
        """Put off every message left: no session could be opened."""
        reason = f"cannot reach {self.settings.smtp_host}:{self.settings.smtp_port}: {error}"
        self.tally.add(-1, "errors", reason)
        for path in self.left:
            _defer(self.settings, path, reason, self.now)
            self.tally.add(self.order[path], "deferred", path)
