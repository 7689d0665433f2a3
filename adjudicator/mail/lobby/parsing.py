"""The lobby's mail, read: a `new game` mail to the service's address, and the answers at
a seat's address (docs/lobby.md#commands).

    new game herat               the first line: the game's name (its id)
    invite bob@example.org       a player, named after the address's local part
    invite carol@example.org as carol
    as alice                     the creator's own name (default: their local part)
    language pl                  the creator's language (en, pl)
    deadline 48h                 hours per decision (`pamir new --turn-hours`)
    wakhan                       Wakhan takes a seat (one or two human players)
    open                         listed among the open games, which anyone may join

At a seat: `accept` (or `accept as NAME`), `language pl`, `decline`; the creator's seat
also takes `invite ADDRESS [as NAME]`, `start` (play without those who declined or did
not answer) and `cancel`. With the lobby `open`, `join GAME [as NAME]` to the service's
address takes a seat in an open game. Lines are read in any case; `#` lines are comments.

Every mistake is `Unreadable`, naming the line and what is wrong, in words the lobby's
answers translate (`answers.refusal`); what the sender typed is never quoted back into
the answer unless it is one of the forms above, so no markup or control character of
theirs reaches a mail of ours.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from adjudicator.games.gamefile import GAME_ID
from adjudicator.home.translations import LANGUAGES
from engine.rules.setup import NAME_PATTERN, RESERVED_NAMES

NEW_GAME = re.compile(r"^new\s+game\s+(?P<name>\S+)$", re.I)
INVITE = re.compile(r"^invite\s+(?P<address>\S+)(\s+as\s+(?P<name>\S+))?$", re.I)
AS_NAME = re.compile(r"^(my\s+name|name|as)\s+(?P<name>\S+)$", re.I)
LANGUAGE = re.compile(r"^(settings\s+)?(language|język|jezyk)\s+(?P<code>\S+)$", re.I)
DEADLINE = re.compile(r"^(deadline|turn[\s_-]?hours)\s+(?P<hours>\d{1,4})\s*(h|hours?)?$", re.I)
WAKHAN = re.compile(r"^wakhan$", re.I)
OPEN_GAME = re.compile(r"^open$", re.I)
JOIN = re.compile(r"^join\s+(?P<game>\S+)(\s+as\s+(?P<name>\S+))?$", re.I)
ACCEPT = re.compile(r"^accept(\s+as\s+(?P<name>\S+))?$", re.I)
WORD = re.compile(r"^(?P<word>decline|start|cancel)$", re.I)
# An address as the lobby takes it: plain ASCII, no quoting, comments or markup.
ADDRESS = re.compile(r"^[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(\.[a-z0-9-]{1,63})*$")
MOST_ADDRESS = 254
MOST_HOURS = 24 * 30


class Unreadable(ValueError):
    """A line of a lobby mail that cannot be taken: `message` (a msgid, with `params`)."""

    def __init__(self, line: int, message: str, **params: str) -> None:
        super().__init__(f"line {line}: " + (message % params if params else message))
        self.line, self.message, self.params = line, message, params


@dataclass(frozen=True)
class Invite:
    address: str
    name: str | None  # None: the invitee chooses one on accepting
    line: int = 1  # where the mail said it


@dataclass
class NewGame:
    """A `new game` mail, read."""

    name: str
    invites: list[Invite] = field(default_factory=list)
    player_name: str | None = None
    language: str = "en"
    turn_hours: int = 48
    wakhan: bool = False
    open: bool = False  # listed among the open games, which anyone may join


@dataclass(frozen=True)
class Join:
    """A `join GAME [as NAME]` mail: to take a seat in an open game."""

    game: str
    name: str | None


Kind = Literal["accept", "decline", "invite", "start", "cancel"]
KINDS: tuple[Kind, ...] = ("accept", "decline", "invite", "start", "cancel")


@dataclass
class Answer:
    """What a seat's party said: `accept`, `decline`, `invite`, `start` or `cancel`."""

    kind: Kind | None = None  # None: only `language` (the invitee's, for the invitation)
    name: str | None = None
    language: str | None = None
    invites: list[Invite] = field(default_factory=list)


def said(lines: list[str]) -> list[tuple[int, str]]:
    """The lines that say something, numbered from 1, spaces made single."""
    found = [(n, " ".join(line.split())) for n, line in enumerate(lines, start=1)]
    return [(n, line) for n, line in found if line and not line.startswith("#")]


def is_new_game(lines: list[str]) -> bool:
    found = said(lines)
    return bool(found) and NEW_GAME.match(found[0][1]) is not None


def is_join(lines: list[str]) -> bool:
    found = said(lines)
    return bool(found) and JOIN.match(found[0][1]) is not None


def join(lines: list[str]) -> Join:
    """A `join` mail's one line, read (Unreadable when there is more, or a bad name)."""
    found = said(lines)
    if len(found) > 1:
        raise Unreadable(found[1][0], "this line is not one the lobby knows (docs/lobby.md)")
    match = JOIN.match(found[0][1])
    assert match is not None  # is_join chose this mail
    named = match.group("name")
    return Join(match.group("game").lower(), player_name(1, named) if named else None)


def player_name(line: int, text: str) -> str:
    if not NAME_PATTERN.match(text) or text.lower() in RESERVED_NAMES:
        raise Unreadable(
            line,
            "a player's name is a letter, then letters, digits, '.', '_' or '-' (at most 32) "
            "and no word of the notation",
        )
    return text


def address(line: int, text: str) -> str:
    found = text.strip("<>").lower()
    if len(found) > MOST_ADDRESS or not ADDRESS.match(found):
        raise Unreadable(line, "this is not an email address the lobby takes")
    return found


def default_name(address: str) -> str | None:
    """The name an invitee gets unless they choose one: their address's local part."""
    local = address.partition("@")[0].partition("+")[0]
    if NAME_PATTERN.match(local) and local.lower() not in RESERVED_NAMES:
        return local
    return None


def _invite(line: int, text: str) -> Invite | None:
    match = INVITE.match(text)
    if match is None:
        return None
    named = match.group("name")
    found = address(line, match.group("address"))
    return Invite(found, player_name(line, named) if named else default_name(found), line)


def language_line(line: int, text: str) -> str | None:
    """The language a `language CODE` line names (Unreadable for one not spoken), else None."""
    match = LANGUAGE.match(text)
    if match is None:
        return None
    code = match.group("code").lower()
    if code not in LANGUAGES:
        raise Unreadable(line, "the languages are %(choices)s", choices=", ".join(LANGUAGES))
    return code


def new_game(lines: list[str]) -> NewGame:
    """A `new game` mail's lines, read (Unreadable at the first that cannot be)."""
    found = said(lines)
    first, text = found[0]
    match = NEW_GAME.match(text)
    assert match is not None  # is_new_game chose this mail
    name = match.group("name").lower()
    if not re.match(GAME_ID, name):
        raise Unreadable(
            first,
            "a game's name is 1 to 64 lower-case letters, digits, '_' and '-', starting "
            "with a letter or a digit",
        )
    game = NewGame(name)
    for number, line in found[1:]:
        _option(game, number, line)
    return game


def _option(game: NewGame, number: int, line: str) -> None:
    if (invite := _invite(number, line)) is not None:
        game.invites.append(invite)
    elif (code := language_line(number, line)) is not None:
        game.language = code
    elif match := AS_NAME.match(line):
        game.player_name = player_name(number, match.group("name"))
    elif match := DEADLINE.match(line):
        hours = int(match.group("hours"))
        if not 1 <= hours <= MOST_HOURS:
            raise Unreadable(number, "a deadline is 1 to %(most)s hours", most=str(MOST_HOURS))
        game.turn_hours = hours
    elif WAKHAN.match(line):
        game.wakhan = True
    elif OPEN_GAME.match(line):
        game.open = True
    else:
        raise Unreadable(number, "this line is not one the lobby knows (docs/lobby.md)")


def answer(lines: list[str]) -> Answer:
    """The lines of a reply at a seat's address, read."""
    found = Answer()
    for number, line in said(lines):
        kind = _kind(found, number, line)
        if kind == "language":
            continue
        if kind is None:
            raise Unreadable(number, "this line is not one the lobby knows (docs/lobby.md)")
        if found.kind not in (None, kind):
            raise Unreadable(
                number, "one answer at a time: accept, decline, invite, start or cancel"
            )
        found.kind = next(k for k in KINDS if k == kind)
    return found


def _kind(found: Answer, number: int, line: str) -> str | None:
    """The kind of answer the line makes (`language` for a language line, which goes with
    any), having added what it says to `found`."""
    if match := ACCEPT.match(line):
        named = match.group("name")
        found.name = player_name(number, named) if named else found.name
        return "accept"
    if (code := language_line(number, line)) is not None:
        found.language = code
        return "language"
    if (invite := _invite(number, line)) is not None:
        found.invites.append(invite)
        return "invite"
    if match := WORD.match(line):
        return match.group("word").lower()
    return None
