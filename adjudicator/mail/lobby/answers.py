"""The lobby's mails: the invitation, the answers to its parties, the notices to the
creator. Each is queued in the outbox under a key (`lobby-GAME-KIND-REF`), so queuing it
again after a crash, or for a message delivered twice, sends it once.

An invitation is in the invitee's language once they said it (English before); the
creator's mails are in the creator's; an answer to someone with no seat is in English.
"""

from __future__ import annotations

import hashlib
from email.message import EmailMessage
from email.utils import formataddr, formatdate
from pathlib import Path

from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words, words_for
from adjudicator.mail.compose.messages import (
    MAIL_POLICY,
    address_header,
    message_domain,
    one_line,
    render_html,
)
from adjudicator.mail.lobby.parsing import Unreadable
from adjudicator.mail.lobby.records import Pending, Seat
from adjudicator.mail.lobby.seats import seat_address, service_address
from adjudicator.mail.outbox import queue, queued


def key_of(*parts: str) -> str:
    """An outbox key: `lobby-` and the parts, an address among them hashed (the keys are
    file names, and an address is no part of one)."""
    plain = [p if p.replace("-", "").isalnum() else _digest(p) for p in parts]
    return "-".join(("lobby", *plain))[:200]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def send(
    settings: Settings,
    to: str,
    subject: str,
    text: str,
    *,
    key: str,
    reply_to: str | None = None,
    in_reply_to: str | None = None,
) -> Path:
    """Queue one lobby mail (nothing when its key is queued already)."""
    if (done := queued(settings, key)) is not None:
        return done
    message = EmailMessage(policy=MAIL_POLICY)
    message["From"] = address_header("From", settings.mail_from)
    message["To"] = address_header("To", formataddr(("", to)))
    message["Reply-To"] = address_header("Reply-To", reply_to or service_address(settings))
    message["Subject"] = subject
    message["Date"] = formatdate(usegmt=True)
    message["Message-ID"] = f"<{key}.{_digest(key)}@{message_domain(settings)}>"
    if parent := one_line(in_reply_to):
        message["In-Reply-To"] = parent
        message["References"] = parent
    message["Auto-Submitted"] = "auto-replied" if in_reply_to else "auto-generated"
    message.set_content(text, subtype="plain", cte="quoted-printable")
    message.add_alternative(render_html(text), subtype="html", cte="quoted-printable")
    return queue(settings, message, key)


def subject(words: Words, pending: Pending | None) -> str:
    name = f"[{pending.name}] " if pending is not None else ""
    return name + words("Pax Pamir: a game of the lobby")


def settings_line(words: Words, pending: Pending) -> str:
    wakhan = words("with Wakhan") if pending.wakhan else words("without Wakhan")
    return words(
        "%(hours)s hours per decision, %(wakhan)s", hours=pending.turn_hours, wakhan=wakhan
    )


def players_line(pending: Pending) -> str:
    return ", ".join(f"{s.name or '?'} ({s.address}, {s.status})" for s in pending.seats)


def invite(settings: Settings, pending: Pending, seat: Seat) -> Path:
    """The invitation of `seat`: who invites, the settings, how to answer."""
    words = words_for(seat.language)
    creator = pending.creator
    said = words(
        "%(creator)s (%(address)s) invites you to play Pax Pamir by mail: the game "
        "%(game)s, %(settings)s.",
        creator=creator.name or "",
        address=creator.address,
        game=pending.name,
        settings=settings_line(words, pending),
    )
    how = words(
        "To play, reply `accept` (or `accept as NAME` to choose your name, now %(name)s); "
        "add a line `language pl` for your mail in Polish. To say no, reply `decline`.",
        name=seat.name or "?",
    )
    text = f"# {pending.name}\n\n{said}\n\n{how}\n\n{players_line(pending)}\n"
    key = key_of(pending.name, "invite", seat.id, seat.language)
    return send(
        settings,
        seat.address,
        subject(words, pending),
        text,
        key=key,
        reply_to=seat_address(settings, seat.id, seat.address),
    )


def answer(
    settings: Settings,
    to: str,
    pending: Pending | None,
    said: str,
    *,
    inbound: str,
    in_reply_to: str | None,
    seat: Seat | None = None,
) -> Path:
    """The answer to one inbound mail (its key `inbound`): what became of it, in the
    language of the seat it came to (English without one)."""
    words = words_for(seat.language if seat is not None else None)
    heading = pending.name if pending is not None else words("Pax Pamir lobby")
    lines = [f"# {heading}", "", said]
    if pending is not None:
        lines += ["", players_line(pending)]
    reply_to = seat_address(settings, seat.id, seat.address) if seat is not None else None
    key = key_of(pending.name if pending else "service", "answer", inbound[:16])
    text = "\n".join(lines) + "\n"
    return send(
        settings,
        to,
        subject(words, pending),
        text,
        key=key,
        reply_to=reply_to,
        in_reply_to=in_reply_to,
    )


def refusal(words: Words, error: Unreadable) -> str:
    """A line that could not be taken, in the reader's words."""
    what = words(error.message, **error.params) if error.params else words(error.message)
    return words("Nothing was changed: line %(line)s: %(what)s.", line=error.line, what=what)


def tell_creator(settings: Settings, pending: Pending, said: str, *, ref: str) -> Path:
    """A notice to the creator (a seat answered, or did not), keyed by what it is about."""
    creator = pending.creator
    words = words_for(creator.language)
    how = words(
        "Reply `invite ADDRESS` to invite someone else, `start` to play with those who "
        "accepted, or `cancel`."
    )
    text = f"# {pending.name}\n\n{said}\n\n{how}\n\n{players_line(pending)}\n"
    return send(
        settings,
        creator.address,
        subject(words, pending),
        text,
        key=key_of(pending.name, "creator", ref),
        reply_to=seat_address(settings, creator.id, creator.address),
    )
