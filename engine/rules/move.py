"""The move action [Move, p. 14].

One move per rank of the acting card: a loyal army crosses a border into an adjacent
region where a road of its coalition lies, or a spy steps to the next card of the single
track formed by all courts (seat order, each court left to right, wrapping round). The
same piece may move several times. Under Nationalism the purchaser's tribes move like
armies (a tribe leaving its region can trigger the Overthrow Rule). Indian Supplies lets
armies move without a road; Well-Connected doubles how far each spy step goes; Strange
Bedfellows makes court cards of the same region adjacent for spies.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from engine.actions import Action, Arg, new_action
from engine.cards import BORDERS, COURT_CARDS, REGIONS, RegionId, as_region
from engine.frames import MoveFrame
from engine.phrases import P, Phrase
from engine.rules import card_actions, court, pieces, words
from engine.rules.abilities import has_ability
from engine.rules.flow import RepeatedDecision, decision, push
from engine.rules.loyalty import has_effect
from engine.state import State

# The region on the other side of a border, by (border, region): asked for every army
# that could move, each time the moves are listed.
ACROSS: Final[dict[tuple[str, RegionId], RegionId]] = {
    (border, region): other
    for border, info in BORDERS.items()
    for region in info.regions
    for other in info.regions
    if other != region
}


def spy_track(state: State) -> list[int]:
    """Every court card in one continuous track: seat order, each court left to right."""
    return [card for player in state.players for card in player.court]


def spy_destinations(state: State, seat: int, card: int) -> list[int]:
    track = spy_track(state)
    if len(track) < 2:
        return []
    steps = 2 if has_ability(state, seat, "well_connected") else 1
    at = track.index(card)
    found: set[int] = set()
    for direction in (-1, 1):
        for distance in range(1, steps + 1):
            found.add(track[(at + direction * distance) % len(track)])
    if has_ability(state, seat, "strange_bedfellows"):
        region = COURT_CARDS[card].region
        found |= {c for c in track if COURT_CARDS[c].region == region}
    found.discard(card)
    return [c for c in track if c in found]


def each_army_move(state: State, seat: int) -> Iterator[Action]:
    coalition = state.players[seat].loyalty
    assert coalition is not None
    # Wakhan moves armies without roads [Playing with Wakhan: Move, p. 18].
    roadless = has_ability(state, seat, "indian_supplies") or state.is_wakhan(seat)
    for region, counts in state.armies.items():
        if not counts[coalition]:
            continue
        for border in REGIONS[region].borders:
            if roadless or state.roads[border][coalition]:
                other = ACROSS[border, region]
                yield new_action("march", ("army", region, other))


def each_tribe_move(state: State, seat: int) -> Iterator[Action]:
    """Nationalism: the purchaser's tribes move as though they were armies."""
    if not has_effect(state, "nationalism", seat):
        return
    coalition = state.players[seat].loyalty
    roadless = has_ability(state, seat, "indian_supplies")
    for region, tribes in state.tribes.items():
        if not tribes[seat]:
            continue
        for border in REGIONS[region].borders:
            if roadless or (coalition and state.roads[border][coalition]):
                other = ACROSS[border, region]
                yield new_action("march", ("tribe", region, other))


def moves(state: State, seat: int) -> list[Action]:
    return list(each_move(state, seat))


def each_move(state: State, seat: int) -> Iterator[Action]:
    """The moves in order, found one at a time: a test for any stops at the first."""
    yield from each_army_move(state, seat)
    if state.is_wakhan(seat):
        return  # she only moves armies [p. 18]
    yield from each_tribe_move(state, seat)
    for card, spies in state.spies.items():
        if spies[seat]:
            for d in spy_destinations(state, seat, card):
                yield new_action("march", ("spy", card, d))


def has_moves(state: State, seat: int) -> bool:
    return next(each_move(state, seat), None) is not None


def start_targets(state: State, seat: int) -> list[tuple[Arg, ...]]:
    """What may follow the acting card in a move action now (any card of the court)."""
    return [()] if has_moves(state, seat) else []


def start(state: State, seat: int, card: int) -> None:
    state.note(
        P(
            "%(who)s moves with %(card)s",
            who=words.who(state, seat),
            card=words.card_name_term(COURT_CARDS[card].name),
        )
    )
    push(
        state,
        MoveFrame(kind="move", player=seat, card=card, remaining=card_actions.rank(card), taken=0),
    )


class MoveDecision(RepeatedDecision[MoveFrame]):
    """The next army or spy to move, or stop."""

    kind = "move"
    section = "Move, p. 14"

    def steps(self, state: State, frame: MoveFrame, seat: int) -> list[Action]:
        return moves(state, seat)

    def each_step(self, state: State, frame: MoveFrame, seat: int) -> Iterator[Action]:
        return each_move(state, seat)

    def take_step(self, state: State, frame: MoveFrame, seat: int, action: Action) -> None:
        piece, origin, destination = action.args
        if piece == "tribe":
            court.move_tribe(state, seat, as_region(str(origin)), as_region(str(destination)))
            state.note(
                P(
                    "%(who)s moved a tribe from %(origin)s to %(destination)s",
                    who=words.who(state, seat),
                    origin=words.id_term(origin),
                    destination=words.id_term(destination),
                )
            )
        elif piece == "army":
            coalition = state.players[seat].loyalty
            assert coalition is not None
            pieces.move_army(state, as_region(str(origin)), as_region(str(destination)), coalition)
            state.note(
                P(
                    "%(who)s moved %(coalition)s army from %(origin)s to %(destination)s",
                    who=words.who(state, seat),
                    coalition=words.article_id_term(coalition),
                    origin=words.id_term(origin),
                    destination=words.id_term(destination),
                )
            )
        else:
            pieces.move_spy(state, seat, int(origin), int(destination))
            state.note(
                P(
                    "%(who)s moved a spy from %(origin)s to %(destination)s",
                    who=words.who(state, seat),
                    origin=words.card_name_term(COURT_CARDS[int(origin)].name),
                    destination=words.card_name_term(COURT_CARDS[int(destination)].name),
                )
            )

    def phrase(self, state: State, frame: MoveFrame) -> Phrase:
        seat = frame["player"]
        tribes = ", `march tribe FROM TO`" if has_effect(state, "nationalism", seat) else ""
        return P(
            "%(who)s moves with %(card)s: up to %(moves)s (`march army FROM TO`, "
            "`march spy FROM TO`%(tribes)s)%(stop)s",
            who=words.who(state, seat),
            card=words.card_term(frame["card"]),
            moves=words.counted(frame["remaining"], "move", more=bool(frame["taken"])),
            tribes=words.name_term(tribes),
            stop=words.stop_term(frame["taken"]),
        )


decision(MoveDecision)
