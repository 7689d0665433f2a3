"""Views: what one player (or the public) may see. A view never changes the state.

The deck order, the cards set aside at setup and the generator state are never shown;
other players' hands are shown as counts. Players are named, not numbered. What anyone at
the table works out from the board is given outright: each region's ruler, and who holds
each court card hostage. With Wakhan, the AI deck's order is hidden too: only the counts,
the face-up AI card and the back of the AI deck's top card (printed face up) are shown.
"""

from __future__ import annotations

from typing import Final, cast, overload

from engine.actions import format_action
from engine.cards import (
    COALITIONS,
    COURT_CARDS,
    REGION_IDS,
    WAKHAN_CARDS,
    RegionId,
    Suit,
    as_json,
)
from engine.game import options_for, pending
from engine.rules import pieces
from engine.rules.card_actions import hostage_holder
from engine.rules.cleanup import court_limit, hand_limit
from engine.rules.loyalty import influence
from engine.rules.market import PUBLIC_WITHDRAWAL, count_dominance_checks_left
from engine.rules.purchase import purchase_cost
from engine.rules.ruling import ruler
from engine.rules.stars import count_stars
from engine.rules.wakhan_deck import face_up, next_back, pragmatic_loyalty
from engine.state import State
from engine.view_types import (
    AiBackRecord,
    AiCardRecord,
    CourtCardRecord,
    MarketSlot,
    PlayerRecord,
    PlayerView,
    PolicyRecord,
    PublicView,
    RegionRecord,
    Table,
    Tail,
    View,
    WakhanRecord,
)

STAR_SUITS: Final[tuple[Suit, ...]] = ("economic", "military", "political", "intelligence")


@overload
def view(state: State, player: None = None) -> PublicView: ...
@overload
def view(state: State, player: str) -> PlayerView: ...
@overload
def view(state: State, player: str | None) -> View: ...
def view(state: State, player: str | None = None) -> View:
    """The position as `player` sees it (None: the public view)."""
    me = state.seat(player) if player is not None else None
    table = _table(state, me)
    tail = _tail(state)
    if me is None:
        return {"format": "pamir-view/1", "viewer": None, **table, **tail}
    return {"format": "pamir-view/1", "viewer": state.name(me), **table, **tail}


def _table(state: State, me: int | None) -> Table:
    name = state.name
    decision = pending(state)
    return {
        "phase": state.phase,
        "turn": state.turn,
        "active": name(state.active),
        "actions_used": state.actions_used,
        "favored": state.favored,
        "checks_resolved": state.checks_resolved,
        "checks_left": count_dominance_checks_left(state),
        "deck_size": len(state.deck),
        "winners": [name(s) for s in state.winners],
        "players": [_player_view(state, seat, seat == me) for seat in range(state.num_players)],
        "market": _market_view(state, me),
        "regions": {r: _region_view(state, r) for r in REGION_IDS},
        "roads": {b: {c: n for c, n in counts.items() if n} for b, counts in state.roads.items()},
        "block_supply": state.block_supply,
        "discard": state.discard,
        "effects": [
            {
                "id": e["id"],
                "card": e["card"],
                "player": name(e["player"]) if e["player"] is not None else None,
                "until": "the next Dominance Check has resolved",
            }
            for e in state.effects
        ],
        "bank": state.bank,
        "pending": None
        if decision is None
        else {
            "kind": decision.kind,
            "players": [name(s) for s in decision.seats],
            "prompt": decision.prompt,
            "section": decision.section,
        },
        "options": [format_action(a) for a in options_for(state, me)] if me is not None else [],
    }


def _tail(state: State) -> Tail:
    # Wakhan's record, when she plays, comes before the log: that is the JSON's order.
    if state.wakhan is None:
        return {"log": state.log}
    return {"wakhan": _wakhan_view(state), "log": state.log}


def _wakhan_view(state: State) -> WakhanRecord:
    """Wakhan's AI cards as the table shows them: counts, the face-up card, the next back.

    The AI deck's order stays secret; the back of its top card is printed face up, and the
    arrows of the face-up card read it.
    """
    w = state.wakhan
    assert w is not None
    number = face_up(state)
    back = next_back(state)
    return {
        "player": state.name(w.seat),
        "backs": w.backs,
        "ai_deck_size": len(w.deck),
        "ai_discard_size": len(w.discard),
        "ai_card": None
        if number is None
        else cast(AiCardRecord, {"number": number, **as_json(WAKHAN_CARDS[number].front)}),
        "next_back": cast(AiBackRecord, as_json(back)) if back is not None else None,
        "pragmatic_loyalty": pragmatic_loyalty(state),
        "influence": {c: influence(state, w.seat, c) for c in COALITIONS},
    }


def _player_view(state: State, seat: int, mine: bool) -> PlayerRecord:
    p = state.players[seat]
    return {
        "name": p.name,
        "loyalty": p.loyalty,
        "influence": influence(state, seat) if p.loyalty else 0,
        "rupees": p.rupees,
        "vp": p.vp,
        "cylinders": p.cylinders,
        "hand": p.hand if mine else None,
        "hand_size": len(p.hand),
        "court": [_court_card_view(state, c) for c in p.court],
        "prizes": p.prizes,
        "gifts": p.gifts,
        "stars": {suit: count_stars(state, seat, suit) for suit in STAR_SUITS},
        "court_limit": court_limit(state, seat),
        "hand_limit": hand_limit(state, seat),
        "cylinders_in_play": pieces.count_cylinders_in_play(state, seat),
        "policy": _policy_view(state, seat) if mine else None,
    }


def _policy_view(state: State, seat: int) -> PolicyRecord:
    p = state.players[seat]
    return {
        "pay": p.policy_pay,
        "demand": {state.name(payer): most for payer, most in p.policy_demand.items()},
    }


def _court_card_view(state: State, card: int) -> CourtCardRecord:
    """A court card with its spies and who holds it hostage, as the table shows them."""
    holder = hostage_holder(state, card)
    return {
        "card": card,
        "name": COURT_CARDS[card].name,
        "spies": _spies(state, card),
        "hostage": state.name(holder) if holder is not None else None,
    }


def _spies(state: State, card: int) -> dict[str, int]:
    spies = state.spies.get(card, [])
    return {state.name(s): n for s, n in enumerate(spies) if n}


def _market_view(state: State, me: int | None) -> list[list[MarketSlot]]:
    rows: list[list[MarketSlot]] = []
    for row, cards in enumerate(state.market):
        slots: list[MarketSlot] = []
        for col, card in enumerate(cards):
            rupees = state.market_rupees[row][col]
            if card is None:
                slots.append({"card": None, "rupees": rupees} if rupees else None)
                continue
            buyer = me if me is not None else state.active
            cost = None if card == PUBLIC_WITHDRAWAL else purchase_cost(state, buyer, col, card)
            slots.append({"card": card, "cost": cost, "rupees": rupees})
        rows.append(slots)
    return rows


def _region_view(state: State, region: RegionId) -> RegionRecord:
    owner = ruler(state, region)
    return {
        "ruler": state.name(owner) if owner is not None else None,
        "tribes": {state.name(s): n for s, n in enumerate(state.tribes[region]) if n},
        "armies": {c: n for c, n in state.armies[region].items() if n},
    }
