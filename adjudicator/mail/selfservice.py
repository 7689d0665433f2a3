"""Commands by mail: a player pauses the clock, resigns, sets their mail, lists games.

A reply whose text is one command line (upper or lower case alike) is a command, not a
move (docs/email.md#commands-by-mail):

    pause 72h holiday        pause the game's clock, as `pamir pause` does
    resign                   the stand-in takes the seat for the rest of the game
    settings notify turns    which reports to mail: per-turn, every, turns or digest
    settings timezone Asia/Kabul   the clock the daily digest keeps
    settings language pl     the language of the player's mail: en or pl
    my games                 the service's games this address plays in

It runs after the same checks as a move (the reply token, the sender, `mail_auth`), holding
the game's lock; its answer goes to the player's thread, under a key made of the inbound
message's, so a message delivered twice is answered once.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal
from zoneinfo import ZoneInfo

from adjudicator.games.deadlines import PauseRefused, local_text, zone
from adjudicator.games.languages import UnknownLanguage, record_language
from adjudicator.games.outputs import INBOUND_TRAILER, Refusal
from adjudicator.games.pipeline import adjudicate_pending, end_resigned, play_resigned
from adjudicator.games.registry import list_games
from adjudicator.games.repo import REF, GameRepo
from adjudicator.games.resign import ResignRefused, record_resignation
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.games.waiting import Waiting, record_pause, waiting
from adjudicator.home import metrics
from adjudicator.home.settings import Settings
from adjudicator.home.translations import LANGUAGES, SOURCE, Words, words_for
from adjudicator.mail import notices
from adjudicator.mail.compose.messages import message_key
from adjudicator.mail.delivery import MEANING
from adjudicator.mail.preferences import (
    PREFERENCES,
    preference_named,
    set_notify_preference,
    set_player_timezone,
)

log = logging.getLogger(__name__)

PAUSE = re.compile(r"^pause\s+(?P<hours>\d{1,5})\s*(h|hours?)?\s+(?P<reason>\S.*)$", re.I)
RESIGN = re.compile(r"^resign$", re.I)
NOTIFY = re.compile(r"^settings\s+notify\s+(?P<value>\S+)$", re.I)
TIMEZONE = re.compile(r"^settings\s+time\s?zone\s+(?P<value>\S+)$", re.I)
LANGUAGE = re.compile(r"^settings\s+(language|język|jezyk)\s+(?P<value>\S+)$", re.I)
MY_GAMES = re.compile(r"^my\s+games$", re.I)


@dataclass(frozen=True)
class Command:
    """One command line, read."""

    name: Literal["pause", "resign", "notify", "timezone", "language", "games"]
    hours: int = 0
    text: str = ""  # the pause's reason, the notify preference, the time zone, the language


@dataclass
class Outcome:
    """What a command did: `accepted` or `refused`, why, and the mail it queued."""

    status: Literal["accepted", "refused"]
    reason: str
    paths: list[Path] = field(default_factory=list)


def parse(lines: list[str]) -> Command | None:
    """The command a reply holds, or None when it is not exactly one command line."""
    said = [line.strip() for line in lines if line.strip() and not line.startswith("#")]
    if len(said) != 1:
        return None
    line = " ".join(said[0].split())
    if match := PAUSE.match(line):
        return Command("pause", int(match.group("hours")), match.group("reason"))
    if RESIGN.match(line):
        return Command("resign")
    if match := NOTIFY.match(line):
        return Command("notify", text=match.group("value").lower())
    if match := TIMEZONE.match(line):
        return Command("timezone", text=match.group("value"))
    if match := LANGUAGE.match(line):
        return Command("language", text=match.group("value").lower())
    if MY_GAMES.match(line):
        return Command("games")
    return None


@dataclass(frozen=True)
class Asked:
    """Who asked, and the message to answer."""

    player: str
    sender: str
    key: str  # the inbound message's key (ledger.inbound_key)
    message_id: str | None
    subject: str | None


def run(settings: Settings, repo: GameRepo, command: Command, asked: Asked) -> Outcome:
    """Carry out a command (the game's lock is held) and queue its answers."""
    game_id = snapshot(repo).game.id
    if (commit := _committed(repo, asked.key)) is not None:
        # Delivered again after its commit: done once, only the answer may be missing.
        reason = f"done before (commit {commit[:10]})"
        words = _words(repo, asked.player)
        said = words("done before (commit %(commit)s)", commit=commit[:10])
        return _answered(settings, repo, asked, "accepted", reason, f"# {game_id}: {said}\n")
    if command.name == "pause":
        return _pause(settings, repo, command, asked)
    if command.name == "resign":
        return _resign(settings, repo, asked)
    if command.name == "notify":
        return _notify(settings, repo, command, asked)
    if command.name == "timezone":
        return _timezone(settings, repo, command, asked)
    if command.name == "language":
        return _language(settings, repo, command, asked)
    return _games(settings, repo, asked)


def _words(repo: GameRepo, player: str) -> Words:
    """The words of a player of the game (their language in game.toml)."""
    return words_for(snapshot(repo).game.player(player).language)


def tell_players(
    settings: Settings,
    repo: GameRepo,
    players: list[str],
    said: Callable[[Words], tuple[str, str]],
    *,
    kind: str,
    ref: str,
) -> list[Path]:
    """Tell `players`, each in their own language: `said(words)` is (subject, text)."""
    game = snapshot(repo).game
    by_language: dict[str, list[str]] = {}
    for name in players:
        by_language.setdefault(game.player(name).language, []).append(name)
    paths: list[Path] = []
    for language, names in sorted(by_language.items()):
        subject, text = said(words_for(language))
        paths += notices.notify_players(settings, repo, names, subject, text, kind=kind, ref=ref)
    return paths


def _committed(repo: GameRepo, key: str) -> str | None:
    """The commit that carries out the command of the inbound message `key`, if any."""
    found = str(repo.repo.git.log("--format=%H", f"--grep=^{INBOUND_TRAILER}: {key}$", REF))
    return found.split()[0] if found.split() else None


def _answered(
    settings: Settings,
    repo: GameRepo,
    asked: Asked,
    status: Literal["accepted", "refused"],
    reason: str,
    text: str,
) -> Outcome:
    game_id = snapshot(repo).game.id
    key = message_key(game_id, 0, asked.player, "command", asked.key)
    path = notices.notify_answer(
        settings,
        repo,
        asked.player,
        text,
        key=key,
        in_reply_to=asked.message_id,
        subject=asked.subject,
    )
    return Outcome(status, reason, [path])


def _pause(settings: Settings, repo: GameRepo, command: Command, asked: Asked) -> Outcome:
    snap = snapshot(repo)
    game_id, tz = snap.game.id, zone(snap.game.deadlines.timezone)
    try:
        made, pause, after = record_pause(
            repo,
            asked.player,
            command.hours,
            command.text,
            datetime.now(UTC),
            by_mail=True,
            inbound=asked.key,
        )
    except PauseRefused as error:
        words = _words(repo, asked.player)
        refused = words("pause refused")
        said = words("The clock was not paused: %(error)s.", error=words.said(error.said()))
        text = f"# {game_id}: {refused}\n\n{said}\n"
        return _answered(settings, repo, asked, "refused", str(error), text)

    def paused(words: Words) -> str:
        return words(
            "the clock is paused for %(hours)s hours from %(start)s (%(player)s: %(reason)s); "
            "the deadline is now %(deadline)s",
            hours=pause.hours,
            start=_when(words, pause.start, tz),
            player=pause.player,
            reason=pause.reason,
            deadline=_when(words, after.deadline, tz),
        )

    others = [p for p in snap.game.names if p.lower() != asked.player.lower()]
    paths = tell_players(
        settings,
        repo,
        others,
        lambda words: (
            f"[{game_id}] " + words("The clock is paused"),
            f"# {game_id}: {paused(words)}\n",
        ),
        kind="pause",
        ref=made,
    )
    words = _words(repo, asked.player)
    done = words("Done (commit %(commit)s): %(said)s.", commit=made[:10], said=paused(words))
    text = f"# {game_id}: " + words("clock paused") + f"\n\n{done}\n"
    outcome = _answered(settings, repo, asked, "accepted", f"paused ({made[:10]})", text)
    outcome.paths += paths
    return outcome


def _resign(settings: Settings, repo: GameRepo, asked: Asked) -> Outcome:
    game_id = snapshot(repo).game.id
    try:
        made = record_resignation(
            repo, asked.player, datetime.now(UTC), home=settings.home, inbound=asked.key
        )
    except ResignRefused as error:
        words = _words(repo, asked.player)
        refused = words("resignation refused")
        said = words("Nothing was changed: %(error)s.", error=words.said(error.said()))
        text = f"# {game_id}: {refused}\n\n{said}\n"
        return _answered(settings, repo, asked, "refused", str(error), text)
    game = snapshot(repo).game
    name = game.player(asked.player).name
    if game.on_resign == "end":
        return _resign_ends(settings, repo, asked, name, made)

    def resigned(words: Words) -> str:
        return words(
            "%(name)s has resigned (commit %(commit)s). The stand-in (an automated player) "
            "plays %(name)s's seat for the rest of the game, as soon as it must decide.",
            name=name,
            commit=made[:10],
        )

    def told(words: Words) -> tuple[str, str]:
        resigns = words("%(name)s resigns", name=name)
        return f"[{game_id}] {resigns}", f"# {game_id}: {resigns}\n\n{resigned(words)}\n"

    players = game.names
    paths = tell_players(settings, repo, players, told, kind="resign", ref=made)
    play_resigned(repo, settings.home)  # its reports are queued by the caller's reconcile
    words = _words(repo, asked.player)
    heading, thanks = words("you have resigned"), words("Thank you for playing.")
    text = f"# {game_id}: {heading}\n\n{resigned(words)} {thanks}\n"
    outcome = _answered(settings, repo, asked, "accepted", f"resigned ({made[:10]})", text)
    outcome.paths += paths
    return outcome


def _resign_ends(settings: Settings, repo: GameRepo, asked: Asked, name: str, made: str) -> Outcome:
    """The game ends on the resignation, as its host chose: every player gets the last
    report (queued by the caller's reconcile), which says so and who won."""
    game_id = snapshot(repo).game.id
    try:
        # The moves pushed before the resignation count; when there were some, the
        # stand-in's turn after them ended the game already (pipeline.play_resigned).
        pushed = adjudicate_pending(repo, settings.home)
        metrics.outcomes("push", pushed)
        if pushed and pushed[-1].followed:
            ended = pushed[-1].followed[-1]
        else:
            ended = end_resigned(repo, settings.home, name)
    except Refusal as refusal:  # the next adjudication ends it (pipeline.play_resigned)
        log.warning("game %s: %s resigned, the game did not end yet: %s", game_id, name, refusal)
        words = _words(repo, asked.player)
        said = words(
            "Your resignation is recorded (commit %(commit)s). The game could not end at once "
            "(%(refusal)s); it ends with the next move the service adjudicates.",
            commit=made[:10],
            refusal=refusal,
        )
        text = f"# {game_id}: " + words("you have resigned") + f"\n\n{said}\n"
        return _answered(settings, repo, asked, "accepted", f"resigned ({made[:10]})", text)
    words = _words(repo, asked.player)
    said = words(
        "Your resignation is recorded (commit %(commit)s), and the game ends, as its host "
        'chose (`on_resign = "end"`), with move %(number)s: every player gets its report, with '
        "who won. Thank you for playing.",
        commit=made[:10],
        number=ended.number,
    )
    text = f"# {game_id}: " + words("you have resigned") + f"\n\n{said}\n"
    return _answered(settings, repo, asked, "accepted", f"resigned ({made[:10]})", text)


def _notify(settings: Settings, repo: GameRepo, command: Command, asked: Asked) -> Outcome:
    game_id = snapshot(repo).game.id
    value = preference_named(command.text)
    if value is None:
        choices = ", ".join(PREFERENCES)
        reason = f"unknown-setting: notify is one of {choices}, not {command.text!r}"
        words = _words(repo, asked.player)
        refused = words("setting refused")
        said = words(
            "Nothing was changed (unknown-setting): notify is one of %(choices)s, not %(asked)s.",
            choices=", ".join("`" + p + "`" for p in PREFERENCES),
            asked="`" + command.text + "`",
        )
        if words.language == SOURCE:
            said = words("Nothing was changed: %(error)s.", error=reason)
        text = f"# {game_id}: {refused}\n\n{said}\n"
        return _answered(settings, repo, asked, "refused", reason, text)
    set_notify_preference(settings, game_id, asked.player, value)
    words = _words(repo, asked.player)
    said = words("Your mail setting for this game is now `notify %(value)s`.", value=value)
    text = f"# {game_id}: `notify {value}`\n\n{said} {words(MEANING[value])}\n"
    return _answered(settings, repo, asked, "accepted", f"notify {value}", text)


def _timezone(settings: Settings, repo: GameRepo, command: Command, asked: Asked) -> Outcome:
    game_id = snapshot(repo).game.id
    words = _words(repo, asked.player)
    try:
        set_player_timezone(settings, game_id, asked.player, command.text)
    except ValueError as error:
        reason = f"unknown-setting: {error}"
        said = words("Nothing was changed: %(error)s.", error=reason)
        text = f"# {game_id}: " + words("setting refused") + f"\n\n{said}\n"
        return _answered(settings, repo, asked, "refused", reason, text)
    said = words(
        "Your daily digest for this game now comes at %(hour)s %(zone)s time.",
        hour=format(settings.digest_hour, "02d") + ":00",
        zone=command.text,
    )
    text = f"# {game_id}: `timezone {command.text}`\n\n{said}\n"
    return _answered(settings, repo, asked, "accepted", f"timezone {command.text}", text)


def _language(settings: Settings, repo: GameRepo, command: Command, asked: Asked) -> Outcome:
    """`settings language pl`: a commit of game.toml; answered in the new language."""
    game_id = snapshot(repo).game.id
    try:
        made = record_language(
            repo, asked.player, command.text, datetime.now(UTC), inbound=asked.key
        )
    except UnknownLanguage:
        words = words_for(snapshot(repo).game.player(asked.player).language)
        choices = ", ".join(LANGUAGES)
        reason = f"unknown-language: language is one of {choices}, not {command.text!r}"
        said = words(
            "Nothing was changed: the languages are %(choices)s, not %(asked)s.",
            choices=choices,
            asked=repr(command.text),
        )
        text = f"# {game_id}: " + words("setting refused") + f"\n\n{said}\n"
        return _answered(settings, repo, asked, "refused", reason, text)
    words = words_for(command.text)
    said = words(
        "From now on your reports, your private section and your mail in this game are in "
        "%(language)s.",
        language=LANGUAGES[command.text],
    )
    text = f"# {game_id}: " + words("language %(code)s", code=command.text) + f"\n\n{said}\n"
    done = "unchanged" if made is None else made[:10]
    return _answered(settings, repo, asked, "accepted", f"language {command.text} ({done})", text)


def _games(settings: Settings, repo: GameRepo, asked: Asked) -> Outcome:
    words = _words(repo, asked.player)
    rows = [
        _game_row(other_id, other, asked.sender, words) for other_id, other in list_games(settings)
    ]
    found = [row for row in rows if row is not None]
    head = " | ".join([words("Game"), words("Whose turn"), words("You")])
    table = f"| {head} |\n| --- | --- | --- |\n" + "".join(found)
    heading = words("Your games")
    plays = words("The games %(address)s plays in:", address=asked.sender)
    text = f"# {heading}\n\n{plays}\n\n{table}"
    return _answered(settings, repo, asked, "accepted", f"{len(found)} games", text)


def _game_row(game_id: str, repo: GameRepo, address: str, words: Words) -> str | None:
    """A row of `my games` when `address` plays in the game, else None."""
    try:
        snap = snapshot(repo)
        mine = [p for p in snap.game.players if p.email.lower() == address.lower()]
        if not mine:
            return None
        pending = waiting(repo, snap.commit)
    except GameError:
        return None
    finally:
        repo.repo.close()
    turn = ", ".join(pending.players) if pending is not None else words("nobody: the game is over")
    status = _status(mine[0].name, mine[0].resigned, pending, words)
    return f"| {game_id} | {turn} | {status} |\n"


def _status(name: str, resigned: bool, pending: Waiting | None, words: Words) -> str:
    if resigned:
        return words("%(name)s, resigned", name=name)
    if pending is None:
        return words("%(name)s, game over", name=name)
    if name in pending.players:
        return words("%(name)s, your decision", name=name)
    return words("%(name)s, waiting", name=name)


def _when(words: Words, when: datetime, tz: ZoneInfo) -> str:
    """A time in the game's zone, as the reader's language writes it."""
    return local_text(when, tz) if words.language == SOURCE else words.datetime(when, tz)
