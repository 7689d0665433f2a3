"""Rule cases: Setup [Setup, p. 4; Deck Construction at a Glance, p. 5]."""

from __future__ import annotations

import pytest

import engine
from engine import Action
from engine.cards import COURT_CARDS, DOMINANCE_CHECKS, EVENT_CARDS, is_event
from engine.rng import seed_state
from engine.rules.setup import build_deck

NAMES = ["alice", "bob", "cati", "dave", "erin"]
SEEDS = (1, 2, 3, 17, 2024)
COUNTS = (2, 3, 4, 5)


def dealt_order(state: engine.State) -> list[int]:
    """The deck as built, before the market was dealt column by column, top row first."""
    market = [state.market[row][col] for col in range(6) for row in range(2)]
    assert None not in market
    return [c for c in market if c is not None] + state.deck


def piles(state: engine.State) -> list[list[int]]:
    """Cut the built deck back into its six piles, the leftmost (top of deck) first."""
    n = state.num_players
    order = dealt_order(state)
    sizes = [5 + n, 5 + n + 2, 5 + n + 2, 5 + n + 2, 5 + n + 2, 5 + n + 2]
    assert len(order) == sum(sizes)
    found, start = [], 0
    for size in sizes:
        found.append(order[start : start + size])
        start += size
    return found


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_setup_build_deck_six_piles_of_five_court_cards_plus_one_per_player(
    n: int, seed: int
) -> None:
    """[Setup: Build the Draw Deck, p. 4] "Create six face-down piles of court cards, each
    consisting of five cards, plus one card per player."
    """
    state = engine.new_game(NAMES[:n], seed)
    court_cards = [[c for c in pile if not is_event(c)] for pile in piles(state)]
    assert [len(pile) for pile in court_cards] == [5 + n] * 6


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_setup_build_deck_dominance_checks_only_in_the_four_bottom_piles(n: int, seed: int) -> None:
    """[Setup: Build the Draw Deck, p. 4] "Place one [Dominance Check] in each of the four
    rightmost piles ... stack the piles ... so that the four piles containing the Dominance
    Check event cards are on the bottom of the deck."
    """
    state = engine.new_game(NAMES[:n], seed)
    checks = [sum(1 for c in pile if c in DOMINANCE_CHECKS) for pile in piles(state)]
    assert checks == [0, 0, 1, 1, 1, 1]
    assert not any(c in DOMINANCE_CHECKS for row in state.market for c in row)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_setup_build_deck_two_events_in_second_pile_and_one_in_each_pile_to_its_right(
    n: int, seed: int
) -> None:
    """[Setup: Build the Draw Deck, p. 4] "Place two in the second pile from the left and
    one in each of the remaining four piles to its right."
    """
    state = engine.new_game(NAMES[:n], seed)
    others = [
        sum(1 for c in pile if is_event(c) and c not in DOMINANCE_CHECKS) for pile in piles(state)
    ]
    assert others == [0, 2, 1, 1, 1, 1]


@pytest.mark.parametrize("n", COUNTS)
def test_setup_build_deck_six_events_and_unused_court_cards_set_aside(n: int) -> None:
    """[Setup: Build the Draw Deck, p. 4] "The remaining court cards will not be used this
    game. ... The six remaining event cards will not be used this game."
    """
    state = engine.new_game(NAMES[:n], 5)
    removed_events = [c for c in state.removed if is_event(c)]
    removed_courts = [c for c in state.removed if not is_event(c)]
    assert len(removed_events) == 6
    assert not set(removed_events) & set(DOMINANCE_CHECKS)
    assert len(removed_courts) == len(COURT_CARDS) - 6 * (5 + n)
    in_play = set(dealt_order(state))
    assert in_play.isdisjoint(state.removed)
    assert in_play | set(state.removed) == set(COURT_CARDS) | set(EVENT_CARDS)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_setup_build_deck_piles_are_shuffled_separately_then_stacked_unshuffled(
    n: int, seed: int
) -> None:
    """[Setup: Build the Draw Deck, p. 4] "separately shuffle each of the six piles. Then,
    stack the piles one on top of the other ... Do not shuffle this combined deck."
    """
    _, deck, removed = build_deck(seed_state(seed), n)
    state = engine.new_game(NAMES[:n], seed)
    assert dealt_order(state) == deck
    assert sorted(state.removed) == removed


@pytest.mark.parametrize("seed", SEEDS)
def test_setup_market_dealt_column_by_column_top_row_first(seed: int) -> None:
    """[Setup: Create the Market, p. 4] "filling each market column (top row first),
    starting with the leftmost column."
    """
    _, deck, _ = build_deck(seed_state(seed), 3)
    state = engine.new_game(NAMES[:3], seed)
    assert state.market[0] == [deck[0], deck[2], deck[4], deck[6], deck[8], deck[10]]
    assert state.market[1] == [deck[1], deck[3], deck[5], deck[7], deck[9], deck[11]]
    assert state.deck == deck[12:]
    assert state.market_rupees == [[0] * 6, [0] * 6]


@pytest.mark.parametrize("n", COUNTS)
def test_setup_each_player_takes_four_rupees_the_rest_is_the_bank(n: int) -> None:
    """[Setup: Take Player Pieces, p. 4] "Give each player ... four rupees." [Bank, p. 4]
    "Place the remaining coins ... near the area of play." There are 36 coins [p. 2].
    """
    state = engine.new_game(NAMES[:n], 3)
    assert [p.rupees for p in state.players] == [4] * n
    assert state.bank == 36 - 4 * n


def test_setup_player_pieces_on_player_boards_and_zero_points() -> None:
    """[Setup: Take Player Pieces, p. 4] "Place one cylinder from each player on the zero
    space of the victory point track and the rest on each player's player board."
    """
    state = engine.new_game(NAMES[:3], 3)
    assert [p.vp for p in state.players] == [0, 0, 0]
    assert [p.cylinders for p in state.players] == [10, 10, 10]
    assert state.block_supply == {"afghan": 12, "british": 12, "russian": 12}


def test_setup_starting_favored_suit_is_political() -> None:
    """[Setup: Starting Favored Suit, p. 4] "place the favored suit marker on the space
    next to the political suit."
    """
    assert engine.new_game(NAMES[:2], 9).favored == "political"


def choose_all(state: engine.State) -> tuple[list[int], engine.State]:
    """Answer the loyalty decisions: who was asked, in order, and the state afterwards."""
    order = []
    while state.phase == "setup":
        decision = engine.pending(state)
        assert decision is not None and decision.kind == "loyalty"
        assert len(decision.seats) == 1
        order.append(decision.seats[0])
        state = engine.apply(state, decision.seats[0], Action("loyalty", ("afghan",)))
    return order, state


def chooser_order(state: engine.State) -> list[int]:
    return choose_all(state)[0]


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_setup_starting_loyalty_chosen_clockwise_from_a_random_player(n: int, seed: int) -> None:
    """[Setup: Starting Loyalty, p. 4] "Starting with a random player and proceeding
    clockwise, each player adjusts their loyalty dial to indicate the loyalty they have
    chosen."
    """
    order = chooser_order(engine.new_game(NAMES[:n], seed))
    first = order[0]
    assert order == [(first + i) % n for i in range(n)]


def test_setup_first_loyalty_chooser_is_random() -> None:
    """[Setup: Starting Loyalty, p. 4] "Starting with a random player"."""
    firsts = {chooser_order(engine.new_game(NAMES[:3], seed))[0] for seed in range(12)}
    assert len(firsts) > 1


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_setup_last_player_to_choose_loyalty_takes_the_first_turn(n: int, seed: int) -> None:
    """[Setup: Starting Loyalty, p. 4] "After the last player has chosen their starting
    loyalty, that player will take the first turn."
    """
    order, state = choose_all(engine.new_game(NAMES[:n], seed))
    decision = engine.pending(state)
    assert state.phase == "play"
    assert state.active == order[-1]
    assert decision is not None and decision.kind == "turn"
    assert decision.seats == (order[-1],)


def test_setup_chosen_loyalty_is_kept() -> None:
    """[Setup: Starting Loyalty, p. 4] "each player adjusts their loyalty dial to indicate
    the loyalty they have chosen."
    """
    state = engine.new_game(NAMES[:3], 4)
    wanted = {0: "british", 1: "afghan", 2: "russian"}
    while state.phase == "setup":
        decision = engine.pending(state)
        assert decision is not None
        seat = decision.seats[0]
        state = engine.apply(state, seat, Action("loyalty", (wanted[seat],)))
    assert [p.loyalty for p in state.players] == ["british", "afghan", "russian"]
