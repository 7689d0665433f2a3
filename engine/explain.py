"""Why an action is not legal: a stable code, a reason, the rulebook section, alternatives.

Legality itself is decided by membership in the legal actions; this module only explains
a refusal in the players' terms.
"""

from __future__ import annotations

from engine.actions import Action
from engine.errors import IllegalActionError
from engine.notation import format_action
from engine.rules import card_actions, purchase
from engine.rules.flow import DECISIONS
from engine.state import State

# Which decision kinds each verb answers.
VERB_DECISIONS: dict[str, tuple[str, ...]] = {
    **{verb: ("turn",) for verb in ("purchase", "play", "pass", "tax", "gift", "build", "move")},
    **{verb: ("turn",) for verb in ("betray", "battle")},
    "loyalty": ("loyalty",),
    "demand": ("bribe",),
    "pay": ("pay",),
    "refuse": ("pay",),
    "road": ("road", "build", "infrastructure"),
    "army": ("build", "infrastructure"),
    "spy": ("spy", "blackmail", "safe_house"),
    "take": ("take",),
    "choose": ("choose",),
    "discard": ("discard", "discard_each"),
    "collect": ("tax",),
    "march": ("move",),
    "remove": ("battle",),
    "accept": ("prize",),
    "decline": ("prize", "safe_house"),
    "done": ("tax", "build", "move", "battle", "infrastructure", "blackmail"),
}


def explain_illegal(state: State, seat: int, action: Action) -> IllegalActionError:
    """Build the error for `seat` submitting an illegal `action`."""
    if state.phase == "over" or not state.stack:
        return IllegalActionError("game-over", "the game is over; no action is legal")
    frame = state.stack[-1]
    spec = DECISIONS[frame["kind"]]
    deciders = spec.deciders(state, frame)
    waiting = ", ".join(state.name(s) for s in deciders)
    everyone = [
        f"{state.name(s)}: {format_action(a)}"
        for s in deciders
        for a in spec.options(state, frame, s)
    ]
    if seat not in deciders:
        return IllegalActionError(
            "not-your-decision",
            f"{state.name(seat)} has nothing to decide now; waiting for {waiting}: "
            f"{spec.prompt(state, frame)}",
            section=spec.cite(state, frame),
            alternatives=everyone,
        )
    mine = [format_action(a) for a in spec.options(state, frame, seat)]
    if frame["kind"] not in VERB_DECISIONS.get(action.verb, ()):
        return IllegalActionError(
            "wrong-decision",
            f"'{action.verb}' does not answer the decision now: {spec.prompt(state, frame)}",
            section=spec.cite(state, frame),
            alternatives=mine,
        )
    code, reason, section = _reason(state, seat, action)
    return IllegalActionError(
        code, reason, section=section or spec.cite(state, frame), alternatives=mine
    )


def _reason(state: State, seat: int, action: Action) -> tuple[str, str, str | None]:
    verb = action.verb
    if verb in ("purchase", "play") and not card_actions.has_core_actions_left(state):
        return "no-actions-left", "you have used both actions this turn", "Sequence of Play, p. 9"
    if verb == "purchase":
        why = purchase.why_not_purchase(state, seat, int(action.args[0]))
        if why is not None:
            code = "not-purchasable"
            if "rupees" in why:
                code = "cannot-afford"
            elif "not in the market" in why:
                code = "not-in-market"
            elif "placed a rupee" in why:
                code = "paid-this-turn"
            return code, f"cannot purchase card {action.args[0]}: {why}", "Purchase, p. 10"
    if verb == "play" and action.args and action.args[0] not in state.players[seat].hand:
        return "not-in-hand", f"card {action.args[0]} is not in your hand", "Play, p. 11"
    if verb in ("discard", "spy") and action.args:
        return "bad-card", f"card {action.args[0]} is not one of the choices", None
    return "illegal", f"{format_action(action)} is not one of the choices", None
