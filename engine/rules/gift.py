"""The gift action [Gift, p. 13].

Place a cylinder on an empty gift space of your loyalty dial, paying its price (2, 4 or 6)
as an action cost. Each gift is one influence in your coalition; gifts are lost when your
loyalty changes.
"""

from __future__ import annotations

from engine.actions import Arg
from engine.cards import COURT_CARDS
from engine.phrases import P
from engine.rules import card_actions, limits, words
from engine.state import GIFT_COSTS, State


def start_targets(state: State, seat: int) -> list[tuple[Arg, ...]]:
    """The prices of the gifts the acting card may buy now (any card of the court)."""
    player = state.players[seat]
    return [
        (cost,)
        for slot, cost in enumerate(GIFT_COSTS)
        if not player.gifts[slot] and cost <= player.rupees
    ]


def start(state: State, seat: int, card: int, cost: int) -> None:
    card_actions.pay_action_cost(state, seat, cost)
    state.note(
        P(
            "%(who)s bought a gift for %(cost)s with %(card)s",
            who=words.who(state, seat),
            cost=cost,
            card=words.card_name_term(COURT_CARDS[card].name),
        )
    )
    limits.place_cylinder(state, seat, "gift", cost)
