"""Dominance Checks, game end and victory [Dominance Checks, p. 15; Game End, p. 9].

A check succeeds when one coalition has the most blocks in play and at least four more
than each other coalition (two under Conflict Fatigue). Then players loyal to it score
5/3/1 by influence, and every block leaves the map. Otherwise every player scores 3/1 by
cylinders in play. Tied players share the summed points of their places, rounded down;
the final check doubles points before they are split. After any check a player four or
more points ahead wins at once; after the final check the game always ends.
"""

from __future__ import annotations

from typing import Final

from engine.cards import COALITIONS, EVENT_CARDS, Coalition
from engine.phrases import PN, P, Value
from engine.rules import limits, loyalty, pieces, words
from engine.rules.abilities import has_ability
from engine.rules.stars import count_stars
from engine.state import State

SUCCESS_POINTS: Final = (5, 3, 1)
FAILURE_POINTS: Final = (3, 1)
DOMINANCE_MARGIN: Final = 4
CONFLICT_FATIGUE_MARGIN: Final = 2
EARLY_WIN_LEAD: Final = 4


def share_points(scores: dict[int, int], points: tuple[int, ...], factor: int) -> dict[int, int]:
    """Award points by place; tied players split the sum of their places, rounded down."""
    ranked = sorted(scores, key=lambda seat: -scores[seat])
    awards: dict[int, int] = {}
    place = 0
    while place < len(ranked):
        tied = [s for s in ranked if scores[s] == scores[ranked[place]]]
        pool = sum(p * factor for p in points[place : place + len(tied)])
        for seat in tied:
            awards[seat] = pool // len(tied)
        place += len(tied)
    return awards


def dominant_coalition(state: State) -> Coalition | None:
    """The coalition that would win a check now, or None."""
    margin = DOMINANCE_MARGIN
    if loyalty.has_effect(state, "conflict_fatigue"):
        margin = CONFLICT_FATIGUE_MARGIN
    counts = {c: pieces.count_blocks(state, c) for c in COALITIONS}
    for coalition, count in counts.items():
        if all(count - other >= margin for c, other in counts.items() if c != coalition):
            return coalition
    return None


def resolve_check(state: State, *, final: bool) -> None:
    """Score a Dominance Check, end lasting effects, and end the game if it is over."""
    factor = 2 if final else 1
    coalition = dominant_coalition(state)
    if coalition is not None:
        # Wakhan is loyal to every coalition [Playing with Wakhan, p. 18].
        loyal = {
            s: loyalty.influence(state, s, coalition)
            for s, p in enumerate(state.players)
            if p.loyalty == coalition or state.is_wakhan(s)
        }
        awards = share_points(loyal, SUCCESS_POINTS, factor)
        dominant = words.id_term(coalition)
        state.note(
            P("Dominance Check: the %(coalition)s coalition is dominant", coalition=dominant)
        )
        remove_all_blocks(state)
    else:
        cylinders = {s: pieces.count_cylinders_in_play(state, s) for s in range(state.num_players)}
        awards = share_points(cylinders, FAILURE_POINTS, factor)
        state.note(P("Dominance Check: no coalition is dominant; cylinders in play score"))
    for seat, points in awards.items():
        if points:
            state.players[seat].vp += points
            state.note(
                PN(
                    "%(who)s scored %(n)s victory point",
                    "%(who)s scored %(n)s victory points",
                    points,
                    who=words.who(state, seat),
                )
            )
    state.checks_resolved += 1
    expire_effects(state)
    insurrection(state)
    if final or leader_by(state, EARLY_WIN_LEAD) is not None:
        end_game(state)


INSURRECTION_ARMIES: Final = 2


def insurrection(state: State) -> None:
    """Prince Akbar Khan (Insurrection): two Afghan armies in Kabul after each check.

    Armies the supply lacks are taken from the board [Component Limits, p. 8], by the
    card's owner: the ability is theirs ("active as long as the card remains in your
    court", Card Precedence and Special Abilities, p. 8), so they are the one asked to
    place the armies.
    """
    for seat in range(state.num_players):
        if has_ability(state, seat, "insurrection"):
            from_supply = min(INSURRECTION_ARMIES, state.block_supply["afghan"])
            for _ in range(from_supply):
                pieces.add_army(state, "kabul", "afghan")
            if from_supply:
                state.note(
                    PN(
                        "Insurrection: %(n)s Afghan army(ies) placed in kabul",
                        "Insurrection: %(n)s Afghan army(ies) placed in kabul",
                        from_supply,
                    )
                )
            for _ in range(INSURRECTION_ARMIES - from_supply):
                limits.place_block(state, seat, "army", "kabul", "afghan")


def remove_all_blocks(state: State) -> None:
    for region, counts in state.armies.items():
        for coalition, count in counts.items():
            if count:
                pieces.remove_armies(state, region, coalition, count)
    for border, counts in state.roads.items():
        for coalition, count in counts.items():
            if count:
                pieces.remove_roads(state, border, coalition, count)


def expire_effects(state: State) -> None:
    """Lasting event effects end when a Dominance Check has resolved."""
    for effect in state.effects:
        if effect["until"] == "check":
            state.discard.append(effect["card"])
            ended = words.card_name_term(EVENT_CARDS[effect["card"]].name)
            state.note(P("%(card)s: its effect has ended", card=ended))
    state.effects = [e for e in state.effects if e["until"] != "check"]


def leader_by(state: State, lead: int) -> int | None:
    """The player at least `lead` victory points ahead of everyone else, if any."""
    ranked = sorted(range(state.num_players), key=lambda s: -state.players[s].vp)
    first, second = ranked[0], ranked[1]
    if state.players[first].vp - state.players[second].vp >= lead:
        return first
    return None


def end_game(state: State) -> None:
    """The game is over: most VP wins; ties go to military stars, then rupees [p. 9]."""

    def key(seat: int) -> tuple[int, int, int]:
        p = state.players[seat]
        return (p.vp, count_stars(state, seat, "military"), p.rupees)

    best = max(key(s) for s in range(state.num_players))
    state.winners = [s for s in range(state.num_players) if key(s) == best]
    state.phase = "over"
    state.stack.clear()
    names: Value = words.name_term(state.name(state.winners[0]))
    for seat in state.winners[1:]:  # 'alice and bob and carol', as the log always said
        names = P("%(names)s and %(last)s", names=names, last=words.who(state, seat))
    state.note(P("the game is over: %(names)s won", names=names))
