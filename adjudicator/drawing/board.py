"""The board as SVG, drawn from a view: the map with its pieces, the tracks and the supply.

The geometry is our own schematic, not the published map: each region is a rectangle and
two regions touch along an edge exactly when the engine's map (`engine.cards.BORDERS`)
says they share a border, so adjacency can be read off the drawing. West is left, north
is up: Transcaspia across the north, Persia in the west, then Herat, Kabul above Kandahar,
and the Punjab in the east.

Colour is never the only mark: coalitions carry their letter (A, B, R), players their seat
number (as in the legend), and each kind of piece has its own shape (a circle for a
tribe, a square for an army, a wide bar for a road, a diamond for a ruler). The root has
`role="img"`, a title and a description that says everything the picture shows, and every
region and border has a `<title>` of its own.

`board_svg(view)` is a pure function of the view: the same view gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from adjudicator.drawing import svg
from adjudicator.drawing.cards import card_label
from engine.cards import BORDERS, COALITIONS, REGION_IDS, REGIONS, SUITS

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


class _Seats:
    """Who sits where: a player's number (from 1) and colour, by name."""

    def __init__(self, view: dict[str, Any]) -> None:
        self.names = [str(p["name"]) for p in view["players"]]

    def number(self, name: str) -> int:
        return self.names.index(name) + 1 if name in self.names else 0

    def __repr__(self) -> str:
        return f"_Seats({self.names!r})"  # all a drawing depends on: a key of `_kept`

    def colour(self, name: str) -> str:
        number = self.number(name)
        return SEAT_COLOURS[(number - 1) % len(SEAT_COLOURS)] if number else "#ffffff"


P = ParamSpec("P")
R = TypeVar("R")
_KEPT: dict[str, Any] = {}
_KEPT_LIMIT = 4096


def _kept(function: Callable[P, R]) -> Callable[P, R]:
    """A part of the board drawn once for the same arguments (compared by their `repr`,
    which says everything a part is drawn from). Consecutive positions of a game differ in
    a few places, and a board is drawn at every commit and, by `pamir verify`, again for
    every commit of the history: most regions, borders and tracks are then taken as drawn.
    Bounded, since views come from any game."""

    def drawn(*args: P.args, **options: P.kwargs) -> R:
        key = f"{function.__name__}{args!r}{options!r}"
        found: R | None = _KEPT.get(key)
        if found is None:
            found = function(*args, **options)
            if len(_KEPT) >= _KEPT_LIMIT:
                _KEPT.clear()
            _KEPT[key] = found
        return found

    return drawn


def forget_drawn_parts() -> None:
    """Empty the parts `_kept` holds: the next board is drawn whole (for measuring)."""
    _KEPT.clear()


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


def _text(x: float, y: float, content: str, look: str = "", **more: svg.Attr) -> str:
    values = dict(LOOKS[look])
    values.update({key.replace("_", "-"): value for key, value in more.items()})
    return svg.text(x, y, content, values)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


# -- pieces ---------------------------------------------------------------------------------


def _seat_marker(x: float, y: float, seats: _Seats, name: str, r: float = 10) -> str:
    """A player's round marker with their seat number (tribes, the VP track, the legend)."""
    return svg.element("circle", {"cx": x, "cy": y, "r": r, "fill": seats.colour(name)}) + (
        _text(x, y + 4.5, str(seats.number(name)), "on-light", font_size=13)
    )


def _block(x: float, y: float, coalition: str, w: float = 20, h: float = 20) -> str:
    """A coalition block: an army square, or a road bar when wide."""
    letter = COALITION_LETTERS.get(coalition, "?")
    fill = COALITION_COLOURS.get(coalition, "#777777")
    rect = svg.element(
        "rect", {"x": x - w / 2, "y": y - h / 2, "width": w, "height": h, "rx": 2, "fill": fill}
    )
    return rect + _text(x, y + 4.5, letter, "on-dark", font_size=13)


def _tribe(x: float, y: float, seats: _Seats, name: str, count: int) -> str:
    label = f"{_plural(count, 'tribe')} of {name}"
    return svg.group(
        {"class": "piece tribe", "data-player": name, "data-count": count},
        svg.title(label),
        _seat_marker(x + 10, y, seats, name),
        _text(x + 24, y + 5, f"×{count}", "start"),
    )


def _army(x: float, y: float, coalition: str, count: int) -> str:
    label = f"{_plural(count, coalition + ' army')}".replace("armys", "armies")
    return svg.group(
        {"class": "piece army", "data-coalition": coalition, "data-count": count},
        svg.title(label),
        _block(x + 10, y, coalition),
        _text(x + 24, y + 5, f"×{count}", "start"),
    )


def _ruler(x: float, y: float, seats: _Seats, ruler: str | None) -> str:
    if ruler is None:
        return _text(x, y + 5, "no ruler", "faint")
    diamond = f"{x + 9},{y - 9} {x + 18},{y} {x + 9},{y + 9} {x},{y}"
    return svg.group(
        {"class": "ruler", "data-player": ruler},
        svg.title(f"ruled by {ruler}"),
        svg.element("polygon", {"points": diamond, "fill": seats.colour(ruler), "stroke": "#222"}),
        _text(x + 9, y + 4.5, str(seats.number(ruler)), font_size=11),
        _text(x + 24, y + 5, f"ruler: {svg.shorten(ruler, 14)}", "start"),
    )


# -- regions and borders ------------------------------------------------------------------


def _region_pieces(region: dict[str, Any], seats: _Seats) -> list[tuple[str, str, int]]:
    """("tribe", player, n) and ("army", coalition, n) for what stands in a region."""
    tribes = region.get("tribes") or {}
    armies = region.get("armies") or {}
    found = [("tribe", name, int(tribes[name])) for name in seats.names if tribes.get(name)]
    found += [
        ("tribe", name, int(n))
        for name, n in sorted(tribes.items())
        if n and name not in seats.names
    ]
    found += [("army", c, int(armies[c])) for c in COALITIONS if armies.get(c)]
    return found


def _region_text(region_id: str, region: dict[str, Any]) -> str:
    name = REGIONS[region_id].name  # type: ignore[index]
    parts = [f"ruled by {region['ruler']}" if region.get("ruler") else "no ruler"]
    tribes = region.get("tribes") or {}
    armies = region.get("armies") or {}
    if any(tribes.values()):
        parts.append("tribes: " + ", ".join(f"{n} {who}" for who, n in tribes.items() if n))
    if any(armies.values()):
        parts.append("armies: " + ", ".join(f"{n} {c}" for c, n in armies.items() if n))
    return f"{name}: " + "; ".join(parts)


@_kept
def _region(region_id: str, region: dict[str, Any], seats: _Seats) -> str:
    box = REGION_BOXES[region_id]
    name = REGIONS[region_id].name  # type: ignore[index]
    shapes = [
        svg.title(_region_text(region_id, region)),
        svg.element(
            "rect",
            {
                "x": box.x,
                "y": box.y,
                "width": box.w,
                "height": box.h,
                "fill": REGION_FILLS[region_id],
                "stroke": "#6b5a45",
            },
        ),
        _text(box.x + 12, box.y + 30, name, "region-name"),
        _ruler(box.x + 12, box.y + 52, seats, region.get("ruler")),
    ]
    per_line = max(1, int((box.w - 24) // 62))
    for index, (kind, who, count) in enumerate(_region_pieces(region, seats)):
        x = box.x + 12 + (index % per_line) * 62
        y = box.y + 80 + (index // per_line) * 26
        shapes.append(
            _tribe(x, y, seats, who, count) if kind == "tribe" else _army(x, y, who, count)
        )
    return svg.group({"id": f"region-{region_id}", "class": "region"}, *shapes)


def _border_text(border_id: str, roads: dict[str, int]) -> str:
    first, second = BORDERS[border_id].regions
    names = f"{REGIONS[first].name}–{REGIONS[second].name}"
    built = ", ".join(f"{n} {c}" for c, n in roads.items() if n)
    return f"border {names}: " + (f"roads {built}" if built else "no roads")


@_kept
def _border(border_id: str, roads: dict[str, int]) -> str:
    first, second = BORDERS[border_id].regions
    edge = shared_edge(REGION_BOXES[first], REGION_BOXES[second])
    assert edge is not None, border_id  # the geometry follows the map (tested)
    x1, y1, x2, y2 = edge
    line = svg.element(
        "line",
        {
            "x1": x1,
            "y1": y1,
            "x2": x2,
            "y2": y2,
            "stroke": "#3b2a1a",
            "stroke-width": 5,
            "stroke-dasharray": "10 4",
        },
    )
    built = [(c, int(roads[c])) for c in COALITIONS if roads.get(c)]
    vertical = x1 == x2
    # Roads sit towards the lower or right end of the edge, clear of the region's labels.
    cx = x1 if vertical else x1 + (x2 - x1) * 0.62
    cy = y1 + (y2 - y1) * 0.72 if vertical else y1
    marks = []
    for index, (coalition, count) in enumerate(built):
        offset = (index - (len(built) - 1) / 2) * (22 if vertical else 50)
        x, y = (cx, cy + offset) if vertical else (cx + offset, cy)
        marks.append(
            svg.group(
                {"class": "piece road", "data-coalition": coalition, "data-count": count},
                svg.title(f"{_plural(count, coalition + ' road')}"),
                _block(x, y, coalition, w=46, h=18),
                _text(x + 14, y + 4.5, str(count), "on-dark", font_size=12),
            )
        )
    return svg.group(
        {"id": f"border-{border_id}", "class": "border"},
        svg.title(_border_text(border_id, roads)),
        line,
        *marks,
    )


def _roads_of(view: dict[str, Any], border_id: str) -> dict[str, int]:
    found: dict[str, int] = (view.get("roads") or {}).get(border_id) or {}
    return found


# -- the panels around the map ----------------------------------------------------------


def _legend(view: dict[str, Any], seats: _Seats) -> str:
    players = [(str(p["name"]), p.get("loyalty") or "no loyalty yet") for p in view["players"]]
    return _legend_of(players, seats)


@_kept
def _legend_of(players: list[tuple[str, str]], seats: _Seats) -> str:
    x, y = LEGEND.x + 10, LEGEND.y + 16
    lines = [_text(x, y, "Players (seat order)", "heading")]
    for index, (player, loyalty) in enumerate(players):
        row_y = y + 17 + index * 16
        name = svg.shorten(player, 16)
        lines.append(_seat_marker(x + 8, row_y - 4, seats, player, r=7))
        lines.append(_text(x + 22, row_y, f"{name}, {loyalty}", "start", font_size=13))
    shapes = "● tribe  ■ army  ▬ road  ◆ ruler; A afghan, B british, R russian"
    key = _text(WIDTH - 10, MAP_BOTTOM + 20, shapes, text_anchor="end", font_size=12)
    return svg.group({"class": "legend"}, *lines, key)


def _suits(view: dict[str, Any], y: float) -> str:
    return _suits_of(view.get("favored"), y)


@_kept
def _suits_of(favored: Any, y: float) -> str:
    parts = [_text(10, y + 5, "Favored suit", "heading")]
    for index, suit in enumerate(SUITS):
        x = 150 + index * 150
        chosen = suit == favored
        parts.append(
            svg.element(
                "rect",
                {
                    "x": x,
                    "y": y - 13,
                    "width": 140,
                    "height": 26,
                    "rx": 4,
                    "stroke": "#2b2118",
                    "fill": "#ffffff" if not chosen else "#2b2118",
                },
            )
        )
        label = f"★ {suit}" if chosen else suit
        parts.append(_text(x + 70, y + 5, label, "on-dark" if chosen else ""))
    return svg.group(
        {"class": "favored", "data-suit": str(favored)},
        svg.title(f"favored suit: {favored}"),
        *parts,
    )


def _checks(view: dict[str, Any], y: float) -> str:
    return _checks_of(int(view.get("checks_resolved") or 0), int(view.get("checks_left") or 0), y)


@_kept
def _checks_of(resolved: int, left: int, y: float) -> str:
    parts = [_text(10, y + 5, "Dominance Checks", "heading")]
    for index in range(resolved + left):
        done = index < resolved
        parts.append(
            svg.element(
                "circle",
                {
                    "cx": 190 + index * 26,
                    "cy": y,
                    "r": 9,
                    "fill": "#2b2118" if done else "#ffffff",
                    "stroke": "#2b2118",
                    "stroke-width": 2,
                },
            )
        )
        if done:
            parts.append(_text(190 + index * 26, y + 4.5, "✓", "on-dark", font_size=12))
    words = f"{resolved} resolved, {left} to come"
    parts.append(_text(200 + (resolved + left) * 26, y + 5, words, "start"))
    return svg.group(
        {"class": "checks", "data-resolved": resolved, "data-left": left},
        svg.title(f"Dominance Checks: {words}"),
        *parts,
    )


def _vp_track(view: dict[str, Any], seats: _Seats, y: float) -> tuple[str, float]:
    scores = [(str(p["name"]), int(p.get("vp") or 0)) for p in view["players"]]
    return _track(scores, seats, y)


@_kept
def _track(scores: list[tuple[str, int]], seats: _Seats, y: float) -> tuple[str, float]:
    cells = max(VP_CELLS, max((vp for _, vp in scores), default=0) + 1)
    width = (WIDTH - 20) / cells
    stacked: dict[int, int] = {}
    for _, vp in scores:
        stacked[vp] = stacked.get(vp, 0) + 1
    height = 22 + 20 * max(stacked.values(), default=1)
    parts = [_text(10, y + 5, "Victory points", "heading")]
    top = y + 14
    for cell in range(cells):
        x = 10 + cell * width
        parts.append(
            svg.element(
                "rect",
                {
                    "x": x,
                    "y": top,
                    "width": width,
                    "height": height,
                    "fill": "#ffffff",
                    "stroke": "#8c8577",
                },
            )
        )
        parts.append(
            _text(x + width / 2, top + height - 6, str(cell), fill="#5a5a5a", font_size=11)
        )
    placed: dict[int, int] = {}
    for name, vp in scores:
        level = placed.get(vp, 0)
        placed[vp] = level + 1
        cx = 10 + vp * width + width / 2
        cy = top + 12 + level * 20
        parts.append(
            svg.group(
                {"class": "vp-marker", "data-player": name, "data-vp": vp},
                svg.title(f"{name}: {_plural(vp, 'victory point')}"),
                _seat_marker(cx, cy, seats, name, r=min(9, width / 2 - 1)),
            )
        )
    return svg.group({"class": "vp-track"}, *parts), height + 36


def _supply(view: dict[str, Any], y: float) -> str:
    return _supply_of(view.get("block_supply") or {}, y)


@_kept
def _supply_of(supply: dict[str, Any], y: float) -> str:
    parts = [_text(10, y + 5, "Blocks in supply", "heading")]
    for index, coalition in enumerate(COALITIONS):
        x = 190 + index * 150
        count = int(supply.get(coalition, 0))
        parts.append(
            svg.group(
                {"class": "supply", "data-coalition": coalition, "data-count": count},
                svg.title(f"{coalition}: {count} blocks in supply"),
                _block(x, y, coalition),
                _text(x + 16, y + 5, f"{coalition} {count}", "start"),
            )
        )
    return svg.group({"class": "supplies"}, *parts)


def _lines(heading: str, items: list[str], y: float, css: str) -> tuple[str, float]:
    """A heading and one line per item (a dash for none); the height used."""
    parts = [_text(10, y + 5, heading, "heading")]
    for index, item in enumerate(items or ["none"]):
        parts.append(_text(180, y + 5 + index * 20, item, "start"))
    return svg.group({"class": css}, *parts), 20 * max(1, len(items)) + 12


def _events(view: dict[str, Any]) -> list[str]:
    found = []
    for effect in view.get("effects") or []:
        owner = f" ({effect['player']})" if effect.get("player") else ""
        found.append(svg.shorten(f"{card_label(int(effect['card']))}{owner}", 70))
    return found


def _hand(view: dict[str, Any]) -> list[str] | None:
    """The viewer's own hand, in a player's view; None in the public view."""
    viewer = view.get("viewer")
    for player in view["players"]:
        if viewer is not None and player["name"] == viewer and player.get("hand") is not None:
            return [card_label(int(card)) for card in player["hand"]]
    return None


# -- the whole ------------------------------------------------------------------------


def describe(view: dict[str, Any]) -> str:
    """The drawing in words: what the `<desc>` says to a screen reader."""
    regions = view.get("regions") or {}
    sentences = [_region_text(r, regions[r]) for r in REGION_IDS if r in regions]
    roads = [
        _border_text(b, _roads_of(view, b))
        for b in sorted(BORDERS)
        if any(_roads_of(view, b).values())
    ]
    sentences.append("; ".join(roads) if roads else "no roads")
    sentences.append(f"favored suit: {view.get('favored')}")
    resolved, left = view.get("checks_resolved"), view.get("checks_left")
    sentences.append(f"Dominance Checks: {resolved} resolved, {left} to come")
    sentences.append(
        "victory points: " + ", ".join(f"{p['name']} {p.get('vp', 0)}" for p in view["players"])
    )
    supply = view.get("block_supply") or {}
    sentences.append(
        "blocks in supply: " + ", ".join(f"{c} {supply.get(c, 0)}" for c in COALITIONS)
    )
    sentences.append("events in force: " + (", ".join(_events(view)) or "none"))
    hand = _hand(view)
    if hand is not None:
        sentences.append(f"{view['viewer']}'s hand: " + (", ".join(hand) or "empty"))
    return ". ".join(sentences) + "."


def _heading(view: dict[str, Any]) -> str:
    if view.get("phase") == "over":
        return "The game is over; winner: " + ", ".join(view.get("winners") or [])
    if view.get("phase") == "setup":
        return "Setup: players choose their loyalty"
    return f"Turn {view.get('turn')}, {view.get('active')} to play"


def board_svg(view: dict[str, Any]) -> str:
    """The board of `view` (public or a player's) as a standalone SVG document."""
    seats = _Seats(view)
    regions = view.get("regions") or {}
    body = [
        _text(10, 26, _heading(view), "heading", font_size=16),
        *(_region(r, regions.get(r) or {}, seats) for r in REGION_IDS),
        *(_border(b, _roads_of(view, b)) for b in sorted(BORDERS)),
        _legend(view, seats),
    ]
    y: float = MAP_BOTTOM + 50
    body.append(_suits(view, y))
    body.append(_checks(view, y + 36))
    track, used = _vp_track(view, seats, y + 72)
    body.append(track)
    y += 72 + used
    body.append(_supply(view, y))
    events, used = _lines("Events in force", _events(view), y + 34, "events")
    body.append(events)
    y += 34 + used
    hand = _hand(view)
    if hand is not None:
        part, used = _lines(f"{svg.shorten(str(view['viewer']), 16)}'s hand", hand, y + 6, "hand")
        body.append(part)
        y += 6 + used
    height = y + 10
    label = f"The board: {_heading(view)}"
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
            svg.element("desc", {"id": "board-desc"}, svg.escape(describe(view))),
            svg.element(
                "rect", {"x": 0, "y": 0, "width": WIDTH, "height": height, "fill": "#fbfaf6"}
            ),
            *body,
        )
        + "\n"
    )
