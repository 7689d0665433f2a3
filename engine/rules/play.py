"""The play action and impact icons [Play, p. 11].

To play a card from hand to the left or right end of the court, first pay the region's
ruler a bribe equal to their tribes there; the ruler may waive any part of it (`bribe`
decision) and the player may then refuse to pay (`pay` decision), in which case the action
never happened and is not spent. A patriot of another coalition changes the player's
loyalty. Then the impact icons resolve top to bottom.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, TypeVar, cast

from engine.actions import Action, Arg, Verb, new_action
from engine.cards import BORDERS, COURT_CARDS, REGIONS, Impact, ImpactKind, RegionId, Suit
from engine.errors import Refusal
from engine.frames import BribeFrame, IconsFrame, PayFrame, RoadFrame, SpyFrame
from engine.phrases import P, Phrase
from engine.rules import card_actions, card_based, limits, loyalty, words
from engine.rules.abilities import has_ability
from engine.rules.flow import Decision, decision, procedure, push
from engine.rules.ruling import ruler
from engine.state import State

SIDES: Final = ("left", "right")
BribeStepF = TypeVar("BribeStepF", bound=BribeFrame | PayFrame)
LEVERAGE: Final = 2  # rupees a leverage icon takes from the bank [Play, p. 11]


# Actions are immutable values: the two made per card at import are shared by every list.
PLAYS: Final = {card: tuple(Action("play", (card, side)) for side in SIDES) for card in COURT_CARDS}


def play_options(state: State, seat: int) -> list[Action]:
    return [
        action
        for card in state.players[seat].hand
        for action in PLAYS.get(card) or [Action("play", (card, side)) for side in SIDES]
    ]


def why_not_play(state: State, seat: int, action: Action) -> Refusal | None:
    """Why `action` (a play) is refused now, or None when this rule allows it."""
    if not card_actions.has_core_actions_left(state):
        return card_actions.no_actions_left(state, seat)
    if action.args and action.args[0] not in state.players[seat].hand:
        reason = P(
            "card %(card)s is not in %(who)s's hand", card=action.args[0], who=state.name(seat)
        )
        return Refusal("not-in-hand", reason, "Play, p. 11")
    return None


def bribe_owed(state: State, seat: int, region: RegionId) -> tuple[int | None, int]:
    """(ruler, bribe) for `seat` playing a card of `region` [Play, p. 11].

    The bribe is the ruler's tribes in the region; no bribe is owed to oneself, while
    Disregard for Customs is in force, by the purchaser of Courtly Manners, or by the
    owner of Barakzai Sadars (Charismatic Courtiers).
    """
    owner = ruler(state, region)
    if owner is None or owner == seat:
        return None, 0
    if has_ability(state, seat, "charismatic_courtiers"):
        return owner, 0
    if loyalty.has_effect(state, "disregard_for_customs"):
        return owner, 0
    if loyalty.has_effect(state, "courtly_manners", seat):
        return owner, 0
    return owner, state.tribes[region][owner]


def start_play(state: State, seat: int, card: int, side: str) -> None:
    """Begin a play action: ask the ruler for the bribe first if one is owed."""
    owner, amount = bribe_owed(state, seat, COURT_CARDS[card].region)
    if owner is not None and amount > 0:
        ask_bribe(state, owner, seat, amount, Action("play", (card, side)))
        return
    complete_play(state, seat, card, side)


def ask_bribe(state: State, owner: int, payer: int, amount: int, action: Action) -> None:
    """Ask `owner` how much of a bribe they demand before `payer` may take `action`."""
    bribed: list[Arg] = [action.verb, *action.args]
    push(state, BribeFrame(kind="bribe", player=owner, payer=payer, amount=amount, action=bribed))


def bribed_action(frame: BribeFrame | PayFrame) -> Action:
    verb, *args = frame["action"]
    # The frame holds an action the engine made (a state read from a file is checked:
    # engine/state_checks.py `bribed_action`).
    return Action(cast(Verb, verb), tuple(args))


def carry_out(state: State, seat: int, action: Action) -> None:
    """Take an action whose bribe is settled: a play, or a card-based action."""
    if action.verb == "play":
        complete_play(state, seat, int(action.args[0]), str(action.args[1]))
    else:
        card_based.perform(state, seat, action)


def complete_play(state: State, seat: int, card: int, side: str) -> None:
    """Put the card in court, change loyalty for a foreign patriot, resolve the icons."""
    player = state.players[seat]
    info = COURT_CARDS[card]
    player.hand.remove(card)
    if side == "left":
        player.court.insert(0, card)
    else:
        player.court.append(card)
    state.actions_used += 1
    said = {
        "who": words.name_term(player.name),
        "card": words.card_name_term(info.name),
        "region": words.id_term(info.region),
    }
    if side == "left":
        state.note(P("%(who)s played %(card)s (%(region)s) to the left of their court", **said))
    else:
        state.note(P("%(who)s played %(card)s (%(region)s) to the right of their court", **said))
    push(state, IconsFrame(kind="icons", player=seat, card=card, index=0))
    if info.patriot is not None and info.patriot != player.loyalty:
        loyalty.change_loyalty(state, seat, info.patriot)


class BribeStep(Decision[BribeStepF]):
    """A step of a bribe, for playing a card [Play, p. 11] or using a hostage card
    [Hostage Actions, p. 12]; always asked, never forced."""

    section = "Play, p. 11"
    auto_single = False

    def cite(self, state: State, frame: BribeStepF) -> str:
        return "Play, p. 11" if frame["action"][0] == "play" else "Hostage Actions, p. 12"


class BribeDecision(BribeStep[BribeFrame]):
    """The ruler says how much of the bribe they demand (0 waives it) [Play, p. 11]."""

    kind = "bribe"

    def options(self, state: State, frame: BribeFrame, seat: int) -> list[Action]:
        return [new_action("demand", (n,)) for n in range(frame["amount"] + 1)]

    def apply(self, state: State, frame: BribeFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        demand = int(action.args[0])
        payer, wanted = frame["payer"], bribed_action(frame)
        state.note(
            P(
                "%(who)s demanded a bribe of %(n)s from %(payer)s",
                who=words.who(state, seat),
                n=demand,
                payer=words.who(state, payer),
            )
        )
        if demand == 0:
            carry_out(state, payer, wanted)
        elif state.players[payer].rupees < demand + card_based.least_cost(wanted):
            state.note(
                P(
                    "%(who)s cannot pay %(n)s: %(action)s did not happen",
                    who=words.who(state, payer),
                    n=demand,
                    action=words.name_term(str(wanted)),
                )
            )
        else:
            pay = PayFrame(
                kind="pay", player=payer, ruler=seat, demand=demand, action=frame["action"]
            )
            push(state, pay)

    def default(self, state: State, frame: BribeFrame, seat: int) -> Action:
        return Action("demand", (frame["amount"],))  # the full bribe

    def by_policy(self, state: State, frame: BribeFrame) -> tuple[int, Action] | None:
        seat = frame["player"]
        most = state.players[seat].policy_demand.get(frame["payer"])
        if most is None:
            return None
        return seat, Action("demand", (min(most, frame["amount"]),))

    def phrase(self, state: State, frame: BribeFrame) -> Phrase:
        return P(
            "%(payer)s wants to %(wanted)s: %(ruler)s may demand a bribe of up to %(rupees)s "
            "(`demand N`, `demand 0` waives it)",
            payer=words.who(state, frame["payer"]),
            wanted=words.phrase_action(state, bribed_action(frame)),
            ruler=words.who(state, frame["player"]),
            rupees=words.counted(frame["amount"], "rupee"),
        )


decision(BribeDecision)


class PayDecision(BribeStep[PayFrame]):
    """The player pays the demanded bribe, or refuses and the play never happens."""

    kind = "pay"

    def options(self, state: State, frame: PayFrame, seat: int) -> list[Action]:
        return [Action("pay"), Action("refuse")]

    def apply(self, state: State, frame: PayFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        wanted = bribed_action(frame)
        if action.verb == "refuse":
            state.note(
                P(
                    "%(who)s refused the bribe: %(action)s did not happen",
                    who=words.who(state, seat),
                    action=words.name_term(str(wanted)),
                )
            )
            return
        demand, owner = frame["demand"], frame["ruler"]
        state.players[seat].rupees -= demand
        state.players[owner].rupees += demand
        state.note(
            P(
                "%(who)s paid %(ruler)s a bribe of %(n)s",
                who=words.who(state, seat),
                ruler=words.who(state, owner),
                n=demand,
            )
        )
        carry_out(state, seat, wanted)

    def default(self, state: State, frame: PayFrame, seat: int) -> Action:
        return Action("refuse")  # no rupee moves without the payer's consent

    def by_policy(self, state: State, frame: PayFrame) -> tuple[int, Action] | None:
        seat = frame["player"]
        most = state.players[seat].policy_pay
        if most is None:
            return None
        return seat, Action("pay" if frame["demand"] <= most else "refuse")

    def phrase(self, state: State, frame: PayFrame) -> Phrase:
        return P(
            "%(ruler)s demands %(rupees)s before %(payer)s may %(wanted)s: %(payer)s pays or "
            "refuses (`pay`, `refuse`)",
            ruler=words.who(state, frame["ruler"]),
            rupees=words.counted(frame["demand"], "rupee"),
            payer=words.who(state, frame["player"]),
            wanted=words.phrase_action(state, bribed_action(frame)),
        )


decision(PayDecision)


def spy_targets(state: State, region: RegionId) -> list[int]:
    """Court cards of `region` in every court, in seat order, left to right."""
    return [c for p in state.players for c in p.court if COURT_CARDS[c].region == region]


@procedure("icons")
def resolve_next_icon(state: State, frame: IconsFrame) -> None:
    """Resolve one impact icon of the played card, top to bottom [Play, p. 11]."""
    seat, card = frame["player"], frame["card"]
    impacts = COURT_CARDS[card].impacts
    index = frame["index"]
    if index >= len(impacts):
        state.stack.pop()
        return
    if card not in state.players[seat].court:
        # The card itself was discarded (leverage repaid during a loyalty change): its
        # remaining icons are no longer there to resolve.
        state.stack.pop()
        state.note(
            P(
                "%(card)s left the court: its other icons do nothing",
                card=words.card_name_term(COURT_CARDS[card].name),
            )
        )
        return
    frame["index"] = index + 1
    impact = impacts[index]
    IMPACTS[impact.kind](state, seat, COURT_CARDS[card].region, impact)


def impact_road(state: State, seat: int, region: RegionId, impact: Impact) -> None:
    push(state, RoadFrame(kind="road", player=seat, region=region))


def impact_army(state: State, seat: int, region: RegionId, impact: Impact) -> None:
    limits.place_block(state, seat, "army", region)


def impact_tribe(state: State, seat: int, region: RegionId, impact: Impact) -> None:
    limits.place_cylinder(state, seat, "tribe", region)


def impact_spy(state: State, seat: int, region: RegionId, impact: Impact) -> None:
    if spy_targets(state, region):
        push(state, SpyFrame(kind="spy", player=seat, region=region))
    else:
        state.note(
            P(
                "no %(region)s card in any court: %(who)s's spy is not placed",
                region=words.id_term(region),
                who=words.who(state, seat),
            )
        )


def impact_leverage(state: State, seat: int, region: RegionId, impact: Impact) -> None:
    player = state.players[seat]
    player.rupees += LEVERAGE
    state.bank -= LEVERAGE
    state.note(
        P(
            "%(who)s took %(n)s rupees of leverage from the bank",
            who=words.name_term(player.name),
            n=LEVERAGE,
        )
    )


def impact_favor(state: State, seat: int, region: RegionId, impact: Impact) -> None:
    assert impact.suit is not None
    change_favored_suit(state, impact.suit)


# What each impact icon does, for the player who played the card and the card's region.
IMPACTS: Final[dict[ImpactKind, Callable[[State, int, RegionId, Impact], None]]] = {
    "road": impact_road,
    "army": impact_army,
    "tribe": impact_tribe,
    "spy": impact_spy,
    "leverage": impact_leverage,
    "favor": impact_favor,
}


def change_favored_suit(state: State, suit: Suit) -> None:
    """Move the favored suit marker, unless Pashtunwali Values holds it [p. 11]."""
    if loyalty.has_effect(state, "pashtunwali_values"):
        state.note(P("Pashtunwali Values: the favored suit does not change"))
        return
    if state.favored != suit:
        state.favored = suit
        state.note(P("the favored suit is now %(suit)s", suit=words.id_term(suit)))


class RoadDecision(Decision[RoadFrame]):
    """Which border of the card's region gets the road."""

    kind = "road"
    section = "Play, p. 11"

    def options(self, state: State, frame: RoadFrame, seat: int) -> list[Action]:
        return [new_action("road", (b,)) for b in REGIONS[frame["region"]].borders]

    def apply(self, state: State, frame: RoadFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        border = str(action.args[0])
        assert border in BORDERS
        limits.place_block(state, seat, "road", border)

    def phrase(self, state: State, frame: RoadFrame) -> Phrase:
        return P(
            "%(who)s places a road on a border of %(region)s (`road BORDER`)",
            who=words.who(state, frame["player"]),
            region=words.region_term(frame["region"]),
        )


decision(RoadDecision)


class SpyDecision(Decision[SpyFrame]):
    """Which court card of the region gets the spy."""

    kind = "spy"
    section = "Play, p. 11"

    def options(self, state: State, frame: SpyFrame, seat: int) -> list[Action]:
        return [new_action("spy", (c,)) for c in spy_targets(state, frame["region"])]

    def apply(self, state: State, frame: SpyFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        limits.place_cylinder(state, seat, "spy", int(action.args[0]))

    def phrase(self, state: State, frame: SpyFrame) -> Phrase:
        return P(
            "%(who)s places a spy on a %(region)s court card (`spy CARD`)",
            who=words.who(state, frame["player"]),
            region=words.region_term(frame["region"]),
        )


decision(SpyDecision)
