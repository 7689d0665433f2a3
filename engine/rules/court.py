"""Cards leaving a court, leverage, and the Overthrow Rule.

[Discarding a Card in Your Court, p. 8]: spies on the card return to their owners; a
leveraged card costs its owner two rupees, and one card from hand or court for each rupee
they cannot pay.

[The Overthrow Rule, p. 8]: losing your last tribe in a region discards every political card
of that region from your court; losing the last political card of a region from your court
removes all your tribes there.
"""

from __future__ import annotations

from typing import Final, Literal

from engine.actions import Action, new_action
from engine.cards import COURT_CARDS, RegionId
from engine.frames import DiscardFrame
from engine.phrases import PN, P, Phrase
from engine.rules import pieces, words
from engine.rules.flow import Decision, decision, push
from engine.state import State

LEVERAGE_REPAYMENT: Final = 2
Loss = Literal["tribe", "political card"]  # what triggers the Overthrow Rule [p. 8]


def political_cards(state: State, seat: int, region: RegionId) -> list[int]:
    """Political cards of `region` in a player's court, left to right."""
    return [
        card
        for card in state.players[seat].court
        if COURT_CARDS[card].suit == "political" and COURT_CARDS[card].region == region
    ]


def discard_from_court(state: State, seat: int, card: int, *, to_prizes: int | None = None) -> None:
    """Take `card` out of `seat`'s court with every consequence of the rules.

    The card goes to the discard pile, or becomes a prize of `to_prizes` (betrayal).
    """
    player = state.players[seat]
    player.court.remove(card)
    pieces.return_all_spies(state, card)
    if to_prizes is None:
        state.discard.append(card)
    else:
        state.players[to_prizes].prizes.append(card)
    info = COURT_CARDS[card]
    if info.suit == "political":
        overthrow(state, seat, info.region, lost="political card")
    if info.is_leveraged:
        repay_leverage(state, seat, card)


def repay_leverage(state: State, seat: int, card: int) -> None:
    """Pay back a leveraged card's two rupees; discard a card per rupee short [p. 8]."""
    player = state.players[seat]
    paid = min(LEVERAGE_REPAYMENT, player.rupees)
    player.rupees -= paid
    state.bank += paid
    missing = LEVERAGE_REPAYMENT - paid
    state.note(
        PN(
            "%(who)s repaid %(n)s rupee of leverage on %(card)s",
            "%(who)s repaid %(n)s rupees of leverage on %(card)s",
            paid,
            who=words.name_term(player.name),
            card=words.card_name_term(COURT_CARDS[card].name),
        )
    )
    if missing and state.is_wakhan(seat):
        # Wakhan discards nothing for leverage she cannot repay [Playing with Wakhan, p. 16].
        state.note(
            PN(
                "%(who)s discards no card for the %(n)s rupee she is short",
                "%(who)s discards no card for the %(n)s rupees she is short",
                missing,
                who=words.name_term(player.name),
            )
        )
        return
    if missing and (player.hand or player.court):
        push(
            state,
            DiscardFrame(
                kind="discard", player=seat, place="any", count=missing, reason="leverage"
            ),
        )


def remove_tribes(state: State, seat: int, region: RegionId, count: int) -> None:
    """Remove tribes from the map, discarding political cards if the last one goes."""
    if count <= 0:
        return
    pieces.drop_tribes(state, seat, region, count)
    overthrow(state, seat, region, lost="tribe")


def move_tribe(state: State, seat: int, origin: RegionId, destination: RegionId) -> None:
    """A tribe leaves a region for another; leaving the last one overthrows [p. 8]."""
    pieces.move_tribe(state, seat, origin, destination)
    # Unannounced, as it always was: the move's own log line follows.
    overthrow(state, seat, origin, lost="tribe", announce=False)


def overthrow(
    state: State, seat: int, region: RegionId, *, lost: Loss, announce: bool = True
) -> None:
    """[The Overthrow Rule, p. 8] after `seat` lost a tribe or a political card of `region`.

    Only the loss triggers the rule: tribes placed without a political card of their region
    (a tribe icon of another suit) stay until the last of them goes.
    """
    if lost == "tribe":
        doomed = [] if state.tribes[region][seat] else political_cards(state, seat, region)
        if doomed and announce:
            state.note(
                P(
                    "%(who)s lost their last tribe in %(region)s: political cards of that region "
                    "are discarded (Overthrow Rule)",
                    who=words.who(state, seat),
                    region=words.id_term(region),
                )
            )
        for card in doomed:
            discard_from_court(state, seat, card)
        return
    tribes = 0 if political_cards(state, seat, region) else state.tribes[region][seat]
    if tribes:
        if announce:
            state.note(
                PN(
                    "%(who)s lost their last political card of %(region)s: %(n)s tribe removed "
                    "(Overthrow Rule)",
                    "%(who)s lost their last political card of %(region)s: %(n)s tribes removed "
                    "(Overthrow Rule)",
                    tribes,
                    who=words.who(state, seat),
                    region=words.id_term(region),
                )
            )
        pieces.drop_tribes(state, seat, region, tribes)


def discard_from_hand(state: State, seat: int, card: int) -> None:
    state.players[seat].hand.remove(card)
    state.discard.append(card)


def discard_choices(state: State, seat: int, place: str) -> list[int]:
    """Cards a player may discard from `place`: 'hand', 'court' or 'any' (hand first)."""
    player = state.players[seat]
    if place == "hand":
        return player.hand[:]
    if place == "court":
        return player.court[:]
    return player.hand + player.court


# Why a discard is asked, as the end of a sentence.
DISCARD_REASONS: Final = {
    "court limit": P("to keep within the court limit"),
    "hand limit": P("to keep within the hand limit"),
    "leverage": P("to repay leverage"),
}
DISCARD_PLACES: Final = {"hand": P("hand"), "court": P("court"), "any": P("hand or court")}


class DiscardDecision(Decision[DiscardFrame]):
    """A player discards cards one at a time (court or hand limits, leverage, events)."""

    kind = "discard"
    section = "Discarding a Card in Your Court, p. 8"

    def cite(self, state: State, frame: DiscardFrame) -> str:
        if frame["reason"] in ("court limit", "hand limit"):
            return "Cleanup, p. 9"
        return self.section

    def options(self, state: State, frame: DiscardFrame, seat: int) -> list[Action]:
        return [new_action("discard", (c,)) for c in discard_choices(state, seat, frame["place"])]

    def apply(self, state: State, frame: DiscardFrame, seat: int, action: Action) -> None:
        card = int(action.args[0])
        frame["count"] -= 1
        choices = discard_choices(state, seat, frame["place"])
        if frame["count"] <= 0 or len(choices) <= 1:
            state.stack.pop()
        player = state.players[seat]
        state.note(
            P(
                "%(who)s discarded %(card)s",
                who=words.name_term(player.name),
                card=words.card_name_term(COURT_CARDS[card].name),
            )
        )
        if card in player.hand:
            discard_from_hand(state, seat, card)
        else:
            discard_from_court(state, seat, card)

    def default(self, state: State, frame: DiscardFrame, seat: int) -> Action:
        # Documented default: the newest card in hand, else the rightmost court card.
        player = state.players[seat]
        if frame["place"] != "court" and player.hand:
            return Action("discard", (player.hand[-1],))
        return Action("discard", (player.court[-1],))

    def phrase(self, state: State, frame: DiscardFrame) -> Phrase:
        return P(
            "%(who)s discards %(cards)s from %(where)s %(why)s (`discard CARD`)",
            who=words.who(state, frame["player"]),
            cards=words.counted(frame["count"], "card"),
            where=DISCARD_PLACES[frame["place"]],
            why=DISCARD_REASONS.get(frame["reason"], words.name_term(frame["reason"])),
        )


decision(DiscardDecision)
