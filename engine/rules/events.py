"""Event cards: the bottom effect on purchase, the top effect when discarded [Cleanup, p. 9].

Every event id of engine/data/events.json has a handler here. Lasting effects are kept in
`state.effects` (`{"id", "card", "player", "until": "check"}`), the card with them, until
the next Dominance Check has resolved; `player` is None for effects on everyone. Rules
that an effect changes ask `loyalty.has_effect`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from engine.actions import Action
from engine.cards import (
    COURT_CARDS,
    EVENT_CARDS,
    REGION_IDS,
    SUITS,
    EffectId,
    RegionId,
    Suit,
    as_region,
    as_suit,
)
from engine.frames import ChooseFrame, DiscardEachFrame, Effect
from engine.phrases import P, Phrase, T, Term, Value
from engine.rules import court, dominance, market, pieces, words
from engine.rules.flow import BaseDecision, Decision, decision, push
from engine.state import State

# Effects that last until the next Dominance Check has resolved, and whom they touch.
LASTING_PERSONAL: Final[set[EffectId]] = {
    "new_tactics",
    "koh_i_noor_recovered",
    "courtly_manners",
    "nationalism",
    "nation_building",
}
LASTING_GLOBAL: Final[set[EffectId]] = {
    "embarrassment_of_riches",
    "disregard_for_customs",
    "conflict_fatigue",
}
RIOTS: Final[dict[EffectId, RegionId]] = {
    "riots_in_punjab": "punjab",
    "riots_in_herat": "herat",
    "riots_in_kabul": "kabul",
    "riots_in_persia": "persia",
}
FAVOR: Final[dict[EffectId, Suit]] = {
    "favor_military": "military",
    "favor_intelligence": "intelligence",
    "favor_political": "political",
}
BACKING_RUPEES: Final = 3

# The effects' texts (engine/data/events.json's paraphrases), written out so that extraction
# finds them; a test checks that they cover the card data. The log quotes them.
EFFECT_TERMS: Final[dict[str, Term]] = {
    term.text: term
    for term in (
        T(
            "Resolve a Dominance Check immediately; if it succeeds, all coalition blocks are "
            "then cleared from the map."
        ),
        T("The favored suit marker moves to Military."),
        T(
            "Until the next Dominance Check, all Military cards in the purchaser's court count as "
            "favored."
        ),
        T("Gifts give no influence to anyone until the next Dominance Check has been resolved."),
        T(
            "Each of the purchaser's gifts counts for one extra influence point until the next "
            "Dominance Check has been resolved."
        ),
        T("No bribes are owed by anyone until the next Dominance Check."),
        T("The purchaser may decline to pay any bribe until the next Dominance Check."),
        T("Every player discards all of their loyalty prizes."),
        T(
            "The purchaser picks a player whose patriots give no influence until the next "
            "Dominance Check has been resolved."
        ),
        T("Every tribe and army in Punjab is removed."),
        T(
            "At the next Dominance Check a coalition needs a lead of only two blocks (instead of "
            "four) to be dominant."
        ),
        T("Every tribe and army in Herat is removed."),
        T(
            "Until the next Dominance Check the purchaser's tribes can move and battle as though "
            "they were armies."
        ),
        T("Nothing happens."),
        T(
            "While in the market this card can never be bought, and any rupees placed on it are "
            "taken out of the game."
        ),
        T("Every tribe and army in Kabul is removed."),
        T(
            "Until the next Dominance Check the purchaser places double the normal number of "
            "blocks with each build action."
        ),
        T("Every tribe and army in Persia is removed."),
        T("The purchaser gains three rupees from the bank."),
        T("Each player at once discards one card from their hand (if they have one)."),
        T(
            "The purchaser swaps their entire hand with another player's hand; either hand may "
            "be empty."
        ),
        T("The favored suit marker moves to Intelligence."),
        T(
            "The purchaser sets the favored suit of their choice, and favored-suit-change impact "
            "icons have no effect until the next Dominance Check."
        ),
        T("The favored suit marker moves to Political."),
        T("The purchaser picks one region and removes every tribe and army there."),
    )
}


def effect_term(text: str) -> Value:
    """An effect's text as the card data gives it, translated where the table has it."""
    return EFFECT_TERMS.get(text, words.name_term(text))


def on_purchase(state: State, seat: int, card: int) -> None:
    """Resolve an event's bottom effect for its purchaser [Purchase, p. 10]."""
    effect = EVENT_CARDS[card].if_purchased.id
    state.note(
        P(
            "%(card)s: %(effect)s",
            card=words.card_name_term(EVENT_CARDS[card].name),
            effect=effect_term(EVENT_CARDS[card].if_purchased.text),
        )
    )
    resolve(state, effect, card, seat)


def on_discard(state: State, card: int) -> None:
    """Resolve an event's top effect for everyone [Cleanup, p. 9]."""
    effect = EVENT_CARDS[card].if_discarded.id
    state.note(
        P(
            "%(card)s was discarded: %(effect)s",
            card=words.card_name_term(EVENT_CARDS[card].name),
            effect=effect_term(EVENT_CARDS[card].if_discarded.text),
        )
    )
    resolve(state, effect, card, None)


def resolve(state: State, effect: EffectId, card: int, seat: int | None) -> None:
    if effect in LASTING_PERSONAL:
        state.effects.append(Effect(id=effect, card=card, player=seat, until="check"))
    elif effect in LASTING_GLOBAL:
        state.effects.append(Effect(id=effect, card=card, player=None, until="check"))
    elif effect in CHOICES:
        assert seat is not None
        push(state, ChooseFrame(kind="choose", player=seat, effect=effect, card=card))
    else:
        INSTANT[effect](state, card, seat)


def _dominance_check(state: State, card: int, seat: int | None) -> None:
    state.discard.append(card)
    dominance.resolve_check(state, final=market.count_dominance_checks_left(state) == 0)


def _favor(state: State, card: int, seat: int | None) -> None:
    state.discard.append(card)
    suit = FAVOR[EVENT_CARDS[card].if_discarded.id]
    state.favored = suit
    state.note(P("the favored suit is now %(suit)s", suit=words.id_term(suit)))


def _riots(state: State, card: int, seat: int | None) -> None:
    state.discard.append(card)
    clear_region(state, RIOTS[EVENT_CARDS[card].if_discarded.id])


def clear_region(state: State, region: RegionId) -> None:
    """Remove every tribe and army in a region (the Overthrow Rule applies to tribes)."""
    for coalition, count in state.armies[region].items():
        if count:
            pieces.remove_armies(state, region, coalition, count)
    for owner in range(state.num_players):
        court.remove_tribes(state, owner, region, state.tribes[region][owner])


def _failure_to_impress(state: State, card: int, seat: int | None) -> None:
    state.discard.append(card)
    for player in state.players:
        state.discard.extend(player.prizes)
        player.prizes = []


def _confidence_failure(state: State, card: int, seat: int | None) -> None:
    state.discard.append(card)
    holders = [s for s, p in enumerate(state.players) if p.hand]
    if holders:
        push(
            state,
            DiscardEachFrame(kind="discard_each", players=holders, reason="Confidence Failure"),
        )


def _backing(state: State, card: int, seat: int | None) -> None:
    assert seat is not None
    state.discard.append(card)
    state.players[seat].rupees += BACKING_RUPEES
    state.bank -= BACKING_RUPEES


def _nothing(state: State, card: int, seat: int | None) -> None:
    state.discard.append(card)


INSTANT: Final[dict[EffectId, Callable[[State, int, int | None], None]]] = {
    "dominance_check": _dominance_check,
    "failure_to_impress": _failure_to_impress,
    "confidence_failure": _confidence_failure,
    "backing_of_persian_aristocracy": _backing,
    "no_effect": _nothing,
    "public_withdrawal": _nothing,  # never purchasable; listed for completeness
    **{effect: _favor for effect in FAVOR},
    **{effect: _riots for effect in RIOTS},
}


def _players_but(state: State, seat: int) -> list[str]:
    return [p.name for s, p in enumerate(state.players) if s != seat]


# What the purchaser chooses, for the events that make them choose.
CHOICES: Final[dict[EffectId, Callable[[State, int], list[str]]]] = {
    "rumor": lambda state, seat: [p.name for p in state.players],
    "other_persuasive_methods": _players_but,
    "pashtunwali_values": lambda state, seat: list(SUITS),
    "rebuke": lambda state, seat: list(REGION_IDS),
}


# What each event's purchaser chooses, in words and in the notation's form.
CHOICE_WORDS: Final[dict[EffectId, tuple[Phrase, str]]] = {
    "rumor": (P("a player"), "PLAYER"),
    "other_persuasive_methods": (P("a player to swap hands with"), "PLAYER"),
    "pashtunwali_values": (P("a suit to favor"), "SUIT"),
    "rebuke": (P("a region"), "REGION"),
}


def event_half(card: int, half: Literal["if_discarded", "if_purchased"]) -> str:
    """'Rumor (108)': the half of an event card at work, with the card's number."""
    title = getattr(EVENT_CARDS[card], half).title or EVENT_CARDS[card].name
    return f"{title} ({card})"


class ChooseDecision(Decision[ChooseFrame]):
    """The purchaser of an event picks a player, a region or a suit."""

    kind = "choose"
    section = "Purchase, p. 10"

    def options(self, state: State, frame: ChooseFrame, seat: int) -> list[Action]:
        return [Action("choose", (x,)) for x in CHOICES[frame["effect"]](state, seat)]

    def apply(self, state: State, frame: ChooseFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        effect, card, choice = frame["effect"], frame["card"], str(action.args[0])
        state.note(
            P(
                "%(who)s chose %(choice)s for %(card)s",
                who=words.who(state, seat),
                choice=words.id_term(choice),
                card=words.card_name_term(EVENT_CARDS[card].name),
            )
        )
        if effect == "rumor":
            target = state.seat(choice)
            state.effects.append(Effect(id=effect, card=card, player=target, until="check"))
        elif effect == "pashtunwali_values":
            state.favored = as_suit(choice)
            state.effects.append(Effect(id=effect, card=card, player=None, until="check"))
        elif effect == "other_persuasive_methods":
            other = state.players[state.seat(choice)]
            mine = state.players[seat]
            mine.hand, other.hand = other.hand, mine.hand
            state.discard.append(card)
        else:  # rebuke
            state.discard.append(card)
            clear_region(state, as_region(choice))

    def phrase(self, state: State, frame: ChooseFrame) -> Phrase:
        what, form = CHOICE_WORDS[frame["effect"]]
        return P(
            "%(who)s chooses %(what)s for %(event)s (`choose %(form)s`)",
            who=words.who(state, frame["player"]),
            what=what,
            event=words.name_term(event_half(frame["card"], "if_purchased")),
            form=words.name_term(form),
        )


decision(ChooseDecision)


class DiscardEachDecision(BaseDecision[DiscardEachFrame]):
    """Several players at once each discard a card from hand (Confidence Failure)."""

    kind = "discard_each"
    section = "Cleanup, p. 9"

    def deciders(self, state: State, frame: DiscardEachFrame) -> list[int]:
        return [s for s in frame["players"] if state.players[s].hand]

    def options(self, state: State, frame: DiscardEachFrame, seat: int) -> list[Action]:
        return [Action("discard", (c,)) for c in state.players[seat].hand]

    def apply(self, state: State, frame: DiscardEachFrame, seat: int, action: Action) -> None:
        frame["players"] = [s for s in frame["players"] if s != seat]
        if not frame["players"]:
            state.stack.pop()
        card = int(action.args[0])
        court.discard_from_hand(state, seat, card)
        state.note(
            P(
                "%(who)s discarded %(card)s from hand",
                who=words.who(state, seat),
                card=words.card_name_term(COURT_CARDS[card].name),
            )
        )

    def default(self, state: State, frame: DiscardEachFrame, seat: int) -> Action:
        return Action("discard", (state.players[seat].hand[-1],))

    def phrase(self, state: State, frame: DiscardEachFrame) -> Phrase:
        who = words.listing_phrase([state.name(s) for s in self.deciders(state, frame)])
        event = next(
            (
                event_half(n, "if_discarded")
                for n, e in EVENT_CARDS.items()
                if e.if_discarded.title == frame["reason"]
            ),
            frame["reason"],
        )
        return P(
            "%(who)s each discard a card from hand for %(event)s (`discard CARD`)",
            who=who,
            event=words.name_term(event),
        )


decision(DiscardEachDecision)
