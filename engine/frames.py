"""The pending steps on `state.stack` and the lasting effects in `state.effects`, typed.

A frame is a plain dict (it is written to the state's JSON as it is, docs/decisions.md), so
each kind is a TypedDict rather than a class: mypy checks every field read and write while
the JSON stays the same. The keys are listed in the order the engine writes them; build a
frame with its constructor (`TaxFrame(kind="tax", ...)`) and keep that order, since the
JSON form must not change.

`Frame` is the union of all kinds, discriminated by `kind`: comparing `frame["kind"]` with
a kind's name narrows it. Rules read frames through the decision or procedure registered
for their kind (engine/rules/flow.py), which states the exact frame type it handles.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from engine.actions import Arg
from engine.cards import Coalition, EffectId, RegionId

CleanupStep = Literal["court", "hand", "events", "refill", "next"]
DiscardPlace = Literal["hand", "court", "any"]


class Seated(TypedDict):
    """What every frame decided by one player has: the deciding seat."""

    player: int


class Repeated(TypedDict):
    """What a step taken several times has (engine/rules/flow.py, `RepeatedDecision`)."""

    player: int
    remaining: int
    taken: int


# -- procedures --------------------------------------------------------------------------------


class StartFrame(TypedDict):
    kind: Literal["start"]
    player: int


class IconsFrame(TypedDict):
    kind: Literal["icons"]
    player: int
    card: int
    index: int  # the next impact icon to resolve, top to bottom


class CleanupFrame(TypedDict):
    kind: Literal["cleanup"]
    step: CleanupStep


class WakhanDrawFrame(TypedDict):
    """Wakhan's turn before she has drawn her AI card."""

    kind: Literal["wakhan_turn"]
    player: int
    step: Literal["draw"]


class WakhanTurnFrame(TypedDict):
    """Wakhan's turn once she has drawn: her actions, then bonus actions, then the end."""

    kind: Literal["wakhan_turn"]
    player: int
    step: Literal["actions", "bonus", "end"]
    next: int  # the position in the AI card's action list to try next
    used: int  # actions taken that are not bonus actions
    skipped: int  # listed actions found not valid, in a row
    tried: list[int]  # court cards tried for a bonus action


# -- decisions ---------------------------------------------------------------------------------


class LoyaltyFrame(TypedDict):
    kind: Literal["loyalty"]
    player: int


class TurnFrame(TypedDict):
    kind: Literal["turn"]
    player: int


class BlackmailFrame(TypedDict):
    kind: Literal["blackmail"]
    player: int
    region: RegionId


class BribeFrame(TypedDict):
    kind: Literal["bribe"]
    player: int  # the ruler, who demands
    payer: int
    amount: int
    action: list[Arg]  # the bribed action: its verb, then its arguments


class PayFrame(TypedDict):
    kind: Literal["pay"]
    player: int  # the payer
    ruler: int
    demand: int
    action: list[Arg]


class RoadFrame(TypedDict):
    kind: Literal["road"]
    player: int
    region: RegionId


class SpyFrame(TypedDict):
    kind: Literal["spy"]
    player: int
    region: RegionId


class TakeFrame(TypedDict):
    """A piece to take from the board; `coalition` is set for blocks, None for cylinders."""

    kind: Literal["take"]
    player: int
    piece: str
    location: str | int  # a region or border id, a court card, or a gift's cost
    coalition: Coalition | None


class DiscardFrame(TypedDict):
    kind: Literal["discard"]
    player: int
    place: DiscardPlace
    count: int
    reason: str


class DiscardEachFrame(TypedDict):
    kind: Literal["discard_each"]
    players: list[int]  # those who still owe a card
    reason: str


class ChooseFrame(TypedDict):
    kind: Literal["choose"]
    player: int
    effect: EffectId
    card: int  # the event card being resolved


class TaxFrame(TypedDict):
    kind: Literal["tax"]
    player: int
    card: int
    remaining: int
    taken: int


class BuildFrame(TypedDict):
    kind: Literal["build"]
    player: int
    card: int
    remaining: int
    taken: int


class InfrastructureFrame(TypedDict):
    kind: Literal["infrastructure"]
    player: int


class MoveFrame(TypedDict):
    kind: Literal["move"]
    player: int
    card: int
    remaining: int
    taken: int


class BattleFrame(TypedDict):
    kind: Literal["battle"]
    player: int
    card: int
    site: RegionId | int  # a region, or a court card for a battle among spies
    remaining: int
    taken: int


class SafeHouseFrame(TypedDict):
    kind: Literal["safe_house"]
    player: int
    lost_from: int  # the court card the spy was removed from


class PrizeFrame(TypedDict):
    kind: Literal["prize"]
    player: int
    card: int  # the betrayed card


Frame = (
    StartFrame
    | IconsFrame
    | CleanupFrame
    | WakhanDrawFrame
    | WakhanTurnFrame
    | LoyaltyFrame
    | TurnFrame
    | BlackmailFrame
    | BribeFrame
    | PayFrame
    | RoadFrame
    | SpyFrame
    | TakeFrame
    | DiscardFrame
    | DiscardEachFrame
    | ChooseFrame
    | TaxFrame
    | BuildFrame
    | InfrastructureFrame
    | MoveFrame
    | BattleFrame
    | SafeHouseFrame
    | PrizeFrame
)
"""Any frame of the stack, discriminated by `kind`."""


class Effect(TypedDict):
    """A lasting event effect, in force until the next Dominance Check has resolved."""

    id: EffectId
    card: int  # the event card, kept with the effect
    player: int | None  # the seat it belongs to, None for an effect on everyone
    until: Literal["check"]
