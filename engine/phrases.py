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

from dataclasses import dataclass, field
from typing import Union

Value = Union[str, int, "Phrase", "Term"]


@dataclass(frozen=True, slots=True)
class Term:
    """A word with a translation of its own (`Kabul`, `British`), or a name kept as is."""

    text: str
    translated: bool = True
    message: str | None = None  # the message to translate, when not `text` (an id's name)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class Phrase:
    """An English message with named parameters; `plural` and `n` when it counts."""

    message: str
    params: dict[str, Value] = field(default_factory=dict)
    plural: str | None = None
    n: int = 0

    def __str__(self) -> str:
        # `%s` calls str() on a Term or a Phrase itself; this is on the engine's hot path
        # (every log line), so no copy of the parameters is made for a plain message.
        if self.plural is None:
            return self.message % self.params
        return (self.message if self.n == 1 else self.plural) % {"n": self.n, **self.params}


def P(message: str, **params: Value) -> Phrase:
    """A phrase: `P("buy %(card)s", card=...)`."""
    return Phrase(message, params)  # the keywords' dict is the call's own


def PN(singular: str, plural: str, n: int, **params: Value) -> Phrase:
    """A counted phrase: `PN("%(n)s rupee", "%(n)s rupees", 3)`."""
    return Phrase(singular, params, plural, n)


def T(text: str) -> Term:
    """A term that has a translation (region, coalition, suit); extracted as a message."""
    return Term(text)
