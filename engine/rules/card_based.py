"""The card-based actions, one row each [Card-Based Actions, pp. 12-15].

Everything the rest of the engine needs to know of a card-based action is in its row: its
verb (also its notation verb and its coverage label `action:VERB`), the shape of its
arguments after the card, the rule module's functions that list and start it, and the
least it costs. The sequence of play (`turn.py`), the notation, the explanations, the
coverage report and Wakhan all read this table, so a new card-based action is one row here
and one rule module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

from engine.actions import Action, Arg, new_action
from engine.cards import COURT_CARDS, ActionKind
from engine.rules import battle, betray, build, card_actions, gift, move, tax
from engine.state import State

# What follows the card in the notation: nothing, a price, a second card, or a battle
# site (a region or a card).
Shape = Literal["", "price", "card", "site"]


@dataclass(frozen=True)
class CardAction:
    """One card-based action."""

    verb: ActionKind
    shape: Shape
    # What may follow the acting card in its actions now, the card's use aside [p. 12]:
    # the same for every card of a court, so a list of the turn's options asks once.
    targets: Callable[[State, int], list[tuple[Arg, ...]]]
    # Carry it out once the card is spent and any hostage bribe paid.
    start: Callable[[State, int, Action], None]
    # Rupees it needs at the least, after any bribe: a bribe is not demanded of a player
    # who could not then afford the action.
    least_cost: Callable[[Action], int] = lambda action: 0

    def options(self, state: State, seat: int, card: int) -> list[Action]:
        """Its actions with `card` that may be taken now, the card's use aside [p. 12]."""
        return self.with_card(card, self.targets(state, seat))

    def with_card(self, card: int, targets: list[tuple[Arg, ...]]) -> list[Action]:
        if targets == [()]:  # tax, build, move: the action is the card alone
            return [BARE_ACTIONS.get((self.verb, card)) or Action(self.verb, (card,))]
        return [new_action(self.verb, (card, *target)) for target in targets]

    def action(self, card: int, target: Arg | None = None) -> Action:
        """The action with `card` (and the argument its shape asks for)."""
        if self.shape == "":
            return Action(self.verb, (card,))
        assert target is not None
        return Action(self.verb, (card, int(target) if self.shape == "price" else target))


def _card(action: Action) -> int:
    return int(action.args[0])


CARD_ACTIONS: Final[dict[str, CardAction]] = {
    row.verb: row
    for row in (
        CardAction(
            "tax",
            "",
            tax.start_targets,
            lambda state, seat, action: tax.start(state, seat, _card(action)),
        ),
        CardAction(
            "gift",
            "price",
            gift.start_targets,
            lambda state, seat, action: gift.start(state, seat, _card(action), int(action.args[1])),
            lambda action: int(action.args[1]),
        ),
        CardAction(
            "build",
            "",
            build.start_targets,
            lambda state, seat, action: build.start(state, seat, _card(action)),
            lambda action: build.BLOCK_PRICE,
        ),
        CardAction(
            "move",
            "",
            move.start_targets,
            lambda state, seat, action: move.start(state, seat, _card(action)),
        ),
        CardAction(
            "betray",
            "card",
            betray.start_targets,
            lambda state, seat, action: betray.start(
                state, seat, _card(action), int(action.args[1])
            ),
            lambda action: betray.BETRAY_COST,
        ),
        CardAction(
            "battle",
            "site",
            battle.start_targets,
            lambda state, seat, action: battle.start(state, seat, _card(action), action.args[1]),
        ),
    )
}


# Actions are immutable values: the action of each card alone (tax, build, move with it),
# made at import, is shared by every list.
BARE_ACTIONS: Final = {
    (kind, card): Action(kind, (card,))
    for card, info in COURT_CARDS.items()
    for kind in info.actions
}

# Each court card's card-based actions, in the order printed, each once: read on every
# list of a turn's options.
KINDS_OF: Final[dict[int, tuple[ActionKind, ...]]] = {
    card: tuple(dict.fromkeys(info.actions)) for card, info in COURT_CARDS.items()
}


def least_cost(action: Action) -> int:
    """Rupees an action needs after its bribe: the least cost of a card-based action."""
    row = CARD_ACTIONS.get(action.verb)
    return 0 if row is None else row.least_cost(action)


def perform(state: State, seat: int, action: Action) -> None:
    """Spend the card and carry out its action (any hostage bribe already paid)."""
    card_actions.spend(state, seat, int(action.args[0]))
    CARD_ACTIONS[action.verb].start(state, seat, action)
