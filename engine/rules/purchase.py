"""The purchase action [Purchase, p. 10].

The cost is the card's column (doubled while military is favored), paid one rupee (two)
to each card to its left in the same row; a vacant slot is paid to the card in the other
row of that column. A card you put a rupee on this turn cannot be bought. The buyer takes
the rupees on the card. Events are resolved at once and never enter a hand. Baluchi
Smugglers, Ghaem Magham Farahani and Alexander Griboyedov make some cards free.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.actions import Action
from engine.cards import COURT_CARDS, EVENT_CARDS, AbilityId, is_event
from engine.errors import Refusal
from engine.phrases import PN, P, Phrase, Value
from engine.rules import card_actions, events, market, words
from engine.rules.abilities import CARDS_WITH, abilities
from engine.state import MARKET_COLUMNS, MARKET_ROWS, State

SECTION: Final = "Purchase, p. 10"


def rupees_per_column(state: State) -> int:
    return 2 if state.favored == "military" else 1


# Special abilities that make some market cards free to their owner [p. 8].
FREE_PURCHASES: Final[dict[AbilityId, Callable[[int], bool]]] = {
    "herat_influence": lambda card: not is_event(card) and COURT_CARDS[card].region == "herat",
    "persian_influence": lambda card: not is_event(card) and COURT_CARDS[card].region == "persia",
    "russian_influence": lambda card: not is_event(card) and COURT_CARDS[card].patriot == "russian",
}


# The cards whose abilities make purchases free: most courts have none of them.
FREE_PURCHASE_CARDS: Final = frozenset(
    card for ability in FREE_PURCHASES for card in CARDS_WITH[ability]
)


def free_purchase_rules(state: State, seat: int) -> list[Callable[[int], bool]]:
    if FREE_PURCHASE_CARDS.isdisjoint(state.players[seat].court):
        return []  # most courts
    owned = abilities(state, seat)
    return [applies for ability, applies in FREE_PURCHASES.items() if ability in owned]


def is_free(state: State, seat: int, card: int) -> bool:
    return any(applies(card) for applies in free_purchase_rules(state, seat))


def purchase_cost(state: State, seat: int, col: int, card: int | None = None) -> int:
    if card is not None and is_free(state, seat, card):
        return 0
    return col * rupees_per_column(state)


# Actions are immutable values: one made per card at import is shared by every list.
PURCHASES: Final = {card: Action("purchase", (card,)) for card in (*COURT_CARDS, *EVENT_CARDS)}


def purchase_options(state: State, seat: int) -> list[Action]:
    rupees = state.players[seat].rupees
    per = rupees_per_column(state)
    found: list[Action] = []
    free = free_purchase_rules(state, seat)
    rows, paid = state.market, state.paid_cards
    for col in range(MARKET_COLUMNS):
        affordable = col * per <= rupees
        if not affordable and not free:
            break  # the columns further right cost more still
        for row in range(MARKET_ROWS):
            card = rows[row][col]
            if card is None or card in paid or card == market.PUBLIC_WITHDRAWAL:
                continue
            if affordable or any(applies(card) for applies in free):
                found.append(PURCHASES.get(card) or Action("purchase", (card,)))
    return found


def why_not_purchase(state: State, seat: int, action: Action) -> Refusal | None:
    """Why `action` (a purchase) is refused now, or None when this rule allows it."""
    if not card_actions.has_core_actions_left(state):
        return card_actions.no_actions_left(state, seat)
    card = int(action.args[0])
    why = _why_not_buy(state, seat, card)
    if why is None:
        return None
    code, reason = why
    return Refusal(
        code, P("cannot purchase card %(card)s: %(reason)s", card=card, reason=reason), SECTION
    )


def _why_not_buy(state: State, seat: int, card: int) -> tuple[str, Phrase] | None:
    where = market.locate(state, card)
    if where is None:
        return "not-in-market", P("that card is not in the market")
    if card == market.PUBLIC_WITHDRAWAL:
        return (
            "not-purchasable",
            P("Public Withdrawal can never be purchased while it is in the market"),
        )
    if card in state.paid_cards:
        return "paid-this-turn", P(
            "%(who)s placed a rupee on that card this turn", who=state.name(seat)
        )
    cost = purchase_cost(state, seat, where[1], card)
    player = state.players[seat]
    if cost > player.rupees:
        return (
            "cannot-afford",
            P(
                "it costs %(cost)s and %(who)s has %(rupees)s",
                cost=words.counted(cost, "rupee"),
                who=player.name,
                rupees=player.rupees,
            ),
        )
    return None


def purchase(state: State, seat: int, card: int) -> None:
    where = market.locate(state, card)
    assert where is not None
    row, col = where
    player = state.players[seat]
    per = rupees_per_column(state)
    free = is_free(state, seat, card)
    for left in range(0 if free else col):
        player.rupees -= per
        if state.market[row][left] is not None:
            market.place_rupee(state, row, left, per)
        elif state.market[1 - row][left] is not None:
            market.place_rupee(state, 1 - row, left, per)
        else:  # both slots of the column vacant: the cost leaves the game (docs/rules.md)
            state.out_of_game += per
    gained = state.market_rupees[row][col]
    state.market_rupees[row][col] = 0
    player.rupees += gained
    market.remove_card(state, row, col)
    state.actions_used += 1
    name = EVENT_CARDS[card].name if is_event(card) else COURT_CARDS[card].name
    cost = 0 if free else col * per
    said: dict[str, Value] = {
        "who": words.name_term(player.name),
        "card": words.card_name_term(name),
    }
    if gained:
        said["gain"] = PN("the %(n)s rupee", "the %(n)s rupees", gained)
        state.note(
            PN(
                "%(who)s purchased %(card)s for %(n)s rupee and took %(gain)s on it",
                "%(who)s purchased %(card)s for %(n)s rupees and took %(gain)s on it",
                cost,
                **said,
            )
        )
    else:
        state.note(
            PN(
                "%(who)s purchased %(card)s for %(n)s rupee",
                "%(who)s purchased %(card)s for %(n)s rupees",
                cost,
                **said,
            )
        )
    if is_event(card):
        events.on_purchase(state, seat, card)
    else:
        player.hand.append(card)
