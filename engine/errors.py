"""The three kinds of error a move can meet, each with a stable code.

- `NotationError`: the text cannot be read (unknown verb, unknown card, bad argument).
- `IllegalActionError`: the text reads as an action that is not legal now; it says why,
  cites the rulebook section and lists the legal alternatives.
- `AmbiguousActionError`: the text matches several legal actions; it lists them.

The codes are part of the interface (docs/notation.md lists them); messages may improve.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from pydantic import ValidationError


class Refusal(NamedTuple):
    """Why a rule refuses an action, in the words of the rule that refused it.

    `code` is the stable code of the `IllegalActionError` it becomes, `reason` the message,
    `section` the rulebook section (None: the section of the decision pending).
    """

    code: str
    reason: str
    section: str | None = None


class MoveError(Exception):
    """Base class: a move that cannot be carried out. Nothing was applied."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        section: str | None = None,
        alternatives: list[str] | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.section = section
        self.alternatives = alternatives or []
        self.line = line

    def describe(self) -> str:
        """The full message: reason, rulebook section and legal alternatives."""
        text = self.message
        if self.section:
            text += f" [{self.section}]"
        if self.alternatives:
            shown = self.alternatives[:30]
            more = len(self.alternatives) - len(shown)
            text += "; legal now: " + ", ".join(shown)
            if more > 0:
                text += f" (and {more} more)"
        return text

    def __str__(self) -> str:
        prefix = f"line {self.line}: " if self.line is not None else ""
        return f"{prefix}{self.code}: {self.describe()}"


class NotationError(MoveError):
    """The text of a move cannot be read."""


class IllegalActionError(MoveError):
    """The move is readable but not legal in this position."""


class AmbiguousActionError(MoveError):
    """The move matches more than one legal action."""


def describe_validation(error: ValidationError) -> str:
    """A pydantic ValidationError as one line for people: `where: what; ...`."""
    return "; ".join(f"{'.'.join(str(x) for x in e['loc'])}: {e['msg']}" for e in error.errors())


class StateError(ValueError):
    """A state document that does not satisfy the schema or piece conservation."""
