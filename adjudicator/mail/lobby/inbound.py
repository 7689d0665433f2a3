"""Mail in for the lobby: `incoming.handle_message` hands over a message addressed to the
service's own address or to a seat's (`seats.is_for_lobby`) when it holds no player's
reply address.

The checks are a move's: an automatic message is ignored, and unless `mail_auth` is
`token` a message not proven to come from its From address (authentication.unauthenticated)
is ignored too, unanswered: the address may be anyone's. Then
- at the service's address, a `new game` mail goes to `actions.new_game`, a `join` mail
  to `joining.join`; any other mail there is no reply address, as before the lobby;
- at a seat's address, only the address the seat was made for, with the seat's token,
  is heard (`actions.seat_answer`); any other sender is told so, once.

A message delivered again is known by its key (ledger.inbound_key) among those its game's
record has taken: it changes nothing, and its answer, queued under that key, is not sent
again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser

from adjudicator.home import metrics
from adjudicator.home.settings import Settings
from adjudicator.mail.authentication import unauthenticated
from adjudicator.mail.compose.messages import one_line
from adjudicator.mail.ledger import inbound_key
from adjudicator.mail.lobby import actions, answers, joining, parsing, records, seats
from adjudicator.mail.outbox import deliver
from adjudicator.mail.outcomes import InboundResult
from adjudicator.mail.replytext import body_text, reply_lines
from adjudicator.mail.signatures import DnsLookup

log = logging.getLogger(__name__)


def _ignored(code: metrics.InboundReason, reason: str) -> InboundResult:
    metrics.inbound_refused(code)
    log.warning("inbound mail ignored: %s", reason)
    return InboundResult("ignored", reason)


def handle(
    settings: Settings,
    raw: bytes,
    sender: str,
    recipients: list[str],
    *,
    automatic: Callable[[Message], str | None],
    deliver_now: bool = True,
    dnsfunc: DnsLookup | None = None,
) -> InboundResult:
    """Handle one message to the lobby (see the module's docstring); never raises for bad
    mail. `automatic` says why a message is automatic (incoming's test), or None."""
    try:
        message = BytesParser(policy=policy.default).parsebytes(raw)
        assert isinstance(message, EmailMessage)
        text = body_text(message)
        why = automatic(message)
    except Exception as error:  # the email package raises many kinds on broken mail
        return _ignored("malformed", f"malformed message ({type(error).__name__}: {error})")
    if why is not None:
        return _ignored("automatic", f"automatic message ({why}) from {sender}")
    lines = reply_lines(text or "")
    seat = next((s for r in recipients if (s := seats.seat_of(settings, r))), None)
    if seat is None and not parsing.is_new_game(lines) and not parsing.is_join(lines):
        return _ignored(
            "no-reply-address", f"no reply address among the recipients (from {sender})"
        )
    reason = unauthenticated(settings, message, raw, sender, dnsfunc)
    if reason is not None:  # unanswered: the From address may be anyone's
        return _ignored("unauthenticated", f"lobby mail from {sender} not authenticated: {reason}")
    message_id = one_line(str(message.get("Message-ID", ""))) or None
    asked = actions.Asked(sender.lower(), inbound_key(message_id, raw), message_id, lines)
    result = _new_game(settings, asked) if seat is None else _at_seat(settings, asked, *seat)
    if deliver_now:
        deliver(settings)
    return result


def _new_game(settings: Settings, asked: actions.Asked) -> InboundResult:
    with records.lobby_lock(settings):
        if parsing.is_join(asked.lines):
            return joining.join(settings, asked)
        return actions.new_game(settings, asked)


def _at_seat(settings: Settings, asked: actions.Asked, seat_id: str, token: str) -> InboundResult:
    with records.lobby_lock(settings):
        pending = records.by_seat(settings, seat_id)
        seat = pending.seat(seat_id) if pending is not None else None
        if (
            pending is None
            or seat is None
            or not seats.is_seat_token(settings, seat_id, seat.address, token)
        ):
            return _ignored("invalid-token", f"invalid lobby address (from {asked.sender})")
        if asked.sender != seat.address:
            # A third address writing to someone's seat: told, and nothing else happens.
            said = "Nothing was changed: only the invited address can answer this invitation."
            path = answers.answer(
                settings, asked.sender, None, said, inbound=asked.key, in_reply_to=asked.message_id
            )
            metrics.inbound_refused("wrong-sender")
            log.warning(
                "lobby: %s wrote to the seat of %s in %s", asked.sender, seat.address, pending.name
            )
            return InboundResult("refused", "wrong sender", pending.name, messages=[path])
        return actions.seat_answer(settings, asked, pending, seat)
