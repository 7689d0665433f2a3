"""Mail in: a player's reply becomes a move file, adjudicated like any other.

`handle_message` takes one RFC 5322 message (as an MTA pipe delivers it to
`pamir inbound-email`) and
1. ignores it, with a log line and no change, when it is too large, too complex to parse
   at little cost (`bounds`: measured before anything parses it), malformed (a field that
   RFC 5322 allows once given twice among them, `replays`), addressed to no valid reply
   address (`REPLY_LOCAL+GAME.PLAYER.TOKEN@REPLY_DOMAIN`, looked for in To, Cc,
   Delivered-To and X-Original-To, read from the header block alone: `envelope`),
   automatic (an auto-reply or a bounce), or not from the address game.toml has for that
   player; only a message with a valid token is parsed whole;
2. unless `mail_auth` is `token`, refuses it when it does not prove that it comes from
   that address (`authentication.unauthenticated`: a DKIM signature, or our mail
   server's Authentication-Results), with a notice to the player's own address and
   nothing else: the one check before anything acts on a message;
3. reads the text (text/plain, else the HTML as text) and keeps only the reply: quoted
   lines (`>`), the "On ... wrote:" line, a signature (`-- ` and below), forwarded or
   quoted originals and the footers mobile mail apps add are dropped;
4. records the message as pending (`ledger.write_inbound`) and submits the remaining lines
   as the player's move through `pipeline.submit`, holding the game's lock, unless they
   answer a mail of the game older than its last move and no longer apply (`staleness`);
   the commit names the message in its `Pamir-Inbound` trailer;
5. queues the report for every player and a confirmation for the author from the commit
   (`ledger.reconcile`), or the refusal for the author (`ledger.refuse`), records the
   outcome, then attempts delivery.

A message with no valid reply address that is addressed to the service's own address or
to a lobby seat's goes to the lobby (adjudicator/mail/lobby/inbound.py) instead, after step 1.

A reply that is one command line (`pause 72h holiday`, `resign`, `settings notify turns`,
`my games`) is carried out by `selfservice` instead of step 4, and press (`press:` or
`press to NAME:` and the lines below) is relayed by `press`, the lines above it, if any,
going on as the move. Both come after the checks of steps 1 and 2. So does a preview (the
word `preview` or `podgląd` in the subject, or `preview` as the first line: `replytext`):
the move is judged but not played (games/preview.py), nothing is recorded, and the
author alone is answered with what it would do (`outcomes.answer_preview`).

A message delivered again gets the outcome recorded for it, and no second answer. What
the checks of steps 1 and 2 turn away is counted for /metrics by its reason's code, and
the move of step 4 as adjudicated or refused by mail (adjudicator/home/metrics.py).

The reply's text is read by `replytext`; what becomes of the message, once read and its
sender checked, is in `outcomes`.
"""

from __future__ import annotations

import logging
import re
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser

from adjudicator.games.gamefile import GameFileError
from adjudicator.games.registry import game_lock, open_game
from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import metrics
from adjudicator.home.settings import Settings
from adjudicator.mail import (
    bounds,
    envelope,
    ledger,
    outbox,
    press,
    renewal,
    replays,
    selfservice,
    staleness,
    tokens,
)
from adjudicator.mail.authentication import unauthenticated
from adjudicator.mail.compose.messages import one_line
from adjudicator.mail.lobby import inbound as lobby_inbound
from adjudicator.mail.lobby import seats as lobby_seats
from adjudicator.mail.outcomes import (
    InboundResult,
    adjudicate,
    answer_preview,
    handled_before,
    push_to_forge,
    refuse_stale,
    refuse_unauthenticated,
)
from adjudicator.mail.replytext import body_text, preview_asked, reply_lines
from adjudicator.mail.signatures import DnsLookup, Signature

log = logging.getLogger(__name__)

RECIPIENT_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To")
EXIT_TEMPFAIL = 75  # sysexits EX_TEMPFAIL: the MTA keeps the message and tries again later


# -- checking who wrote ----------------------------------------------------------------------


def _automatic(message: Message) -> str | None:
    """Why the message looks automatic (and must not be answered), or None."""
    auto = str(message.get("Auto-Submitted", "no")).strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = str(message.get("Precedence", "")).strip().lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    for header in ("X-Autoreply", "X-Autorespond"):
        if header in message:
            return f"{header} present"
    content = str(message.get_content_type())
    if content == "multipart/report":
        return "a delivery report"
    return None


def _ignore(code: metrics.InboundReason, reason: str, **details: str | None) -> InboundResult:
    """`code` names the reason among a few, for /metrics; `reason` says it all, for the log."""
    metrics.inbound_refused(code)
    log.warning("inbound mail ignored: %s", reason)
    return InboundResult("ignored", reason, details.get("game"), details.get("player"))


def handle_message(
    settings: Settings,
    raw: bytes,
    *,
    deliver_now: bool = True,
    dnsfunc: DnsLookup | None = None,
) -> InboundResult:
    """Handle one inbound email (see the module's docstring); never raises for bad mail
    (signatures.DnsUnavailable when a DKIM key could not be looked up for now).
    `dnsfunc` looks up DKIM keys (default: the public DNS)."""
    if len(raw) > settings.max_inbound_bytes:
        return _ignore(
            "too-large",
            f"message of {len(raw)} bytes exceeds max_inbound_bytes ({settings.max_inbound_bytes})",
        )
    try:  # measured before anything parses it: some of it would cost too much to parse
        shape = bounds.measure(raw)
    except bounds.TooComplex as error:
        return _ignore("too-complex", f"message too complex to read: {error}")
    try:
        headers = envelope.read(raw[: shape.body_start])
        senders = headers.addresses("From")
        recipients = headers.addresses(*RECIPIENT_HEADERS)
    except Exception as error:  # the email package raises many kinds on broken headers
        return _ignore("malformed", f"malformed message ({type(error).__name__}: {error})")
    if not headers.fields:
        return _ignore("malformed", "malformed message (no headers could be read)")
    if (repeated := replays.repeated(headers)) is not None:
        return _ignore("malformed", f"malformed message: {repeated}")
    if len(senders) != 1:
        return _ignore("malformed", f"malformed message: {len(senders)} From addresses")
    sender = senders[0]

    found: tuple[str, str] | None = None
    press_to: str | None = None
    candidates = [a for a in recipients if tokens.ADDRESS.match(a.strip().lower())]
    for address in candidates:
        found = tokens.read_address(settings, address)
        if found is not None:
            press_to = tokens.press_target(address)
            break
    if found is None and lobby_seats.is_for_lobby(settings, recipients):
        # Mail to the service's own address or a lobby seat's: games players start (lobby/).
        return lobby_inbound.handle(
            settings,
            raw,
            sender,
            recipients,
            automatic=_automatic,
            deliver_now=deliver_now,
            dnsfunc=dnsfunc,
        )
    if found is None:
        standings = [tokens.address_standing(settings, a) for a in candidates]
        stale = [s for s in standings if s is not None and s[2] is tokens.Standing.REPLACED]
        if stale:  # a token the player had before: refused, never played (mail/renewal.py)
            game_id, player, _ = stale[0]
            try:  # bounded already: an automatic message gets no notice
                automatic = _automatic(BytesParser(policy=policy.default).parsebytes(raw))
            except Exception:  # nor does one that cannot be read
                automatic = "unreadable"
            done = renewal.refuse_replaced(settings, game_id, player, sender, bool(automatic))
            if done.notice is None:
                return _ignore("replaced-token", done.reason, game=game_id)
            metrics.inbound_refused("replaced-token")
            log.warning("inbound mail refused: %s", done.reason)
            if deliver_now:
                outbox.deliver(settings)
            return InboundResult(
                "refused", done.reason, game_id, done.player, messages=[done.notice]
            )
        if candidates:
            return _ignore(
                "invalid-token", f"invalid reply token in {candidates[0]} (from {sender})"
            )
        return _ignore("no-reply-address", f"no reply address among the recipients (from {sender})")
    game_id, player = found
    try:  # the whole message, now that it is bounded and its token valid
        message = BytesParser(policy=policy.default).parsebytes(raw)
        assert isinstance(message, EmailMessage)
        automatic = _automatic(message)
        for header in ("Message-ID", "Subject"):  # headers are parsed when first read
            str(message.get(header, ""))
    except Exception as error:
        return _ignore(
            "malformed", f"malformed message ({type(error).__name__}: {error})", game=game_id
        )
    if automatic is not None:
        return _ignore("automatic", f"automatic message ({automatic}) from {sender}", game=game_id)

    try:
        repo = open_game(settings, game_id)
    except (GameError, RepoError) as error:
        return _ignore("unknown-game", f"reply address for an unknown game: {error}", game=game_id)
    try:
        who = (game_id, player, sender)
        answered = staleness.answered(settings, headers, game_id, player)
        return _handle(settings, repo, message, raw, who, deliver_now, dnsfunc, press_to, answered)
    finally:
        repo.repo.close()


def _handle(
    settings: Settings,
    repo: GameRepo,
    message: EmailMessage,
    raw: bytes,
    who: tuple[str, str, str],
    deliver_now: bool,
    dnsfunc: DnsLookup | None,
    press_to: str | None = None,
    answered: int | None = None,
) -> InboundResult:
    """`press_to`: the message came to a press address (`+all`, `+NAME`): its text is press
    to them, and nothing else. `answered`: the move of the game's mail it answers
    (`staleness.answered`), if it names one."""
    game_id, player, sender = who
    # Taken into our answer's headers: one line each, whatever encoded words they held.
    message_id = one_line(str(message.get("Message-ID", "")))
    subject = one_line(str(message.get("Subject", "")))
    try:
        entry = snapshot(repo).game.player(player)
    except (GameError, GameFileError, KeyError) as error:
        return _ignore(
            "unknown-player", f"reply address for an unknown player: {error}", game=game_id
        )
    if sender.lower() != entry.email.lower():
        return _ignore(
            "wrong-sender",
            f"sender {sender} is not the address game {game_id} has for {entry.name}",
            game=game_id,
            player=entry.name,
        )
    # The one gate before anything acts on the message: a move, a rollback request or
    # agreement, even the answer to a message handled before all come after it.
    passed: list[Signature] = []
    reason = unauthenticated(settings, message, raw, sender, dnsfunc, passed)
    if reason is not None:
        return refuse_unauthenticated(settings, repo, entry.name, reason, deliver_now)
    signature = passed[0].b if passed else None

    try:
        text = body_text(message)
    except Exception as error:  # undecodable content, unknown charset
        return _ignore(
            "malformed", f"malformed body ({type(error).__name__}: {error})", game=game_id
        )
    if text is None:
        return _ignore(
            "no-text", "no text/plain or text/html part", game=game_id, player=entry.name
        )
    # The game's subjects name the game, whose id may hold the word (`[preview-cup] ...`).
    asking = re.sub(re.escape(game_id), "", subject or "", flags=re.IGNORECASE)
    previewing, lines = preview_asked(asking, reply_lines(text))
    key = ledger.inbound_key(message_id, raw, signature)
    if previewing and press_to is None:  # a preview of the move: nothing played, nothing recorded
        move_text = "\n".join(lines) + "\n" if lines else ""
        with game_lock(settings, game_id):  # its answer joins the player's thread
            previewed = answer_preview(
                settings, repo, entry.name, move_text, key, (message_id, subject)
            )
        if deliver_now:
            outbox.deliver(settings)
        return previewed
    asked = selfservice.Asked(entry.name, sender, key, message_id, subject)
    command = selfservice.parse(lines) if press_to is None else None
    lines, block = press.split(lines) if press_to is None else press.addressed(lines, press_to)
    if command is not None or block is not None:
        alone = command is not None or not any(line.strip() for line in lines)
        with game_lock(settings, game_id):
            ledger.reconcile(settings, repo)
            # On the forge's newest first: a commit made on an older one could not be
            # pushed (a pause or press is not redone on top of the forge's, as a move is).
            push_to_forge(settings, repo, None)
            if command is not None:
                done = selfservice.run(settings, repo, command, asked)
            else:
                assert block is not None
                done = press.send(settings, repo, block, asked)
            if alone and done.status == "accepted":  # commits: pause, resignation, press
                push_to_forge(settings, repo, None)  # (with a move, the move's push does it)
            done.paths += ledger.reconcile(settings, repo)
        log.info("%s by %s in %s (mail %s): %s", done.status, entry.name, game_id, key, done.reason)
        if alone:
            if deliver_now:
                outbox.deliver(settings)
            return InboundResult(done.status, done.reason, game_id, entry.name, messages=done.paths)
    move_text = "\n".join(lines) + "\n" if lines else ""

    with game_lock(settings, game_id):
        ledger.reconcile(settings, repo)
        result = handled_before(settings, repo, game_id, entry.name, move_text, key)
        if result is None:
            ledger.write_inbound(
                settings,
                game_id,
                key,
                {
                    "status": "pending",
                    "message_id": message_id,
                    "subject": subject,
                    "player": entry.name,
                    "text": move_text,
                    "head": repo.head(),
                    **({"signature": signature} if signature else {}),
                },
            )
            late = staleness.stale(settings, repo, entry.name, move_text, answered)
            if late is not None:
                result = refuse_stale(settings, repo, game_id, entry.name, key, late)
            else:
                result = adjudicate(settings, repo, game_id, entry.name, move_text, key)
    if deliver_now:
        outbox.deliver(settings)
    return result
