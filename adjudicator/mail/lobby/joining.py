"""Open games: a game opened with the line `open` is listed on the lobby's page
(web/pages.py) and in `open_games`, and, with the lobby `open`, anyone takes a seat in it
by mailing `join GAME` (or `join GAME as NAME`) to the service's address. The seat is
taken at once (there is nobody to accept it); the creator is told, and says `start`
when enough have joined. A full game (five players, two beside Wakhan) starts itself.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from adjudicator.home.settings import Settings
from adjudicator.home.translations import words_for
from adjudicator.mail.lobby import answers, limits, parsing, records, starting
from adjudicator.mail.lobby.actions import Asked, answered
from adjudicator.mail.lobby.parsing import Invite, Unreadable
from adjudicator.mail.lobby.records import Pending, Seat
from adjudicator.mail.outcomes import InboundResult

log = logging.getLogger(__name__)


def open_games(settings: Settings) -> list[Pending]:
    """The games waiting for players that anyone may join (none unless the lobby is open)."""
    if settings.lobby != "open":
        return []
    return [p for p in records.every(settings) if p.open and p.status == "pending"]


def join(settings: Settings, asked: Asked) -> InboundResult:
    """A `join` mail to the service's address (the lobby's lock is held)."""
    if (
        before := next((p for p in records.every(settings) if asked.key in p.mails), None)
    ) is not None:
        seat = next((s for s in before.seats if s.address == asked.sender), None)
        said = words_for(seat.language if seat else None)("Done before.")
        return answered(settings, asked, before, said, "accepted", seat)
    now = datetime.now(UTC)
    try:
        wanted = parsing.join(asked.lines)
        pending = _open_game(settings, wanted.game)
        seat = _seat(settings, pending, asked.sender, wanted.name, now)
    except Unreadable as error:
        words = words_for(None)
        return answered(settings, asked, None, answers.refusal(words, error), "refused", None)
    pending.seats.append(seat)
    pending.note(asked.sender, f"joined as {seat.name}", now)
    pending.mails.append(asked.key)
    if len([s for s in pending.seats if s.status not in records.GONE]) == limits.most_players(
        pending
    ):
        pending.started = True  # full: nobody else can join
    records.write(settings, pending)
    words = words_for(pending.creator.language)
    told = words("%(address)s joined, as %(name)s.", address=seat.address, name=seat.name or "")
    answers.tell_creator(settings, pending, told, ref=f"joined-{seat.id}")
    words = words_for(seat.language)  # English: the joiner has said no language yet
    said = words(
        "You joined the game %(game)s, as %(name)s.", game=pending.name, name=seat.name or ""
    )
    result = answered(settings, asked, pending, said, "accepted", seat)
    if pending.is_ready():
        try:
            starting.finish(settings, pending, now)
        except Exception as error:  # the record says so: the next pass finishes it
            log.warning("lobby: game %s not made yet: %s", pending.name, error)
    return result


def _open_game(settings: Settings, name: str) -> Pending:
    pending = records.read(settings, name) if settings.lobby == "open" else None
    if pending is None or not pending.open or pending.status != "pending":
        raise Unreadable(1, "no open game of that name waits for players")
    return pending


def _seat(
    settings: Settings, pending: Pending, address: str, name: str | None, now: datetime
) -> Seat:
    """The seat `address` takes (Unreadable for what keeps them out)."""
    named = name or parsing.default_name(address)
    if named is None:
        raise Unreadable(1, "choose your player's name: `join GAME as NAME`")
    limits.check_invite(settings, pending, Invite(address, named), 1)
    limits.check_games(settings, address)
    seat = Seat(
        id=records.new_seat_id(),
        address=address,
        name=named,
        status="accepted",
        since=records.stamp(now),
    )
    pending.seats.append(seat)
    try:
        limits.check_count(pending, 1)
    finally:
        pending.seats.remove(seat)
    return seat
