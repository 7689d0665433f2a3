"""Stars: the sum of ranks of a suit in a player's court [Rank and Privilege, p. 6]."""

from __future__ import annotations

from typing import Final

from engine.cards import COURT_CARDS
from engine.state import State

# Each court card's suit and rank, read without the card records: counted several times
# a step (tax shelters, court and hand limits).
SUIT_AND_RANK: Final = {card: (info.suit, info.rank) for card, info in COURT_CARDS.items()}


def count_stars(state: State, seat: int, suit: str) -> int:
    stars = 0
    for card in state.players[seat].court:
        card_suit, rank = SUIT_AND_RANK[card]
        if card_suit == suit:
            stars += rank
    return stars
