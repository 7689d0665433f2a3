"""Placing pieces, with the Component Limits rule [Component Limits, p. 8].

When a piece must be placed and none of the required kind is left in the supply, the
player takes one from anywhere in play, never one placed this turn, and may convert it
(an army may become a road, a tribe a spy). When several such pieces could be taken the
player chooses (the `take` decision); when none can, the placement does not happen.
Cylinders in play are tribes, spies and gifts (a gift is not on the player board).
"""

from __future__ import annotations

from engine.actions import Action
from engine.cards import COURT_CARDS, Coalition, as_region
from engine.frames import TakeFrame
from engine.phrases import P, Phrase
from engine.rules import court, pieces, words
from engine.rules.flow import Decision, decision, push
from engine.rules.words import article
from engine.state import GIFT_COSTS, State


def block_sources(state: State, coalition: Coalition, target: tuple[str, str]) -> list[Action]:
    """Blocks of `coalition` in play that may be taken, as `take` actions."""
    found: list[Action] = []
    for region, counts in state.armies.items():
        count = counts[coalition]
        key = pieces.placed_key("army", region, coalition)
        if count and ("army", region) != target and pieces.movable(state, key, count) > 0:
            found.append(Action("take", ("army", region)))
    for border, counts in state.roads.items():
        count = counts[coalition]
        key = pieces.placed_key("road", border, coalition)
        if count and ("road", border) != target and pieces.movable(state, key, count) > 0:
            found.append(Action("take", ("road", border)))
    return found


def cylinder_sources(state: State, seat: int, target: tuple[str, str | int]) -> list[Action]:
    """A player's cylinders in play that may be taken, as `take` actions."""
    found: list[Action] = []
    for region, tribes in state.tribes.items():
        key = pieces.placed_key("tribe", region, seat)
        available = tribes[seat] and pieces.movable(state, key, tribes[seat]) > 0
        if available and ("tribe", region) != target:
            found.append(Action("take", ("tribe", region)))
    for card, spies in state.spies.items():
        key = pieces.placed_key("spy", card, seat)
        available = spies[seat] and pieces.movable(state, key, spies[seat]) > 0
        if available and ("spy", card) != target:
            found.append(Action("take", ("spy", card)))
    for slot, cost in enumerate(GIFT_COSTS):
        key = pieces.placed_key("gift", cost, seat)
        if state.players[seat].gifts[slot] and not state.placed.get(key):
            found.append(Action("take", ("gift", cost)))
    return found


def place_block(
    state: State, seat: int, kind: str, location: str, coalition: Coalition | None = None
) -> None:
    """Place an army (in a region) or a road (on a border) of the player's loyalty.

    A block of another `coalition` is placed when a card says which (Insurrection); the
    player still chooses the piece to take if the supply has none.
    """
    coalition = coalition or state.players[seat].loyalty
    assert coalition is not None
    if state.block_supply[coalition] > 0:
        _put_block(state, seat, kind, location, coalition)
    elif block_sources(state, coalition, (kind, location)):
        push(
            state,
            TakeFrame(kind="take", player=seat, piece=kind, location=location, coalition=coalition),
        )
    else:
        state.note(
            P(
                "%(who)s had no %(coalition)s block to place (component limits)",
                who=words.who(state, seat),
                coalition=words.id_term(coalition),
            )
        )


def place_cylinder(state: State, seat: int, kind: str, location: str | int) -> None:
    """Place a tribe (in a region) or a spy (on a court card) of the player's colour."""
    if state.players[seat].cylinders > 0:
        _put_cylinder(state, seat, kind, location)
    elif cylinder_sources(state, seat, (kind, location)):
        push(
            state,
            TakeFrame(kind="take", player=seat, piece=kind, location=location, coalition=None),
        )
    else:
        state.note(
            P("%(who)s had no cylinder to place (component limits)", who=words.who(state, seat))
        )


def _put_block(state: State, seat: int, kind: str, location: str, coalition: Coalition) -> None:
    if kind == "army":
        pieces.add_army(state, as_region(location), coalition)
        state.note(
            P(
                "%(who)s placed %(coalition)s army in %(location)s",
                who=words.who(state, seat),
                coalition=words.article_id_term(coalition),
                location=words.id_term(location),
            )
        )
    else:
        pieces.add_road(state, location, coalition)
        state.note(
            P(
                "%(who)s placed %(coalition)s road on %(location)s",
                who=words.who(state, seat),
                coalition=words.article_id_term(coalition),
                location=words.name_term(location),
            )
        )


def _put_cylinder(state: State, seat: int, kind: str, location: str | int) -> None:
    if kind == "tribe":
        pieces.add_tribe(state, seat, as_region(str(location)))
        state.note(
            P(
                "%(who)s placed a tribe in %(location)s",
                who=words.who(state, seat),
                location=words.id_term(location),
            )
        )
    elif kind == "gift":
        state.players[seat].cylinders -= 1
        state.players[seat].gifts[GIFT_COSTS.index(int(location))] = True
        state.placed[pieces.placed_key("gift", location, seat)] = 1
        state.note(
            P(
                "%(who)s placed a gift worth %(n)s on their loyalty dial",
                who=words.who(state, seat),
                n=location,
            )
        )
    elif any(int(location) in p.court for p in state.players):
        pieces.add_spy(state, seat, int(location))
        state.note(
            P(
                "%(who)s placed a spy on %(card)s",
                who=words.who(state, seat),
                card=words.card_name_term(COURT_CARDS[int(location)].name),
            )
        )
    else:  # the card left play while the piece was being taken (Overthrow Rule)
        state.note(
            P(
                "%(who)s could not place a spy: %(card)s left play",
                who=words.who(state, seat),
                card=words.name_term(str(location)),
            )
        )


def take_piece(state: State, seat: int, source: Action, coalition: Coalition | None) -> None:
    """Remove the piece named by a `take` action from the board into the supply."""
    kind, where = source.args
    if kind == "army":
        assert coalition is not None
        pieces.remove_armies(state, as_region(str(where)), coalition)
    elif kind == "road":
        assert coalition is not None
        pieces.remove_roads(state, str(where), coalition)
    elif kind == "tribe":
        court.remove_tribes(state, seat, as_region(str(where)), 1)
    elif kind == "gift":
        state.players[seat].gifts[GIFT_COSTS.index(int(where))] = False
        state.players[seat].cylinders += 1
    else:
        pieces.remove_spies(state, seat, int(where))
    state.note(
        P(
            "%(who)s took %(piece)s from %(where)s (component limit)",
            who=words.who(state, seat),
            piece=words.ARTICLE_PIECE_TERMS.get(str(kind)) or article(str(kind)),
            where=words.place_id_term(where),
        )
    )


class TakeDecision(Decision[TakeFrame]):
    """Which piece in play to take when the supply is empty [Component Limits, p. 8]."""

    kind = "take"
    section = "Component Limits, p. 8"

    def options(self, state: State, frame: TakeFrame, seat: int) -> list[Action]:
        piece, location = frame["piece"], frame["location"]
        if frame["coalition"] is not None:
            return block_sources(state, frame["coalition"], (piece, str(location)))
        return cylinder_sources(state, seat, (piece, location))

    def apply(self, state: State, frame: TakeFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        coalition, location = frame["coalition"], frame["location"]
        take_piece(state, seat, action, coalition)
        if coalition is not None:
            _put_block(state, seat, frame["piece"], str(location), coalition)
        else:
            _put_cylinder(state, seat, frame["piece"], frame["location"])

    def phrase(self, state: State, frame: TakeFrame) -> Phrase:
        piece, coalition = frame["piece"], frame["coalition"]
        missing: Phrase = P("cylinder")
        if coalition is not None:
            missing = P(
                "%(coalition)s %(piece)s",
                coalition=words.coalition_term(coalition),
                piece=words.PIECE_TERMS[piece],
            )
        return P(
            "%(who)s has no %(missing)s left in supply to place %(piece)s %(where)s: "
            "%(who)s takes one from the board instead (`take PIECE LOCATION`)",
            who=words.who(state, frame["player"]),
            missing=missing,
            piece=words.ARTICLE_PIECE_TERMS[piece],
            where=words.place_phrase(piece, frame["location"]),
        )


decision(TakeDecision)
