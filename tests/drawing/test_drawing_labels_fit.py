"""The panels' labels fit beside their boxes in every language: a heading before the
favored suit's boxes or the Dominance Checks' circles, a suit's name in its box
("Preferowany aspe|kt" was cut by the first box in Polish)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.drawing.layout import FONT_SIZE, text_width
from adjudicator.drawing.panels import CHECKS_X, SUIT_BOX_WIDTH, SUIT_BOX_X
from adjudicator.home.translations import Words
from engine.cards import SUITS, Suit

SVG = "{http://www.w3.org/2000/svg}"


def panel(language: str, kind: str, favored: Suit = "political") -> ET.Element:
    view = engine.view(engine.new_game(["alice", "bob"], 3))
    view["favored"] = favored
    root = ET.fromstring(board_svg(view, Words(language)))
    [group] = [g for g in root.iter(f"{SVG}g") if g.get("class") == kind]
    return group


def drawn(label: ET.Element) -> float:
    """The label's estimated width at the size it is drawn."""
    size = float(label.get("font-size") or FONT_SIZE)
    bold = label.get("font-weight") == "bold"
    return text_width(label.text or "", size, bold=bold)


@pytest.mark.parametrize("language", ["en", "pl"])
@pytest.mark.parametrize("favored", SUITS)
def test_the_favored_suit_panel_fits_its_labels(language: str, favored: Suit) -> None:
    group = panel(language, "favored", favored)
    heading, *labels = group.findall(f"{SVG}text")
    assert heading.text == Words(language)("Favored suit")
    assert float(heading.get("x") or 0) + drawn(heading) <= SUIT_BOX_X
    for label in labels:
        assert drawn(label) <= SUIT_BOX_WIDTH, label.text


@pytest.mark.parametrize("language", ["en", "pl"])
def test_the_dominance_checks_heading_ends_before_the_first_circle(language: str) -> None:
    heading = panel(language, "checks").findall(f"{SVG}text")[0]
    assert heading.text == Words(language)("Dominance Checks")
    assert float(heading.get("x") or 0) + drawn(heading) <= CHECKS_X - 9


def test_english_is_drawn_at_the_boards_own_size() -> None:
    """What fits keeps the size it always had: the English board is drawn as before."""
    for kind in ("favored", "checks"):
        assert all(t.get("font-size") in (None, "12") for t in panel("en", kind).iter(f"{SVG}text"))
