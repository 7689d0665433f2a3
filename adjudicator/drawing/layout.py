"""Where the board's parts are, and how they look: the map's schematic geometry (each region
a rectangle, two regions touching along an edge exactly when the engine's map
`engine.cards.BORDERS` says they share a border, so adjacency can be read off the drawing),
the colours of coalitions, seats and regions, who sits where, and the named looks of text.
"""

from __future__ import annotations

from dataclasses import dataclass

from adjudicator.drawing import svg
from engine.view_types import View

WIDTH = 800
MAP_TOP = 40
MAP_BOTTOM = 440
COALITION_COLOURS = {"afghan": "#1f1f1f", "british": "#b34700", "russian": "#005b96"}
COALITION_LETTERS = {"afghan": "A", "british": "B", "russian": "R"}
# Okabe and Ito's palette, which stays distinct under the common colour-vision deficiencies;
# the seat number inside each marker says the same again.
SEAT_COLOURS = ("#E69F00", "#56B4E9", "#009E73", "#CC79A7", "#F0E442")
REGION_FILLS = {
    "transcaspia": "#e9e2cf",
    "persia": "#efe3c4",
    "herat": "#e4dcc0",
    "kabul": "#ece6d2",
    "kandahar": "#e8dbbd",
    "punjab": "#e2e6cc",
}
VP_CELLS = 24  # the track runs 0 to 23; a score beyond it widens the cells
FONT = "DejaVu Sans, Liberation Sans, Arial, sans-serif"


@dataclass(frozen=True)
class Box:
    x: float
    y: float
    w: float
    h: float


# Rectangles that touch along an edge exactly where the map has a border (tested).
REGION_BOXES: dict[str, Box] = {
    "transcaspia": Box(10, 40, 460, 110),
    "persia": Box(10, 150, 150, 290),
    "herat": Box(160, 150, 160, 290),
    "kabul": Box(320, 150, 270, 145),
    "kandahar": Box(320, 295, 270, 145),
    "punjab": Box(590, 150, 200, 290),
}
LEGEND = Box(480, 40, 310, 106)


def shared_edge(first: Box, second: Box) -> tuple[float, float, float, float] | None:
    """The segment two boxes share (x1, y1, x2, y2), or None when they only meet at a
    corner or not at all."""
    for a, b in ((first, second), (second, first)):
        if a.x + a.w == b.x:  # a west of b
            top, bottom = max(a.y, b.y), min(a.y + a.h, b.y + b.h)
            if bottom > top:
                return (b.x, top, b.x, bottom)
        if a.y + a.h == b.y:  # a north of b
            left, right = max(a.x, b.x), min(a.x + a.w, b.x + b.w)
            if right > left:
                return (left, b.y, right, b.y)
    return None


class Seats:
    """Who sits where: a player's number (from 1) and colour, by name."""

    def __init__(self, view: View) -> None:
        self.names = [str(p["name"]) for p in view["players"]]

    def number(self, name: str) -> int:
        return self.names.index(name) + 1 if name in self.names else 0

    def __repr__(self) -> str:
        return f"Seats({self.names!r})"  # all a drawing depends on: a key of `kept`

    def colour(self, name: str) -> str:
        number = self.number(name)
        return SEAT_COLOURS[(number - 1) % len(SEAT_COLOURS)] if number else "#ffffff"


# Named looks, written as presentation attributes: the pages' Content-Security-Policy
# forbids inline style (a `<style>` element or a style attribute) in SVG shown inline.
LOOKS: dict[str, dict[str, svg.Attr | None]] = {
    "": {},
    "start": {"text-anchor": "start"},
    "heading": {"text-anchor": "start", "font-weight": "bold"},
    "region-name": {"text-anchor": "start", "font-weight": "bold", "font-size": 17},
    "faint": {"text-anchor": "start", "fill": "#5a5a5a"},
    "on-dark": {"fill": "#ffffff", "font-weight": "bold"},
    "on-light": {"fill": "#000000"},
}


def text(x: float, y: float, content: str, look: str = "", **more: svg.Attr) -> str:
    values = dict(LOOKS[look])
    values.update({key.replace("_", "-"): value for key, value in more.items()})
    return svg.text(x, y, content, values)


FONT_SIZE = 14  # the board's text, as its root sets it (board.py)
# The width of a character, as a share of the font size, at the most: bold sans-serif
# capitals and wide letters come near it; most text is narrower. An estimate that errs
# wide, so that what it lets through is never cut by the box drawn beside it.
CHAR_WIDTH = {False: 0.62, True: 0.68}


def text_width(content: str, font_size: float = FONT_SIZE, *, bold: bool = False) -> float:
    """About how wide `content` is drawn, in the board's units (at most: see CHAR_WIDTH)."""
    return len(content) * font_size * CHAR_WIDTH[bold]


def fitting_size(content: str, room: float, font_size: float = FONT_SIZE, *, bold: bool) -> float:
    """The font size at which `content` fits in `room`: `font_size`, or less for a long
    label (a language's words are longer than English's: "Preferowany aspekt")."""
    wide = text_width(content, font_size, bold=bold)
    return font_size if wide <= room else round(font_size * room / wide, 1)
