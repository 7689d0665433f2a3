"""Access to card-based actions, bonus actions, action costs and hostages.

[Access to Actions, p. 8; Card-Based Actions, p. 12]: each card in a court gives access to
the actions printed on it, and can be used for one action a turn, whatever its number of
icons. Actions of cards of the favored suit are bonus actions: they do not count against
the two actions of the turn. [Action Costs, p. 12]: rupees are paid one a card to the
rightmost market cards of both rows, skipping vacancies; what finds no card leaves the
game. [Hostage Actions, p. 12]: a single other player with more spies on a card than each
other player holds its actions hostage for a bribe of their spies there.
"""

from __future__ import annotations

from itertools import zip_longest
from typing import Final

from engine.cards import COURT_CARDS
from engine.errors import Refusal
from engine.phrases import P
from engine.rules import market
from engine.rules.abilities import has_ability
from engine.rules.loyalty import has_effect
from engine.state import MARKET_COLUMNS, MARKET_ROWS, State

ALWAYS_FAVORED: Final = {"savvy_operator", "irregulars"}
# [Access to Actions, p. 8]: two actions a turn; bonus actions do not count against them.
ACTIONS_PER_TURN: Final = 2


def no_actions_left(state: State, seat: int) -> Refusal:
    """The refusal of a purchase or play once both actions of the turn are used. Refusals
    reach the public report of a refused move, so they name the player."""
    return Refusal(
        "no-actions-left",
        P("%(who)s has used both actions this turn", who=state.name(seat)),
        "Sequence of Play, p. 9",
    )


def has_core_actions_left(state: State) -> bool:
    """Whether an action that is not a bonus action may still be taken this turn."""
    return state.actions_used < ACTIONS_PER_TURN


def is_favored_card(state: State, seat: int, card: int) -> bool:
    """Whether a court card counts as the favored suit for its owner now."""
    info = COURT_CARDS[card]
    if info.suit == state.favored:
        return True
    if info.ability is not None and info.ability.id in ALWAYS_FAVORED:
        return True
    return info.suit == "military" and has_effect(state, "new_tactics", seat)


def can_use(state: State, seat: int, card: int) -> bool:
    """The card may be used for an action now (unused this turn; an action left or bonus)."""
    if card in state.used_cards:
        return False
    return has_core_actions_left(state) or is_favored_card(state, seat, card)


def spend(state: State, seat: int, card: int) -> None:
    """Record the use of a card for an action; only non-bonus actions count."""
    state.used_cards.append(card)
    if not is_favored_card(state, seat, card):
        state.actions_used += 1


def pay_action_cost(state: State, seat: int, amount: int, already: int = 0) -> None:
    """Pay rupees to the rightmost market cards, one a card, both rows in turn [p. 12].

    `already` rupees of the same action's cost were paid before (a build pays block by
    block): the payment goes on from the card after the last one paid.
    """
    player = state.players[seat]
    player.rupees -= amount
    rows = [
        [(row, col) for col in range(MARKET_COLUMNS - 1, -1, -1) if state.market[row][col]]
        for row in range(MARKET_ROWS)
    ]
    # One rupee a card, alternating rows from the right; a row that runs out of cards
    # leaves the rest to the other row.
    slots = [slot for pair in zip_longest(*rows) for slot in pair if slot is not None]
    for row, col in slots[already : already + amount]:
        market.place_rupee(state, row, col)
    excess = amount - len(slots[already : already + amount])
    state.out_of_game += excess


def owner_of(state: State, card: int) -> int | None:
    for seat, player in enumerate(state.players):
        if card in player.court:
            return seat
    return None


def hostage_holder(state: State, card: int) -> int | None:
    """The other player holding a court card's actions hostage, if any [p. 12]."""
    spies = state.spies.get(card)
    if not spies:
        return None
    top = max(spies)
    leaders = [s for s, n in enumerate(spies) if n == top]
    owner = owner_of(state, card)
    if len(leaders) != 1 or leaders[0] == owner:
        return None
    return leaders[0]


def rank(card: int) -> int:
    return COURT_CARDS[card].rank


def hostage_bribe(state: State, seat: int, card: int) -> tuple[int | None, int]:
    """(holder, bribe) for using a card held hostage [Hostage Actions, p. 12].

    Nothing is owed under Civil Service Reforms, Disregard for Customs or Courtly Manners.
    """
    holder = hostage_holder(state, card)
    if holder is None:
        return None, 0
    if has_ability(state, seat, "civil_service_reforms"):
        return holder, 0
    if has_effect(state, "disregard_for_customs") or has_effect(state, "courtly_manners", seat):
        return holder, 0
    return holder, state.spies[card][holder]
