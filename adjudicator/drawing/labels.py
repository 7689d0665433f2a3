"""The board's words, in the reader's language (docs/i18n.md): the names of coalitions,
suits and regions, counted pieces (a Polish adjective agrees with its count), and card
labels, as printed but where the Polish rulebook names the card.
"""

from __future__ import annotations

from typing import Any

from adjudicator.drawing.cards import card_name
from adjudicator.home.translations import N_, Words
from engine.rules.words import card_name_term

ENGLISH = Words()


def plural(singular: str, many: str) -> tuple[str, str]:
    """A counted message, marked for extraction (`plural` is a keyword of `make messages`)
    where a table holds it; `Words.plural` says it with its count."""
    return singular, many


# The names the drawing shows, by id: in English the id itself (or the printed name of a
# region), as the drawing always wrote them.
NAMES = {
    "afghan": N_("afghan"),
    "british": N_("british"),
    "russian": N_("russian"),
    "economic": N_("economic"),
    "military": N_("military"),
    "political": N_("political"),
    "intelligence": N_("intelligence"),
    "kabul": N_("Kabul"),
    "herat": N_("Herat"),
    "kandahar": N_("Kandahar"),
    "persia": N_("Persia"),
    "punjab": N_("Punjab"),
    "transcaspia": N_("Transcaspia"),
}
# Counted pieces of a coalition: one message each, since a Polish adjective agrees with
# its count (1 afgańska armia, 2 afgańskie armie, 5 afgańskich armii).
ARMIES = {
    "afghan": plural("%(n)s afghan army", "%(n)s afghan armies"),
    "british": plural("%(n)s british army", "%(n)s british armies"),
    "russian": plural("%(n)s russian army", "%(n)s russian armies"),
}
ROADS = {
    "afghan": plural("%(n)s afghan road", "%(n)s afghan roads"),
    "british": plural("%(n)s british road", "%(n)s british roads"),
    "russian": plural("%(n)s russian road", "%(n)s russian roads"),
}
# The English has always said "blocks", even of one.
IN_SUPPLY = plural("%(coalition)s: %(n)s blocks in supply", "%(coalition)s: %(n)s blocks in supply")
# A count of a coalition's blocks (armies, roads) in a list: "armies: 2 afghan".
BLOCKS = {
    "afghan": plural("%(n)s afghan", "%(n)s afghan"),
    "british": plural("%(n)s british", "%(n)s british"),
    "russian": plural("%(n)s russian", "%(n)s russian"),
}


def name(value: Any, words: Words) -> str:
    """A coalition, suit or region by its id, in `words` (anything else as it is)."""
    key = str(value)
    if key not in NAMES:
        return key
    return words(NAMES[key])


def counted(table: dict[str, tuple[str, str]], coalition: str, n: int, words: Words) -> str:
    if coalition not in table:  # not a coalition of the game: said as the drawing always did
        return f"{n} {coalition}"
    singular, many = table[coalition]
    return words.plural(singular, many, n)


def card_in_words(number: int, words: Words) -> str:
    """A card's label: its name as printed, but where the Polish rulebook names it."""
    return f"{number} {words.said(card_name_term(card_name(number)))}"
