"""The shape of a state document (`engine.serialize`), as pydantic models: unknown fields
are refused and every type is strict.

Its own module, imported only when a document is read (`from_dict`): building these models
and importing pydantic is a large part of loading the engine, which the command line and
the service do far more often than they read a state document.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from engine.state import MARKET_ROWS


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


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
