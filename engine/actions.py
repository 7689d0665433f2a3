"""Actions: small immutable values, one per thing a player can decide.

An action is a verb and its arguments (card numbers, region or border ids, coalition or
suit names, counts). Its canonical text is `format_action`; reading text back, which needs
the position, is `engine.notation`'s: `parse(format(a)) == a`.
"""

from __future__ import annotations

from typing import NamedTuple

Arg = int | str


class Action(NamedTuple):
    """One decision: `Action("purchase", (12,))`, `Action("play", (12, "left"))`."""

    verb: str
    args: tuple[Arg, ...] = ()

    def __str__(self) -> str:
        return format_action(self)


def format_action(action: Action) -> str:
    """The canonical text of an action: its verb and arguments, separated by spaces."""
    return " ".join([action.verb, *(str(arg) for arg in action.args)])


PASS = Action("pass")
