"""The conservation laws are tested cheaply first (`all_laws_hold`) and put into words only
when one is broken (`describe_violations`): both must agree on every state, whole or broken.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

import engine
from engine.invariants import all_laws_hold, describe_violations, violations
from engine.playout import play_random_game

Break = Callable[[engine.State], None]


def sample(players: int, seed: int, *, wakhan: bool = False) -> list[engine.State]:
    """States along one random game (copies, every few steps)."""
    from engine.game import legal_seat_actions, step
    from engine.playout import NAMES
    from engine.rng import below, next_u64, seed_state

    rng = seed_state(seed)
    rng, game_seed = next_u64(rng)
    options = {"wakhan": True} if wakhan else None
    state = engine.new_game(list(NAMES[:players]), game_seed, options)
    found: list[engine.State] = []
    while state.phase != "over":
        choices = legal_seat_actions(state)
        rng, pick = below(rng, len(choices))
        step(state, *choices[pick])
        if len(found) < 400:
            found.append(state.copy())
    return found[::7]


@pytest.fixture(scope="module")
def states() -> list[engine.State]:
    return sample(4, 3) + sample(2, 4) + sample(5, 5) + sample(1, 6, wakhan=True)


def test_whole_states_hold_every_law(states: list[engine.State]) -> None:
    assert all(all_laws_hold(s) and describe_violations(s) == [] for s in states)


def duplicate_card(s: engine.State) -> None:
    s.discard.append(s.deck[0])


def duplicate_and_lose_a_card(s: engine.State) -> None:
    s.deck[0] = s.deck[1]  # one card twice, another nowhere: the count is still 116


def unknown_card(s: engine.State) -> None:
    s.deck[0] = 999


def lose_block(s: engine.State) -> None:
    s.block_supply["british"] -= 1


def negative_army(s: engine.State) -> None:
    s.block_supply["russian"] += s.armies["kabul"]["russian"] + 1
    s.armies["kabul"]["russian"] = -1


def negative_road_balanced(s: engine.State) -> None:
    border = next(iter(s.roads))
    s.armies["herat"]["afghan"] += s.roads[border]["afghan"] + 1
    s.roads[border]["afghan"] = -1


def negative_tribe_balanced(s: engine.State) -> None:
    s.players[0].cylinders += s.tribes["kabul"][0] + 1
    s.tribes["kabul"][0] = -1


def lose_cylinder(s: engine.State) -> None:
    s.players[1].cylinders -= 1


def spies_of_zeros(s: engine.State) -> None:
    card = s.players[0].court[0] if s.players[0].court else s.deck[0]
    s.spies[card] = [0] * s.num_players


def spy_off_court(s: engine.State) -> None:
    s.spies[s.deck[0]] = [1] + [0] * (s.num_players - 1)
    s.players[0].cylinders -= 1


def negative_rupees(s: engine.State) -> None:
    s.players[0].rupees = -1
    s.bank += s.players[0].rupees + 1


def lose_rupee(s: engine.State) -> None:
    s.bank -= 1


def broken_wakhan(s: engine.State) -> None:
    assert s.wakhan is not None
    s.wakhan.discard.append(s.wakhan.deck[0] if s.wakhan.deck else s.wakhan.discard[0])


BREAKS: list[Break] = [
    duplicate_card,
    duplicate_and_lose_a_card,
    unknown_card,
    lose_block,
    negative_army,
    negative_road_balanced,
    negative_tribe_balanced,
    lose_cylinder,
    spies_of_zeros,
    spy_off_court,
    negative_rupees,
    lose_rupee,
]


@pytest.mark.parametrize("breaking", BREAKS, ids=lambda b: b.__name__)
def test_each_broken_law_is_found_and_put_into_words(
    states: list[engine.State], breaking: Break
) -> None:
    for whole in states:
        if not whole.deck or len(whole.deck) < 2:
            continue
        broken = whole.copy()
        breaking(broken)
        assert not all_laws_hold(broken)
        assert violations(broken) == describe_violations(broken) != []


def test_a_broken_wakhan_deck_is_found() -> None:
    for whole in sample(2, 8, wakhan=True):
        broken = whole.copy()
        broken_wakhan(broken)
        assert not all_laws_hold(broken)
        assert violations(broken) == describe_violations(broken) != []


def test_random_changes_agree_with_the_words(states: list[engine.State]) -> None:
    """Whatever the change, the cheap test passes only when no law is broken."""
    rng = random.Random(1)
    for index in range(400):
        s = states[index % len(states)].copy()
        table = rng.choice(["armies", "roads", "tribes", "spies", "rupees", "cards"])
        if table == "armies":
            region = rng.choice(list(s.armies))
            s.armies[region][rng.choice(list(s.armies[region]))] += rng.choice((-1, 1))
        elif table == "roads":
            border = rng.choice(list(s.roads))
            s.roads[border][rng.choice(list(s.roads[border]))] += rng.choice((-1, 1))
        elif table == "tribes":
            s.tribes[rng.choice(list(s.tribes))][rng.randrange(s.num_players)] += 1
        elif table == "spies" and s.spies:
            s.spies[rng.choice(list(s.spies))][rng.randrange(s.num_players)] -= 1
        elif table == "rupees":
            s.players[rng.randrange(s.num_players)].rupees += rng.choice((-5, 1))
        elif s.deck:
            s.deck.pop()
        assert all_laws_hold(s) == (describe_violations(s) == [])


def test_random_play_with_checks_still_finds_nothing() -> None:
    for seed in range(5):
        assert play_random_game(4, seed, check=True).phase == "over"
