"""Real games brought to a bribe: the decider has an action that hands a bribe to another
player (the ruler of a region, or the holder of a hostage card) [Play, p. 11; Hostage
Actions, p. 12]. For the tests of continuations and of the mail of a turn."""

from __future__ import annotations

import random
from pathlib import Path

import engine
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from engine.game import legal_seat_actions, options_for


def bribing_action(state: engine.State) -> tuple[str, str, str] | None:
    """(mover, an action of theirs that hands a bribe to another player, that player)."""
    for seat, action in legal_seat_actions(state):
        after = engine.apply(state, seat, action)
        decision = engine.pending(after)
        if decision is not None and decision.kind == "bribe" and seat not in decision.seats:
            return state.name(seat), engine.format_action(action), after.name(decision.seats[0])
    return None


def rest_of_turn(state: engine.State, mover: str, action: str, demand: str) -> list[str]:
    """The mover's lines after `action` when the ruler answers `demand`: the first option
    of each follow-up, then `pass` to end the turn."""
    seat = state.seat(mover)
    state = engine.apply(state, seat, engine.read_action(action)[0])
    ruler = engine.pending(state).seats[0]  # type: ignore[union-attr]
    state = engine.apply(state, ruler, engine.read_action(demand)[0])
    lines: list[str] = []
    while (decision := engine.pending(state)) is not None and decision.kind != "turn":
        first = options_for(state, seat)[0]
        lines.append(engine.format_action(first))
        state = engine.apply(state, seat, first)
    return [*lines, "pass"]


def to_a_bribe(repo: GameRepo, home: Path, seed: int = 3) -> tuple[str, str, str]:
    """Play random whole moves until the decider can hand a bribe to another player."""
    rng = random.Random(seed)
    for _ in range(400):
        state = position(snapshot(repo), home)
        found = bribing_action(state)
        if found is not None:
            return found
        seat, action = rng.choice(legal_seat_actions(state))
        submit(repo, state.name(seat), engine.format_action(action) + "\n", home=home)
    raise AssertionError("no bribe in 400 moves")
