"""Stars: the sum of ranks of a suit in a player's court [Rank and Privilege, p. 6]."""

from __future__ import annotations

from engine.cards import COURT_CARDS
from engine.state import State


def count_stars(state: State, seat: int, suit: str) -> int:
    return sum(
        COURT_CARDS[c].rank for c in state.players[seat].court if COURT_CARDS[c].suit == suit
    )
