"""The three kinds of error a move can meet, each with a stable code.

- `NotationError`: the text cannot be read (unknown verb, unknown card, bad argument).
- `IllegalActionError`: the text reads as an action that is not legal now; it says why,
  cites the rulebook section and lists the legal alternatives.
- `AmbiguousActionError`: the text matches several legal actions; it lists them.

The codes are part of the interface (docs/notation.md lists them); messages may improve.

Every message is a `Phrase` (engine/phrases.py) whose English is the message, so that a
refusal can be said in a player's language without reading its English back:
`describe_phrase` and `said` are `describe` and `str` in that form. What a player typed
is a plain parameter of a phrase, never a message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from engine.phrases import PN, P, Phrase, Term
from engine.state import as_said

if TYPE_CHECKING:
    from pydantic import ValidationError


class Refusal(NamedTuple):
    """Why a rule refuses an action, in the words of the rule that refused it.

    `code` is the stable code of the `IllegalActionError` it becomes, `reason` the message
    (a phrase: its English is what players read in English), `section` the rulebook section
    (None: the section of the decision pending).
    """

    code: str
    reason: Phrase
    section: str | None = None


class MoveError(Exception):
    """Base class: a move that cannot be carried out. Nothing was applied."""

    def __init__(
        self,
        code: str,
        message: Phrase | str,
        *,
        section: str | None = None,
        alternatives: list[str] | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(str(message))
        self.code = code
        self.message = str(message)
        # None: a message given as plain English only, which stays English in every language.
        self.phrase = message if isinstance(message, Phrase) else None
        self.section = section
        self.alternatives = alternatives or []  # canonical notation: the same in every language
        self.line = line

    def reword(self, message: Phrase) -> None:
        """Give the error another message (and its English)."""
        self.phrase, self.message = message, str(message)

    def message_phrase(self) -> Phrase:
        """The message alone as a phrase (one given as plain English stays English)."""
        return self.phrase if self.phrase is not None else as_said(self.message)

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

    def describe_phrase(self) -> Phrase:
        """`describe` as a phrase: its English is `describe()` exactly."""
        said = self.message_phrase()
        if self.section:
            said = P("%(reason)s [%(section)s]", reason=said, section=section_term(self.section))
        if self.alternatives:
            shown = self.alternatives[:30]
            more = len(self.alternatives) - len(shown)
            said = P("%(reason)s; legal now: %(actions)s", reason=said, actions=", ".join(shown))
            if more > 0:
                said = PN(
                    "%(reason)s (and %(n)s more)", "%(reason)s (and %(n)s more)", more, reason=said
                )
        return said

    def said(self) -> Phrase:
        """`str(error)` as a phrase: its English is `str(error)` exactly."""
        return said_refusal(self.code, self.describe_phrase(), self.line)

    def __str__(self) -> str:
        prefix = f"line {self.line}: " if self.line is not None else ""
        return f"{prefix}{self.code}: {self.describe()}"


def section_term(section: str) -> Term:
    """A rulebook section a refusal cites (`Purchase, p. 10`): the catalogue names it as
    the rulebook in the reader's language does (adjudicator/games/reports.py `SECTIONS`)."""
    return Term(section)


def said_refusal(code: str, reason: Phrase, line: int | None = None) -> Phrase:
    """`line N: CODE: reason` (or `CODE: reason`), as `MoveError.__str__` says it; the
    code is the stable code, the same in every language."""
    if line is None:
        return P("%(code)s: %(reason)s", code=code, reason=reason)
    return P("line %(line)s: %(code)s: %(reason)s", line=line, code=code, reason=reason)


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
