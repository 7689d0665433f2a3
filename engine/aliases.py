"""The notation in other languages: words that stand for the canonical English ones.

A line whose verb is a Polish word (`kup 43`, `opodatkuj 12`, `pas`) reads as its English
verb, and its other words that are Polish names of regions, coalitions, suits, pieces or
sides read as their ids (`armia persja`, `zagraj 43 lewo`, `droga kabul-pendżab`). Only a
line with a translated verb has its arguments translated, so an English line means
exactly what it always did. What is recorded is the canonical English text
(`format_action`), never the alias. The words follow the Polish rulebook's vocabulary:
zakup, zagranie, opodatkowanie, dar, budowa, ruch, zdrada, walka (docs/notation.md lists
them). Each word is given with and without its diacritics, as players type either.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_VERBS_PL: Final = {
    "purchase": ("kup", "zakup"),
    "play": ("zagraj", "zagranie"),
    "pass": ("pas", "spasuj"),
    "tax": ("opodatkuj", "opodatkowanie", "podatek"),
    "gift": ("dar",),
    "build": ("buduj", "budowa"),
    "move": ("ruch",),
    "betray": ("zdradź", "zdrada"),
    "battle": ("walcz", "walka"),
    "loyalty": ("lojalność",),
    "demand": ("żądaj", "zażądaj"),
    "waive": ("daruj",),
    "pay": ("zapłać",),
    "refuse": ("odmów",),
    "road": ("droga",),
    "army": ("armia",),
    "spy": ("szpieg",),
    "take": ("weź",),
    "discard": ("odrzuć",),
    "choose": ("wybierz",),
    "collect": ("pobierz",),
    "march": ("marsz",),
    "remove": ("usuń",),
    "accept": ("przyjmij",),
    "decline": ("pomiń",),
    "done": ("koniec", "gotowe"),
    "policy": ("dyspozycja",),
}
_WORDS_PL: Final = {
    # regions
    "kabul": ("kabul",),
    "herat": ("herat",),
    "kandahar": ("kandahar",),
    "persia": ("persja",),
    "punjab": ("pendżab",),
    "transcaspia": ("zakaspie",),
    # coalitions
    "afghan": ("afgański", "afgańczycy"),
    "british": ("brytyjski", "brytyjczycy"),
    "russian": ("rosyjski", "rosjanie"),
    # suits
    "economic": ("ekonomiczny",),
    "military": ("militarny",),
    "political": ("polityczny",),
    "intelligence": ("wywiadowczy",),
    # pieces
    "army": ("armia",),
    "road": ("droga",),
    "tribe": ("plemię",),
    "spy": ("szpieg",),
    "gift": ("dar",),
    # sides of the court
    "left": ("lewo", "lewy", "lewa"),
    "right": ("prawo", "prawy", "prawa"),
}


def _plain(word: str) -> str:
    """The word without diacritics (`ł` has no decomposition and is mapped by hand)."""
    folded = unicodedata.normalize("NFD", word.replace("ł", "l").replace("Ł", "L"))
    return "".join(c for c in folded if not unicodedata.combining(c))


def _table(source: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {form: canonical for canonical, words in source.items() for w in words
            for form in (w, _plain(w))}  # fmt: skip


VERB_ALIASES: Final[dict[str, str]] = _table(_VERBS_PL)
WORD_ALIASES: Final[dict[str, str]] = _table(_WORDS_PL)
_JOINED: Final = re.compile(r"([-_/])")


def canonical_verb(word: str) -> str | None:
    """The English verb a translated verb stands for, or None."""
    return VERB_ALIASES.get(word.lower())


def canonical_word(word: str) -> str:
    """An argument with its translated names read as ids (`kabul-pendżab` is
    `kabul-punjab`); any other word is kept as it is (a card's name, a player's)."""
    parts = _JOINED.split(word)
    return "".join(WORD_ALIASES.get(p.lower(), p) if i % 2 == 0 else p for i, p in enumerate(parts))


_LINE: Final = re.compile(
    r"^(\s*(?:[A-Za-z][A-Za-z0-9_.-]*\s*:\s*)?)([^\s#]+)([^#]*)(#.*)?$", re.S
)  # prefix, verb, arguments, comment


def english_line(line: str) -> str:
    """A move line with a translated verb in the canonical English words (`kup mohan` is
    `purchase mohan`); any other line as it is. Comments and a `NAME:` prefix are kept."""
    body = line.rstrip("\r\n")
    end = line[len(body) :]
    match = _LINE.match(body)
    if match is None:
        return line
    prefix, verb, rest, comment = match.groups()
    english = canonical_verb(verb)
    if english is None:
        return line
    words = re.split(r"(\s+)", rest)
    args = "".join(canonical_word(w) if i % 2 == 0 else w for i, w in enumerate(words))
    return f"{prefix}{english}{args}{comment or ''}{end}"


def english_text(text: str) -> str:
    """A move file with every translated line in English (see `english_line`)."""
    return "".join(english_line(line) for line in text.splitlines(keepends=True))
