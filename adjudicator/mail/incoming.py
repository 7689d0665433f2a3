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

A reply that is one command line (`pause 72h holiday`, `resign`, `settings notify turns`,
`my games`) is carried out by `selfservice` instead of step 4, and press (`press:` or
`press to NAME:` and the lines below) is relayed by `press`, the lines above it, if any,
going on as the move. Both come after the checks of steps 1 and 2.

A message delivered again gets the outcome recorded for it, and no second answer. What
the checks of steps 1 and 2 turn away is counted for /metrics by its reason's code, and
the move of step 4 as adjudicated or refused by mail (adjudicator/home/metrics.py).
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage, Message
from email.parser import BytesParser
from html.parser import HTMLParser
from pathlib import Path
from typing import Literal

from adjudicator.forge import notices, remote, transport
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.outputs import Adjudication, Refusal
from adjudicator.games.pipeline import submit
from adjudicator.games.registry import game_lock, open_game
from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home import metrics
from adjudicator.home.settings import Settings
from adjudicator.mail import (
    bounds,
    envelope,
    ledger,
    outgoing,
    press,
    renewal,
    replays,
    selfservice,
    staleness,
    tokens,
)
from adjudicator.mail.authentication import unauthenticated
from adjudicator.mail.signatures import DnsLookup, Signature
from engine.phrases import P

log = logging.getLogger(__name__)

RECIPIENT_HEADERS = ("To", "Cc", "Delivered-To", "X-Original-To")
EXIT_IGNORED = 2
EXIT_TEMPFAIL = 75  # sysexits EX_TEMPFAIL: the MTA keeps the message and tries again later

Status = Literal["accepted", "refused", "ignored"]


@dataclass
class InboundResult:
    """What became of an inbound message."""

    status: Status
    reason: str
    game: str | None = None
    player: str | None = None
    number: int | None = None  # the adjudicated move, when accepted
    messages: list[Path] = field(default_factory=list)  # outbox files queued in answer
    duplicate: bool = False  # ignored because this Message-ID was handled before

    @property
    def exit_status(self) -> int:
        """0 when handled (accepted, refused with a reply, or handled before), else 2."""
        return 0 if self.status != "ignored" or self.duplicate else EXIT_IGNORED


# -- reading the text ----------------------------------------------------------------------


# Hand-written on purpose, both: html2text (GPL-3.0-or-later) cannot be a dependency of
# this MIT-licensed service without changing the terms of its distribution, and
# mail-parser-reply (1.36, tried) keeps what follows a mobile footer ("Envoyé de mon
# iPhone" then the original unquoted), which a move must never take in.
class _HTMLText(HTMLParser):
    """HTML to plain text: block elements break lines, blockquotes become `> ` lines."""

    BLOCKS = frozenset(
        [
            "p",
            "div",
            "br",
            "li",
            "tr",
            "h1",
            "h2",
            "h3",
            "h4",
            "h5",
            "h6",
            "pre",
            "table",
            "ul",
            "ol",
            "blockquote",
            "hr",
            "section",
        ]
    )
    HIDDEN = frozenset(("head", "style", "script", "title"))

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.current: list[str] = []
        self.depth = 0  # blockquote nesting
        self.hidden = 0

    def _break(self) -> None:
        text = "".join(self.current).strip()
        self.current = []
        if text or (self.lines and self.lines[-1]):
            self.lines.append(("> " * self.depth) + text if text else "")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self.HIDDEN:
            self.hidden += 1
        elif tag in self.BLOCKS:
            self._break()
            if tag == "blockquote":
                self.depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in self.BLOCKS:
            self._break()
            if tag == "blockquote":
                self.depth = max(0, self.depth - 1)

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.current.append(re.sub(r"\s+", " ", data))

    def text(self) -> str:
        self._break()
        return "\n".join(self.lines)


def html_to_text(html: str) -> str:
    parser = _HTMLText()
    parser.feed(html)
    parser.close()
    return parser.text()


# Of an HTML body, what is read: the player's own lines come first, and the rest is the
# quoted report, while the parser's cost grows with every tag (a second a megabyte).
MAX_HTML_CHARS = 256 * 1024


def body_text(message: EmailMessage) -> str | None:
    """The message's text: its text/plain body, else its HTML body as text (its first
    MAX_HTML_CHARS characters), else None."""
    part = message.get_body(preferencelist=("plain",))
    if part is not None:
        return str(part.get_content())
    part = message.get_body(preferencelist=("html",))
    if part is not None:
        return html_to_text(str(part.get_content())[:MAX_HTML_CHARS])
    return None


FOOTER = re.compile(
    r"^("
    r"sent (from|with|via) \S.*"  # Sent from my iPhone / Sent with Proton Mail ...
    r"|get outlook for \S.*|download outlook for \S.*"
    r"|envoyé de mon \S.*|envoyé depuis \S.*|von meinem \S.* gesendet\.?"
    r"|enviado desde mi \S.*|enviado do meu \S.*|inviato da\b.*"
    r"|verzonden (vanaf|met) \S.*|verstuurd vanaf \S.*"
    r")$",
    re.IGNORECASE,
)
SEPARATOR = re.compile(
    r"^(-{2,}\s*(original message|forwarded message|message d'origine|ursprüngliche nachricht)"
    r"\s*-{2,}|_{10,}|begin forwarded message:|-{5,})$",
    re.IGNORECASE,
)
ATTRIBUTION_START = re.compile(r"^(on|le|am|el|il|op|em|den|w dniu)\s", re.IGNORECASE)
ATTRIBUTION_END = re.compile(
    r"(wrote|writes|a écrit|schrieb|escribió|ha scritto|scrisse|schreef|escreveu|skrev|"
    r"napisał)\s*:\s*$",
    re.IGNORECASE,
)
HEADER_BLOCK = re.compile(r"^(from|sent|date|to|subject|cc|de|von|envoyé|gesendet):\s", re.I)
INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)
# Compiled once: each is tried on every line of a reply.
FROM_LINE = re.compile(r"^(from|de|von):\s", re.IGNORECASE)
BULLET = re.compile(r"^[-*•]\s+")


def _attribution(lines: list[str], index: int) -> int:
    """How many lines from `index` form an "On DATE, NAME wrote:" line (0: none)."""
    first = lines[index].strip()
    if ATTRIBUTION_END.search(first) and (ATTRIBUTION_START.match(first) or "@" in first):
        return 1
    if not ATTRIBUTION_START.match(first):
        return 0
    for span in (2, 3):
        chunk = [line.strip() for line in lines[index : index + span]]
        if len(chunk) < span or not all(chunk):
            return 0
        if ATTRIBUTION_END.search(" ".join(chunk)):
            return span
    return 0


def _header_block(lines: list[str], index: int) -> bool:
    """An Outlook-style quoted original: `From: ...` followed by `Sent:`/`To:`/...."""
    if not FROM_LINE.match(lines[index].strip()):
        return False
    following = [line.strip() for line in lines[index + 1 : index + 5]]
    return sum(1 for line in following if HEADER_BLOCK.match(line)) >= 2


def _tidy(line: str) -> str:
    """A reply line as a move line: no list bullet, no backticks around it."""
    line = line.translate(INVISIBLE).replace("\xa0", " ").strip()
    line = BULLET.sub("", line)
    if len(line) >= 2 and line.startswith("`") and line.endswith("`"):
        line = line.strip("`").strip()
    return line


def reply_lines(text: str) -> list[str]:
    """The lines a player wrote: without quoted text, attribution lines, signatures,
    quoted or forwarded originals and mobile footers; blank lines at both ends dropped."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    kept: list[str] = []
    index = 0
    while index < len(lines):
        raw = lines[index].translate(INVISIBLE)
        stripped = raw.replace("\xa0", " ").strip()
        if raw.rstrip("\n") == "-- " or stripped == "--":
            break  # the signature and all below it
        if FOOTER.match(stripped) or SEPARATOR.match(stripped) or _header_block(lines, index):
            break
        span = _attribution(lines, index)
        if span:
            index += span
            continue
        if stripped.startswith(">"):
            index += 1
            continue
        kept.append(_tidy(raw))
        index += 1
    while kept and not kept[-1]:
        kept.pop()
    while kept and not kept[0]:
        kept.pop(0)
    return kept


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


def push_to_forge(
    settings: Settings, repo: GameRepo, answered: tuple[str, str] | None
) -> notices.Update | None:
    """A game hosted on a forge gets the emailed move, or the commit of a command or of
    public press, at once (the lock is held). Moves pushed meanwhile come first:
    `answered` (player, text), the emailed move, may then be dropped, and its author is
    answered by the caller."""
    if not remote.is_remote(repo):
        return None
    try:
        update = ledger.forge_update(settings, repo)
    except transport.RemoteError as error:  # the next webhook or poll pushes it
        log.warning("the move is adjudicated but not yet on the forge: %s", error)
        return None
    ledger.announce(settings, repo, update, answered=answered)
    return update


class ForgeUnavailable(RuntimeError):
    """PostgreSQL mode: an emailed move was committed in this node's clone but could not
    be pushed to the game's forge. The message is left to the mail server to send again:
    its author is told nothing yet, since the commit dies with the node if it dies first
    (docs/cluster.md). The next push, by this node or another, makes it count."""


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
                outgoing.deliver(settings)
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
    message_id = outgoing.one_line(str(message.get("Message-ID", "")))
    subject = outgoing.one_line(str(message.get("Subject", "")))
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
        return _refuse_unauthenticated(settings, repo, entry.name, reason, deliver_now)
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
    lines = reply_lines(text)
    key = ledger.inbound_key(message_id, raw, signature)
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
                outgoing.deliver(settings)
            return InboundResult(done.status, done.reason, game_id, entry.name, messages=done.paths)
    move_text = "\n".join(lines) + "\n" if lines else ""

    with game_lock(settings, game_id):
        ledger.reconcile(settings, repo)
        result = _handled_before(settings, repo, game_id, entry.name, move_text, key)
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
                result = _refuse_stale(settings, repo, game_id, entry.name, key, late)
            else:
                result = _adjudicate(settings, repo, game_id, entry.name, move_text, key)
    if deliver_now:
        outgoing.deliver(settings)
    return result


def _on_forge_or_later(repo: GameRepo, game_id: str, done: Adjudication | None) -> None:
    """PostgreSQL mode: ForgeUnavailable when the move's commit is in this node's clone
    only (its push failed): nobody is told of a move that dies with the node."""
    tip = repo.ref(transport.TRACKING)
    if done is not None and (tip is None or not repo.is_ancestor(done.commit, tip)):
        raise ForgeUnavailable(f"the move is not on the forge of {game_id} yet")


def _refuse_unauthenticated(
    settings: Settings, repo: GameRepo, player: str, reason: str, deliver_now: bool
) -> InboundResult:
    """Refuse a message whose sender is not proven: nothing is recorded or adjudicated,
    and the player is told at their own address (at most daily), never the message's
    sender or envelope sender, who may be anyone. Handled (exit status 0), so that the
    mail server does not bounce it to a forged sender either."""
    game_id = snapshot(repo).game.id
    metrics.inbound_refused("unauthenticated")
    log.warning("inbound mail for %s in %s refused, not authenticated: %s", player, game_id, reason)
    day = datetime.now(UTC).date().isoformat()
    path = outgoing.notify_unauthenticated(settings, repo, player, reason, day=day)
    if deliver_now:
        outgoing.deliver(settings)
    return InboundResult(
        "refused", f"not authenticated: {reason}", game_id, player, messages=[path]
    )


def _refuse_stale(
    settings: Settings, repo: GameRepo, game_id: str, player: str, key: str, refusal: Refusal
) -> InboundResult:
    """Refuse a reply written for a position that is gone (`staleness.stale`): nothing is
    submitted, and the author gets the refusal with their legal actions as they stand."""
    metrics.moves("mail", refused=1)
    reason = str(refusal)
    log.info("move by %s in %s (mail %s) refused: %s", player, game_id, key, reason)
    paths = ledger.refuse(settings, repo, game_id, key, reason, refusal.phrase)
    return InboundResult("refused", reason, game_id, player, messages=paths)


def _handled_before(
    settings: Settings, repo: GameRepo, game_id: str, player: str, text: str, key: str
) -> InboundResult | None:
    """The outcome a message delivered before had (queuing its answer again, which does
    nothing if it is in the outbox already), or None when it must be adjudicated: it is
    new, or its move never landed (a crash before the commit)."""
    record = ledger.inbound_record(settings, game_id, key)
    if record is None:
        return None
    if not record:  # handled before records were kept
        log.info("inbound mail %s was handled before", key)
        result = InboundResult("ignored", "the message was handled before", game_id, player)
        result.duplicate = True
        return result
    if record.get("status") == "refused":
        reason = str(record.get("reason", ""))
        paths = ledger.refuse(settings, repo, game_id, key, reason)
        return InboundResult("refused", reason, game_id, player, messages=paths, duplicate=True)
    since = record.get("head")
    if record.get("status") == "accepted":
        done: Adjudication | None = Adjudication(record["number"], record["commit"], "")
    else:  # pending: the process died; its move landed if a commit says so
        clustered = settings.database_url is not None and remote.is_remote(repo)
        if clustered:  # this clone may hold the move unpushed, or another node pushed it
            push_to_forge(settings, repo, None)
        done = ledger.committed_inbound(repo, key, since) or ledger.same_move_played(
            repo, player, text, since
        )
        if clustered:
            _on_forge_or_later(repo, game_id, done)
    if done is None:
        return None  # crashed before its commit: nothing changed, so adjudicate it now
    paths = ledger.reconcile(settings, repo) + ledger.confirm(settings, repo, game_id, key, done)
    log.info("inbound mail %s was handled before: move %d", key, done.number)
    return InboundResult(
        "accepted",
        f"move {done.number} adjudicated",
        game_id,
        player,
        done.number,
        paths,
        duplicate=True,
    )


def _adjudicate(
    settings: Settings, repo: GameRepo, game_id: str, player: str, text: str, key: str
) -> InboundResult:
    """Submit the move (the game's lock is held and the message recorded as pending), then
    queue the answers from what the game's history now says."""
    since = repo.head()
    try:
        submit(repo, player, text, home=settings.home, inbound=key)
    except (Refusal, GameError) as error:
        reason = str(error)
        phrase = error.phrase if isinstance(error, Refusal) else None
    else:
        reason, phrase = "", None  # (the stand-in played any resigned seat next: pipeline)
    update = push_to_forge(settings, repo, (player, text))
    if update is None and settings.database_url is not None and remote.is_remote(repo):
        _on_forge_or_later(repo, game_id, ledger.committed_inbound(repo, key, since))
    paths = ledger.reconcile(settings, repo)
    # A refused move may be the author's own move pushed to the forge just before: then
    # it is the same move, already played, and the author is told it was accepted.
    mine = ledger.committed_inbound(repo, key, since)
    done = mine or ledger.same_move_played(repo, player, text, since, at_since=bool(reason))
    if mine is not None:
        metrics.moves("mail", adjudicated=1)
    elif done is None:  # (else the same move pushed to the forge stands, counted there)
        metrics.moves("mail", refused=1)
    if done is not None:
        paths += ledger.confirm(settings, repo, game_id, key, done)
        log.info("move %d by %s in %s (mail %s) accepted", done.number, player, game_id, key)
        return InboundResult(
            "accepted", f"move {done.number} adjudicated", game_id, player, done.number, paths
        )
    if not reason and update is not None:
        # Committed here, then dropped by the forge update: the reason is its refusal.
        dropped = [r for r in update.refused if r.number is None and r.text == text]
        if dropped:
            reason, phrase = dropped[0].reason, dropped[0].phrase
        else:
            phrase = P("the move no longer applies after the moves pushed to the game's forge")
            reason = str(phrase)
    log.info("move by %s in %s (mail %s) refused: %s", player, game_id, key, reason)
    paths += ledger.refuse(settings, repo, game_id, key, reason, phrase)
    return InboundResult("refused", reason, game_id, player, messages=paths)
