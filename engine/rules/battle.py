"""The battle action [Battle, p. 14].

In one region or on one court card, remove enemy pieces up to the acting card's rank, and
no more than your own armies (in a region) or spies (on a card) there. Never blocks of your
own coalition, never tribes of players loyal to your coalition; spies always. Roads on the
borders of the region are at the site. Citadels protect their owner's tribes in their
region; Nationalism lets the purchaser's tribes fight as armies; Indispensable Advisors
keeps its owner's spies; Safe House lets the owner save a removed spy onto that card.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from engine.actions import Action, Arg
from engine.cards import (
    COURT_CARDS,
    REGION_IDS,
    REGIONS,
    AbilityId,
    RegionId,
    as_coalition,
    as_region,
)
from engine.frames import BattleFrame, SafeHouseFrame
from engine.phrases import P, Phrase
from engine.rules import card_actions, court, pieces, words
from engine.rules.abilities import has_ability
from engine.rules.flow import Decision, RepeatedDecision, decision, push
from engine.rules.loyalty import has_effect
from engine.state import State

CITADELS: Final[dict[RegionId, AbilityId]] = {
    "kabul": "citadel_kabul",
    "transcaspia": "citadel_transcaspia",
}


def strength(state: State, seat: int, site: RegionId | int) -> int:
    if isinstance(site, int):
        spies = state.spies.get(site)
        return spies[seat] if spies else 0
    coalition = state.players[seat].loyalty
    assert coalition is not None
    armies = state.armies[site][coalition]
    if has_effect(state, "nationalism", seat):
        armies += state.tribes[site][seat]
    return armies


def removable(state: State, seat: int, site: RegionId | int) -> list[Action]:
    """Enemy pieces at the site that may be removed."""
    return list(each_removable(state, seat, site))


def each_removable(state: State, seat: int, site: RegionId | int) -> Iterator[Action]:
    """The removable pieces in order, found one at a time: a test for any stops at the first."""
    me = state.players[seat]
    if isinstance(site, int):
        spies = state.spies.get(site, [])
        for s, n in enumerate(spies):
            if n and s != seat and not has_ability(state, s, "indispensable_advisors"):
                yield Action("remove", ("spy", state.name(s)))
        return
    for c, n in state.armies[site].items():
        if n and c != me.loyalty:
            yield Action("remove", ("army", c))
    for border in REGIONS[site].borders:
        for c, n in state.roads[border].items():
            if n and c != me.loyalty:
                yield Action("remove", ("road", border, c))
    for other, player in enumerate(state.players):
        if other == seat or player.loyalty == me.loyalty or not state.tribes[site][other]:
            continue
        citadel = CITADELS.get(site)
        if citadel and has_ability(state, other, citadel):
            continue
        yield Action("remove", ("tribe", player.name))


def has_removable(state: State, seat: int, site: RegionId | int) -> bool:
    return next(each_removable(state, seat, site), None) is not None


def start_targets(state: State, seat: int) -> list[tuple[Arg, ...]]:
    """The sites where the acting card may battle now (any card of the court)."""
    found: list[tuple[Arg, ...]] = []
    coalition = state.players[seat].loyalty
    assert coalition is not None
    # `strength` in a region, its effect looked up once rather than once a region.
    nationalism = has_effect(state, "nationalism", seat)
    for region in REGION_IDS:
        armies = state.armies[region][coalition]
        if nationalism:
            armies += state.tribes[region][seat]
        if armies and has_removable(state, seat, region):
            found.append((region,))
    if not any(spies[seat] for spies in state.spies.values()):
        return found  # no spy of theirs: no battle on a card
    for player in state.players:
        for target in player.court:
            spies = state.spies.get(target)
            if spies and spies[seat] and has_removable(state, seat, target):
                found.append((target,))
    return found


def start(state: State, seat: int, card: int, where: str | int) -> None:
    site = where if isinstance(where, int) else as_region(where)
    limit = min(card_actions.rank(card), strength(state, seat, site))
    place = (
        words.card_name_term(COURT_CARDS[site].name)
        if isinstance(site, int)
        else words.id_term(site)
    )
    state.note(
        P(
            "%(who)s battles in %(where)s with %(card)s",
            who=words.who(state, seat),
            where=place,
            card=words.card_name_term(COURT_CARDS[card].name),
        )
    )
    push(
        state,
        BattleFrame(kind="battle", player=seat, card=card, site=site, remaining=limit, taken=0),
    )


def remove(state: State, seat: int, site: RegionId | int, action: Action) -> None:
    kind = action.args[0]
    me = state.name(seat)
    if kind == "army":
        pieces.remove_armies(state, as_region(str(site)), as_coalition(str(action.args[1])))
        state.note(
            P(
                "%(who)s removed %(coalition)s army from %(site)s",
                who=words.name_term(me),
                coalition=words.article_id_term(action.args[1]),
                site=words.id_term(site),
            )
        )
    elif kind == "road":
        pieces.remove_roads(state, str(action.args[1]), as_coalition(str(action.args[2])))
        state.note(
            P(
                "%(who)s removed %(coalition)s road from %(border)s",
                who=words.name_term(me),
                coalition=words.article_id_term(action.args[2]),
                border=words.name_term(str(action.args[1])),
            )
        )
    elif kind == "tribe":
        victim = state.seat(str(action.args[1]))
        state.note(
            P(
                "%(who)s removed a tribe of %(victim)s from %(site)s",
                who=words.name_term(me),
                victim=words.who(state, victim),
                site=words.id_term(site),
            )
        )
        court.remove_tribes(state, victim, as_region(str(site)), 1)
    else:
        victim = state.seat(str(action.args[1]))
        pieces.remove_spies(state, victim, int(site))
        state.note(
            P(
                "%(who)s removed a spy of %(victim)s from %(card)s",
                who=words.name_term(me),
                victim=words.who(state, victim),
                card=words.card_name_term(COURT_CARDS[int(site)].name),
            )
        )
        safe_house(state, victim, int(site))


def safe_houses(state: State, seat: int, lost_from: int) -> list[int]:
    return [
        card
        for card in state.players[seat].court
        if card != lost_from
        and (ability := COURT_CARDS[card].ability) is not None
        and ability.id == "safe_house"
    ]


def safe_house(state: State, seat: int, lost_from: int) -> None:
    """Safe House: a spy removed in battle may go onto its owner's Safe House card.

    The owner decides (they need not be the active player); the spy is back in their
    supply meanwhile.
    """
    if safe_houses(state, seat, lost_from):
        push(state, SafeHouseFrame(kind="safe_house", player=seat, lost_from=lost_from))


class SafeHouseDecision(Decision[SafeHouseFrame]):
    """Save a spy removed in battle onto a Safe House card, or let it go."""

    kind = "safe_house"
    section = "Card Precedence and Special Abilities, p. 8"
    auto_single = False

    def options(self, state: State, frame: SafeHouseFrame, seat: int) -> list[Action]:
        cards = safe_houses(state, seat, int(frame["lost_from"]))
        return [*[Action("spy", (c,)) for c in cards], Action("decline")]

    def apply(self, state: State, frame: SafeHouseFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        if action.verb == "decline":
            state.note(P("%(who)s let the spy go", who=words.who(state, seat)))
            return
        card = int(action.args[0])
        pieces.add_spy(state, seat, card)
        state.note(
            P(
                "%(who)s's spy escaped to %(card)s (Safe House)",
                who=words.who(state, seat),
                card=words.card_name_term(COURT_CARDS[card].name),
            )
        )

    def phrase(self, state: State, frame: SafeHouseFrame) -> Phrase:
        return P(
            "%(who)s's spy was removed from %(card)s: %(who)s may save it onto a Safe House "
            "card (`spy CARD`) or let it go (`decline`)",
            who=words.who(state, frame["player"]),
            card=words.card_term(frame["lost_from"]),
        )


decision(SafeHouseDecision)


class BattleDecision(RepeatedDecision[BattleFrame]):
    """The next enemy piece to remove, or stop."""

    kind = "battle"
    section = "Battle, p. 14"

    def steps(self, state: State, frame: BattleFrame, seat: int) -> list[Action]:
        return removable(state, seat, frame["site"])

    def each_step(self, state: State, frame: BattleFrame, seat: int) -> Iterator[Action]:
        return each_removable(state, seat, frame["site"])

    def take_step(self, state: State, frame: BattleFrame, seat: int, action: Action) -> None:
        remove(state, seat, frame["site"], action)

    def phrase(self, state: State, frame: BattleFrame) -> Phrase:
        return P(
            "%(who)s battles %(site)s with %(card)s: up to %(pieces)s to remove "
            "(`remove ...`)%(stop)s",
            who=words.who(state, frame["player"]),
            site=words.site_phrase(frame["site"]),
            card=words.card_term(frame["card"]),
            pieces=words.counted(frame["remaining"], "piece", more=bool(frame["taken"])),
            stop=words.stop_term(frame["taken"]),
        )


decision(BattleDecision)
