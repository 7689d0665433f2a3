"""The board as SVG, drawn from a view: the map with its pieces, the tracks and the supply.

The geometry is our own schematic, not the published map: each region is a rectangle and
two regions touch along an edge exactly when the engine's map (`engine.cards.BORDERS`)
says they share a border, so adjacency can be read off the drawing. West is left, north
is up: Transcaspia across the north, Persia in the west, then Herat, Kabul above Kandahar,
and the Punjab in the east.

Colour is never the only mark: coalitions carry their letter (A, B, R), players their seat
number (as in the legend), and each kind of piece has its own shape (`pieces`). The root
has `role="img"`, a title and a description that says everything the picture shows
(`description`), and every region and border has a `<title>` of its own. The geometry is
in `layout`, the words in `labels`, the panels around the map in `panels`.

Every label is in the reader's language (`board_svg(view, words)`, English by default):
the game's language in the repository's `board.svg`, each player's in their mail, the
visitor's on the pages (docs/i18n.md). Card names stay as printed, but for the few the
Polish rulebook names.

`board_svg(view, words)` is a pure function of the view and the language: the same view
gives the same bytes.
"""

from __future__ import annotations

from adjudicator.drawing import svg
from adjudicator.drawing.description import describe, events_in_force, roads_of, viewer_hand
from adjudicator.drawing.labels import ENGLISH
from adjudicator.drawing.layout import FONT, MAP_BOTTOM, WIDTH, Seats, text
from adjudicator.drawing.panels import checks, item_lines, legend, suits, supply, vp_track
from adjudicator.drawing.pieces import draw_border, draw_region
from adjudicator.home.translations import Words
from engine.cards import BORDERS, REGION_IDS
from engine.view_types import View


def _heading(view: View, words: Words) -> str:
    if view.get("phase") == "over":
        winners = ", ".join(view.get("winners") or [])
        return words("The game is over; winner: %(winners)s", winners=winners)
    if view.get("phase") == "setup":
        return words("Setup: players choose their loyalty")
    return words(
        "Turn %(turn)s, %(player)s to play", turn=view.get("turn"), player=view.get("active")
    )


def board_svg(view: View, words: Words = ENGLISH) -> str:
    """The board of `view` (public or a player's) as a standalone SVG document, its labels
    in `words` (English by default)."""
    seats = Seats(view)
    regions = view.get("regions") or {}
    heading = _heading(view, words)
    body = [
        text(10, 26, heading, "heading", font_size=16),
        *(draw_region(r, regions.get(r) or {}, seats, words) for r in REGION_IDS),
        *(draw_border(b, roads_of(view, b), words) for b in sorted(BORDERS)),
        legend(view, seats, words),
    ]
    y: float = MAP_BOTTOM + 50
    body.append(suits(view, y, words))
    body.append(checks(view, y + 36, words))
    track, used = vp_track(view, seats, y + 72, words)
    body.append(track)
    y += 72 + used
    body.append(supply(view, y, words))
    events, used = item_lines(
        words("Events in force"), events_in_force(view, words), y + 34, "events", words
    )
    body.append(events)
    y += 34 + used
    hand = viewer_hand(view, words)
    if hand is not None:
        viewer = svg.shorten(str(view["viewer"]), 16)
        part, used = item_lines(
            words("%(player)s's hand", player=viewer), hand, y + 6, "hand", words
        )
        body.append(part)
        y += 6 + used
    height = y + 10
    label = words("The board: %(heading)s", heading=heading)
    return (
        svg.element(
            "svg",
            {
                "xmlns": "http://www.w3.org/2000/svg",
                "viewBox": f"0 0 {WIDTH} {svg.number(height)}",
                "width": WIDTH,
                "height": height,
                "role": "img",
                "aria-labelledby": "board-title board-desc",
                "class": "board",
                "font-family": FONT,
                "font-size": 14,
                "text-anchor": "middle",
                "fill": "#1b1b1b",
            },
            svg.element("title", {"id": "board-title"}, svg.escape(label)),
            svg.element("desc", {"id": "board-desc"}, svg.escape(describe(view, words))),
            svg.element(
                "rect", {"x": 0, "y": 0, "width": WIDTH, "height": height, "fill": "#fbfaf6"}
            ),
            *body,
        )
        + "\n"
    )
