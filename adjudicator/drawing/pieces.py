"""The map drawn: each region with its ruler, tribes and armies, each border with its roads.
Each kind of piece has its own shape (a circle for a tribe, a square for an army, a wide
bar for a road, a diamond for a ruler), with its coalition's letter or its player's seat
number, and every region and border has a `<title>` of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.drawing import svg
from adjudicator.drawing.description import border_text, region_text
from adjudicator.drawing.kept import kept
from adjudicator.drawing.labels import ARMIES, ROADS, counted, name
from adjudicator.drawing.layout import (
    COALITION_COLOURS,
    COALITION_LETTERS,
    REGION_BOXES,
    REGION_FILLS,
    Seats,
    shared_edge,
    text,
)
from adjudicator.home.translations import Words
from engine.cards import BORDERS, COALITIONS, Coalition

# -- pieces ---------------------------------------------------------------------------------


def seat_marker(x: float, y: float, seats: Seats, name: str, r: float = 10) -> str:
    """A player's round marker with their seat number (tribes, the VP track, the legend)."""
    return svg.element("circle", {"cx": x, "cy": y, "r": r, "fill": seats.colour(name)}) + (
        text(x, y + 4.5, str(seats.number(name)), "on-light", font_size=13)
    )


def block(x: float, y: float, coalition: str, w: float = 20, h: float = 20) -> str:
    """A coalition block: an army square, or a road bar when wide."""
    letter = COALITION_LETTERS.get(coalition, "?")
    fill = COALITION_COLOURS.get(coalition, "#777777")
    rect = svg.element(
        "rect", {"x": x - w / 2, "y": y - h / 2, "width": w, "height": h, "rx": 2, "fill": fill}
    )
    return rect + text(x, y + 4.5, letter, "on-dark", font_size=13)


def tribe_piece(x: float, y: float, seats: Seats, player: str, count: int, words: Words) -> str:
    label = words.plural(
        "%(n)s tribe of %(player)s", "%(n)s tribes of %(player)s", count, player=player
    )
    return svg.group(
        {"class": "piece tribe", "data-player": player, "data-count": count},
        svg.title(label),
        seat_marker(x + 10, y, seats, player),
        text(x + 24, y + 5, f"×{count}", "start"),
    )


def army_piece(x: float, y: float, coalition: str, count: int, words: Words) -> str:
    label = counted(ARMIES, coalition, count, words)
    return svg.group(
        {"class": "piece army", "data-coalition": coalition, "data-count": count},
        svg.title(label),
        block(x + 10, y, coalition),
        text(x + 24, y + 5, f"×{count}", "start"),
    )


def ruler_piece(x: float, y: float, seats: Seats, ruler: str | None, words: Words) -> str:
    if ruler is None:
        return text(x, y + 5, words("no ruler"), "faint")
    diamond = f"{x + 9},{y - 9} {x + 18},{y} {x + 9},{y + 9} {x},{y}"
    return svg.group(
        {"class": "ruler", "data-player": ruler},
        svg.title(words("ruled by %(player)s", player=ruler)),
        svg.element("polygon", {"points": diamond, "fill": seats.colour(ruler), "stroke": "#222"}),
        text(x + 9, y + 4.5, str(seats.number(ruler)), font_size=11),
        text(x + 24, y + 5, words("ruler: %(player)s", player=svg.shorten(ruler, 14)), "start"),
    )


# -- regions and borders ------------------------------------------------------------------


def _region_pieces(region: Mapping[str, Any], seats: Seats) -> list[tuple[str, str, int]]:
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


@kept
def draw_region(region_id: str, region: Mapping[str, Any], seats: Seats, words: Words) -> str:
    box = REGION_BOXES[region_id]
    shapes = [
        svg.title(region_text(region_id, region, words)),
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
        text(box.x + 12, box.y + 30, name(region_id, words), "region-name"),
        ruler_piece(box.x + 12, box.y + 52, seats, region.get("ruler"), words),
    ]
    per_line = max(1, int((box.w - 24) // 62))
    for index, (kind, who, count) in enumerate(_region_pieces(region, seats)):
        x = box.x + 12 + (index % per_line) * 62
        y = box.y + 80 + (index // per_line) * 26
        shapes.append(
            tribe_piece(x, y, seats, who, count, words)
            if kind == "tribe"
            else army_piece(x, y, who, count, words)
        )
    return svg.group({"id": f"region-{region_id}", "class": "region"}, *shapes)


@kept
def draw_border(border_id: str, roads: Mapping[Coalition, int], words: Words) -> str:
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
                svg.title(counted(ROADS, coalition, count, words)),
                block(x, y, coalition, w=46, h=18),
                text(x + 14, y + 4.5, str(count), "on-dark", font_size=12),
            )
        )
    return svg.group(
        {"id": f"border-{border_id}", "class": "border"},
        svg.title(border_text(border_id, roads, words)),
        line,
        *marks,
    )
