"""Turning what the game repository holds into safe HTML: reports and view fragments.

Reports are Markdown written by the adjudicator, but some of their text comes from players
(a move's note, a refused move's reason). They render through
`adjudicator.games.safehtml`, the renderer the mail uses too: raw HTML is shown as text,
the result is sanitized against an allow-list (links keep only http(s), mailto and relative
targets), images become their alt text, tables get headers and a caption for screen readers.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from adjudicator.drawing.board import board_svg
from adjudicator.drawing.cards import card_face as card_face
from adjudicator.drawing.cards import court_faces, market_faces
from adjudicator.games.safehtml import is_safe_url as is_safe_url
from adjudicator.games.safehtml import markdown_html
from adjudicator.games.wording import in_words
from engine.cards import BORDERS, COURT_CARDS, EVENT_CARDS, REGIONS, card_name
from engine.view_types import PlayerRecord, View


@lru_cache(maxsize=1024)
def report_html(text: str, shift: int = 0) -> Markup:
    """A report's Markdown as HTML, its headings `shift` levels lower, with its card names
    linked to their pages (reports never change once committed, so the result is cached)."""
    return Markup(link_cards(markdown_html(text, shift)))  # sanitized by markdown_html


# A card named as the reports name it: `76 Fath-Ali Shah` (tables) or `Herati Bandits (54)`
# (sentences). Only a number that belongs to the name beside it is linked.
_NUMBER_FIRST = re.compile(r"(?<![\w#&/])(\d{1,3}) ")
_NUMBER_AFTER = re.compile(r" \((\d{1,3})\)")
_SEGMENTS = re.compile(r"(<a\b.*?</a>|<[^>]*>)", re.S)  # tags, and links left whole


def _named(number: int) -> str | None:
    if number in COURT_CARDS or number in EVENT_CARDS:
        return html.escape(card_name(number), quote=False)
    return None


def _link_text(text: str) -> str:
    """Card names in a stretch of HTML text (no tags in it) as links to their pages."""
    out: list[str] = []
    at = 0
    for match in _NUMBER_FIRST.finditer(text):
        number, name = int(match.group(1)), _named(int(match.group(1)))
        if match.start() < at or name is None or not text.startswith(name, match.end()):
            continue
        end = match.end() + len(name)
        out += [
            text[at : match.start()],
            f'<a href="/cards/{number}">{text[match.start() : end]}</a>',
        ]
        at = end
    rest = text[at:]
    pieces: list[str] = []
    last = 0
    for match in _NUMBER_AFTER.finditer(rest):
        number, name = int(match.group(1)), _named(int(match.group(1)))
        if name is None or not rest[: match.start()].endswith(name):
            continue
        begin = match.start() - len(name)
        if begin < last:
            continue
        pieces += [rest[last:begin], f'<a href="/cards/{number}">{rest[begin : match.end()]}</a>']
        last = match.end()
    return "".join(out) + "".join(pieces) + rest[last:]


def link_cards(markup: str) -> str:
    """Sanitized HTML with its card names linked to `/cards/N`; text inside tags' own
    attributes and inside existing links is left alone."""
    return "".join(
        part if part.startswith("<") else _link_text(part) for part in _SEGMENTS.split(markup)
    )


# -- Jinja filters for the view --------------------------------------------------------------


def card_label(number: int | None) -> str:
    if number is None:
        return "—"
    return f"{number} {card_name(number)}"


def card_link(number: int | None) -> Markup:
    """The card's label as a link to its page (`/cards/N`)."""
    if number is None or not (number in COURT_CARDS or number in EVENT_CARDS):
        return Markup.escape(card_label(number))
    return Markup('<a href="/cards/{}">{}</a>').format(number, card_label(number))


def board_markup(view: View) -> Markup:
    """The board drawn as inline SVG. Not sanitized as Markdown is: the drawing code
    writes every element itself and escapes every text from the view (names, cards), and
    it uses presentation attributes only, so the CSP's ban on inline style holds."""
    return Markup(board_svg(view))


def market_markup(view: View) -> list[list[Markup]]:
    """The market's card faces (escaped by the drawing code), row by row."""
    return [[Markup(face) for face in row] for row in market_faces(view)]


def court_markup(player: PlayerRecord) -> list[Markup]:
    return [Markup(face) for face in court_faces(player)]


def card_details(number: int) -> str:
    """A court card's suit and region; events say so."""
    card = COURT_CARDS.get(number)
    if card is None:
        return "event"
    return f"{card.suit}, {REGIONS[card.region].name}"


def counts(values: dict[str, int] | None) -> str:
    """`alice 2, bob 1`, or a dash for none."""
    return ", ".join(f"{who} {n}" for who, n in (values or {}).items() if n) or "—"


def region_name(region: str) -> str:
    found = REGIONS.get(region)  # type: ignore[call-overload]
    return str(found.name) if found is not None else region


def border_regions(border: str) -> tuple[str, ...]:
    """The two regions of a border (the border's id alone if it is none)."""
    return tuple(BORDERS[border].regions) if border in BORDERS else (border,)


def border_name(border: str) -> str:
    return "–".join(region_name(region) for region in border_regions(border))


def join_names(names: list[str] | None) -> str:
    items = list(names or [])
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


FILTERS: dict[str, Any] = {
    "in_words": in_words,
    "card": card_label,
    "card_link": card_link,
    "board": board_markup,
    "market_faces": market_markup,
    "court_faces": court_markup,
    "card_details": card_details,
    "counts": counts,
    "region_name": region_name,
    "border_name": border_name,
    "names": join_names,
}
