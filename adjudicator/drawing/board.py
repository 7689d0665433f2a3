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

Every label is in the reader's language (`board_svg(view, words)`, English by default):
the game's language in the repository's `board.svg`, each player's in their mail, the
visitor's on the pages (docs/i18n.md). Card names stay as printed, but for the few the
Polish rulebook names.

`board_svg(view, words)` is a pure function of the view and the language: the same view
gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ParamSpec, TypeVar

from adjudicator.drawing import svg
from adjudicator.drawing.cards import card_name
from adjudicator.home.translations import N_, Words
from engine.cards import BORDERS, COALITIONS, REGION_IDS, SUITS
from engine.rules.words import card_name_term

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


def _counted(table: dict[str, tuple[str, str]], coalition: str, n: int, words: Words) -> str:
    if coalition not in table:  # not a coalition of the game: said as the drawing always did
        return f"{n} {coalition}"
    singular, many = table[coalition]
    return words.plural(singular, many, n)


def _card(number: int, words: Words) -> str:
    """A card's label: its name as printed, but where the Polish rulebook names it."""
    return f"{number} {words.said(card_name_term(card_name(number)))}"


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


def _tribe(x: float, y: float, seats: _Seats, player: str, count: int, words: Words) -> str:
    label = words.plural(
        "%(n)s tribe of %(player)s", "%(n)s tribes of %(player)s", count, player=player
    )
    return svg.group(
        {"class": "piece tribe", "data-player": player, "data-count": count},
        svg.title(label),
        _seat_marker(x + 10, y, seats, player),
        _text(x + 24, y + 5, f"×{count}", "start"),
    )


def _army(x: float, y: float, coalition: str, count: int, words: Words) -> str:
    label = _counted(ARMIES, coalition, count, words)
    return svg.group(
        {"class": "piece army", "data-coalition": coalition, "data-count": count},
        svg.title(label),
        _block(x + 10, y, coalition),
        _text(x + 24, y + 5, f"×{count}", "start"),
    )


def _ruler(x: float, y: float, seats: _Seats, ruler: str | None, words: Words) -> str:
    if ruler is None:
        return _text(x, y + 5, words("no ruler"), "faint")
    diamond = f"{x + 9},{y - 9} {x + 18},{y} {x + 9},{y + 9} {x},{y}"
    return svg.group(
        {"class": "ruler", "data-player": ruler},
        svg.title(words("ruled by %(player)s", player=ruler)),
        svg.element("polygon", {"points": diamond, "fill": seats.colour(ruler), "stroke": "#222"}),
        _text(x + 9, y + 4.5, str(seats.number(ruler)), font_size=11),
        _text(x + 24, y + 5, words("ruler: %(player)s", player=svg.shorten(ruler, 14)), "start"),
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


def _region_text(region_id: str, region: dict[str, Any], words: Words) -> str:
    ruler = region.get("ruler")
    parts = [words("ruled by %(player)s", player=ruler) if ruler else words("no ruler")]
    tribes = region.get("tribes") or {}
    armies = region.get("armies") or {}
    if any(tribes.values()):
        listed = ", ".join(f"{n} {who}" for who, n in tribes.items() if n)
        parts.append(words("tribes: %(list)s", list=listed))
    if any(armies.values()):
        listed = ", ".join(_counted(BLOCKS, c, n, words) for c, n in armies.items() if n)
        parts.append(words("armies: %(list)s", list=listed))
    return f"{name(region_id, words)}: " + "; ".join(parts)


@_kept
def _region(region_id: str, region: dict[str, Any], seats: _Seats, words: Words) -> str:
    box = REGION_BOXES[region_id]
    shapes = [
        svg.title(_region_text(region_id, region, words)),
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
        _text(box.x + 12, box.y + 30, name(region_id, words), "region-name"),
        _ruler(box.x + 12, box.y + 52, seats, region.get("ruler"), words),
    ]
    per_line = max(1, int((box.w - 24) // 62))
    for index, (kind, who, count) in enumerate(_region_pieces(region, seats)):
        x = box.x + 12 + (index % per_line) * 62
        y = box.y + 80 + (index // per_line) * 26
        shapes.append(
            _tribe(x, y, seats, who, count, words)
            if kind == "tribe"
            else _army(x, y, who, count, words)
        )
    return svg.group({"id": f"region-{region_id}", "class": "region"}, *shapes)


def _border_text(border_id: str, roads: dict[str, int], words: Words) -> str:
    first, second = BORDERS[border_id].regions
    names = f"{name(first, words)}–{name(second, words)}"
    built = ", ".join(_counted(BLOCKS, c, n, words) for c, n in roads.items() if n)
    if built:
        return words("border %(regions)s: roads %(roads)s", regions=names, roads=built)
    return words("border %(regions)s: no roads", regions=names)


@_kept
def _border(border_id: str, roads: dict[str, int], words: Words) -> str:
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
                svg.title(_counted(ROADS, coalition, count, words)),
                _block(x, y, coalition, w=46, h=18),
                _text(x + 14, y + 4.5, str(count), "on-dark", font_size=12),
            )
        )
    return svg.group(
        {"id": f"border-{border_id}", "class": "border"},
        svg.title(_border_text(border_id, roads, words)),
        line,
        *marks,
    )


def _roads_of(view: dict[str, Any], border_id: str) -> dict[str, int]:
    found: dict[str, int] = (view.get("roads") or {}).get(border_id) or {}
    return found


# -- the panels around the map ----------------------------------------------------------


def _legend(view: dict[str, Any], seats: _Seats, words: Words) -> str:
    players = [
        (str(p["name"]), name(p["loyalty"], words) if p.get("loyalty") else words("no loyalty yet"))
        for p in view["players"]
    ]
    return _legend_of(players, seats, words)


@_kept
def _legend_of(players: list[tuple[str, str]], seats: _Seats, words: Words) -> str:
    x, y = LEGEND.x + 10, LEGEND.y + 16
    lines = [_text(x, y, words("Players (seat order)"), "heading")]
    for index, (player, loyalty) in enumerate(players):
        row_y = y + 17 + index * 16
        short = svg.shorten(player, 16)
        lines.append(_seat_marker(x + 8, row_y - 4, seats, player, r=7))
        lines.append(_text(x + 22, row_y, f"{short}, {loyalty}", "start", font_size=13))
    shapes = words("● tribe  ■ army  ▬ road  ◆ ruler; A afghan, B british, R russian")
    key = _text(WIDTH - 10, MAP_BOTTOM + 20, shapes, text_anchor="end", font_size=12)
    return svg.group({"class": "legend"}, *lines, key)


def _suits(view: dict[str, Any], y: float, words: Words) -> str:
    return _suits_of(view.get("favored"), y, words)


@_kept
def _suits_of(favored: Any, y: float, words: Words) -> str:
    parts = [_text(10, y + 5, words("Favored suit"), "heading")]
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
        label = f"★ {name(suit, words)}" if chosen else name(suit, words)
        parts.append(_text(x + 70, y + 5, label, "on-dark" if chosen else ""))
    return svg.group(
        {"class": "favored", "data-suit": str(favored)},
        svg.title(words("favored suit: %(suit)s", suit=name(favored, words))),
        *parts,
    )


def _checks(view: dict[str, Any], y: float, words: Words) -> str:
    resolved, left = int(view.get("checks_resolved") or 0), int(view.get("checks_left") or 0)
    return _checks_of(resolved, left, y, words)


@_kept
def _checks_of(resolved: int, left: int, y: float, words: Words) -> str:
    parts = [_text(10, y + 5, words("Dominance Checks"), "heading")]
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
    said = words("%(resolved)s resolved, %(left)s to come", resolved=resolved, left=left)
    parts.append(_text(200 + (resolved + left) * 26, y + 5, said, "start"))
    return svg.group(
        {"class": "checks", "data-resolved": resolved, "data-left": left},
        svg.title(words("Dominance Checks: %(checks)s", checks=said)),
        *parts,
    )


def _vp_track(view: dict[str, Any], seats: _Seats, y: float, words: Words) -> tuple[str, float]:
    scores = [(str(p["name"]), int(p.get("vp") or 0)) for p in view["players"]]
    return _track(scores, seats, y, words)


@_kept
def _track(
    scores: list[tuple[str, int]], seats: _Seats, y: float, words: Words
) -> tuple[str, float]:
    cells = max(VP_CELLS, max((vp for _, vp in scores), default=0) + 1)
    width = (WIDTH - 20) / cells
    stacked: dict[int, int] = {}
    for _, vp in scores:
        stacked[vp] = stacked.get(vp, 0) + 1
    height = 22 + 20 * max(stacked.values(), default=1)
    parts = [_text(10, y + 5, words("Victory points"), "heading")]
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
    for player, vp in scores:
        level = placed.get(vp, 0)
        placed[vp] = level + 1
        cx = 10 + vp * width + width / 2
        cy = top + 12 + level * 20
        parts.append(
            svg.group(
                {"class": "vp-marker", "data-player": player, "data-vp": vp},
                svg.title(
                    words.plural(
                        "%(player)s: %(n)s victory point",
                        "%(player)s: %(n)s victory points",
                        vp,
                        player=player,
                    )
                ),
                _seat_marker(cx, cy, seats, player, r=min(9, width / 2 - 1)),
            )
        )
    return svg.group({"class": "vp-track"}, *parts), height + 36


def _supply(view: dict[str, Any], y: float, words: Words) -> str:
    return _supply_of(view.get("block_supply") or {}, y, words)


@_kept
def _supply_of(supply: dict[str, Any], y: float, words: Words) -> str:
    parts = [_text(10, y + 5, words("Blocks in supply"), "heading")]
    for index, coalition in enumerate(COALITIONS):
        x = 190 + index * 150
        count = int(supply.get(coalition, 0))
        parts.append(
            svg.group(
                {"class": "supply", "data-coalition": coalition, "data-count": count},
                svg.title(words.plural(*IN_SUPPLY, count, coalition=name(coalition, words))),
                _block(x, y, coalition),
                _text(x + 16, y + 5, f"{name(coalition, words)} {count}", "start"),
            )
        )
    return svg.group({"class": "supplies"}, *parts)


def _lines(heading: str, items: list[str], y: float, css: str, words: Words) -> tuple[str, float]:
    """A heading and one line per item ("none" for none); the height used."""
    parts = [_text(10, y + 5, heading, "heading")]
    for index, item in enumerate(items or [words("none")]):
        parts.append(_text(180, y + 5 + index * 20, item, "start"))
    return svg.group({"class": css}, *parts), 20 * max(1, len(items)) + 12


def _events(view: dict[str, Any], words: Words) -> list[str]:
    found = []
    for effect in view.get("effects") or []:
        owner = f" ({effect['player']})" if effect.get("player") else ""
        found.append(svg.shorten(f"{_card(int(effect['card']), words)}{owner}", 70))
    return found


def _hand(view: dict[str, Any], words: Words) -> list[str] | None:
    """The viewer's own hand, in a player's view; None in the public view."""
    viewer = view.get("viewer")
    for player in view["players"]:
        if viewer is not None and player["name"] == viewer and player.get("hand") is not None:
            return [_card(int(card), words) for card in player["hand"]]
    return None


# -- the whole ------------------------------------------------------------------------


def describe(view: dict[str, Any], words: Words = ENGLISH) -> str:
    """The drawing in words: what the `<desc>` says to a screen reader."""
    regions = view.get("regions") or {}
    sentences = [_region_text(r, regions[r], words) for r in REGION_IDS if r in regions]
    roads = [
        _border_text(b, _roads_of(view, b), words)
        for b in sorted(BORDERS)
        if any(_roads_of(view, b).values())
    ]
    sentences.append("; ".join(roads) if roads else words("no roads"))
    favored = name(view.get("favored"), words)
    sentences.append(words("favored suit: %(suit)s", suit=favored))
    resolved, left = view.get("checks_resolved"), view.get("checks_left")
    checks = words("%(resolved)s resolved, %(left)s to come", resolved=resolved, left=left)
    sentences.append(words("Dominance Checks: %(checks)s", checks=checks))
    scores = ", ".join(f"{p['name']} {p.get('vp', 0)}" for p in view["players"])
    sentences.append(words("victory points: %(scores)s", scores=scores))
    supply = view.get("block_supply") or {}
    blocks = ", ".join(f"{name(c, words)} {supply.get(c, 0)}" for c in COALITIONS)
    sentences.append(words("blocks in supply: %(blocks)s", blocks=blocks))
    events = ", ".join(_events(view, words)) or words("none")
    sentences.append(words("events in force: %(events)s", events=events))
    hand = _hand(view, words)
    if hand is not None:
        cards = ", ".join(hand) or words("empty")
        sentences.append(words("%(player)s's hand: %(cards)s", player=view["viewer"], cards=cards))
    return ". ".join(sentences) + "."


def _heading(view: dict[str, Any], words: Words) -> str:
    if view.get("phase") == "over":
        winners = ", ".join(view.get("winners") or [])
        return words("The game is over; winner: %(winners)s", winners=winners)
    if view.get("phase") == "setup":
        return words("Setup: players choose their loyalty")
    return words(
        "Turn %(turn)s, %(player)s to play", turn=view.get("turn"), player=view.get("active")
    )


def board_svg(view: dict[str, Any], words: Words = ENGLISH) -> str:
    """The board of `view` (public or a player's) as a standalone SVG document, its labels
    in `words` (English by default)."""
    seats = _Seats(view)
    regions = view.get("regions") or {}
    heading = _heading(view, words)
    body = [
        _text(10, 26, heading, "heading", font_size=16),
        *(_region(r, regions.get(r) or {}, seats, words) for r in REGION_IDS),
        *(_border(b, _roads_of(view, b), words) for b in sorted(BORDERS)),
        _legend(view, seats, words),
    ]
    y: float = MAP_BOTTOM + 50
    body.append(_suits(view, y, words))
    body.append(_checks(view, y + 36, words))
    track, used = _vp_track(view, seats, y + 72, words)
    body.append(track)
    y += 72 + used
    body.append(_supply(view, y, words))
    events, used = _lines(words("Events in force"), _events(view, words), y + 34, "events", words)
    body.append(events)
    y += 34 + used
    hand = _hand(view, words)
    if hand is not None:
        viewer = svg.shorten(str(view["viewer"]), 16)
        part, used = _lines(words("%(player)s's hand", player=viewer), hand, y + 6, "hand", words)
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
