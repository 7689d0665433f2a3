"""The build action [Build, p. 13].

Place up to three armies (in regions you rule) and roads (on borders of regions you rule),
paying two rupees each as an action cost. Nation Building doubles the number of blocks;
Civic Improvements (Infrastructure) adds one free block after the build.
"""

from __future__ import annotations

from engine.actions import Action, Arg
from engine.cards import COURT_CARDS, REGIONS
from engine.frames import BuildFrame, InfrastructureFrame
from engine.rules import card_actions, limits
from engine.rules.abilities import has_ability
from engine.rules.flow import DONE, Decision, RepeatedDecision, decision, push
from engine.rules.loyalty import has_effect
from engine.rules.tax import ruled_regions
from engine.state import State

BLOCK_PRICE = 2
MOST_BLOCKS = 3


def placements(state: State, seat: int, *, free: bool = False) -> list[Action]:
    if not free and state.players[seat].rupees < BLOCK_PRICE:
        return []
    ruled = sorted(ruled_regions(state, seat))
    borders = sorted({b for r in ruled for b in REGIONS[r].borders})
    return [Action("army", (r,)) for r in ruled] + [Action("road", (b,)) for b in borders]


def start_targets(state: State, seat: int) -> list[tuple[Arg, ...]]:
    """What may follow the acting card in a build action now (any card of the court)."""
    return [()] if placements(state, seat) else []


def start(state: State, seat: int, card: int) -> None:
    most = MOST_BLOCKS * (2 if has_effect(state, "nation_building", seat) else 1)
    state.note(f"{state.name(seat)} builds with {COURT_CARDS[card].name}")
    if has_ability(state, seat, "infrastructure"):
        push(
            state, InfrastructureFrame(kind="infrastructure", player=seat)
        )  # runs once the build is over
    push(state, BuildFrame(kind="build", player=seat, card=card, remaining=most, taken=0))


@decision
class BuildDecision(RepeatedDecision[BuildFrame]):
    """Where to place the next block (2 rupees), or stop."""

    kind = "build"
    section = "Build, p. 13"

    def steps(self, state: State, frame: BuildFrame, seat: int) -> list[Action]:
        return placements(state, seat)

    def take_step(self, state: State, frame: BuildFrame, seat: int, action: Action) -> None:
        paid_before = BLOCK_PRICE * (int(frame["taken"]) - 1)
        card_actions.pay_action_cost(state, seat, BLOCK_PRICE, already=paid_before)
        kind = "army" if action.verb == "army" else "road"
        limits.place_block(state, seat, kind, str(action.args[0]))

    def prompt(self, state: State, frame: BuildFrame) -> str:
        return (
            f"place up to {frame['remaining']} more block(s) at 2 rupees each: "
            "army REGION, road BORDER, or done"
        )


@decision
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
            state.note(f"{state.name(seat)} places a free block (Infrastructure)")
            limits.place_block(state, seat, kind, str(action.args[0]))

    def default(self, state: State, frame: InfrastructureFrame, seat: int) -> Action:
        return DONE

    def prompt(self, state: State, frame: InfrastructureFrame) -> str:
        return "Infrastructure: place one free block (army REGION or road BORDER), or done"
