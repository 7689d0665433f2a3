"""Random walks through games and position editing, for the interface tests.

`conftest.py` hands these out as the `walk`, `start` and `market_put` fixtures; test modules
import only the types below, to annotate the fixtures they ask for.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Protocol

import engine
from engine.game import legal_seat_actions, step
from engine.invariants import violations
from engine.playout import MAX_STEPS, NAMES
from engine.rng import below, next_u64, seed_state

# Before every step of a random game: (live state, legal seat actions, index of the one taken).
WalkStep = tuple[engine.State, list[tuple[int, engine.Action]], int]
Walk = Callable[[int, int], Iterator[WalkStep]]
MarketPut = Callable[[engine.State, int, int, int], engine.State]
Holder = list[int] | list[int | None]


class Start(Protocol):
    """The type of `first_turn`: its arguments have defaults."""

    def __call__(self, num_players: int = 2, seed: int = 5) -> engine.State: ...


def walk_game(num_players: int, seed: int) -> Iterator[WalkStep]:
    """Play one random game the way `engine.playout.play_random_game` does.

    Before every step yield (state, legal seat actions, index of the one about to be taken).
    The state is live: it changes after the consumer resumes the generator.
    """
    rng = seed_state(seed)
    rng, game_seed = next_u64(rng)
    state = engine.new_game(list(NAMES[:num_players]), game_seed)
    steps = 0
    while state.phase != "over":
        steps += 1
        assert steps <= MAX_STEPS, f"seed {seed}: no end after {MAX_STEPS} steps"
        choices = legal_seat_actions(state)
        assert choices, f"dead end (seed {seed})"
        rng, pick = below(rng, len(choices))
        yield state, choices, pick
        seat, action = choices[pick]
        step(state, seat, action)
    yield state, [], -1


def first_turn(num_players: int = 2, seed: int = 5) -> engine.State:
    """A new game after every player has chosen a loyalty: the first turn is pending."""
    state = engine.new_game(list(NAMES[:num_players]), seed)
    coalitions = ("british", "russian", "afghan")
    index = 0
    while state.phase == "setup":
        (seat, _), *_ = legal_seat_actions(state)
        state = engine.apply(state, seat, engine.Action("loyalty", (coalitions[index % 3],)))
        index += 1
    decision = engine.pending(state)
    assert decision is not None
    assert decision.kind == "turn"
    return state


def card_place(state: engine.State, card: int) -> tuple[Holder, int]:
    """The list holding `card` (deck, market row, a hand...) and its index there."""
    holders: list[Holder] = [state.deck, *state.market, state.discard, state.removed]
    for p in state.players:
        holders += [p.hand, p.court, p.prizes]
    for holder in holders:
        if card in holder:
            return holder, holder.index(card)
    raise LookupError(card)


def put_in_market(state: engine.State, card: int, row: int, col: int) -> engine.State:
    """Swap `card` (from wherever it is) with the card at market slot (row, col), in place.

    Conservation holds afterwards: the two cards simply trade places.
    """
    holder, index = card_place(state, card)
    displaced = state.market[row][col]
    assert displaced is not None, "the market slot must hold a card"
    holder[index] = displaced
    state.market[row][col] = card
    assert not violations(state)
    return state
