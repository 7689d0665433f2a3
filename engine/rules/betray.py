"""The betray action [Betray, p. 14].

For two rupees (an action cost), discard a court card where you have a spy, your own
included; spies on it go home, and its owner repays leverage and suffers the Overthrow
Rule as for any discard. You may then take it as a prize: a prize of another coalition
changes your loyalty first. Bodyguards protect their owner's political cards.
"""

from __future__ import annotations

from typing import Final

from engine.actions import Action, Arg
from engine.cards import COURT_CARDS
from engine.frames import PrizeFrame
from engine.phrases import P, Phrase
from engine.rules import card_actions, court, words
from engine.rules.abilities import has_ability
from engine.rules.flow import Decision, decision, push
from engine.rules.loyalty import change_loyalty
from engine.state import State

BETRAY_COST: Final = 2


def targets(state: State, seat: int) -> list[int]:
    found: list[int] = []
    for owner, player in enumerate(state.players):
        guarded = has_ability(state, owner, "bodyguards")
        for card in player.court:
            spies = state.spies.get(card)
            if not spies or not spies[seat]:
                continue
            if guarded and COURT_CARDS[card].suit == "political":
                continue
            found.append(card)
    return found


def start_targets(state: State, seat: int) -> list[tuple[Arg, ...]]:
    """The cards the acting card may betray now (any card of the court)."""
    if state.players[seat].rupees < BETRAY_COST:
        return []
    return [(target,) for target in targets(state, seat)]


def start(state: State, seat: int, card: int, target: int) -> None:
    card_actions.pay_action_cost(state, seat, BETRAY_COST)
    owner = card_actions.owner_of(state, target)
    assert owner is not None
    info = COURT_CARDS[target]
    state.note(
        P(
            "%(who)s betrayed %(card)s in %(owner)s's court",
            who=words.who(state, seat),
            card=words.card_name_term(info.name),
            owner=words.who(state, owner),
        )
    )
    if info.prize is not None:
        push(state, PrizeFrame(kind="prize", player=seat, card=target))
    court.discard_from_court(state, owner, target)


class PrizeDecision(Decision[PrizeFrame]):
    """Take the betrayed card as a prize, or leave it in the discard pile."""

    kind = "prize"
    section = "Betray, p. 14"
    auto_single = False

    def options(self, state: State, frame: PrizeFrame, seat: int) -> list[Action]:
        return [Action("accept"), Action("decline")]

    def apply(self, state: State, frame: PrizeFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        card = int(frame["card"])
        if action.verb == "decline":
            state.note(P("%(who)s declined the prize", who=words.who(state, seat)))
            return
        prize = COURT_CARDS[card].prize
        assert prize is not None
        player = state.players[seat]
        state.discard.remove(card)
        if prize != player.loyalty:
            change_loyalty(state, seat, prize)
        player.prizes.append(card)
        state.note(
            P(
                "%(who)s took %(card)s as %(prize)s prize",
                who=words.name_term(player.name),
                card=words.card_name_term(COURT_CARDS[card].name),
                prize=words.article_id_term(prize),
            )
        )

    def default(self, state: State, frame: PrizeFrame, seat: int) -> Action:
        return Action("decline")

    def phrase(self, state: State, frame: PrizeFrame) -> Phrase:
        return P(
            "%(who)s may take the betrayed %(card)s as %(prize)s prize (`accept`) or not "
            "(`decline`)",
            who=words.who(state, frame["player"]),
            card=words.card_term(frame["card"]),
            prize=words.article_coalition_term(str(COURT_CARDS[frame["card"]].prize)),
        )


decision(PrizeDecision)
