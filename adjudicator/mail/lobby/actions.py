"""What the lobby's mail does, the lobby's lock held (`inbound`): a `new game` mail opens a
pending game and queues its invitations (`new_game`); an answer at a seat accepts,
declines, invites, starts or cancels (`seat_answer`). Whatever is refused changes nothing
and is answered with why; whatever is taken is written to the game's record, with its
log line and the message's key, before any mail is queued.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Literal

from adjudicator.games.registry import game_path
from adjudicator.games.seeds import has_secret
from adjudicator.home.faults import fault
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words, words_for
from adjudicator.mail.lobby import answers, limits, parsing, records, starting
from adjudicator.mail.lobby.parsing import Answer, Invite, Unreadable
from adjudicator.mail.lobby.records import Pending, Seat
from adjudicator.mail.outcomes import InboundResult

log = logging.getLogger(__name__)
OFF = "Nothing was made: this service does not take new games by mail."
NOT_ALLOWED = (
    "Nothing was made: this service takes new games by mail from the addresses its host "
    "allows only."
)


Sending = Callable[[], Path]  # a mail to queue once the record is written


@dataclass(frozen=True)
class Asked:
    """Who wrote (lower case), the message's key and Message-ID, its reply's lines."""

    sender: str
    key: str
    message_id: str | None
    lines: list[str]


def answered(
    settings: Settings,
    asked: Asked,
    pending: Pending | None,
    said: str,
    status: Literal["accepted", "refused"],
    seat: Seat | None = None,
) -> InboundResult:
    """Answer a lobby mail (its key makes the answer once however often it comes), log it
    and say how it was handled; `new game` and `join` mails answer this way alike."""
    path = answers.answer(
        settings,
        asked.sender,
        pending,
        said,
        inbound=asked.key,
        in_reply_to=asked.message_id,
        seat=seat,
    )
    name = pending.name if pending is not None else None
    log.info("lobby: mail from %s (%s): %s", asked.sender, asked.key[:12], said)
    return InboundResult(status, said, name, messages=[path])


def _taken_before(settings: Settings, asked: Asked) -> Pending | None:
    """The game whose record took this very message before (a delivery again)."""
    return next((p for p in records.every(settings) if asked.key in p.mails), None)


def new_game(settings: Settings, asked: Asked) -> InboundResult:
    """A `new game` mail to the service's address."""
    if settings.lobby == "off":
        # Once a day per sender at most: a forged From must not make us a mail cannon.
        day = datetime.now(UTC).date().isoformat()
        path = answers.send(
            settings,
            asked.sender,
            "Pax Pamir",
            OFF + "\n",
            key=answers.key_of("service", "off", asked.sender, day),
            in_reply_to=asked.message_id,
        )
        return InboundResult("refused", "the lobby is off", messages=[path])
    if settings.lobby == "invite" and not limits.is_allowed(settings, asked.sender):
        return answered(settings, asked, None, NOT_ALLOWED, "refused")
    if (before := _taken_before(settings, asked)) is not None:
        said = words_for(before.creator.language)("Done before.")
        return answered(settings, asked, before, said, "accepted", before.creator)
    now = datetime.now(UTC)
    try:
        game = parsing.new_game(asked.lines)
        pending = _pending(settings, asked, game, now)
    except Unreadable as error:
        words = words_for(_language_of(asked.lines))
        return answered(settings, asked, None, answers.refusal(words, error), "refused")
    records.write(settings, pending)
    for seat in pending.invited:
        answers.invite(settings, pending, seat)
    words = words_for(pending.creator.language)
    said = words(
        "The game %(game)s waits for its players: the invitations are sent. It is made when "
        "everybody has accepted; reply `invite ADDRESS` to invite someone else, or `cancel`.",
        game=pending.name,
    )
    if pending.open:  # made when its creator says so: who joins is not known beforehand
        said = words(
            "The game %(game)s is open: anyone may join it from the lobby's page. Reply "
            "`start` when enough players have joined, or `cancel`.",
            game=pending.name,
        )
    return answered(settings, asked, pending, said, "accepted", pending.creator)


def _language_of(lines: list[str]) -> str | None:
    """The language a refused `new game` mail asked for, if one of its lines says it."""
    for number, line in parsing.said(lines):
        try:
            if (code := parsing.language_line(number, line)) is not None:
                return code
        except Unreadable:
            return None
    return None


def _pending(settings: Settings, asked: Asked, game: parsing.NewGame, now: datetime) -> Pending:
    """The record of a new game, or Unreadable for what makes it impossible."""
    name = game.player_name or parsing.default_name(asked.sender)
    if name is None:
        raise Unreadable(1, "say your own player's name on a line `as NAME`")
    if (
        records.read(settings, game.name) is not None
        or game_path(settings, game.name)
        or has_secret(settings.home, game.name)
    ):
        raise Unreadable(1, "this service has a game of that name already: choose another")
    limits.check_creator(settings, asked.sender, now)
    stamp = records.stamp(now)
    creator = Seat(
        id=records.new_seat_id(),
        address=asked.sender,
        name=name,
        language=game.language,
        status="creator",
        since=stamp,
    )
    pending = Pending(
        name=game.name,
        created=stamp,
        turn_hours=game.turn_hours,
        wakhan=game.wakhan,
        open=game.open,
        seats=[creator],
    )
    _add(settings, pending, game.invites, now)
    if not game.invites and not game.open:
        raise Unreadable(1, "invite at least one player: `invite ADDRESS`")
    pending.note(asked.sender, "new game", now)
    pending.mails.append(asked.key)
    return pending


def _add(settings: Settings, pending: Pending, invites: list[Invite], now: datetime) -> None:
    """Add the invitations to the record (Unreadable for the first that cannot be)."""
    limits.check_open(settings, len(invites), invites[0].line if invites else 1)
    for invite in invites:
        line = invite.line
        limits.check_invite(settings, pending, invite, line)
        pending.seats.append(
            Seat(
                id=records.new_seat_id(),
                address=invite.address,
                name=invite.name,
                status="invited",
                since=records.stamp(now),
            )
        )
        limits.check_count(pending, line)
        pending.note(pending.creator.address, f"invited {invite.address}", now)


def seat_answer(settings: Settings, asked: Asked, pending: Pending, seat: Seat) -> InboundResult:
    """An answer at `seat`'s address, from its own address."""
    words = words_for(seat.language)
    if asked.key in pending.mails:
        return answered(settings, asked, pending, words("Done before."), "accepted", seat)
    if pending.status in ("created", "creating"):
        said = words(
            "The game %(game)s is made already: its mails tell you how to play.", game=pending.name
        )
        return answered(settings, asked, pending, said, "refused", seat)
    if pending.status == "cancelled":
        said = words("The game %(game)s was cancelled.", game=pending.name)
        return answered(settings, asked, pending, said, "refused", seat)
    try:
        found = parsing.answer(asked.lines)
        said, sends = _carry_out(settings, pending, seat, found, datetime.now(UTC))
    except Unreadable as error:
        return answered(settings, asked, pending, answers.refusal(words, error), "refused", seat)
    pending.mails.append(asked.key)
    records.write(settings, pending)
    result = answered(settings, asked, pending, said, "accepted", seat)
    result.messages += [send() for send in sends]
    if pending.is_ready():
        fault("lobby-accepted")
        try:
            starting.finish(settings, pending, datetime.now(UTC))
        except Exception as error:  # the record says `creating`: the next pass finishes it
            log.warning("lobby: game %s not made yet: %s", pending.name, error)
    return result


def _carry_out(
    settings: Settings, pending: Pending, seat: Seat, found: Answer, now: datetime
) -> tuple[str, list[Sending]]:
    """Change the record as the answer says (nothing written yet); what to answer."""
    words = words_for(found.language or seat.language)
    if found.kind is None:
        return _language(settings, pending, seat, found, now)
    creating = seat.status == "creator"
    if creating != (found.kind in ("invite", "start", "cancel")):
        raise Unreadable(
            1, "only the game's creator invites, starts or cancels; an invitee accepts or declines"
        )
    if seat.status != "creator" and seat.status != "invited":
        raise Unreadable(1, "this invitation is no longer open")
    if found.kind == "accept":
        return _accept(settings, pending, seat, found, now, words)
    if found.kind == "decline":
        seat.status, seat.since = "declined", records.stamp(now)
        pending.note(seat.address, "declined", now)
        told = _to_creator(pending, "%(address)s declined the invitation.", address=seat.address)
        ref = f"declined-{seat.id}"
        return words("You declined the invitation."), [
            partial(answers.tell_creator, settings, pending, told, ref=ref)
        ]
    if found.kind == "invite":
        _add(settings, pending, found.invites, now)
        return words("The invitations are sent."), [
            partial(answers.invite, settings, pending, s)
            for s in pending.invited
            if s.status == "invited"
        ]
    if found.kind == "start":
        limits.check_start(pending)
        pending.started = True
        pending.note(seat.address, "start", now)
        return words("The game is made with those who accepted."), []
    return _cancel(settings, pending, seat, now, words)


def _language(
    settings: Settings, pending: Pending, seat: Seat, found: Answer, now: datetime
) -> tuple[str, list[Sending]]:
    seat.language = found.language or seat.language
    pending.note(seat.address, f"language {seat.language}", now)
    words = words_for(seat.language)
    again: list[Sending] = []
    if seat.status == "invited":
        again.append(partial(answers.invite, settings, pending, seat))
    return words("Your mail from the lobby is now in this language."), again


def _accept(
    settings: Settings, pending: Pending, seat: Seat, found: Answer, now: datetime, words: Words
) -> tuple[str, list[Sending]]:
    name = found.name or seat.name
    if name is None:
        raise Unreadable(1, "choose your player's name: `accept as NAME`")
    taken = [
        s.name.lower()
        for s in pending.seats
        if s is not seat and s.name and s.status not in records.GONE
    ]
    if name.lower() in taken:
        raise Unreadable(1, "another player of this game has that name: `accept as NAME`")
    limits.check_games(settings, seat.address)
    seat.name, seat.status, seat.since = name, "accepted", records.stamp(now)
    seat.language = found.language or seat.language
    pending.note(seat.address, f"accepted as {name}", now)
    told = _to_creator(
        pending, "%(address)s accepted, as %(name)s.", address=seat.address, name=name
    )
    ref = f"accepted-{seat.id}"
    return words("You accepted, as %(name)s.", name=name), [
        partial(answers.tell_creator, settings, pending, told, ref=ref)
    ]


def _cancel(
    settings: Settings, pending: Pending, seat: Seat, now: datetime, words: Words
) -> tuple[str, list[Sending]]:
    pending.status = "cancelled"
    pending.note(seat.address, "cancelled", now)
    told: list[Sending] = []
    for other in pending.invited:
        if other.status in ("invited", "accepted"):
            theirs = words_for(other.language)
            said = theirs(
                "The game %(game)s was cancelled.", game=pending.name
            )  # (extracted above)
            told.append(
                partial(
                    answers.send,
                    settings,
                    other.address,
                    answers.subject(theirs, pending),
                    f"# {pending.name}\n\n{said}\n",
                    key=answers.key_of(pending.name, "cancelled", other.id),
                )
            )
    return words("The game %(game)s was cancelled.", game=pending.name), told


def _to_creator(pending: Pending, message: str, **params: str) -> str:
    """A notice's line in the creator's language (`message` is extracted where it is given)."""
    return words_for(pending.creator.language)(message, **params)
