"""How Wakhan ranks court cards [Playing with Wakhan: Card Priority, p. 16; Cleanup, p. 18].

Card priority, highest first: a card in an opponent's court; of the favored suit; a patriot
of the dominant coalition; with a prize of the dominant coalition; any other patriot;
leveraged; the highest rank; the highest number. Each criterion only breaks the ties the
ones before it leave, so the priority is a comparison of tuples.

Her cleanup discards, first discarded first: non-political cards, non-patriots,
non-leveraged cards, the most other players' spies more than hers, the fewest spies, the
lowest rank, not of the favored suit, the lowest number.
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.cards import COURT_CARDS
from engine.rules.dominance import dominant_coalition
from engine.state import State


def is_in_court_of(state: State, seat: int, card: int) -> bool:
    return card in state.players[seat].court


def priority(state: State, seat: int, card: int, dominant: str | None) -> tuple[int, ...]:
    """Card priority for Wakhan (`seat`): a larger tuple is a higher priority."""
    info = COURT_CARDS[card]
    return (
        not is_in_court_of(state, seat, card),
        info.suit == state.favored,
        dominant is not None and info.patriot == dominant,
        dominant is not None and info.prize == dominant,
        info.patriot is not None,
        info.is_leveraged,
        info.rank,
        card,
    )


def best_card(state: State, seat: int, cards: Iterable[int]) -> int | None:
    """The card of highest priority among `cards`, or None if there are none."""
    found = list(cards)
    if not found:
        return None
    dominant = dominant_coalition(state)
    return max(found, key=lambda card: priority(state, seat, card, dominant))


def spies_on(state: State, card: int) -> list[int]:
    return state.spies.get(card) or [0] * state.num_players


def discard_order(state: State, seat: int, card: int) -> tuple[int, ...]:
    """Wakhan's cleanup order: the smallest tuple is discarded first [Cleanup, p. 18]."""
    info = COURT_CARDS[card]
    spies = spies_on(state, card)
    hers = spies[seat]
    others = sum(spies) - hers
    return (
        info.suit == "political",
        info.patriot is not None,
        info.is_leveraged,
        -(others - hers),
        sum(spies),
        info.rank,
        info.suit == state.favored,
        card,
    )


def card_to_discard(state: State, seat: int, cards: Iterable[int]) -> int:
    return min(cards, key=lambda card: discard_order(state, seat, card))


def has_most_spies(state: State, seat: int, card: int) -> bool:
    """Whether `seat` has strictly more spies on `card` than every other player."""
    spies = spies_on(state, card)
    return all(spies[seat] > n for s, n in enumerate(spies) if s != seat)
