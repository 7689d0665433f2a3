"""Actions: small immutable values, one per thing a player can decide.

An action is a verb and its arguments (card numbers, region or border ids, coalition or
suit names, counts). Its canonical text is `format_action`; reading text back, which needs
the position, is `engine.notation`'s: `parse(format(a)) == a`.
"""

from __future__ import annotations

from typing import Final, Literal, NamedTuple, TypeGuard, get_args

from engine.cards import ActionKind

Arg = int | str

# The verb of every action the engine knows, so that a misspelt one is a type error. The
# card-based actions' verbs are their kinds (engine/rules/card_based.py's table). The words
# of the notation (engine/rules/verbs.py's `VERBS`) are these and `waive`, which is read as
# a demand of nothing.
Verb = (
    Literal["purchase", "play", "pass"]
    | ActionKind
    | Literal[
        "loyalty", "demand", "pay", "refuse", "road", "spy", "take", "discard",
        "choose", "collect", "army", "march", "remove", "accept", "decline", "done", "policy",
    ]
)  # fmt: skip

KNOWN_VERBS: Final[frozenset[str]] = frozenset(
    word for part in get_args(Verb) for word in get_args(part)
)


def is_verb(word: str) -> TypeGuard[Verb]:
    """Whether `word` is a verb of the engine (lower case, as actions hold them)."""
    return word in KNOWN_VERBS


class Action(NamedTuple):
    """One decision: `Action("purchase", (12,))`, `Action("play", (12, "left"))`."""

    verb: Verb
    args: tuple[Arg, ...] = ()

    def __str__(self) -> str:
        return format_action(self)


def new_action(verb: Verb, args: tuple[Arg, ...]) -> Action:
    """`Action(verb, args)`, for the hot paths that list every legal action: a NamedTuple's
    generated `__new__` runs as interpreted Python even in the compiled engine, while this
    makes the same tuple directly (docs/development.md#the-compiled-engine)."""
    return tuple.__new__(Action, (verb, args))


def format_action(action: Action) -> str:
    """The canonical text of an action: its verb and arguments, separated by spaces."""
    return " ".join([action.verb, *[str(arg) for arg in action.args]])


PASS: Final = Action("pass")
