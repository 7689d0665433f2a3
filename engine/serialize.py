"""The state's JSON form (docs/state.md): writing it, and reading it back with checks.

Writing is plain and deterministic: the same game gives byte-identical JSON. Reading
validates the document against a pydantic schema (unknown fields are refused) and then
against the conservation laws of `engine.invariants`, so a hand-written position can be
loaded and played on, and an inconsistent one is refused with a clear message.
"""

from __future__ import annotations

import json
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from engine.cards import (
    BORDERS,
    COALITIONS,
    REGION_IDS,
    SUITS,
    Coalition,
    as_coalition,
    as_region,
)
from engine.errors import StateError, describe_validation
from engine.frames import Effect, Frame
from engine.game import legal_seat_actions, pending
from engine.invariants import violations
from engine.rules.setup import WAKHAN, check_player_names
from engine.rules.wakhan_deck import pragmatic_loyalty
from engine.state import MARKET_COLUMNS, MARKET_ROWS, Player, State, WakhanState
from engine.state_checks import position_problems, type_problems

T = TypeVar("T")

FORMAT = "pamir-state/1"


def to_dict(state: State) -> dict[str, Any]:
    """The full state as a JSON-ready dict, secrets included (deck order, generator)."""
    return {
        "format": FORMAT,
        "seed": state.seed,
        "rng": f"{state.rng:016x}",
        "phase": state.phase,
        "turn": state.turn,
        "active": state.active,
        "actions_used": state.actions_used,
        "used_cards": state.used_cards,
        "paid_cards": state.paid_cards,
        "placed": state.placed,
        "favored": state.favored,
        "checks_resolved": state.checks_resolved,
        "winners": state.winners,
        "bank": state.bank,
        "out_of_game": state.out_of_game,
        "players": [_player_dict(p) for p in state.players],
        "deck": state.deck,
        "removed": state.removed,
        "discard": state.discard,
        "market": {"cards": state.market, "rupees": state.market_rupees},
        "block_supply": state.block_supply,
        "armies": state.armies,
        "roads": state.roads,
        "tribes": state.tribes,
        "spies": {str(card): spies for card, spies in state.spies.items()},
        "effects": state.effects,
        **({"wakhan": _wakhan_dict(state.wakhan)} if state.wakhan is not None else {}),
        "stack": state.stack,
        "log": state.log,
    }


def _wakhan_dict(w: WakhanState) -> dict[str, Any]:
    return {"seat": w.seat, "backs": w.backs, "deck": w.deck, "discard": w.discard}


def _player_dict(p: Player) -> dict[str, Any]:
    return {
        "name": p.name,
        "loyalty": p.loyalty,
        "rupees": p.rupees,
        "vp": p.vp,
        "cylinders": p.cylinders,
        "hand": p.hand,
        "court": p.court,
        "prizes": p.prizes,
        "gifts": p.gifts,
        "policy": {
            "pay": p.policy_pay,
            "demand": {str(k): v for k, v in p.policy_demand.items()},
        },
    }


def dumps(state: State) -> str:
    """The state as JSON text: two-space indented, one trailing newline."""
    return json.dumps(to_dict(state), indent=2, ensure_ascii=False) + "\n"


class _Strict(BaseModel):
    # Built when the first document is read, not at import: `import engine` (every pamir
    # command that plays) then does not pay for schemas it may never use.
    model_config = ConfigDict(extra="forbid", strict=True, defer_build=True)


class PolicyDoc(_Strict):
    pay: int | None = Field(default=None, ge=0)
    demand: dict[str, int] = {}


class PlayerDoc(_Strict):
    name: str
    loyalty: Literal["afghan", "british", "russian"] | None
    rupees: int = Field(ge=0)
    vp: int = Field(ge=0)
    cylinders: int = Field(ge=0, le=10)
    hand: list[int]
    court: list[int]
    prizes: list[int]
    gifts: list[bool] = Field(min_length=3, max_length=3)
    policy: PolicyDoc = PolicyDoc()


class MarketDoc(_Strict):
    cards: list[list[int | None]] = Field(min_length=MARKET_ROWS, max_length=MARKET_ROWS)
    rupees: list[list[int]] = Field(min_length=MARKET_ROWS, max_length=MARKET_ROWS)


class WakhanDoc(_Strict):
    seat: int = Field(ge=0)
    backs: Literal["standard", "alternative"]
    deck: list[int]
    discard: list[int]


class StateDoc(_Strict):
    format: Literal["pamir-state/1"]
    seed: int
    rng: str = Field(pattern=r"^[0-9a-f]{1,16}$")
    phase: Literal["setup", "play", "over"]
    turn: int = Field(ge=0)
    active: int = Field(ge=0)
    actions_used: int = Field(ge=0)
    used_cards: list[int]
    paid_cards: list[int]
    placed: dict[str, int]
    favored: Literal["economic", "intelligence", "military", "political"]
    checks_resolved: int = Field(ge=0, le=4)
    winners: list[int]
    bank: int
    out_of_game: int = Field(ge=0)
    players: list[PlayerDoc] = Field(min_length=2, max_length=5)
    deck: list[int]
    removed: list[int]
    discard: list[int]
    market: MarketDoc
    block_supply: dict[str, int]
    armies: dict[str, dict[str, int]]
    roads: dict[str, dict[str, int]]
    tribes: dict[str, list[int]]
    spies: dict[str, list[int]]
    effects: list[dict[str, Any]]
    wakhan: WakhanDoc | None = None
    stack: list[dict[str, Any]]
    log: list[str] = []


def from_dict(data: Any) -> State:
    """Read a state document; raise StateError naming every problem found."""
    try:
        doc = StateDoc.model_validate(data)
    except ValidationError as error:
        details = describe_validation(error)
        raise StateError(f"not a valid state: {details}") from None
    _check_shape(doc)
    _check_keys_and_frames(doc)
    state = State(
        players=[_player(p, len(doc.players)) for p in doc.players],
        rng=int(doc.rng, 16),
        seed=doc.seed,
        deck=doc.deck,
        market=doc.market.cards,
        market_rupees=doc.market.rupees,
        removed=doc.removed,
        discard=doc.discard,
        bank=doc.bank,
        out_of_game=doc.out_of_game,
        favored=doc.favored,
        block_supply=_by_coalition(doc.block_supply),
        armies={as_region(r): _by_coalition(counts) for r, counts in doc.armies.items()},
        roads={b: _by_coalition(counts) for b, counts in doc.roads.items()},
        tribes={as_region(r): counts for r, counts in doc.tribes.items()},
        spies={int(card): spies for card, spies in doc.spies.items()},
        # _check_keys_and_frames has checked every frame and effect against its TypedDict.
        effects=cast(list[Effect], doc.effects),
        active=doc.active,
        turn=doc.turn,
        actions_used=doc.actions_used,
        used_cards=doc.used_cards,
        paid_cards=doc.paid_cards,
        placed=doc.placed,
        checks_resolved=doc.checks_resolved,
        phase=doc.phase,
        winners=doc.winners,
        stack=cast(list[Frame], doc.stack),
        log=doc.log,
        wakhan=_wakhan(doc.wakhan),
    )
    problems = violations(state)
    if problems:
        raise StateError("inconsistent state: " + "; ".join(problems))
    problems = position_problems(state)
    if problems:
        raise StateError("not a valid state: " + "; ".join(problems))
    _check_pragmatic_loyalty(state)
    _check_resumable(state)
    return state


def _by_coalition(counts: dict[str, T]) -> dict[Coalition, T]:
    """A table keyed by coalition, in its order; _check_shape has checked the keys."""
    return {as_coalition(c): n for c, n in counts.items()}


def _wakhan(doc: WakhanDoc | None) -> WakhanState | None:
    if doc is None:
        return None
    return WakhanState(seat=doc.seat, deck=doc.deck, discard=doc.discard, backs=doc.backs)


def _check_pragmatic_loyalty(state: State) -> None:
    """Wakhan's loyalty must be her pragmatic loyalty once she has drawn an AI card."""
    if state.wakhan is None or not state.wakhan.discard:
        return
    seat = state.wakhan.seat
    expected = pragmatic_loyalty(state)
    if state.players[seat].loyalty != expected:
        raise StateError(
            f"not a valid state: {state.name(seat)}'s loyalty must be her pragmatic loyalty, "
            f"{expected}"
        )


def _check_keys_and_frames(doc: StateDoc) -> None:
    """Numeric keys, distinct names, and pending steps the engine knows."""
    problems: list[str] = []
    for key in doc.spies:
        if not _is_number(key):
            problems.append(f"spies: key {key!r} is not a card number")
    for p in doc.players:
        for key in p.policy.demand:
            if not _is_number(key) or int(key) >= len(doc.players):
                problems.append(f"{p.name}: policy.demand key {key!r} is not a seat number")
    problems += type_problems(doc.stack, doc.effects)
    wakhan = doc.wakhan.seat if doc.wakhan is not None else None
    humans = [p.name for seat, p in enumerate(doc.players) if seat != wakhan]
    try:
        check_player_names(humans, wakhan=wakhan is not None)
    except ValueError as error:
        problems.append(str(error))
    if wakhan is not None and wakhan < len(doc.players) and doc.players[wakhan].name != WAKHAN:
        problems.append(f"wakhan.seat: player {wakhan} must be called {WAKHAN!r}")
    if doc.phase == "play" and not doc.stack:
        problems.append("a game in play needs a pending decision on the stack")
    if problems:
        raise StateError("not a valid state: " + "; ".join(problems))


def _is_number(key: str) -> bool:
    """A number written as the engine writes it: ASCII digits, no leading zero (so that the
    state is written back byte for byte)."""
    return key.isascii() and key.isdigit() and str(int(key)) == key


def _check_resumable(state: State) -> None:
    """The pending decision must be one the engine can list options for."""
    try:
        pending(state)
        legal_seat_actions(state)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as error:
        raise StateError(
            f"not a valid state: the pending decision is malformed ({error!r})"
        ) from None


def _player(doc: PlayerDoc, num_players: int) -> Player:
    return Player(
        name=doc.name,
        loyalty=doc.loyalty,
        rupees=doc.rupees,
        vp=doc.vp,
        cylinders=doc.cylinders,
        hand=doc.hand,
        court=doc.court,
        prizes=doc.prizes,
        gifts=doc.gifts,
        policy_pay=doc.policy.pay,
        policy_demand={int(k): v for k, v in doc.policy.demand.items()},
    )


def _check_shape(doc: StateDoc) -> None:
    """Keys and lengths the schema alone cannot express."""
    n = len(doc.players)
    problems: list[str] = []
    if set(doc.block_supply) != set(COALITIONS):
        problems.append("block_supply must name afghan, british and russian")
    if set(doc.armies) != set(REGION_IDS) or any(
        set(v) != set(COALITIONS) for v in doc.armies.values()
    ):
        problems.append("armies must give every coalition's count in every region")
    if set(doc.roads) != set(BORDERS) or any(set(v) != set(COALITIONS) for v in doc.roads.values()):
        problems.append("roads must give every coalition's count on every border")
    if set(doc.tribes) != set(REGION_IDS) or any(len(v) != n for v in doc.tribes.values()):
        problems.append("tribes must give every player's count in every region")
    if any(len(v) != n for v in doc.spies.values()):
        problems.append("spies must give every player's count")
    if any(len(row) != MARKET_COLUMNS for row in doc.market.cards + doc.market.rupees):
        problems.append("each market row has 6 slots")
    if doc.active >= n:
        problems.append("active must be a seat number")
    if doc.wakhan is not None and doc.wakhan.seat >= n:
        problems.append("wakhan.seat must be a seat number")
    if doc.phase != "setup" and any(p.loyalty is None for p in doc.players):
        problems.append("every player needs a loyalty once play has begun")
    if doc.favored not in SUITS:
        problems.append("favored must be a suit")
    if problems:
        raise StateError("not a valid state: " + "; ".join(problems))


def loads(text: str) -> State:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise StateError(f"not JSON: {error}") from None
    return from_dict(data)
