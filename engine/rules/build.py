"""The build action [Build, p. 13].

Place up to three armies (in regions you rule) and roads (on borders of regions you rule),
paying two rupees each as an action cost. Nation Building ("Place twice as many blocks when
you take the build action") makes every two rupees place two blocks, up to six: the first
block of each pair is paid for and the second is free, so an odd block costs as a pair.
Civic Improvements (Infrastructure) adds one free block after the build.
"""

from __future__ import annotations

from typing import Final

from engine.actions import Action, Arg, new_action
from engine.cards import COURT_CARDS, REGIONS
from engine.frames import BuildFrame, InfrastructureFrame
from engine.phrases import P, Phrase
from engine.rules import card_actions, limits, words
from engine.rules.abilities import has_ability
from engine.rules.flow import DONE, Decision, RepeatedDecision, decision, push
from engine.rules.loyalty import has_effect
from engine.rules.tax import ruled_regions
from engine.state import State

BLOCK_PRICE: Final = 2
MOST_BLOCKS: Final = 3


def placements(state: State, seat: int, *, free: bool = False) -> list[Action]:
    if not free and state.players[seat].rupees < BLOCK_PRICE:
        return []
    ruled = sorted(ruled_regions(state, seat))
    borders = sorted({b for r in ruled for b in REGIONS[r].borders})
    return [new_action("army", (r,)) for r in ruled] + [new_action("road", (b,)) for b in borders]


def is_doubled(state: State, seat: int) -> bool:
    """Whether Nation Building doubles the blocks `seat` builds [Nation Building, card 112]."""
    return has_effect(state, "nation_building", seat)


def block_price(state: State, seat: int, index: int) -> int:
    """The price of the block placed after `index` blocks of the same build.

    Under Nation Building every block paid for places two, so every second block is free.
    """
    return 0 if is_doubled(state, seat) and index % 2 == 1 else BLOCK_PRICE


def count_paid(state: State, seat: int, blocks: int) -> int:
    """Rupees paid for the first `blocks` blocks of a build."""
    return sum(block_price(state, seat, index) for index in range(blocks))


def start_targets(state: State, seat: int) -> list[tuple[Arg, ...]]:
    """What may follow the acting card in a build action now (any card of the court)."""
    # `placements` is empty exactly when the block is unaffordable or no region is ruled.
    if state.players[seat].rupees < BLOCK_PRICE:
        return []
    return [()] if ruled_regions(state, seat) else []


def start(state: State, seat: int, card: int) -> None:
    most = MOST_BLOCKS * (2 if is_doubled(state, seat) else 1)
    state.note(
        P(
            "%(who)s builds with %(card)s",
            who=words.who(state, seat),
            card=words.card_name_term(COURT_CARDS[card].name),
        )
    )
    if has_ability(state, seat, "infrastructure"):
        push(
            state, InfrastructureFrame(kind="infrastructure", player=seat)
        )  # runs once the build is over
    push(state, BuildFrame(kind="build", player=seat, card=card, remaining=most, taken=0))


class BuildDecision(RepeatedDecision[BuildFrame]):
    """Where to place the next block (2 rupees, or free under Nation Building), or stop."""

    kind = "build"
    section = "Build, p. 13"

    def steps(self, state: State, frame: BuildFrame, seat: int) -> list[Action]:
        free = block_price(state, seat, frame["taken"]) == 0
        return placements(state, seat, free=free)

    def take_step(self, state: State, frame: BuildFrame, seat: int, action: Action) -> None:
        index = frame["taken"] - 1  # `taken` already counts this block
        price = block_price(state, seat, index)
        if price:
            paid_before = count_paid(state, seat, index)
            card_actions.pay_action_cost(state, seat, price, already=paid_before)
        kind = "army" if action.verb == "army" else "road"
        limits.place_block(state, seat, kind, str(action.args[0]))

    def phrase(self, state: State, frame: BuildFrame) -> Phrase:
        seat, taken = frame["player"], frame["taken"]
        if not is_doubled(state, seat):
            price = P("at 2 rupees each")
        elif block_price(state, seat, taken):
            price = P("two for every 2 rupees (Nation Building)")
        else:
            price = P("two for every 2 rupees (Nation Building; the next one is already paid for)")
        return P(
            "%(who)s builds with %(card)s: up to %(blocks)s %(price)s "
            "(`army REGION`, `road BORDER`)%(stop)s",
            who=words.who(state, seat),
            card=words.card_term(frame["card"]),
            blocks=words.counted(frame["remaining"], "block", more=bool(taken)),
            price=price,
            stop=words.stop_term(taken),
        )


decision(BuildDecision)


class InfrastructureDecision(Decision[InfrastructureFrame]):
    """Civic Improvements (Infrastructure): one free block after a build, or none."""

    kind = "infrastructure"
    section = "Build, p. 13"

    def options(self, state: State, frame: InfrastructureFrame, seat: int) -> list[Action]:
        return [*placements(state, seat, free=True), DONE]

    def apply(self, state: State, frame: InfrastructureFrame, seat: int, action: Action) -> None:
        state.stack.pop()
        if action != DONE:
            kind = "army" if action.verb == "army" else "road"
            state.note(
                P("%(who)s places a free block (Infrastructure)", who=words.who(state, seat))
            )
            limits.place_block(state, seat, kind, str(action.args[0]))

    def default(self, state: State, frame: InfrastructureFrame, seat: int) -> Action:
        return DONE

    def phrase(self, state: State, frame: InfrastructureFrame) -> Phrase:
        return P(
            "%(who)s may place one free block with Infrastructure (`army REGION`, "
            "`road BORDER`), or none (`done`)",
            who=words.who(state, frame["player"]),
        )


decision(InfrastructureDecision)
