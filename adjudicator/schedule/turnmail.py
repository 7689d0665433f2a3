"""A player's clock waits for the mail that tells them to decide (docs/scheduler.md#late-mail).

When mail is configured (`smtp_host`), the report of the move that started a decision is
what tells each player who must answer it that it is their turn, with their reply
address. While that report waits in the outbox (the mail server is down), their clock has
not started: no reminder, no default. Once the server took it (`outbox.deliver` records
when, in `PAMIR_HOME/mail/accepted/GAME.json`), the decision's `turn_hours` count from
then, with the game's pauses, instead of from the commit. Without `smtp_host` the messages
are written to files at once, and the clock runs from the commit as always.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from adjudicator.games.deadlines import clock
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import outbox
from adjudicator.mail.compose.messages import message_key
from adjudicator.schedule.clock import Waiting, read_deadlines


def turn_mail_prefix(pending: Waiting, player: str) -> str:
    """The start of the key of `player`'s report of the move that began the decision."""
    return message_key(pending.game_id, pending.move, player, "report", "")


def is_turn_mail_pending(settings: Settings, pending: Waiting) -> bool:
    """Whether the turn mail of a player who must decide still waits in the outbox."""
    return any(outbox.is_pending(settings, turn_mail_prefix(pending, p)) for p in pending.players)


def turn_mail_accepted(settings: Settings, pending: Waiting) -> datetime | None:
    """When the server took the last of the deciding players' turn mails, if it did."""
    times = [
        outbox.accepted_at(settings, pending.game_id, turn_mail_prefix(pending, p))
        for p in pending.players
    ]
    return max((t for t in times if t is not None), default=None)


def mail_clock(settings: Settings, repo: GameRepo, pending: Waiting, now: datetime) -> Waiting:
    """The pending decision with its clock counted from when its players were told.

    A turn mail still in the outbox holds the clock: it starts `now` at the earliest, so
    nothing is due yet. Messages refused for good (outbox/failed/) hold nothing: the host
    has been told, and waiting would stall the game for everyone.
    """
    if settings.smtp_host is None:
        return pending
    if is_turn_mail_pending(settings, pending):
        start = now
    else:
        told = turn_mail_accepted(settings, pending)
        if told is None or told <= pending.clock.started:
            return pending
        start = told
    snap = snapshot(repo)
    pauses = read_deadlines(repo, snap.commit).pause
    return replace(pending, clock=clock(start, snap.game.deadlines, pauses))


def enforced_deadline(
    settings: Settings, repo: GameRepo, pending: Waiting, now: datetime
) -> tuple[datetime, bool]:
    """The deadline the scheduler enforces for the pending decision, as of `now`, and
    whether it is still provisional: a turn mail waits in the outbox, so the clock has not
    started and the deadline moves on until the mail server takes it."""
    held = settings.smtp_host is not None and is_turn_mail_pending(settings, pending)
    return mail_clock(settings, repo, pending, now).clock.deadline, held
