"""Special abilities of court cards [Card Precedence and Special Abilities, p. 8].

A special ability is active while its card is in its owner's court, and it is never held
hostage. The rules that an ability changes ask `has_ability`.
"""

from __future__ import annotations

from typing import Final

from engine.cards import COURT_CARDS, AbilityId
from engine.state import State

# The ability of each court card (None for most), so that a court is scanned without
# reading card records: the rules ask several times a step.
ABILITY_OF: Final[dict[int, AbilityId | None]] = {
    card: info.ability.id if info.ability is not None else None
    for card, info in COURT_CARDS.items()
}


# The cards that carry each ability (one, or two for Bodyguards and Safe House): asked
# dozens of times a step, a look for these cards in the court is quicker than reading the
# ability of every card there.
CARDS_WITH: Final[dict[AbilityId, frozenset[int]]] = {
    ability: frozenset(card for card, its in ABILITY_OF.items() if its == ability)
    for ability in set(ABILITY_OF.values())
    if ability is not None
}
NO_CARDS: Final[frozenset[int]] = frozenset()


def has_ability(state: State, seat: int, ability: AbilityId) -> bool:
    """Whether a card with this special ability is in the player's court."""
    return not CARDS_WITH.get(ability, NO_CARDS).isdisjoint(state.players[seat].court)


def abilities(state: State, seat: int) -> set[AbilityId | None]:
    """The special abilities in the player's court (None among them if a card has none)."""
    return set(map(ABILITY_OF.__getitem__, state.players[seat].court))
