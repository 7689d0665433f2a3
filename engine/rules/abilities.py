"""Special abilities of court cards [Card Precedence and Special Abilities, p. 8].

A special ability is active while its card is in its owner's court, and it is never held
hostage. The rules that an ability changes ask `has_ability`.
"""

from __future__ import annotations

from engine.cards import COURT_CARDS, AbilityId
from engine.state import State


def has_ability(state: State, seat: int, ability: AbilityId) -> bool:
    """Whether a card with this special ability is in the player's court."""
    for card in state.players[seat].court:
        info = COURT_CARDS[card].ability
        if info is not None and info.id == ability:
            return True
    return False
