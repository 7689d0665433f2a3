"""Move files: `moves/NNNN-PLAYER.txt`, and applying one to a position.

A move file holds one submission: its author's actions in the engine notation, one a
line (`#` comments, blank lines; a `# note: ...` line goes into the turn report). Every
line must be the author's own decision: a `NAME:` prefix, if any, must name the author.
Two lines are not engine actions but requests to the adjudicator: `rollback N REASON...`
proposes to return to the position after move N, and `agree rollback` agrees to the open
proposal.

A move file is UTF-8 text (a leading byte order mark is dropped) of at most
`max_move_bytes` bytes; `read_submission` checks both for every way a move comes in.
A refusal tells its author only their own legal actions (`own_alternatives`): another
player's show what is in that player's hand.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import engine
from adjudicator.games.gamefile import GameFile
from adjudicator.home.settings import Settings, SettingsError, load_settings
from engine.aliases import english_line
from engine.errors import IllegalActionError, MoveError, NotationError
from engine.notation import parse_action, split_line
from engine.phrases import P, Phrase
from engine.state import as_said

MOVES_DIR = "moves"
NAME = re.compile(r"^(\d{4,})-([A-Za-z][A-Za-z0-9_.-]{0,31})\.txt$")
ROLLBACK = re.compile(r"^rollback\s+(\d+)\s*(.*)$", re.IGNORECASE)
AGREE = re.compile(r"^agree\s+rollback$", re.IGNORECASE)
BOM = "\ufeff"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MoveName:
    number: int
    player: str
    file: str | None = None  # the name as found in the repository, if it differs

    @property
    def path(self) -> str:
        return f"{MOVES_DIR}/{self.file or f'{self.number:04d}-{self.player}.txt'}"


@lru_cache(maxsize=8192)
def parse_name(name: str) -> MoveName | None:
    """The number and author of a move file name, or None if it is not one (remembered:
    every snapshot reads the whole moves folder)."""
    match = NAME.match(name)
    if not match:
        return None
    return MoveName(int(match.group(1)), match.group(2), name)


@dataclass(frozen=True)
class RollbackRequest:
    """`rollback N REASON` (to is N) or `agree rollback` (to is None)."""

    to: int | None
    reason: str = ""


@dataclass
class Outcome:
    """What a submission did: the new state, its actions and what happened."""

    state: engine.State
    actions: list[str] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    # `log` in a translatable form, line for line (engine.State.said).
    said: list[Phrase] = field(default_factory=list)
    # The lines the submission stopped at because another player must decide first
    # (`continuation`), the lines before them (`played`, what the move itself holds), and
    # who decides meanwhile (`waits_for`). Empty when every line was played.
    continuation: list[str] = field(default_factory=list)
    played: list[str] = field(default_factory=list)
    waits_for: list[str] = field(default_factory=list)

    def happened(self) -> Sequence[Phrase | str]:
        """What happened, as phrases where the engine gave them (else its English)."""
        return self.said if len(self.said) == len(self.log) else self.log


def rollback_request(text: str) -> RollbackRequest | None:
    """A move file that asks for a rollback instead of playing, or None."""
    lines = [split_line(line)[1] for line in text.splitlines()]
    lines = [line for line in lines if line]
    if len(lines) != 1:
        return None
    if match := ROLLBACK.match(lines[0]):
        return RollbackRequest(int(match.group(1)), match.group(2).strip())
    if AGREE.match(lines[0]):
        return RollbackRequest(None)
    return None


def move_limit(home: Path) -> int:
    """`max_move_bytes` of the service whose data folder is `home`. The commands on game
    repositories work without valid service settings, so a bad pamir.toml gives the
    default here (the service's own commands report it)."""
    try:
        return load_settings({"home": home}).max_move_bytes
    except SettingsError as error:
        log.warning("%s; max_move_bytes is the default", error)
        default: int = Settings.model_fields["max_move_bytes"].default
        return default


def decode_move(data: bytes) -> str:
    """A move file's text: UTF-8, without a leading byte order mark (editors on Windows
    write one). Bytes that are not UTF-8 raise NotationError `not-utf-8` naming the line."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise NotationError(
            "not-utf-8",
            P(
                "the move file is not UTF-8 text (byte %(byte)s); save it as UTF-8",
                byte=format(data[error.start], "#04x"),
            ),
            line=data.count(b"\n", 0, error.start) + 1,
        ) from None
    return text.removeprefix(BOM)


def read_submission(data: bytes, limit: int) -> str:
    """The text of a submitted move file of at most `limit` bytes (`max_move_bytes`)."""
    if len(data) > limit:
        raise NotationError(
            "too-large",
            P(
                "the move file is %(size)s bytes; max_move_bytes allows %(limit)s",
                size=len(data),
                limit=limit,
            ),
        )
    return decode_move(data)


def own_alternatives(error: MoveError, author: str) -> MoveError:
    """The error with only the author's own legal actions among its alternatives: the
    engine lists whoever decides (`alice: play 22 left`), and another player's actions
    show their hand. A player who is not deciding gets none; the message says who is
    awaited."""
    kept = []
    for alternative in error.alternatives:
        name, _ = split_line(alternative)
        if name is None or name.lower() == author.lower():
            kept.append(alternative)
    error.alternatives = kept
    return error


def check_canonical(text: str) -> None:
    """Refuse a pushed move file written with the notation's Polish words: a move file
    holds the canonical English text, which every replay and player reads alike (a move
    sent by mail or the web page is written so by the service; a pushed file is the
    player's own commit, which the service cannot rewrite). The reason says, in both
    languages, what to write instead (docs/game-repository.md#move-files)."""
    for number, line in enumerate(text.splitlines(), start=1):
        canonical = english_line(line)
        if canonical != line:
            raise NotationError(
                "not-canonical",
                P(
                    "`%(line)s` is in Polish words; a pushed move file holds the canonical "
                    "notation: write `%(canonical)s` (plik ruchu wysyłany przez Git "
                    "zapisuje się w notacji kanonicznej: `%(canonical)s`)",
                    line=line.strip(),
                    canonical=canonical.strip(),
                ),
                line=number,
            )


def public_reason(error: MoveError) -> str:
    """`line N: CODE: message [section]` without the legal alternatives: what a public
    record of a refusal may say (the author's own alternatives show the author's hand)."""
    error.alternatives = []
    return str(error)


def apply_submission(
    state: engine.State, author: str, text: str, *, may_resign: bool = False
) -> Outcome:
    """Apply every line of a move file for `author`; raise the first line's MoveError
    (listing only the author's own legal actions). With `may_resign` (a resigned player
    of a game that ends on resignation: `resigns_to_end`), the line `resign` ends the
    game (engine/resignation.py); otherwise it is no action."""
    try:
        seat = state.seat(author)
    except KeyError:
        reason = P("no player is called %(name)s", name=repr(author))
        raise NotationError("unknown-player", reason) from None
    outcome = Outcome(state)
    raised: tuple[int, str] | None = None  # the line that left its author a follow-up
    lines = text.splitlines()
    deciding = _decides(state, seat)
    for number, line in enumerate(lines, start=1):
        try:
            before = len(outcome.actions)
            if may_resign and line.strip().lower() == RESIGN:
                outcome.state = engine.resign(outcome.state, state.name(seat))
                outcome.actions.append(RESIGN)
                outcome.log.extend(outcome.state.log)
                outcome.said.extend(outcome.state.said)
                continue
            outcome.state = _apply_line(outcome, seat, line)
        except MoveError as error:
            error.line = number
            if deciding and _handed_over(outcome, seat, error):
                _keep_the_rest(outcome, lines, number, state.name(seat))
                return outcome
            own_alternatives(error, state.name(seat))
            if raised is not None and error.code == "wrong-decision":
                # A reply is read line by line: say which line asked the question first.
                error.reword(
                    P(
                        "%(reason)s (line %(line)s, `%(action)s`, asked this first: answer it "
                        "on the next line, then go on)",
                        reason=error.message_phrase(),
                        line=raised[0],
                        action=raised[1],
                    )
                )
            raise
        if len(outcome.actions) > before:
            raised = (number, outcome.actions[-1]) if _follow_up(outcome.state, seat) else None
    if not outcome.actions:
        raise NotationError("empty", P("the move file holds no action"))
    return outcome


NOTE = "# note:"
# The notes the service writes (schedule/clock.py, games/resign.py), as phrases, so that a
# report in another language says them in it; any other note is shown as written.
NOTES: list[tuple[re.Pattern[str], Phrase]] = [
    (
        re.compile(r"the deadline passed: a stand-in played for (?P<who>\S+)"),
        P("the deadline passed: a stand-in played for %(who)s"),
    ),
    (
        re.compile(r"the deadline passed: the default answer was given for (?P<who>\S+)"),
        P("the deadline passed: the default answer was given for %(who)s"),
    ),
    (
        re.compile(r"(?P<who>\S+) resigned: the stand-in plays for them"),
        P("%(who)s resigned: the stand-in plays for them"),
    ),
    (
        re.compile(r"(?P<who>\S+) resigned, and the host chose that the game then ends"),
        P("%(who)s resigned, and the host chose that the game then ends"),
    ),
    (
        re.compile(
            r"the rest of move (?P<number>\d+) by (?P<who>\S+), kept until (?P<waited>.+) decided"
        ),
        P("the rest of move %(number)s by %(who)s, kept until %(waited)s decided"),
    ),
]


def note_phrase(text: str) -> Phrase:
    """A note of a move file as a phrase: one the service writes, translatable; any other
    as it is. Its English is `text` itself."""
    for pattern, phrase in NOTES:
        if (found := pattern.fullmatch(text)) is not None:
            return P(phrase.message, **found.groupdict())
    return as_said(text)


RESIGN = "resign"  # the line that ends a game on resignation, written by the adjudicator
ON_RESIGNED = "resigned"  # `on_behalf` of the moves the service writes for a resigned seat
RESIGNED = "resigned"  # the code of a refusal of a move by a player who resigned


def seat_taken(game: GameFile, player: str) -> Phrase | None:
    """Why `player` may not move in person any more (None: they may): they resigned, and
    the seat is the stand-in's. Every way in refuses them with it, under the code
    `resigned`: the pipeline, the contract of a push, and `pamir verify` alike."""
    if not game.has_resigned(player):
        return None
    return P(
        "%(player)s has resigned: the stand-in plays the seat, and no move is taken from "
        "%(player)s any more",
        player=game.player(player).name,
    )


def resigns_to_end(game: GameFile, player: str) -> bool:
    """Whether `player`'s move file may end the game by the line `resign`: they resigned
    (game.toml, a commit of the service) in a game whose host chose `on_resign = "end"`."""
    return game.on_resign == "end" and game.has_resigned(player)


def _follow_up(state: engine.State, seat: int) -> bool:
    """Whether `seat` must now answer a question an action of theirs raised (where to put
    a spy, which piece to take...), rather than go on with the turn's actions."""
    decision = engine.pending(state)
    return (
        decision is not None and decision.kind not in ("turn", "loyalty") and seat in decision.seats
    )


def _decides(state: engine.State, seat: int) -> bool:
    decision = engine.pending(state)
    return decision is not None and seat in decision.seats


def _handed_over(outcome: Outcome, seat: int, error: MoveError) -> bool:
    """Whether a line was refused only because the author's own lines before it handed a
    decision to another player (a ruler who may demand a bribe, a discard asked of
    everyone): the author decided when the submission began, played an action since, and
    is not among those who must decide now [docs/decisions.md#continuations]."""
    if error.code != "not-your-decision" or not any(
        not action.startswith("policy ") for action in outcome.actions
    ):
        return False
    decision = engine.pending(outcome.state)
    # Still the author's turn, and not a new one's first decision: a line meant for after
    # the end of the author's turn is refused, as it always was.
    return (
        decision is not None
        and decision.kind not in ("turn", "loyalty")
        and outcome.state.active == seat
        and seat not in decision.seats
        and bool(decision.seats)
    )


def _keep_the_rest(outcome: Outcome, lines: list[str], number: int, author: str) -> None:
    """Stop at line `number`: the lines from it on are the author's continuation, played
    once the other player has decided. Each is read now (a line that is no action at all,
    or one in another player's name, is refused at once, with its number, rather than
    after the other's answer)."""
    rest: list[str] = []
    for offset, line in enumerate(lines[number - 1 :]):
        name, text = split_line(line)
        if not text:
            continue
        rest.append(line)
        try:
            if name is not None and name.lower() != author.lower():
                raise _not_your_line(name)
            engine.read_action(text)
        except MoveError as error:
            error.line = number + offset
            raise
    decision = engine.pending(outcome.state)
    assert decision is not None
    outcome.continuation = rest
    outcome.played = lines[: number - 1]
    outcome.waits_for = [outcome.state.name(s) for s in decision.seats]


def _not_your_line(name: str) -> MoveError:
    return IllegalActionError(
        "not-your-line",
        P("a move file holds only its author's decisions; %(who)s must submit their own", who=name),
    )


def _apply_line(outcome: Outcome, seat: int, line: str) -> engine.State:
    state = outcome.state
    if line.strip().lower().startswith(NOTE):
        # A note for the report (the service says why it played this move).
        outcome.log.append(line.strip()[len(NOTE) :].strip())
        outcome.said.append(note_phrase(outcome.log[-1]))
        return state
    name, text = split_line(line)
    if not text:
        return state
    if name is not None and name.lower() != state.name(seat).lower():
        raise _not_your_line(name)
    if ROLLBACK.match(text) or AGREE.match(text):
        reason = P("a rollback request must be alone in its move file")
        raise NotationError("rollback-alone", reason)
    action = parse_action(text, state, seat)
    state = engine.apply(state, seat, action)
    outcome.actions.append(engine.format_action(action))
    outcome.log.extend(state.log)
    outcome.said.extend(state.said)
    return state
