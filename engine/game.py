"""The engine's pure API: legal actions, applying an action, pending decisions.

`apply` never mutates the state it is given. A submitted action is legal exactly when it
is among the legal actions of the player who submits it [principle: validation by
membership]. Standing policies (`policy ...` actions) may be given by any player at any
time and are not listed among the legal actions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import engine.rules  # noqa: F401  (registers every decision and procedure)
from engine.actions import Action, format_action
from engine.errors import IllegalActionError
from engine.explain import explain_illegal
from engine.phrases import P, Phrase
from engine.rules.flow import DECISIONS, PROCEDURES, run
from engine.state import State

KNOWN_FRAMES: Final = frozenset(DECISIONS) | frozenset(PROCEDURES)


@dataclass(frozen=True)
class Pending:
    """A decision the game waits for: who, what, and what happens by default."""

    kind: str
    seats: tuple[int, ...]
    prompt: str
    section: str


def pending(state: State) -> Pending | None:
    if state.phase == "over" or not state.stack:
        return None
    frame = state.stack[-1]
    spec = DECISIONS[frame["kind"]]
    return Pending(
        frame["kind"],
        tuple(spec.deciders(state, frame)),
        spec.prompt(state, frame),
        spec.cite(state, frame),
    )


def pending_phrase(state: State) -> Phrase | None:
    """The pending decision's prompt in a translatable form (what `pending` says in
    English), or None when nothing is pending."""
    if state.phase == "over" or not state.stack:
        return None
    frame = state.stack[-1]
    return DECISIONS[frame["kind"]].phrase(state, frame)


def options_for(state: State, seat: int) -> list[Action]:
    """The legal actions of one player now (empty if they need not decide)."""
    if state.phase == "over" or not state.stack:
        return []
    frame = state.stack[-1]
    spec = DECISIONS[frame["kind"]]
    if seat not in spec.deciders(state, frame):
        return []
    return spec.options(state, frame, seat)


def legal_seat_actions(state: State) -> list[tuple[int, Action]]:
    """Every legal (seat, action) for whoever must decide now."""
    if state.phase == "over" or not state.stack:
        return []
    frame = state.stack[-1]
    spec = DECISIONS[frame["kind"]]
    return [
        (seat, action)
        for seat in spec.deciders(state, frame)
        for action in spec.options(state, frame, seat)
    ]


def legal_actions(state: State) -> list[tuple[str, Action]]:
    """Every legal (player name, action) for whoever must decide now."""
    return [(state.name(seat), action) for seat, action in legal_seat_actions(state)]


def default_action(state: State, seat: int) -> Action | None:
    """What is decided for a player who never answers (deadlines), if they must decide."""
    if not options_for(state, seat):
        return None
    frame = state.stack[-1]
    return DECISIONS[frame["kind"]].default(state, frame, seat)


def step(state: State, seat: int, action: Action) -> None:
    """Apply a legal action in place. The caller guarantees legality (random playouts)."""
    state.log = []
    state.said = []
    if action.verb == "policy":
        set_policy(state, seat, action)
    else:
        frame = state.stack[-1]
        DECISIONS[frame["kind"]].apply(state, frame, seat, action)
    run(state)


def apply(state: State, player: str | int, action: Action) -> State:
    """Return the state after `player` takes `action`; raise if it is not legal."""
    seat = player if isinstance(player, int) else state.seat(player)
    if state.is_wakhan(seat):
        raise IllegalActionError(
            "not-your-decision",
            P(
                "%(who)s is played by the engine: no one acts or sets policies for her",
                who=state.name(seat),
            ),
            section="Playing with Wakhan, p. 16",
        )
    if action.verb != "policy" and action not in options_for(state, seat):
        try:
            error = explain_illegal(state, seat, action)
        except (IndexError, ValueError, TypeError):  # an Action with malformed arguments
            error = IllegalActionError(
                "illegal", P("%(action)s is not a legal action now", action=format_action(action))
            )
        raise error
    if action.verb == "policy":
        check_policy(state, action)
    new = state.copy()
    step(new, seat, action)
    return new


def check_policy(state: State, action: Action) -> None:
    kind = action.args[0] if action.args else None
    sizes = {"demand": 3, "pay": 2, "clear": 1}
    if kind not in sizes or len(action.args) != sizes[str(kind)]:
        reason = P("unknown policy %(action)s", action=format_action(action))
        raise IllegalActionError("bad-policy", reason)
    if kind == "demand":
        who, most = action.args[1], action.args[2]
        try:
            state.seat(str(who))
        except KeyError:
            reason = P("no player called %(who)s", who=str(who))
            raise IllegalActionError("unknown-player", reason) from None
        if not isinstance(most, int) or most < 0:
            raise IllegalActionError("bad-argument", P("a bribe must be 0 or more"))
    elif kind == "pay" and (not isinstance(action.args[1], int) or int(action.args[1]) < 0):
        raise IllegalActionError("bad-argument", P("a bribe must be 0 or more"))


def set_policy(state: State, seat: int, action: Action) -> None:
    """Record a standing policy [docs/decisions.md]."""
    player = state.players[seat]
    kind = action.args[0]
    if kind == "demand":
        payer = state.seat(str(action.args[1]))
        player.policy_demand[payer] = int(action.args[2])
    elif kind == "pay":
        player.policy_pay = int(action.args[1])
    else:
        player.policy_pay = None
        player.policy_demand = {}
    state.note(
        P(
            "%(who)s set a standing policy: %(action)s",
            who=player.name,
            action=format_action(action),
        )
    )
