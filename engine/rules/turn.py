"""The sequence of play [Sequence of Play, p. 9; Access to Actions, p. 8].

On their turn the active player takes up to two actions (purchase, play, or a card-based
action); card-based actions of favored-suit cards are bonus actions that do not count
against the two. They may stop early by passing. Then cleanup runs and play passes
clockwise.
"""

from __future__ import annotations

from engine.actions import PASS, Action
from engine.rules import play, purchase
from engine.rules.flow import Decision, decision, push
from engine.state import Frame, State

ACTIONS_PER_TURN = 2


def has_core_actions_left(state: State) -> bool:
    return state.actions_used < ACTIONS_PER_TURN


def turn_options(state: State, seat: int) -> list[Action]:
    """Every action the active player may take now, pass last."""
    found: list[Action] = []
    if has_core_actions_left(state):
        found.extend(purchase.purchase_options(state, seat))
        found.extend(play.play_options(state, seat))
    found.append(PASS)
    return found


def is_turn_over(state: State) -> bool:
    """No actions left at all: the turn ends without asking."""
    return not has_core_actions_left(state)


def begin_turn(state: State, seat: int) -> None:
    state.active = seat
    state.turn += 1
    state.actions_used = 0
    state.used_cards = []
    state.paid_cards = []
    state.placed = {}
    push(state, "turn", player=seat)


@decision
class TurnDecision(Decision):
    """The active player's choice of their next action, or pass."""

    kind = "turn"
    section = "Sequence of Play, p. 9"
    auto_single = False

    def options(self, state: State, frame: Frame, seat: int) -> list[Action]:
        return turn_options(state, seat)

    def apply(self, state: State, frame: Frame, seat: int, action: Action) -> None:
        verb = action.verb
        if verb == "pass":
            state.stack.pop()
            if state.actions_used < ACTIONS_PER_TURN:
                state.note(f"{state.name(seat)} ended their turn")
            push(state, "cleanup", step="court")
        elif verb == "purchase":
            purchase.purchase(state, seat, int(action.args[0]))
        elif verb == "play":
            play.start_play(state, seat, int(action.args[0]), str(action.args[1]))
        else:
            raise ValueError(f"unknown turn action {action}")

    def default(self, state: State, frame: Frame, seat: int) -> Action:
        return PASS

    def by_policy(self, state: State, frame: Frame) -> tuple[int, Action] | None:
        if is_turn_over(state):
            return int(frame["player"]), PASS
        return None

    def prompt(self, state: State, frame: Frame) -> str:
        left = max(0, ACTIONS_PER_TURN - state.actions_used)
        return f"take an action ({left} of {ACTIONS_PER_TURN} left) or pass"
