"""The checks on ``engine/data``: pydantic models of every card, event, map and Wakhan
record, with the rules each must follow, and the checks across records (numbering, the map's
adjacency, Wakhan's action texts).

The engine loads the data without these checks (``engine.cards``), so that a command starts
fast; the tests run `check_data` on the files shipped, and compare what it reads with what
``engine.cards`` loaded, so a mistake in the data or a drift between the two fails there.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from engine.cards import (
    COALITIONS,
    MARKET_COLUMNS,
    REGION_IDS,
    AbilityId,
    ActionKind,
    Coalition,
    EffectId,
    EventDuration,
    ImpactKind,
    MarketRow,
    RegionId,
    Suit,
    WakhanActionId,
    read_data,
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


# ---------------------------------------------------------------------------------------------
# Court cards
# ---------------------------------------------------------------------------------------------


class Impact(_Frozen):
    """Checks ``engine.cards.Impact``."""

    kind: ImpactKind
    suit: Suit | None = None
    coalition: Coalition | None = None

    @model_validator(mode="after")
    def _check(self) -> Impact:
        if (self.kind == "favor") != (self.suit is not None):
            raise ValueError("a suit is given exactly for favor icons")
        if self.coalition is not None and self.kind not in ("army", "road"):
            raise ValueError("only army and road icons carry a coalition colour")
        return self


class Ability(_Frozen):
    """Checks ``engine.cards.Ability``."""

    id: AbilityId
    name: str
    text: str


class CourtCard(_Frozen):
    """Checks ``engine.cards.CourtCard``."""

    number: Annotated[int, Field(ge=1, le=100)]
    name: str
    region: RegionId
    suit: Suit
    rank: Annotated[int, Field(ge=1, le=3)]
    actions: tuple[ActionKind, ...]
    impacts: tuple[Impact, ...]
    patriot: Coalition | None
    prize: Coalition | None
    ability: Ability | None

    @model_validator(mode="after")
    def _check(self) -> CourtCard:
        if len(set(self.actions)) != len(self.actions):
            raise ValueError(f"card {self.number}: repeated action icon")
        for impact in self.impacts:
            if impact.coalition is not None and impact.coalition != self.patriot:
                raise ValueError(f"card {self.number}: coloured icon on a non-matching card")
        return self


# ---------------------------------------------------------------------------------------------
# Event cards
# ---------------------------------------------------------------------------------------------


class EventEffect(_Frozen):
    """Checks ``engine.cards.EventEffect``."""

    id: EffectId
    title: str | None
    text: str
    affects: str
    duration: EventDuration


class EventCard(_Frozen):
    """Checks ``engine.cards.EventCard``."""

    number: Annotated[int, Field(ge=101, le=116)]
    name: str
    is_dominance_check: bool
    if_discarded: EventEffect
    if_purchased: EventEffect

    @model_validator(mode="after")
    def _check(self) -> EventCard:
        halves = {self.if_discarded.id, self.if_purchased.id}
        if self.is_dominance_check != (halves == {"dominance_check"}):
            raise ValueError(f"event {self.number}: inconsistent dominance check")
        return self


# ---------------------------------------------------------------------------------------------
# Map
# ---------------------------------------------------------------------------------------------


class Region(_Frozen):
    """Checks ``engine.cards.Region``."""

    id: RegionId
    name: str
    adjacent: tuple[RegionId, ...]
    borders: tuple[str, ...]


class Border(_Frozen):
    """Checks ``engine.cards.Border``."""

    id: str
    regions: tuple[RegionId, RegionId]

    @model_validator(mode="after")
    def _check(self) -> Border:
        a, b = self.regions
        if not a < b or self.id != f"{a}-{b}":
            raise ValueError(f"border {self.id}: id must be '<a>-<b>' with a < b")
        return self


class _MapData(_Frozen):
    regions: tuple[Region, ...]
    borders: tuple[Border, ...]


# ---------------------------------------------------------------------------------------------
# Wakhan AI deck
# ---------------------------------------------------------------------------------------------


class WakhanFront(_Frozen):
    """Checks ``engine.cards.WakhanFront``."""

    actions: tuple[WakhanActionId, ...]
    region_priority: tuple[RegionId, ...]
    pragmatic_loyalty: tuple[Coalition, ...]
    red_arrow_at: MarketRow
    black_arrow_slot: Annotated[int, Field(ge=0, lt=MARKET_COLUMNS)]

    @model_validator(mode="after")
    def _check(self) -> WakhanFront:
        if sorted(self.region_priority) != sorted(REGION_IDS):
            raise ValueError("region_priority must list every region once")
        if sorted(self.pragmatic_loyalty) != sorted(COALITIONS):
            raise ValueError("pragmatic_loyalty must list every coalition once")
        return self


class WakhanBack(_Frozen):
    """Checks ``engine.cards.WakhanBack``."""

    upper_label: MarketRow
    lower_label: MarketRow
    column_numbers_top_to_bottom: tuple[int, ...]

    @model_validator(mode="after")
    def _check(self) -> WakhanBack:
        if self.upper_label == self.lower_label:
            raise ValueError("the two red-arrow labels must differ")
        if sorted(self.column_numbers_top_to_bottom) != list(range(MARKET_COLUMNS)):
            raise ValueError("column numbers must be a permutation of 0..5")
        return self


class WakhanCard(_Frozen):
    """Checks ``engine.cards.WakhanCard``."""

    number: Annotated[int, Field(ge=1, le=24)]
    front: WakhanFront
    back: WakhanBack
    back_alternative: WakhanBack | None = None


class _WakhanData(_Frozen):
    actions: dict[WakhanActionId, str]
    cards: tuple[WakhanCard, ...]


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def _check_court_cards() -> dict[int, CourtCard]:
    cards = TypeAdapter(tuple[CourtCard, ...]).validate_json(read_data("court_cards.json"))
    by_number = {card.number: card for card in sorted(cards, key=lambda c: c.number)}
    if list(by_number) != list(range(1, 101)):
        raise ValueError("court cards must be numbered 1..100 exactly once")
    return by_number


def _check_event_cards() -> dict[int, EventCard]:
    events = TypeAdapter(tuple[EventCard, ...]).validate_json(read_data("events.json"))
    by_number = {event.number: event for event in sorted(events, key=lambda e: e.number)}
    if list(by_number) != list(range(101, 117)):
        raise ValueError("event cards must be numbered 101..116 exactly once")
    return by_number


def _check_map() -> tuple[dict[RegionId, Region], dict[str, Border]]:
    data = _MapData.model_validate_json(read_data("map.json"))
    if tuple(region.id for region in data.regions) != REGION_IDS:
        raise ValueError("map.json must list the regions once each, west to east")
    regions = {region.id: region for region in data.regions}
    borders = {border.id: border for border in sorted(data.borders, key=lambda b: b.id)}
    if len(borders) != len(data.borders):
        raise ValueError("map.json lists a border twice")
    for region in regions.values():
        touching = [border for border in borders.values() if region.id in border.regions]
        neighbours = sorted(r for border in touching for r in border.regions if r != region.id)
        if sorted(region.borders) != [border.id for border in touching] or (
            sorted(region.adjacent) != neighbours
        ):
            raise ValueError(f"region {region.id}: adjacency does not match the borders")
    return regions, borders


def _check_wakhan() -> tuple[dict[WakhanActionId, str], dict[int, WakhanCard]]:
    data = _WakhanData.model_validate_json(read_data("wakhan.json"))
    by_number = {card.number: card for card in sorted(data.cards, key=lambda c: c.number)}
    if list(by_number) != list(range(1, 25)):
        raise ValueError("Wakhan cards must be numbered 1..24 exactly once")
    used = {action for card in data.cards for action in card.front.actions}
    if used != set(data.actions):
        raise ValueError("Wakhan action texts must match the actions used on the cards")
    return data.actions, by_number


class CheckedData(BaseModel):
    """Everything in ``engine/data``, read through the checks."""

    model_config = ConfigDict(frozen=True)

    court_cards: dict[int, CourtCard]
    event_cards: dict[int, EventCard]
    regions: dict[RegionId, Region]
    borders: dict[str, Border]
    wakhan_action_texts: dict[WakhanActionId, str]
    wakhan_cards: dict[int, WakhanCard]


def check_data() -> CheckedData:
    """Read every data file through the checks; a ``ValueError`` (pydantic's
    ``ValidationError`` is one) says what is wrong."""
    regions, borders = _check_map()
    actions, wakhan = _check_wakhan()
    return CheckedData(
        court_cards=_check_court_cards(),
        event_cards=_check_event_cards(),
        regions=regions,
        borders=borders,
        wakhan_action_texts=actions,
        wakhan_cards=wakhan,
    )
