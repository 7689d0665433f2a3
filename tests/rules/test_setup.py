"""Rule cases: Setup [Setup, p. 4; Deck Construction at a Glance, p. 5].

The deck is checked against the rulebook's piles, written out below by player count, never
against the engine's own deck-building code.
"""

from __future__ import annotations

import pytest

import engine
from engine import Action
from engine.cards import COURT_CARDS, DOMINANCE_CHECKS, EVENT_CARDS, is_event

NAMES = ["alice", "bob", "cati", "dave", "erin"]
SEEDS = (1, 2, 3, 17, 2024)
COUNTS = (2, 3, 4, 5)

# [Setup: Build the Draw Deck, p. 4], worked out for each player count: the six piles, the
# leftmost (top of the deck) first, each as (court cards, other events, Dominance Checks).
# Step 2: "six face-down piles of court cards, each consisting of five cards, plus one card
# per player"; step 3: a Dominance Check "in each of the four rightmost piles"; step 4: "two
# in the second pile from the left and one in each of the remaining four piles to its right";
# step 5: the piles stacked "so that the four piles containing the Dominance Check event
# cards are on the bottom of the deck".
PILES_BY_PLAYERS: dict[int, list[tuple[int, int, int]]] = {
    2: [(7, 0, 0), (7, 2, 0), (7, 1, 1), (7, 1, 1), (7, 1, 1), (7, 1, 1)],
    3: [(8, 0, 0), (8, 2, 0), (8, 1, 1), (8, 1, 1), (8, 1, 1), (8, 1, 1)],
    4: [(9, 0, 0), (9, 2, 0), (9, 1, 1), (9, 1, 1), (9, 1, 1), (9, 1, 1)],
    5: [(10, 0, 0), (10, 2, 0), (10, 1, 1), (10, 1, 1), (10, 1, 1), (10, 1, 1)],
}
# Whole deck and cards set aside: 100 court cards less those in the piles; "The six remaining
# event cards will not be used this game."
DECK_SIZE = {2: 52, 3: 58, 4: 64, 5: 70}
SET_ASIDE = {2: (58, 6), 3: (52, 6), 4: (46, 6), 5: (40, 6)}  # (court cards, events)


def column_by_column(state: engine.State) -> list[int]:
    """The market read as the rulebook deals it: "filling each market column (top row
    first), starting with the leftmost column" [Setup: Create the Market, p. 4]."""
    market = [state.market[row][col] for col in range(6) for row in range(2)]
    assert None not in market
    return [c for c in market if c is not None]


def row_by_row(state: engine.State) -> list[int]:
    """The market read row after row: not how it is dealt."""
    return [c for row in state.market for c in row if c is not None]


def dealt_order(state: engine.State) -> list[int]:
    """The deck as built, before the market was dealt."""
    return column_by_column(state) + state.deck


def cut(order: list[int], n: int) -> list[list[int]]:
    """Cut a built deck into the rulebook's six piles for `n` players."""
    sizes = [sum(pile) for pile in PILES_BY_PLAYERS[n]]
    assert len(order) == sum(sizes) == DECK_SIZE[n]
    found, start = [], 0
    for size in sizes:
        found.append(order[start : start + size])
        start += size
    return found


def composition(pile: list[int]) -> tuple[int, int, int]:
    """(court cards, other events, Dominance Checks) in a pile."""
    checks = sum(1 for c in pile if c in DOMINANCE_CHECKS)
    events = sum(1 for c in pile if is_event(c)) - checks
    return len(pile) - events - checks, events, checks


def piles(state: engine.State) -> list[list[int]]:
    return cut(dealt_order(state), state.num_players)


@pytest.mark.parametrize("n", COUNTS)
@pytest.mark.parametrize("seed", SEEDS)
def test_setup_build_deck_the_piles_of_the_rulebook(n: int, seed: int) -> None:
    """[Setup: Build the Draw Deck, p. 4; Deck Construction at a Glance, p. 5] Cut at the
    rulebook's pile sizes, every pile of the deck holds the court cards, events and Dominance
    Checks the rulebook puts in it. The combined deck is not shuffled ("Do not shuffle this
    combined deck"), or the piles would not hold for every seed.
    """
    state = engine.new_game(NAMES[:n], seed)
    assert [composition(pile) for pile in piles(state)] == PILES_BY_PLAYERS[n]


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
    assert (len(removed_courts), len(removed_events)) == SET_ASIDE[n]
    assert not set(removed_events) & set(DOMINANCE_CHECKS)
    assert len(removed_courts) == len(COURT_CARDS) - 6 * (5 + n)
    in_play = set(dealt_order(state))
    assert in_play.isdisjoint(state.removed)
    assert in_play | set(state.removed) == set(COURT_CARDS) | set(EVENT_CARDS)


@pytest.mark.parametrize("n", COUNTS)
def test_setup_build_deck_each_pile_is_shuffled_separately(n: int) -> None:
    """[Setup: Build the Draw Deck, p. 4] "Shuffle the court cards. ... Shuffle the remaining
    event cards. ... Finally, separately shuffle each of the six piles." The events are put in
    their piles after the court cards, yet they do not stay at the piles' ends: over a few
    seeds, a pile's Dominance Check and events turn up at different places within it, and
    different court cards are dealt to the first pile.
    """
    places: set[int] = set()
    first_piles: set[frozenset[int]] = set()
    for seed in range(12):
        state = engine.new_game(NAMES[:n], seed)
        dealt = piles(state)
        places.update(i for pile in dealt[1:] for i, c in enumerate(pile) if is_event(c))
        first_piles.add(frozenset(dealt[0]))
    assert len(places) > 4 + n
    assert len(first_piles) == 12


@pytest.mark.parametrize("n", COUNTS)
def test_setup_market_dealt_column_by_column_top_row_first(n: int) -> None:
    """[Setup: Create the Market, p. 4] "filling each market column (top row first),
    starting with the leftmost column." Only the market read that way, followed by the
    deck, gives back the rulebook's piles for every seed; read row by row, it does not.
    """
    row_wise_breaks = False
    for seed in range(12):
        state = engine.new_game(NAMES[:n], seed)
        assert [composition(p) for p in piles(state)] == PILES_BY_PLAYERS[n]
        assert len(state.deck) == DECK_SIZE[n] - 12
        assert state.market_rupees == [[0] * 6, [0] * 6]
        row_wise = cut(row_by_row(state) + state.deck, n)
        row_wise_breaks |= [composition(p) for p in row_wise] != PILES_BY_PLAYERS[n]
    assert row_wise_breaks


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
