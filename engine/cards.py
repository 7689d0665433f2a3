"""Static game content: court cards, event cards, the map and the Wakhan AI deck.

Everything here is loaded once, at import, from the JSON files in ``engine/data`` (package
data of ``engine``) into the frozen records below; ``engine.card_schema`` holds the checks
on those files, which the tests run. The models and
constants are the only way the rest of the engine reads card facts.

The game content in ``engine/data`` (names, regions, suits, ranks, actions, impact icons,
patriots, prizes, special-ability and event titles, Wakhan AI cards, the map) is from
*Pax Pamir: Second Edition* by Cole Wehrle / Wehrlegig Games and is licensed under Creative
Commons BY-NC-SA 4.0; see ``engine/data/LICENSE.md``. Effect texts are paraphrases, not the
printed wording.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from importlib.resources import files
from typing import Any, Final, Literal, TypeGuard

__all__ = [
    "BORDERS",
    "COALITIONS",
    "COURT_CARDS",
    "DOMINANCE_CHECKS",
    "EVENT_CARDS",
    "MARKET_COLUMNS",
    "REGIONS",
    "REGION_IDS",
    "SUITS",
    "WAKHAN_ACTION_TEXTS",
    "WAKHAN_CARDS",
    "Ability",
    "AbilityId",
    "ActionKind",
    "Border",
    "Coalition",
    "CourtCard",
    "EffectId",
    "EventCard",
    "EventDuration",
    "EventEffect",
    "Impact",
    "ImpactKind",
    "MarketRow",
    "Region",
    "RegionId",
    "Suit",
    "WakhanActionId",
    "WakhanBack",
    "WakhanCard",
    "WakhanFront",
    "as_coalition",
    "as_json",
    "as_region",
    "as_suit",
    "card_name",
    "is_event",
    "is_region",
    "read_data",
]

Suit = Literal["economic", "intelligence", "military", "political"]
Coalition = Literal["afghan", "british", "russian"]
RegionId = Literal["transcaspia", "persia", "herat", "kabul", "kandahar", "punjab"]
AbilityId = Literal[
    "blackmail_herat",
    "blackmail_kandahar",
    "bodyguards",
    "charismatic_courtiers",
    "citadel_kabul",
    "citadel_transcaspia",
    "civil_service_reforms",
    "claim_of_ancient_lineage",
    "herat_influence",
    "indian_supplies",
    "indispensable_advisors",
    "infrastructure",
    "insurrection",
    "irregulars",
    "persian_influence",
    "russian_influence",
    "safe_house",
    "savvy_operator",
    "strange_bedfellows",
    "well_connected",
]
EffectId = Literal[
    "backing_of_persian_aristocracy",
    "confidence_failure",
    "conflict_fatigue",
    "courtly_manners",
    "disregard_for_customs",
    "dominance_check",
    "embarrassment_of_riches",
    "failure_to_impress",
    "favor_intelligence",
    "favor_military",
    "favor_political",
    "koh_i_noor_recovered",
    "nation_building",
    "nationalism",
    "new_tactics",
    "no_effect",
    "other_persuasive_methods",
    "pashtunwali_values",
    "public_withdrawal",
    "rebuke",
    "riots_in_herat",
    "riots_in_kabul",
    "riots_in_persia",
    "riots_in_punjab",
    "rumor",
]
"""Event effect ids: one per half of an event card (both halves of a Dominance Check
card are ``dominance_check``)."""
ActionKind = Literal["tax", "gift", "build", "move", "betray", "battle"]
ImpactKind = Literal["road", "army", "tribe", "spy", "leverage", "favor"]
EventDuration = Literal[
    "instant",
    "until_next_dominance_check",
    "until_after_next_dominance_check",
    "next_dominance_check",
    "while_in_market",
]
MarketRow = Literal["top", "bottom"]
WakhanActionId = Literal[
    "tax",
    "build",
    "move",
    "betray",
    "battle",
    "battle_on_most_spied_card_with_wakhan_spy",
    "radicalize",
    "radicalize_any_intelligence",
    "radicalize_card_gaining_region_rule",
    "radicalize_dominant_patriot_if_dominance",
    "radicalize_most_armies_roads",
    "radicalize_most_net_rupees_if_under_2_rupees",
    "radicalize_most_spies_tribes_if_no_dominance",
    "radicalize_move_card_if_none",
    "radicalize_top_economic_if_political_favored",
    "radicalize_top_intelligence",
    "radicalize_top_intelligence_if_fewer_spies",
    "radicalize_top_military_if_military_favored",
    "radicalize_top_political",
    "radicalize_top_political_if_court_full",
]

SUITS: Final[tuple[Suit, ...]] = ("economic", "intelligence", "military", "political")
COALITIONS: Final[tuple[Coalition, ...]] = ("afghan", "british", "russian")
REGION_IDS: Final[tuple[RegionId, ...]] = (
    "transcaspia",
    "persia",
    "herat",
    "kabul",
    "kandahar",
    "punjab",
)
"""Region ids from west to east (the map order)."""

MARKET_COLUMNS: Final = 6
"""Number of market columns; Wakhan's black arrow and back columns index them 0..5."""


# ---------------------------------------------------------------------------------------------
# Court cards
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Impact:
    """One impact icon of a court card; a card lists them top to bottom (resolution order).

    ``suit`` is set only for ``favor`` (move the favored-suit marker to that suit).
    ``coalition`` is set only for an army or road icon printed in a patriot colour; such icons
    appear only on patriots, in the patriot's own coalition colour.
    """

    kind: ImpactKind
    suit: Suit | None = None
    coalition: Coalition | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Ability:
    """A court card's special ability: stable id, printed title and a paraphrased effect.

    The same ability can sit on two cards (Bodyguards, Safe House); the two Citadels and two
    Blackmails have region-specific ids (``citadel_kabul``, ``blackmail_herat``, ...).
    """

    id: AbilityId
    name: str
    text: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CourtCard:
    """One of the 100 court cards.

    ``actions`` are the card-based action icons, printed left to right (a card may have none).
    ``impacts`` are the impact icons, printed top to bottom. ``patriot`` is the coalition the
    card is a patriot of; ``prize`` is the loyalty prize taken when the card is betrayed.
    """

    number: int
    name: str
    region: RegionId
    suit: Suit
    rank: int
    actions: tuple[ActionKind, ...]
    impacts: tuple[Impact, ...]
    patriot: Coalition | None
    prize: Coalition | None
    ability: Ability | None

    @property
    def is_leveraged(self) -> bool:
        """True if the card carries a leverage impact icon."""
        return any(impact.kind == "leverage" for impact in self.impacts)


# ---------------------------------------------------------------------------------------------
# Event cards
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class EventEffect:
    """One half of an event card.

    ``id`` names the effect (``dominance_check``, ``favor_military``, ``riots_in_punjab``, ...);
    ``title`` is the printed title (``None`` where only a suit or "no effect" is printed).
    ``affects`` says who is affected: ``all_players``, ``purchaser``, ``chosen_player``,
    ``purchaser_and_chosen_player`` or ``chosen_region``. ``duration`` follows the printed
    wording; both ``until_*`` forms end when the next Dominance Check resolves, and
    ``next_dominance_check`` changes how that check is scored.
    """

    id: EffectId
    title: str | None
    text: str
    affects: str
    duration: EventDuration


@dataclass(frozen=True, slots=True, kw_only=True)
class EventCard:
    """One of the 16 event cards (numbers 101-116, printed on the cards).

    ``if_discarded`` is the top half, applied to everyone when the card is discarded from the
    leftmost market column during cleanup. ``if_purchased`` is the bottom half, resolved by the
    purchaser at once (event cards never go to hand). On card 111 the bottom half is printed
    under "until discarded" instead: a standing rule of the market while the card is there
    (``duration == "while_in_market"``), not a purchase effect.
    """

    number: int
    name: str
    is_dominance_check: bool
    if_discarded: EventEffect
    if_purchased: EventEffect


# ---------------------------------------------------------------------------------------------
# Map
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Region:
    """A map region: its neighbours and the borders (road spaces) it shares with them."""

    id: RegionId
    name: str
    adjacent: tuple[RegionId, ...]
    borders: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Border:
    """A border between two regions; it is the single road space they share.

    ``id`` is the two region ids in alphabetical order joined by a hyphen, e.g.
    ``"kabul-punjab"``; ``regions`` holds them in that order.
    """

    id: str
    regions: tuple[RegionId, RegionId]


# ---------------------------------------------------------------------------------------------
# Wakhan AI deck
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class WakhanFront:
    """Front of a Wakhan AI card, read when the card is drawn.

    ``actions``: the action list, top to bottom. Wakhan goes down the list doing each valid
    action until she has taken two non-bonus actions, starting again at the top if needed.
    Texts are in ``WAKHAN_ACTION_TEXTS``; ``tax``/``build``/``move``/``betray``/``battle`` use
    her default rules for that action, ``radicalize`` uses the arrows (see below).

    ``region_priority``: all six regions, highest priority first (leftmost on the card); used
    for her builds, battles, moves and road placement.

    ``pragmatic_loyalty``: the three coalitions, left to right; Wakhan takes the leftmost one
    that no human player is loyal to.

    ``red_arrow_at``: whether the red arrow points at the upper or lower label position on the
    back of the next card (the card now on top of the AI draw deck). The label read there is
    the market row for radicalize; "top" also means she plays the card to the left end of her
    court, "bottom" to the right end. The red arrow also breaks ties between target players.

    ``black_arrow_slot``: position 0..5, top to bottom, in the next card's back column list;
    the number read there is the market column for radicalize (0 = leftmost).
    """

    actions: tuple[WakhanActionId, ...]
    region_priority: tuple[RegionId, ...]
    pragmatic_loyalty: tuple[Coalition, ...]
    red_arrow_at: MarketRow
    black_arrow_slot: int

    def market_position(self, next_back: WakhanBack) -> tuple[MarketRow, int]:
        """Market row and column (0 = leftmost) the arrows select on ``next_back``."""
        return next_back.row_at(self.red_arrow_at), next_back.column_at(self.black_arrow_slot)


@dataclass(frozen=True, slots=True, kw_only=True)
class WakhanBack:
    """Back of a Wakhan AI card: the values the arrows of the previous card's front read.

    ``upper_label`` / ``lower_label``: the market row ("top" or "bottom") printed at the upper
    and lower red-arrow positions. ``column_numbers_top_to_bottom``: the six market column
    numbers (0 = leftmost) printed at black-arrow positions 0..5.
    """

    upper_label: MarketRow
    lower_label: MarketRow
    column_numbers_top_to_bottom: tuple[int, ...]

    def row_at(self, red_arrow_at: MarketRow) -> MarketRow:
        """The market row printed where a red arrow at ``red_arrow_at`` points."""
        return self.upper_label if red_arrow_at == "top" else self.lower_label

    def column_at(self, black_arrow_slot: int) -> int:
        """The market column printed where a black arrow at ``black_arrow_slot`` points."""
        return self.column_numbers_top_to_bottom[black_arrow_slot]


@dataclass(frozen=True, slots=True, kw_only=True)
class WakhanCard:
    """One of the 24 Wakhan AI cards (numbers 1-24 are not printed; they fix a deck order).

    ``back`` is the back printed behind this ``front``. For cards 7, 9, 16 and 18 the sources
    disagree on which back goes with which front (7 with 9, 16 with 18 swapped); the other
    pairing is kept in ``back_alternative``. The deck holds the same set of backs either way.
    """

    number: int
    front: WakhanFront
    back: WakhanBack
    back_alternative: WakhanBack | None = None


# ---------------------------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------------------------


def read_data(name: str) -> str:
    """The text of the data file ``name`` in ``engine/data``."""
    return (files("engine") / "data" / name).read_text(encoding="utf-8")


# The records are built as read, without checks: `engine.card_schema.check_data` checks the
# same files, and the tests run it and compare the two (a check at every start would cost a
# command most of its start-up time). Lists become tuples, as the frozen records expect.


def _impact(data: dict[str, Any]) -> Impact:
    return Impact(**data)


def _court_card(data: dict[str, Any]) -> CourtCard:
    ability = data["ability"]
    return CourtCard(
        **data
        | {
            "actions": tuple(data["actions"]),
            "impacts": tuple(_impact(impact) for impact in data["impacts"]),
            "ability": Ability(**ability) if ability is not None else None,
        }
    )


def _event_card(data: dict[str, Any]) -> EventCard:
    return EventCard(
        **data
        | {
            "if_discarded": EventEffect(**data["if_discarded"]),
            "if_purchased": EventEffect(**data["if_purchased"]),
        }
    )


def _wakhan_back(data: dict[str, Any]) -> WakhanBack:
    return WakhanBack(
        **data | {"column_numbers_top_to_bottom": tuple(data["column_numbers_top_to_bottom"])}
    )


def _wakhan_card(data: dict[str, Any]) -> WakhanCard:
    front = data["front"]
    alternative = data.get("back_alternative")
    return WakhanCard(
        number=data["number"],
        front=WakhanFront(
            **front
            | {
                "actions": tuple(front["actions"]),
                "region_priority": tuple(front["region_priority"]),
                "pragmatic_loyalty": tuple(front["pragmatic_loyalty"]),
            }
        ),
        back=_wakhan_back(data["back"]),
        back_alternative=_wakhan_back(alternative) if alternative is not None else None,
    )


def _load_court_cards() -> dict[int, CourtCard]:
    cards = [_court_card(item) for item in json.loads(read_data("court_cards.json"))]
    return {card.number: card for card in sorted(cards, key=lambda c: c.number)}


def _load_event_cards() -> dict[int, EventCard]:
    events = [_event_card(item) for item in json.loads(read_data("events.json"))]
    return {event.number: event for event in sorted(events, key=lambda e: e.number)}


def _load_map() -> tuple[dict[RegionId, Region], dict[str, Border]]:
    data = json.loads(read_data("map.json"))
    regions = [
        Region(
            id=item["id"],
            name=item["name"],
            adjacent=tuple(item["adjacent"]),
            borders=tuple(item["borders"]),
        )
        for item in data["regions"]
    ]
    borders = [Border(id=item["id"], regions=tuple(item["regions"])) for item in data["borders"]]
    return (
        {region.id: region for region in regions},
        {border.id: border for border in sorted(borders, key=lambda b: b.id)},
    )


def _load_wakhan() -> tuple[dict[WakhanActionId, str], dict[int, WakhanCard]]:
    data = json.loads(read_data("wakhan.json"))
    cards = [_wakhan_card(item) for item in data["cards"]]
    return data["actions"], {card.number: card for card in sorted(cards, key=lambda c: c.number)}


COURT_CARDS: Final[dict[int, CourtCard]] = _load_court_cards()
"""The 100 court cards by number, in number order."""

EVENT_CARDS: Final[dict[int, EventCard]] = _load_event_cards()
"""The 16 event cards by number (101-116), in number order."""

DOMINANCE_CHECKS: Final[tuple[int, ...]] = tuple(
    number for number, event in EVENT_CARDS.items() if event.is_dominance_check
)
"""Numbers of the four Dominance Check cards (101-104)."""

REGIONS: dict[RegionId, Region]
BORDERS: dict[str, Border]
REGIONS, BORDERS = _load_map()

WAKHAN_ACTION_TEXTS: dict[WakhanActionId, str]
WAKHAN_CARDS: dict[int, WakhanCard]
WAKHAN_ACTION_TEXTS, WAKHAN_CARDS = _load_wakhan()


def _plain(value: object) -> object:
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def as_json(record: WakhanFront | WakhanBack | CourtCard | EventCard) -> dict[str, Any]:
    """A record as JSON-ready data: nested records as objects, tuples as lists."""
    data = _plain(asdict(record))
    assert isinstance(data, dict)
    return data


def is_region(name: object) -> TypeGuard[RegionId]:
    """True if ``name`` is a region id (narrows a parsed string to ``RegionId``)."""
    return name in REGIONS


def as_region(name: str) -> RegionId:
    """``name`` as a region id; ``ValueError`` if it is not one."""
    if not is_region(name):
        raise ValueError(f"not a region: {name!r}")
    return name


def as_coalition(name: str) -> Coalition:
    """``name`` as a coalition id; ``ValueError`` if it is not one."""
    for coalition in COALITIONS:
        if coalition == name:
            return coalition
    raise ValueError(f"not a coalition: {name!r}")


def as_suit(name: str) -> Suit:
    """``name`` as a suit id; ``ValueError`` if it is not one."""
    for suit in SUITS:
        if suit == name:
            return suit
    raise ValueError(f"not a suit: {name!r}")


def card_name(number: int) -> str:
    """Name of the court or event card ``number``; ``KeyError`` for any other number."""
    if number in COURT_CARDS:
        return COURT_CARDS[number].name
    return EVENT_CARDS[number].name


def is_event(number: int) -> bool:
    """True if ``number`` is an event card (101-116)."""
    return number in EVENT_CARDS
