"""Turning what the game repository holds into safe HTML: reports and view fragments.

Reports are Markdown written by the adjudicator, but some of their text comes from players
(a refused move's reason quotes what they wrote). So raw HTML in a report is shown as text,
never passed through; links keep only http(s), mailto and relative targets; images become
their alt text. Tables get column and row headers and a caption for screen readers.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from functools import lru_cache
from typing import Any

import markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor
from markupsafe import Markup

from engine.cards import BORDERS, COURT_CARDS, REGIONS, card_name

SAFE_SCHEMES = ("", "http", "https", "mailto")
CONTROL = re.compile(r"[\x00-\x20\x7f]+")
HEADING = re.compile(r"^h([1-6])$")


def is_safe_url(url: str) -> bool:
    """A link target that cannot run script: relative, http(s) or mailto."""
    cleaned = CONTROL.sub("", url)  # browsers ignore these inside a scheme
    scheme, sep, _ = cleaned.partition(":")
    if not sep or "/" in scheme or "?" in scheme or "#" in scheme:
        return True  # no scheme at all: a relative link
    return scheme.lower() in SAFE_SCHEMES


class _Tidy(Treeprocessor):
    """Shift headings under the page's own, defuse links and images, label tables."""

    def __init__(self, md: markdown.Markdown, shift: int) -> None:
        super().__init__(md)
        self.shift = shift

    def run(self, root: ET.Element) -> None:
        for element in root.iter():
            if match := HEADING.match(element.tag):
                element.tag = f"h{min(6, int(match.group(1)) + self.shift)}"
            elif element.tag == "a" and not is_safe_url(element.get("href", "")):
                element.attrib.pop("href", None)
            elif element.tag == "img":
                alt = element.get("alt", "")
                element.attrib.clear()
                element.tag, element.text = "span", alt
        self._label_tables(root)

    def _label_tables(self, root: ET.Element) -> None:
        previous: ET.Element | None = None
        for element in root:
            if element.tag == "table":
                for cell in element.iterfind("thead/tr/th"):
                    cell.set("scope", "col")
                for row in element.iterfind("tbody/tr"):
                    if len(row) and row[0].tag == "td":
                        row[0].tag = "th"
                        row[0].set("scope", "row")
                if previous is not None and HEADING.match(previous.tag):
                    caption = ET.Element("caption", {"class": "visually-hidden"})
                    caption.text = "".join(previous.itertext())
                    element.insert(0, caption)
            previous = element


class _TidyExtension(Extension):
    def __init__(self, shift: int) -> None:
        super().__init__()
        self.shift = shift

    def extendMarkdown(self, md: markdown.Markdown) -> None:
        md.preprocessors.deregister("html_block")
        md.inlinePatterns.deregister("html")
        md.treeprocessors.register(_Tidy(md, self.shift), "pamir-tidy", 0)


@lru_cache(maxsize=1024)
def report_html(text: str, shift: int = 0) -> Markup:
    """A report's Markdown as HTML, its headings `shift` levels lower (reports never
    change once committed, so the result is cached)."""
    md = markdown.Markdown(extensions=["tables", _TidyExtension(shift)])
    return Markup(md.convert(text))  # raw HTML was disabled above


# -- Jinja filters for the view --------------------------------------------------------------


def card_label(number: int | None) -> str:
    if number is None:
        return "—"
    return f"{number} {card_name(number)}"


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


def border_name(border: str) -> str:
    if border not in BORDERS:
        return border
    first, second = BORDERS[border].regions
    return f"{region_name(first)}–{region_name(second)}"


def join_names(names: list[str] | None) -> str:
    items = list(names or [])
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


FILTERS: dict[str, Any] = {
    "card": card_label,
    "card_details": card_details,
    "counts": counts,
    "region_name": region_name,
    "border_name": border_name,
    "names": join_names,
}
