"""The tax action [Tax, p. 13].

Take rupees, up to the acting card's rank, from market cards (any region) and from players
who have a court card of a region you rule; a player's rupees up to their economic stars
(tax shelter) cannot be taken. Shah Shujah Durrani (Claim of Ancient Lineage) taxes as if
its owner ruled every region.
"""

from __future__ import annotations

from collections.abc import Iterator

from engine.actions import Action, Arg, new_action
from engine.cards import COURT_CARDS, REGION_IDS, RegionId, card_name
from engine.frames import TaxFrame
from engine.phrases import P, Phrase
from engine.rules import card_actions, words
from engine.rules.abilities import has_ability
from engine.rules.flow import RepeatedDecision, decision, push
from engine.rules.ruling import ruler
from engine.rules.stars import count_stars
from engine.state import MARKET_COLUMNS, MARKET_ROWS, State


def ruled_regions(state: State, seat: int, *, for_tax: bool = False) -> set[RegionId]:
    if for_tax and has_ability(state, seat, "claim_of_ancient_lineage"):
        return set(REGION_IDS)
    # No one rules a region without a tribe there [Ruling a Region, p. 7]: only the
    # regions with one of the player's tribes need counting.
    tribes = state.tribes
    return {r for r in REGION_IDS if tribes[r][seat] and ruler(state, r) == seat}


def tax_shelter(state: State, seat: int) -> int:
    return count_stars(state, seat, "economic")


def sources(state: State, seat: int) -> list[Action]:
    """Where one more rupee may be taken from: market cards, then players."""
    return list(each_source(state, seat))


def each_source(state: State, seat: int) -> Iterator[Action]:
    """The sources in order, found one at a time: a test for any stops at the first."""
    for col in range(MARKET_COLUMNS):
        for row in range(MARKET_ROWS):
            card = state.market[row][col]
            if card is not None and state.market_rupees[row][col] > 0:
                yield new_action("collect", (card,))
    ruled = ruled_regions(state, seat, for_tax=True)
    for other, player in enumerate(state.players):
        if other == seat or player.rupees <= tax_shelter(state, other):
            continue
        if any(COURT_CARDS[c].region in ruled for c in player.court):
            yield Action("collect", (player.name,))


def has_sources(state: State, seat: int) -> bool:
    return next(each_source(state, seat), None) is not None


def start_targets(state: State, seat: int) -> list[tuple[Arg, ...]]:
    """What may follow the acting card in a tax action now (any card of the court)."""
    return [()] if has_sources(state, seat) else []


def start(state: State, seat: int, card: int) -> None:
    state.note(
        P(
            "%(who)s taxes with %(card)s",
            who=words.who(state, seat),
            card=words.card_name_term(COURT_CARDS[card].name),
        )
    )
    push(
        state,
        TaxFrame(kind="tax", player=seat, card=card, remaining=card_actions.rank(card), taken=0),
    )


class TaxDecision(RepeatedDecision[TaxFrame]):
    """Where to take the next rupee from, or stop."""

    kind = "tax"
    section = "Tax, p. 13"

    def steps(self, state: State, frame: TaxFrame, seat: int) -> list[Action]:
        return sources(state, seat)

    def each_step(self, state: State, frame: TaxFrame, seat: int) -> Iterator[Action]:
        return each_source(state, seat)

    def take_step(self, state: State, frame: TaxFrame, seat: int, action: Action) -> None:
        source = action.args[0]
        state.players[seat].rupees += 1
        if isinstance(source, int):
            for row in range(MARKET_ROWS):
                if source in state.market[row]:
                    state.market_rupees[row][state.market[row].index(source)] -= 1
            taken_from = words.card_name_term(card_name(source))
            who = words.who(state, seat)
            state.note(P("%(who)s took a rupee from %(source)s", who=who, source=taken_from))
        else:
            state.players[state.seat(source)].rupees -= 1
            taken_from = words.name_term(str(source))
            who = words.who(state, seat)
            state.note(P("%(who)s took a rupee from %(source)s", who=who, source=taken_from))

    def phrase(self, state: State, frame: TaxFrame) -> Phrase:
        return P(
            "%(who)s taxes with %(card)s: up to %(rupees)s from market cards or players "
            "(`collect CARD`, `collect PLAYER`)%(stop)s",
            who=words.who(state, frame["player"]),
            card=words.card_term(frame["card"]),
            rupees=words.counted(frame["remaining"], "rupee", more=bool(frame["taken"])),
            stop=words.stop_term(frame["taken"]),
        )


decision(TaxDecision)
