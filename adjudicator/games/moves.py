"""Move files: `moves/NNNN-PLAYER.txt`, and applying one to a position.

A move file holds one submission: its author's actions in the engine notation, one a
line (`#` comments, blank lines; a `# note: ...` line goes into the turn report). Every
line must be the author's own decision: a `NAME:` prefix, if any, must name the author.
Two lines are not engine actions but requests to the adjudicator: `rollback N REASON...`
proposes to return to the position after move N, and `agree rollback` agrees to the open
proposal.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import engine
from engine.errors import IllegalActionError, MoveError, NotationError
from engine.notation import parse_action, split_line

MOVES_DIR = "moves"
NAME = re.compile(r"^(\d{4,})-([A-Za-z][A-Za-z0-9_.-]{0,31})\.txt$")
ROLLBACK = re.compile(r"^rollback\s+(\d+)\s*(.*)$", re.IGNORECASE)
AGREE = re.compile(r"^agree\s+rollback$", re.IGNORECASE)


@dataclass(frozen=True)
class MoveName:
    number: int
    player: str
    file: str | None = None  # the name as found in the repository, if it differs

    @property
    def path(self) -> str:
        return f"{MOVES_DIR}/{self.file or f'{self.number:04d}-{self.player}.txt'}"


def parse_name(name: str) -> MoveName | None:
    """The number and author of a move file name, or None if it is not one."""
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


def apply_submission(state: engine.State, author: str, text: str) -> Outcome:
    """Apply every line of a move file for `author`; raise the first line's MoveError."""
    try:
        seat = state.seat(author)
    except KeyError:
        raise NotationError("unknown-player", f"no player is called {author!r}") from None
    outcome = Outcome(state)
    for number, line in enumerate(text.splitlines(), start=1):
        try:
            outcome.state = _apply_line(outcome, seat, line)
        except MoveError as error:
            error.line = number
            raise
    if not outcome.actions:
        raise NotationError("empty", "the move file holds no action")
    return outcome


NOTE = "# note:"


def _apply_line(outcome: Outcome, seat: int, line: str) -> engine.State:
    state = outcome.state
    if line.strip().lower().startswith(NOTE):
        # A note for the report (the service says why it played this move).
        outcome.log.append(line.strip()[len(NOTE) :].strip())
        return state
    name, text = split_line(line)
    if not text:
        return state
    if name is not None and name.lower() != state.name(seat).lower():
        raise IllegalActionError(
            "not-your-line",
            f"a move file holds only its author's decisions; {name} must submit their own",
        )
    if ROLLBACK.match(text) or AGREE.match(text):
        raise NotationError("rollback-alone", "a rollback request must be alone in its move file")
    action = parse_action(text, state, seat)
    state = engine.apply(state, seat, action)
    outcome.actions.append(engine.format_action(action))
    outcome.log.extend(state.log)
    return state
