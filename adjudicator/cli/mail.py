"""`pamir outbox` and `pamir inbound-email`: the mail outbox, and one reply from the MTA."""

from __future__ import annotations

import argparse
import logging
import sys

from adjudicator.cli.refusal import EXIT_TEMPFAIL
from adjudicator.home import logs
from adjudicator.home.settings import SettingsError, load_settings
from adjudicator.mail import outbox
from adjudicator.mail.answers import without_paths
from adjudicator.mail.incoming import handle_message
from adjudicator.mail.outbox import EXPIRED, FAILED, PENDING, SENT, WRITTEN, deliver

log = logging.getLogger(__name__)


def cmd_outbox(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
    except SettingsError as error:
        print(error, file=sys.stderr)
        raise SystemExit(2) from None
    logs.configure(settings.log_level, settings.log_format)
    if args.send:
        report = deliver(settings, force=True)
        print(f"delivery: {report.summary()}")
        for problem in report.errors:
            print(f"  error: {problem}")
    kept = outbox.of(settings)
    counts = kept.counts()
    print(f"outbox: {kept.listing()}")
    print(f"  pending {counts[PENDING]}")
    for waiting in kept.retries():
        when = waiting.next_attempt.isoformat() if waiting.next_attempt else "now"
        attempts = "attempt" if waiting.attempts == 1 else "attempts"
        print(
            f"    {waiting.name}: {waiting.attempts} failed {attempts}, next at "
            f"{when} ({waiting.last_error})"
        )
    print(f"  sent    {counts[SENT]}")
    print(f"  written {counts[WRITTEN]}")
    print(f"  failed  {counts[FAILED]}")
    for name, info in kept.failures():
        print(
            f"    {name}: refused for good at {info.get('failed_at')} "
            f"({', '.join(info.get('recipients', []))}: {info.get('reason')})"
        )
    print(f"  expired {counts[EXPIRED]}")
    if not settings.smtp_host:
        print("  (no smtp_host configured: messages are written as .eml files, not sent)")


def cmd_inbound_email(args: argparse.Namespace) -> None:
    """Read one message on standard input; exit 0 handled, 2 ignored, 75 try again later."""
    try:
        settings = load_settings()
    except SettingsError as error:
        print(f"pamir inbound-email: {error}", file=sys.stderr)
        raise SystemExit(EXIT_TEMPFAIL) from None
    logs.configure(settings.log_level, settings.log_format)
    raw = sys.stdin.buffer.read(settings.max_inbound_bytes + 1)
    if len(raw) > settings.max_inbound_bytes:
        sys.stdin.buffer.read()  # let the MTA finish writing; it is refused anyway
    try:
        # The mails of the message's game that a crashed process left unqueued go first
        # (handle_message reconciles it); the other games are left to their own traffic
        # and the scheduler, so a message costs the same however many games there are.
        result = handle_message(settings, raw)
    except Exception:
        log.exception("unexpected failure; the message is left to the MTA to retry")
        raise SystemExit(EXIT_TEMPFAIL) from None
    # A mail server may bounce what is printed to the message's sender: no folder in it.
    reason = without_paths(result.reason, settings.home)
    if result.exit_status == 0:
        print(f"{result.status}: {reason}")
    else:
        print(f"pamir inbound-email: message ignored: {reason}", file=sys.stderr)
    raise SystemExit(result.exit_status)
