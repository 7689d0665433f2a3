"""Press by mail: table talk relayed between the players of a game.

A reply holds press from a line `press:` (to every player) or `press to NAME:` (to one
player) to its end; what comes before that line, if anything, is the reply's move. The
press is relayed, with the sender's name and never their address, to each recipient's
thread; public press is committed as `press/NNNN.md` (games/press.py), private press kept
only in PAMIR_HOME (`mail/press/GAME/private/`). Each player may send `press_per_day`
messages per game in any 24 hours. The log `mail/press/GAME.json` records every message
sent, with the inbound message's key, so a message delivered twice is relayed once. A
player who resigned sends none: the seat is the stand-in's, who has nothing to say.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from adjudicator.games.outputs import INBOUND_TRAILER
from adjudicator.games.press import (
    PRESS_TRAILER,
    PressMessage,
    commit_press,
    press_document,
    read_press_document,
)
from adjudicator.games.repo import REF, GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home import store
from adjudicator.home.records import IsoTime, RecordKind
from adjudicator.home.settings import Settings
from adjudicator.home.translations import Words, words_for
from adjudicator.mail import notices
from adjudicator.mail.compose.messages import message_key
from adjudicator.mail.selfservice import Asked, Outcome, tell_players
from adjudicator.mail.tokens import PRESS_ALL
from engine.phrases import P, Phrase

HEADER = re.compile(r"^press(\s+to\s+(?P<to>[a-z][a-z0-9_.-]*))?\s*:\s*(?P<rest>.*)$", re.I)
MAX_CHARS = 8000  # a press message is a letter, not a document
WINDOW = timedelta(hours=24)


@dataclass(frozen=True)
class Press:
    """A press block: to whom (None: every player) and its text."""

    to: str | None
    text: str


def split(lines: list[str]) -> tuple[list[str], Press | None]:
    """The reply's move lines, and the press block after them (None when there is none)."""
    for index, line in enumerate(lines):
        match = HEADER.match(line.strip())
        if match is None:
            continue
        body = (
            [match.group("rest"), *lines[index + 1 :]]
            if match.group("rest")
            else lines[index + 1 :]
        )
        return lines[:index], Press(match.group("to"), "\n".join(body).strip())
    return lines, None


def addressed(lines: list[str], to: str) -> tuple[list[str], Press]:
    """A message to a press address (`+all`, `+NAME`): all its text is press, no move."""
    return [], Press(None if to == PRESS_ALL else to, "\n".join(lines).strip())


class Relayed(BaseModel):
    """A press message relayed, as the game's log `mail/press/GAME.json` keeps it."""

    # As RECORD_CONFIG, and Relayed(sender=...) in the code for `from` in the record.
    model_config = ConfigDict(extra="allow", frozen=True, validate_by_name=True)

    inbound: str  # the inbound message's key
    sender: str = Field(alias="from")
    to: str  # a player's name, or `all`
    number: int  # public press: of its file press/NNNN.md; private press is numbered apart
    sent: IsoTime


PRESS_LOG: RecordKind[list[Relayed]] = RecordKind("a press log", list[Relayed], ensure_ascii=False)


def _log_name(game_id: str) -> str:
    return f"mail/press/{game_id}.json"


def _log(settings: Settings, game_id: str) -> list[Relayed]:
    return PRESS_LOG.read(store.of(settings), _log_name(game_id)) or []


def _write_log(settings: Settings, game_id: str, entries: list[Relayed]) -> None:
    PRESS_LOG.write(store.of(settings), _log_name(game_id), entries)


@dataclass
class Relay:
    """What became of a press message: relayed (or before), or refused and why."""

    accepted: bool
    reason: Phrase
    paths: list[Path] = field(default_factory=list)
    before: bool = False  # relayed before, under the same inbound key


def send(settings: Settings, repo: GameRepo, press: Press, asked: Asked) -> Outcome:
    """Relay the press by mail (the game's lock is held); queue the relays and the answer."""
    done = relay(settings, repo, press, asked.player, asked.key)
    status = "accepted" if done.accepted else "refused"
    text = press.text if done.accepted and not done.before else ""
    outcome = _answer(settings, repo, asked, status, done.reason, text)
    outcome.paths += done.paths
    return outcome


def relay(settings: Settings, repo: GameRepo, press: Press, player: str, key: str) -> Relay:
    """Relay `player`'s press (the game's lock is held), whichever way it came: `key` is
    its inbound key, for the log; queue the relays to its recipients, answer nobody."""
    game = snapshot(repo).game
    entries = _log(settings, game.id)
    if any(e.inbound == key for e in entries):
        return Relay(True, P("press relayed before"), before=True)
    problem = _problem(settings, repo, press, player, entries)
    if problem is not None:
        return Relay(False, problem)
    now = datetime.now(UTC).replace(microsecond=0)
    sender = game.player(player).name
    if press.to is None:
        number, ref = _public(repo, sender, press.text, now, key)
        recipients = [p for p in game.names if p != sender]
        to = "all"
    else:
        to = game.player(press.to).name
        number = 1 + sum(1 for e in entries if e.to != "all")
        recipients, ref = [to], key
        _keep_private(settings, repo, number, sender, to, press.text, now)

    def relayed(words: Words) -> tuple[str, str]:
        subject = (
            words("Press from %(name)s", name=sender)
            if to == "all"
            else words("Press from %(name)s (to you alone)", name=sender)
        )
        return f"[{game.id}] {subject}", _relayed(game.id, sender, to, press.text, words)

    paths = tell_players(settings, repo, recipients, relayed, kind="press", ref=ref)
    entry = Relayed(inbound=key, sender=sender, to=to, number=number, sent=now.isoformat())
    _write_log(settings, game.id, [*entries, entry])
    relayed_path = f"press/{number:04d}.md"
    said = (
        P("press relayed to every other player (%(path)s)", path=relayed_path)
        if to == "all"
        else P("press relayed to %(name)s", name=to)
    )
    return Relay(True, said, paths)


def private_press(settings: Settings, game_id: str, player: str) -> list[PressMessage]:
    """The private press `player` sent or was sent in the game, oldest first: never that
    between two other players."""
    found = []
    for e in _log(settings, game_id):
        if e.to == "all" or player.lower() not in (e.sender.lower(), e.to.lower()):
            continue
        data = store.of(settings).read(_private_name(game_id, e.number, e.sender, e.to))
        message = None if data is None else read_press_document(data.decode("utf-8"))
        if message is not None:
            found.append(message)
    return found


def _problem(
    settings: Settings, repo: GameRepo, press: Press, player: str, entries: list[Relayed]
) -> Phrase | None:
    """Why the press cannot be relayed (its code, then its reason), or None."""
    game = snapshot(repo).game
    if game.has_resigned(player):  # whoever left the game talks no more in it
        return P(
            "resigned: you have resigned from this game, so your press is not relayed to "
            "its players"
        )
    if not press.text:
        return P("empty-press: write your message after `press:` (or `press to NAME:`)")
    if len(press.text) > MAX_CHARS:
        return P("press-too-long: a press message has at most %(n)s characters", n=MAX_CHARS)
    if press.to is not None:
        try:
            to = game.player(press.to).name
        except KeyError:
            return P(
                "unknown-player: no player is called %(name)s (%(names)s)",
                name=repr(press.to),
                names=", ".join(game.names),
            )
        if to.lower() == player.lower():
            return P("press-to-self: press goes to another player")
    since = datetime.now(UTC) - WINDOW
    sent = [
        e
        for e in entries
        if e.sender.lower() == player.lower() and datetime.fromisoformat(e.sent) > since
    ]
    if len(sent) >= settings.press_per_day:
        again = min(datetime.fromisoformat(e.sent) for e in sent) + WINDOW
        return P(
            "press-limit: you have sent %(sent)s press messages in this game in the last 24 "
            "hours, the most allowed (press_per_day = %(most)s); the next may go from %(when)s",
            sent=len(sent),
            most=settings.press_per_day,
            when=again.strftime("%Y-%m-%d %H:%M UTC"),
        )
    return None


def _public(repo: GameRepo, sender: str, text: str, now: datetime, key: str) -> tuple[int, str]:
    """Commit the public press, or find the commit made for this message before a crash."""
    found = str(repo.repo.git.log("--format=%H%n%B", f"--grep=^{INBOUND_TRAILER}: {key}$", REF))
    if found.strip():
        commit = found.split()[0]
        number = next(
            int(line.split(":")[1]) for line in found.splitlines() if line.startswith(PRESS_TRAILER)
        )
        return number, commit
    return commit_press(repo, sender, text, now, inbound=key)


def _keep_private(
    settings: Settings, repo: GameRepo, number: int, sender: str, to: str, text: str, now: datetime
) -> None:
    snap = snapshot(repo)
    document = press_document(number, sender, to, now, snap.adjudicated, text)
    store.of(settings).write(_private_name(snap.game.id, number, sender, to), document.encode())


def _private_name(game_id: str, number: int, sender: str, to: str) -> str:
    """Where the store keeps a private press message."""
    return f"mail/press/{game_id}/private/{number:04d}-{sender.lower()}-{to.lower()}.md"


def _relayed(game_id: str, sender: str, to: str, text: str, words: Words) -> str:
    heading = (
        words("press from %(name)s, to all players", name=sender)
        if to == "all"
        else words("press from %(name)s, to %(to)s alone", name=sender, to=to)
    )
    how = words(
        "To answer every player, reply with a line `press:` and your message below it; to "
        "answer %(name)s alone, `press to %(login)s:`. Or write your message to your reply "
        "address with `+all` (every player) or `+%(login)s` (%(name)s alone) added before "
        "its `@`.",
        name=sender,
        login=sender.lower(),
    )
    return (
        f"# {game_id}: {heading}\n\n"
        + "".join(f"> {line}\n" for line in text.splitlines())
        + f"\n{how}\n"
    )


def _answer(
    settings: Settings, repo: GameRepo, asked: Asked, status: str, reason: Phrase, text: str
) -> Outcome:
    """Answer the sender, in their language; the outcome's reason is the English."""
    game = snapshot(repo).game
    game_id = game.id
    words = words_for(game.player(asked.player).language)
    if status == "refused":
        refused = words("press refused")
        said = words("Your press was not relayed: %(reason)s.", reason=words.phrase(reason))
        body = f"# {game_id}: {refused}\n\n{said}\n"
    else:
        quoted = "".join(f"> {line}\n" for line in text.splitlines())
        body = f"# {game_id}: {words.phrase(reason)}\n\n{quoted}"
    key = message_key(game_id, 0, asked.player, "press-answer", asked.key)
    path = notices.notify_answer(
        settings,
        repo,
        asked.player,
        body,
        key=key,
        in_reply_to=asked.message_id,
        subject=asked.subject,
    )
    return Outcome("accepted" if status == "accepted" else "refused", str(reason), [path])
