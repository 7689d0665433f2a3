"""Words for players in a form that can be translated, with no I/O: a message and its
parameters.

The engine speaks English, and its English is canonical (golden files, logs, tests). A
`Phrase` is that English kept apart: its `message` is an English text with named
parameters (`buy %(card)s`), which is also the message id of the translation catalogues;
`str(phrase)` is the English. Whoever shows it to a player in another language looks the
message up in that language's catalogue and renders the parameters the same way
(adjudicator/home/translations.py). A parameter may itself be a Phrase, or a `Term` (a
region or coalition name that has a translation), or a plain value kept as is (a player's
name, a number, a card's printed name).

`P` and `PN` build phrases; extraction (`make messages`) knows them as gettext keywords.
"""

from __future__ import annotations

from typing import Final, Union

Value = Union[str, int, "Phrase", "Term"]


class Term:
    """A word with a translation of its own (`Kabul`, `British`), or a name kept as is.

    A value: equal to another with the same fields, hashable, never changed (the fields
    are Final). A plain class rather than a frozen dataclass, whose generated `__init__`
    runs as Python even in the compiled engine: terms and phrases are made on every line
    of every log (docs/development.md#the-compiled-engine)."""

    def __init__(self, text: str, translated: bool = True, message: str | None = None) -> None:
        self.text: Final = text
        self.translated: Final = translated
        # The message to translate, when not `text` (an id's name).
        self.message: Final = message

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Term):
            return NotImplemented
        return (self.text, self.translated, self.message) == (
            other.text,
            other.translated,
            other.message,
        )

    def __hash__(self) -> int:
        return hash((self.text, self.translated, self.message))

    def __repr__(self) -> str:
        return f"Term(text={self.text!r}, translated={self.translated!r}, message={self.message!r})"


class Phrase:
    """An English message with named parameters; `plural` and `n` when it counts.

    A value like Term: equal to another with the same fields, never changed (not hashable:
    its parameters are a dict)."""

    def __init__(
        self,
        message: str,
        params: dict[str, Value] | None = None,
        plural: str | None = None,
        n: int = 0,
    ) -> None:
        self.message: Final = message
        self.params: Final[dict[str, Value]] = {} if params is None else params
        self.plural: Final = plural
        self.n: Final = n

    __hash__ = None  # type: ignore[assignment]  # the parameters are a dict

    def __str__(self) -> str:
        # `%s` calls str() on a Term or a Phrase itself; this is on the engine's hot path
        # (every log line), so no copy of the parameters is made for a plain message.
        if self.plural is None:
            return self.message % self.params
        return (self.message if self.n == 1 else self.plural) % {"n": self.n, **self.params}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Phrase):
            return NotImplemented
        return (self.message, self.params, self.plural, self.n) == (
            other.message,
            other.params,
            other.plural,
            other.n,
        )

    def __repr__(self) -> str:
        return (
            f"Phrase(message={self.message!r}, params={self.params!r}, "
            f"plural={self.plural!r}, n={self.n!r})"
        )


def P(message: str, **params: Value) -> Phrase:
    """A phrase: `P("buy %(card)s", card=...)`."""
    return Phrase(message, params)  # the keywords' dict is the call's own


def PN(singular: str, plural: str, n: int, **params: Value) -> Phrase:
    """A counted phrase: `PN("%(n)s rupee", "%(n)s rupees", 3)`."""
    return Phrase(singular, params, plural, n)


def T(text: str) -> Term:
    """A term that has a translation (region, coalition, suit); extracted as a message."""
    return Term(text)
