"""Why an action is not legal: a stable code, a reason, the rulebook section, alternatives.

Legality itself is decided by membership in the legal actions; this module only explains
a refusal in the players' terms. The code, reason and section come from the rule that
refuses (a `Refusal`, see `WHY_NOT`), never from reading the words of its reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from engine.actions import Action, format_action
from engine.errors import IllegalActionError, Refusal
from engine.phrases import P
from engine.rules import play, purchase
from engine.rules.card_based import CARD_ACTIONS
from engine.rules.flow import DECISIONS
from engine.state import State

# Which decision kinds each verb answers.
VERB_DECISIONS: Final[dict[str, tuple[str, ...]]] = {
    **{verb: ("turn",) for verb in ("purchase", "play", "pass", *CARD_ACTIONS)},
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
        return IllegalActionError("game-over", P("the game is over; no action is legal"))
    frame = state.stack[-1]
    spec = DECISIONS[frame["kind"]]
    deciders = spec.deciders(state, frame)
    waiting = ", ".join(state.name(s) for s in deciders)
    prompt = spec.phrase(state, frame)
    everyone = [
        f"{state.name(s)}: {format_action(a)}"
        for s in deciders
        for a in spec.options(state, frame, s)
    ]
    if seat not in deciders:
        return IllegalActionError(
            "not-your-decision",
            P(
                "%(who)s has nothing to decide now; waiting for %(waiting)s: %(prompt)s",
                who=state.name(seat),
                waiting=waiting,
                prompt=prompt,
            ),
            section=spec.cite(state, frame),
            alternatives=everyone,
        )
    mine = [format_action(a) for a in spec.options(state, frame, seat)]
    if frame["kind"] not in VERB_DECISIONS.get(action.verb, ()):
        return IllegalActionError(
            "wrong-decision",
            P(
                "'%(verb)s' does not answer the decision now: %(prompt)s",
                verb=action.verb,
                prompt=prompt,
            ),
            section=spec.cite(state, frame),
            alternatives=mine,
        )
    refusal = _refusal(state, seat, action)
    return IllegalActionError(
        refusal.code,
        refusal.reason,
        section=refusal.section or spec.cite(state, frame),
        alternatives=mine,
    )


# The rule that says why it refuses an action of each verb, with its own code; the other
# verbs are refused for not being among the options.
WHY_NOT: Final[dict[str, Callable[[State, int, Action], Refusal | None]]] = {
    "purchase": purchase.why_not_purchase,
    "play": play.why_not_play,
}
CARD_CHOICES: Final = ("discard", "spy")  # decisions that are a choice among cards


def _refusal(state: State, seat: int, action: Action) -> Refusal:
    why_not = WHY_NOT.get(action.verb)
    found = why_not(state, seat, action) if why_not is not None else None
    if found is not None:
        return found
    if action.verb in CARD_CHOICES and action.args:
        return Refusal(
            "bad-card", P("card %(card)s is not one of the choices", card=action.args[0])
        )
    return Refusal(
        "illegal", P("%(action)s is not one of the choices", action=format_action(action))
    )
