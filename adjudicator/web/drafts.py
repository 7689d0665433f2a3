"""A player's private draft of their turn: the lines they clicked, kept in the store and
tried on a copy of the position, never committed (docs/web.md#drafts).

The draft is `web/drafts/GAME/PLAYER.json` in the service's store, keyed by the number of
the move it was made after: once the game has moved on, the draft no longer applies and is
discarded (the page says so). Each step is applied to the position the steps before it
left, so that the page can show the result and the next choices; a line refused with
`not-your-decision` means the rest waits for another player's decision, and is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel

import engine
from adjudicator.games.moves import apply_submission
from adjudicator.home import store
from adjudicator.home.records import RecordKind
from adjudicator.home.settings import Settings
from engine.phrases import Phrase

# A line another player must decide on first: the rest of the draft waits, it is no error.
WAITS = "not-your-decision"
# A draft is a turn's lines: more than this is no turn, and the store keeps it small.
MAX_STEPS = 40


class Draft(BaseModel):
    """What the store keeps: the move number the draft was made for and its lines."""

    number: int
    lines: list[str] = []
    # What the last change of the draft has to tell (a step dropped by an undo), shown once.
    notes: list[str] = []


DRAFTS: RecordKind[Draft] = RecordKind("a draft of a turn", Draft)


def name(game: str, player: str) -> str:
    """The draft's record in the store."""
    return f"web/drafts/{game}/{player}.json"


def load(settings: Settings, game: str, player: str, number: int) -> tuple[Draft, bool]:
    """The draft for move `number`, and whether a draft of an older move was discarded
    (the game moved on since it was made)."""
    records = store.of(settings)
    try:
        draft = DRAFTS.read(records, name(game, player))
    except store.StoreError:  # a record that does not read is no draft worth keeping
        draft = Draft(number=-1)
    if draft is None:
        return Draft(number=number), False
    if draft.number != number:
        records.delete(name(game, player))
        return Draft(number=number), True
    return draft, False


def save(settings: Settings, game: str, player: str, draft: Draft) -> None:
    """Keep the draft, or none when it is empty."""
    records = store.of(settings)
    if draft.lines or draft.notes:
        draft.lines = draft.lines[:MAX_STEPS]
        DRAFTS.write(records, name(game, player), draft)
    else:
        records.delete(name(game, player))


@dataclass
class Step:
    """One line of the draft as it applied: the position after it, or why it did not."""

    line: str
    after: engine.State | None  # None: refused, or waiting for another player
    refusal: str | Phrase | None = None
    waits: bool = False
    # What the step did, as the report will say it: a loyalty changed and the cards it
    # discarded, tribes overthrown, leverage paid; the player reads the effect, not a diff.
    happened: list[Phrase | str] = field(default_factory=list)


@dataclass
class Tried:
    """The draft tried on a copy of the position."""

    steps: list[Step] = field(default_factory=list)
    state: engine.State | None = None  # the position after the last step that applied

    @property
    def waiting(self) -> bool:
        return any(step.waits for step in self.steps)

    @property
    def refused(self) -> list[Step]:
        return [step for step in self.steps if step.refusal is not None and not step.waits]


def attempt(state: engine.State, player: str, lines: list[str]) -> Tried:
    """Each line applied to the position the lines before it left; nothing is committed
    (the engine's apply makes a new state). After a line that waits for another player,
    the lines after it wait too."""
    tried = Tried(state=state)
    current = state
    for line in lines:
        if tried.waiting:
            tried.steps.append(Step(line, None, waits=True))
            continue
        try:
            outcome = apply_submission(current, player, line + "\n")
        except engine.MoveError as error:
            waits = error.code == WAITS
            tried.steps.append(Step(line, None, error.message_phrase(), waits))
            continue
        current = outcome.state
        tried.steps.append(Step(line, current, happened=list(outcome.happened())))
        tried.state = current
    return tried


def without(
    state: engine.State, player: str, lines: list[str], k: int
) -> tuple[list[str], list[Step]]:
    """The draft with step `k` removed: the steps after it kept if they still apply, the
    others dropped, with why."""
    rest = lines[:k] + lines[k + 1 :]
    tried = attempt(state, player, rest)
    kept = [step.line for step in tried.steps if step.refusal is None or step.waits]
    dropped = [step for step in tried.steps if step.refusal is not None and not step.waits]
    return kept, dropped
