"""What a view holds (`engine.view`), typed.

A view is plain JSON-ready data (it is written to `state.json` as it is, and read back from
there by the service), so each record is a TypedDict rather than a class, as the frames are
(engine/frames.py): mypy checks every key read while the data stays the same. Players, spies,
tribes and rulers are given by name, never by seat.

There are two views of the same shape: the public one (`PublicView`, `viewer` None), from
which every report, page and commit is rendered, and one player's own (`PlayerView`, `viewer`
their name), which adds their hand, their standing policy and their legal options. Keeping
them apart as types means a player's view cannot be passed where the public one is due.
`View` is either, for code that draws what both show. A key's place in a view is the order
of the JSON and must not change: the records list their keys in that order, and a view is
`format` and `viewer` first, then `Table`'s keys, then `Tail`'s.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypedDict

from engine.cards import Coalition, EffectId, MarketRow, RegionId, Suit, WakhanActionId

ViewFormat = Literal["pamir-view/1"]


class PolicyRecord(TypedDict):
    """A player's standing policy on bribes (docs/rules.md): shown only to that player."""

    pay: int | None  # pay bribes up to this many rupees; None: ask
    demand: dict[str, int]  # payer's name -> the most demanded of them


class CourtCardRecord(TypedDict):
    """A card in a court, with the spies on it by player and who holds it hostage."""

    card: int
    name: str
    spies: dict[str, int]
    hostage: str | None


class PlayerRecord(TypedDict):
    """One player as the viewer sees them; `hand` and `policy` only for the viewer."""

    name: str
    loyalty: Coalition | None
    influence: int
    rupees: int
    vp: int
    cylinders: int  # on the player board
    hand: list[int] | None
    hand_size: int
    court: list[CourtCardRecord]  # left to right
    prizes: list[int]
    gifts: list[bool]  # the gift spaces costing 2, 4 and 6 rupees
    stars: dict[Suit, int]
    court_limit: int
    hand_limit: int
    cylinders_in_play: int
    policy: PolicyRecord | None


class CardSlot(TypedDict):
    """A market slot holding a card, with its cost for the viewer (the active player in
    the public view; None for the Public Withdrawal event) and the rupees on it."""

    card: int
    cost: int | None
    rupees: int


class RupeeSlot(TypedDict):
    """An empty market slot on which rupees lie (an empty slot with none is None)."""

    card: None
    rupees: int


MarketSlot = CardSlot | RupeeSlot | None


class RegionRecord(TypedDict):
    ruler: str | None
    tribes: dict[str, int]  # by player's name, only those with some
    armies: dict[Coalition, int]  # only the coalitions with some


class EffectRecord(TypedDict):
    """A lasting event effect in force (engine/frames.py `Effect`, with names)."""

    id: EffectId
    card: int
    player: str | None  # None: an effect on everyone
    until: str  # in words; a report translates it


class PendingRecord(TypedDict):
    """The decision the game waits for (engine/game.py `Pending`, with names)."""

    kind: str
    players: list[str]
    prompt: str
    section: str  # the rulebook section, e.g. "Tax, p. 13"


class AiCardRecord(TypedDict):
    """The front of Wakhan's face-up AI card (engine/cards.py `WakhanFront`) and its number."""

    number: int
    actions: list[WakhanActionId]
    region_priority: list[RegionId]
    pragmatic_loyalty: list[Coalition]
    red_arrow_at: MarketRow
    black_arrow_slot: int


class AiBackRecord(TypedDict):
    """The back of the AI deck's top card (engine/cards.py `WakhanBack`), printed face up."""

    upper_label: MarketRow
    lower_label: MarketRow
    column_numbers_top_to_bottom: list[int]


class WakhanRecord(TypedDict):
    """Wakhan's AI cards as the table shows them; the AI deck's order is never shown."""

    player: str
    backs: str  # standard | alternative
    ai_deck_size: int
    ai_discard_size: int
    ai_card: AiCardRecord | None
    next_back: AiBackRecord | None
    pragmatic_loyalty: Coalition | None
    influence: dict[Coalition, int]


class Table(TypedDict):
    """What every view shows after its viewer: the board, the market, the players."""

    phase: str  # setup | play | over
    turn: int
    active: str
    actions_used: int
    favored: Suit
    checks_resolved: int
    checks_left: int
    deck_size: int
    winners: list[str]
    players: list[PlayerRecord]  # in seat order
    market: list[list[MarketSlot]]  # [row][column], top row first
    regions: dict[RegionId, RegionRecord]
    roads: dict[str, dict[Coalition, int]]  # by border id; only the coalitions with some
    block_supply: dict[Coalition, int]
    discard: list[int]
    effects: list[EffectRecord]
    bank: int
    pending: PendingRecord | None
    options: list[str]  # the viewer's legal actions in the notation; none in the public view


class Tail(TypedDict):
    """What ends every view: Wakhan's cards, when she plays, then what the last action did."""

    wakhan: NotRequired[WakhanRecord]
    log: list[str]


class PublicView(Table, Tail):
    """The position as everyone may see it."""

    format: ViewFormat
    viewer: None


class PlayerView(Table, Tail):
    """The position as one player sees it: the public view, their hand, policy and options."""

    format: ViewFormat
    viewer: str


View = PublicView | PlayerView
"""Either view, for code that shows only what both hold."""
