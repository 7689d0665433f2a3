"""The lines of a move kept until another player has decided: a player's continuation.

A move whose lines run into another player's decision (a ruler who may demand a bribe, a
discard asked of every player) is played up to that decision; the lines from there on are
the mover's continuation (`engine`'s refusal `not-your-decision` no longer refuses the
move: adjudicator/games/moves.py). They are kept here, in the service's store
(`continuations/GAME.json`, {player: {"after": N, "turn": T, "lines": [...], "waits_for":
[...]}}), never in the game's repository: the other player decides without seeing what the
mover means to do next. As soon as it is the mover's decision again, in the same turn, the
pipeline plays them as a move of their own (games/pipeline.py, `play_continuations`); what
reads in the record then is docs/decisions.md#continuations.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from adjudicator.home.records import RECORD_CONFIG, RecordKind
from adjudicator.home.store import store_for
from engine.phrases import P, Phrase

# `on_behalf` of the moves the service plays from a continuation, before " of move N".
CONTINUATION = "continuation"


class Kept(BaseModel):
    """One player's continuation."""

    model_config = RECORD_CONFIG

    after: int  # the move that played the lines before these
    turn: int  # the turn they belong to: once it is over they are dropped
    lines: list[str]
    waits_for: list[str]


CONTINUATIONS: RecordKind[dict[str, Kept]] = RecordKind(
    "a record of continuations", dict[str, Kept], sort_keys=True
)


def _name(game_id: str) -> str:
    return f"continuations/{game_id}.json"


def kept(home: Path, game_id: str) -> dict[str, Kept]:
    """Every continuation of the game, by player (lower case)."""
    return CONTINUATIONS.read(store_for(home), _name(game_id)) or {}


def keep(home: Path, game_id: str, player: str, found: Kept) -> None:
    """Keep `player`'s continuation (the caller holds the game's lock), in place of any."""
    record = kept(home, game_id)
    record[player.lower()] = found
    CONTINUATIONS.write(store_for(home), _name(game_id), record)


def drop(home: Path, game_id: str, player: str) -> None:
    """Forget `player`'s continuation, if any (the caller holds the game's lock)."""
    record = kept(home, game_id)
    if record.pop(player.lower(), None) is not None:
        records = store_for(home)
        if record:
            CONTINUATIONS.write(records, _name(game_id), record)
        else:
            records.delete(_name(game_id))


def on_behalf(after: int) -> str:
    """What the commit of a continuation says it is: `continuation of move N`."""
    return f"{CONTINUATION} of move {after}"


def is_continuation(on_behalf: str | None) -> bool:
    return on_behalf is not None and on_behalf.startswith(CONTINUATION)


def kept_phrase(lines: list[str], waits_for: list[str]) -> Phrase:
    """What the mover's own section says of the lines kept."""
    return P(
        "The rest of your move (%(lines)s) waits for %(who)s to decide; it is played as "
        "soon as they have, if it is still legal then. A new move of yours replaces it.",
        lines=", ".join(f"`{line.strip()}`" for line in lines),
        who=", ".join(waits_for),
    )


def dropped_phrase(after: int, lines: list[str], reason: Phrase | str) -> Phrase:
    """What the mover's own section says when the lines kept could not be played."""
    return P(
        "The rest of your move %(number)s (%(lines)s) could not be played: %(reason)s. It is "
        "your decision again: reply with your actions.",
        number=after,
        lines=", ".join(f"`{line.strip()}`" for line in lines),
        reason=reason,
    )
