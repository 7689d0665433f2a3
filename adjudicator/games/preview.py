"""A move's outcome before it is sent, judged as a move is and written nowhere.

`preview` judges a move file exactly as `pipeline.submit` does (the same checks, in the
same order, on the same position) and says what it would do, but commits nothing and
writes nothing: no commit, no private section, no position cached, no mail (docs/cli.md,
`pamir move --dry-run`; docs/email.md, a preview by mail).

What it tells is the author's alone: the position after is their view (their hand), so a
preview is shown to its author only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import engine
from adjudicator.drawing.description import describe
from adjudicator.drawing.labels import card_in_words
from adjudicator.games import positions
from adjudicator.games.moves import rollback_request
from adjudicator.games.outputs import Refusal, Said
from adjudicator.games.pipeline import check_submission, play_submission
from adjudicator.games.repo import GameRepo
from adjudicator.games.rollback import plan_request
from adjudicator.games.snapshot import Snapshot, game_seed, replay, snapshot
from adjudicator.games.wording import in_words
from adjudicator.home.translations import Words
from engine.phrases import Phrase
from engine.view_types import PlayerView


@dataclass(frozen=True)
class Refused:
    """The move would be refused: `refusal` says why (with the author's own legal
    actions, when the engine refused a line)."""

    number: int | None
    player: str
    refusal: Refusal


@dataclass(frozen=True)
class Requested:
    """The move file is a rollback request (or an agreement): what it would do."""

    number: int
    player: str
    happened: list[Said]


@dataclass(frozen=True)
class Accepted:
    """The move would be played: its actions as recorded, what would happen, and the
    position after as its author would see it."""

    number: int
    player: str
    actions: list[str]
    happened: Sequence[Said]
    after: PlayerView
    # Who decides next, and what (None when nothing is pending: the game is over).
    deciders: list[str] = field(default_factory=list)
    prompt: Phrase | None = None
    # Lines kept to be played once another player has made the decision the move ran
    # into (`Outcome.continuation`, where the pipeline keeps them).
    continuation: list[str] = field(default_factory=list)


Preview = Refused | Requested | Accepted


def _position(snap: Snapshot, home: Path) -> engine.State:
    """`pipeline.position` without its cache write: from the cache, else replayed."""
    game_seed(snap, home)  # no secret, no game, as for a move
    state = positions.load(snap, home)
    if state is None:
        state, _ = replay(snap, home, upto=snap.adjudicated)
    return state


def preview(
    repo: GameRepo, home: Path, author: str, text: str, *, expected: int | None = None
) -> Preview:
    """What submitting `text` as `author` (numbered `expected`, if given) would do now,
    judged as `pipeline.submit` judges it; nothing is written anywhere."""
    snap = snapshot(repo)  # one commit's objects: a move landing meanwhile changes nothing
    try:
        move, text = check_submission(snap, author, text, home, expected)
        if rollback_request(text) is not None:
            _, happened, _ = plan_request(snap, move, text)
            return Requested(move.number, move.player, happened)
        outcome = play_submission(_position(snap, home), move, text)
    except Refusal as refusal:
        return Refused(snap.next_number, _name(snap, author), refusal)
    state = outcome.state
    decision = engine.pending(state)
    return Accepted(
        move.number,
        move.player,
        list(outcome.actions),
        list(outcome.happened()),
        engine.view(state, move.player),
        [state.name(seat) for seat in decision.seats] if decision else [],
        engine.pending_phrase(state),
        list(getattr(outcome, "continuation", [])),
    )


def _name(snap: Snapshot, author: str) -> str:
    try:
        return snap.game.player(author).name
    except KeyError:
        return author


def preview_text(found: Preview, words: Words) -> str:
    """The preview in the reader's words, as `pamir move --dry-run` prints it and a
    preview mail says it."""
    if isinstance(found, Refused):
        reason = words.phrase(found.refusal.phrase)
        return words("This move would be refused: %(reason)s", reason=reason) + "\n"
    head = words(
        "Preview of move %(number)s by %(player)s: nothing was played, nothing was recorded.",
        number=found.number,
        player=found.player,
    )
    if isinstance(found, Requested):
        lines = [head, "", words("This rollback request would do this:")]
        lines += [f"- {words.said(said)}" for said in found.happened]
        return "\n".join(lines) + "\n"
    lines = [head, "", words("Actions: %(actions)s", actions=_actions(found, words)), ""]
    lines.append(words("What would happen:"))
    lines += [f"- {words.said(said)}" for said in found.happened]
    if found.continuation:
        lines += ["", _continuation(found, words)]
    lines += [
        "",
        words("After the move:"),
        *(f"- {line}" for line in _position_lines(found, words)),
    ]
    return "\n".join(lines) + "\n"


def _actions(found: Accepted, words: Words) -> str:
    return in_words("; ".join(found.actions), words) if found.actions else words("none")


def _continuation(found: Accepted, words: Words) -> str:
    who = ", ".join(found.deciders) or words("another player")
    return words(
        "The rest (%(lines)s) will be played after %(player)s decides.",
        lines="; ".join(found.continuation),
        player=who,
    )


def _position_lines(found: Accepted, words: Words) -> list[str]:
    view = found.after
    me = next(p for p in view["players"] if p["name"] == found.player)
    hand = [card_in_words(int(card), words) for card in me["hand"] or []]
    court = [card_in_words(int(record["card"]), words) for record in me["court"]]
    lines = [
        words("Your rupees: %(rupees)s", rupees=me["rupees"]),
        words("Your hand: %(cards)s", cards=", ".join(hand) or words("empty")),
        words("Your court: %(cards)s", cards=", ".join(court) or words("empty")),
        words("The board: %(board)s", board=describe(view, words)),
    ]
    if found.prompt is not None:
        lines.append(
            words(
                "Then the game waits for %(players)s: %(decision)s",
                players=", ".join(found.deciders),
                decision=words.phrase(found.prompt),
            )
        )
    else:
        lines.append(words("Then the game is over."))
    return lines
