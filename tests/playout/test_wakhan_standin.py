"""The stand-in for an absent player: `engine.standin.choose` (docs/decisions.md)."""

from __future__ import annotations

import pytest
from positions import Position, act
from test_wakhan import WakhanPosition

import engine
from engine import Action, standin
from engine.game import legal_seat_actions, options_for
from engine.invariants import violations
from engine.rng import below, seed_state

EMPTY = [None] * 6


def test_standin_always_answers_with_a_legal_action() -> None:
    """Whatever the decision, with or without Wakhan, the answer is one of the seat's legal
    actions, and the same position always gets the same answer.
    """
    kinds: set[str] = set()
    for game in range(12):
        options = {"wakhan": True} if game % 2 else None
        count = (1 if options else 2) + (game // 2) % 2
        humans = ["alice", "bob", "carol"][:count]
        state = engine.new_game(humans, game, options)
        rng = seed_state(game)
        steps = 0
        while state.phase != "over" and steps < 400:
            choices = legal_seat_actions(state)
            seat = choices[0][0]
            chosen = standin.choose(state, seat)
            assert chosen in options_for(state, seat)
            assert standin.choose(state, seat) == chosen
            kinds.add(str(state.stack[-1]["kind"]))
            rng, pick = below(rng, 2 * len(choices))  # half the time a random legal action
            state = engine.apply(state, *(choices[pick] if pick < len(choices) else (seat, chosen)))
            steps += 1
    assert {"turn", "loyalty", "tax"} <= kinds


def test_standin_has_nothing_to_say_for_a_seat_that_need_not_decide() -> None:
    state = Position({"alice": "british", "bob": "russian"}).build()
    with pytest.raises(ValueError, match="nothing to decide"):
        standin.choose(state, 1)


def test_standin_plays_a_card_that_keeps_its_loyalty_first() -> None:
    state = (
        Position({"alice": "british", "bob": "russian"})
        .hand("alice", 95, 37)  # a Russian patriot; a British patriot
        .build()
    )
    assert standin.choose(state, 0) == Action("play", (37, "right"))


def test_standin_purchases_the_cheapest_court_card_it_may_keep() -> None:
    state = (
        Position({"alice": "british", "bob": "russian"})
        .market([95, 61, 63, 64, 65, 60], [101, 67, *EMPTY[2:]])
        .build()
    )
    assert standin.choose(state, 0) == Action("purchase", (61,))


def test_standin_demands_the_full_bribe_and_pays_its_own() -> None:
    state = (
        Position({"alice": "british", "bob": "russian"})
        .court("bob", 7)
        .tribes("bob", "kabul", 2)
        .hand("alice", 9)
        .build()
    )
    state = act(state, "alice", "play 9 left")
    assert standin.choose(state, 1) == Action("demand", (2,))
    state = act(state, "bob", "demand 2")
    assert standin.choose(state, 0) == Action("pay")


def test_standin_takes_a_prize_of_its_own_coalition_only() -> None:
    position = (
        Position({"alice": "british", "bob": "russian"})
        .court("alice", 16)
        .court("bob", 25, 44)  # prizes: British, Russian
        .spies("alice", 25, 1)
        .spies("alice", 44, 1)
        .rupees("alice", 4)
    )
    state = act(position.build(), "alice", "betray 16 25")
    assert standin.choose(state, 0) == Action("accept")
    state = act(position.build(), "alice", "betray 16 44")
    assert standin.choose(state, 0) == Action("decline")


def test_standin_games_against_wakhan_end() -> None:
    """Stand-ins for every human: the games end, with the invariants intact."""
    for game in range(10):
        humans = ["alice", "bob"][: 1 + game % 2]
        state = engine.new_game(humans, game, {"wakhan": True})
        steps = 0
        while state.phase != "over":
            seat = legal_seat_actions(state)[0][0]
            state = engine.apply(state, seat, standin.choose(state, seat))
            steps += 1
            assert steps < 3000
        assert violations(state) == []
        assert state.winners


def test_standin_keeps_wakhan_positions_legal() -> None:
    state = WakhanPosition({"alice": "british"}).build()
    assert standin.choose(state, 0) in options_for(state, 0)
