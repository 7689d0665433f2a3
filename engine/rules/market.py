"""The market: two rows of six cards with rupees lying on them [Create the Market, p. 4].

Rupees lie on market slots. A card that moves carries the rupees on it; rupees left on the
slot of a discarded event pass to the next card that takes that slot [Cleanup, p. 9].
"""

from __future__ import annotations

from typing import Final

from engine.cards import DOMINANCE_CHECKS
from engine.state import MARKET_COLUMNS, MARKET_ROWS, State

PUBLIC_WITHDRAWAL: Final = 111


def locate(state: State, card: int) -> tuple[int, int] | None:
    """The (row, column) of a market card, or None."""
    for row in range(MARKET_ROWS):
        cards = state.market[row]
        if card in cards:
            return row, cards.index(card)
    return None


def place_rupee(state: State, row: int, col: int, amount: int = 1) -> None:
    """Put rupees on a market card; Public Withdrawal takes them out of the game."""
    card = state.market[row][col]
    if card == PUBLIC_WITHDRAWAL:
        state.out_of_game += amount
        return
    state.market_rupees[row][col] += amount
    if card is not None and card not in state.paid_cards:
        state.paid_cards.append(card)


def remove_card(state: State, row: int, col: int) -> int:
    """Take a card off the market; the rupees on its slot stay where they are."""
    card = state.market[row][col]
    assert card is not None
    state.market[row][col] = None
    return card


def shift_left(state: State) -> None:
    """Move each row's cards left, with their rupees; orphaned rupees join the newcomer."""
    for row in range(MARKET_ROWS):
        cards = state.market[row]
        if None not in cards:  # a full row stays as it is
            withdraw_public_rupees(state)
            continue
        rupees = state.market_rupees[row]
        kept = [(c, rupees[i]) for i, c in enumerate(cards) if c is not None]
        orphans = [0 if c is not None else rupees[i] for i, c in enumerate(cards)]
        new_cards: list[int | None] = [None] * MARKET_COLUMNS
        new_rupees = orphans[:]
        for i, (card, on_card) in enumerate(kept):
            new_cards[i] = card
            new_rupees[i] += on_card
        state.market[row] = new_cards
        state.market_rupees[row] = new_rupees
        withdraw_public_rupees(state)


def withdraw_public_rupees(state: State) -> None:
    """Rupees that come to lie on Public Withdrawal leave the game (card 111)."""
    for row in range(MARKET_ROWS):
        if PUBLIC_WITHDRAWAL not in state.market[row]:
            continue  # most of the time: nothing to look at in this row
        for col in range(MARKET_COLUMNS):
            if state.market[row][col] == PUBLIC_WITHDRAWAL and state.market_rupees[row][col]:
                state.out_of_game += state.market_rupees[row][col]
                state.market_rupees[row][col] = 0


def dominance_checks_in_market(state: State) -> list[tuple[int, int]]:
    return [
        (row, col)
        for row in range(MARKET_ROWS)
        for col in range(MARKET_COLUMNS)
        if state.market[row][col] in DOMINANCE_CHECKS
    ]


def count_dominance_checks_left(state: State) -> int:
    """Dominance Check cards still to come: in the deck or in the market."""
    in_deck = sum(1 for c in state.deck if c in DOMINANCE_CHECKS)
    return in_deck + len(dominance_checks_in_market(state))
