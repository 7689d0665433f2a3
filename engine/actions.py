"""Actions: small immutable values, one per thing a player can decide.

An action is a verb and its arguments (card numbers, region or border ids, coalition or
suit names, counts). Its text form lives in `engine.notation`; `parse(format(a)) == a`.
"""

from __future__ import annotations

from typing import NamedTuple

Arg = int | str


class Action(NamedTuple):
    """One decision: `Action("purchase", (12,))`, `Action("play", (12, "left"))`."""

    verb: str
    args: tuple[Arg, ...] = ()

    def __str__(self) -> str:
        from engine.notation import format_action

        return format_action(self)


PASS = Action("pass")
