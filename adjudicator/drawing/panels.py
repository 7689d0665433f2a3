"""The panels around the map: the legend of the players and the pieces' shapes, the favored
suit, the Dominance Checks, the victory point track, the blocks in supply, and lists (the
events in force, the viewer's hand).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.drawing import svg
from adjudicator.drawing.kept import kept
from adjudicator.drawing.labels import IN_SUPPLY, name
from adjudicator.drawing.layout import (
    FONT_SIZE,
    LEGEND,
    MAP_BOTTOM,
    VP_CELLS,
    WIDTH,
    Seats,
    fitting_size,
    text,
)
from adjudicator.drawing.pieces import block, seat_marker
from adjudicator.home.translations import Words
from engine.cards import COALITIONS, SUITS, Coalition
from engine.view_types import View


def legend(view: View, seats: Seats, words: Words) -> str:
    players = [
        (str(p["name"]), name(p["loyalty"], words) if p.get("loyalty") else words("no loyalty yet"))
        for p in view["players"]
    ]
    return _legend_of(players, seats, words)


@kept
def _legend_of(players: list[tuple[str, str]], seats: Seats, words: Words) -> str:
    x, y = LEGEND.x + 10, LEGEND.y + 16
    lines = [text(x, y, words("Players (seat order)"), "heading")]
    for index, (player, loyalty) in enumerate(players):
        row_y = y + 17 + index * 16
        short = svg.shorten(player, 16)
        lines.append(seat_marker(x + 8, row_y - 4, seats, player, r=7))
        lines.append(text(x + 22, row_y, f"{short}, {loyalty}", "start", font_size=13))
    shapes = words("● tribe  ■ army  ▬ road  ◆ ruler; A afghan, B british, R russian")
    key = text(WIDTH - 10, MAP_BOTTOM + 20, shapes, text_anchor="end", font_size=12)
    return svg.group({"class": "legend"}, *lines, key)


# Where the panels' boxes stand: a heading before them must end before the first.
SUIT_BOX_X, SUIT_BOX_WIDTH = 150, 140
CHECKS_X = 190  # the first Dominance Check's circle (radius 9)
LABEL_GAP = 6  # the least room between a label and the box beside it
BOX_MARGIN = 2  # the least room between a label in a box and its edge, on each side


def sized(size: float) -> dict[str, float]:
    """A font size to set, when it is not the board's own (a drawing that fits is drawn
    as it always was)."""
    return {} if size == FONT_SIZE else {"font_size": size}


def suits(view: View, y: float, words: Words) -> str:
    return _suits_of(view.get("favored"), y, words)


@kept
def _suits_of(favored: Any, y: float, words: Words) -> str:
    heading = words("Favored suit")
    size = fitting_size(heading, SUIT_BOX_X - 10 - LABEL_GAP, bold=True)
    parts = [text(10, y + 5, heading, "heading", **sized(size))]
    for index, suit in enumerate(SUITS):
        x = SUIT_BOX_X + index * 150
        chosen = suit == favored
        parts.append(
            svg.element(
                "rect",
                {
                    "x": x,
                    "y": y - 13,
                    "width": SUIT_BOX_WIDTH,
                    "height": 26,
                    "rx": 4,
                    "stroke": "#2b2118",
                    "fill": "#ffffff" if not chosen else "#2b2118",
                },
            )
        )
        label = f"★ {name(suit, words)}" if chosen else name(suit, words)
        fitted = fitting_size(label, SUIT_BOX_WIDTH - 2 * BOX_MARGIN, bold=chosen)
        parts.append(text(x + 70, y + 5, label, "on-dark" if chosen else "", **sized(fitted)))
    return svg.group(
        {"class": "favored", "data-suit": str(favored)},
        svg.title(words("favored suit: %(suit)s", suit=name(favored, words))),
        *parts,
    )


def checks(view: View, y: float, words: Words) -> str:
    resolved, left = int(view.get("checks_resolved") or 0), int(view.get("checks_left") or 0)
    return _checks_of(resolved, left, y, words)


@kept
def _checks_of(resolved: int, left: int, y: float, words: Words) -> str:
    heading = words("Dominance Checks")
    size = fitting_size(heading, CHECKS_X - 9 - 10 - LABEL_GAP, bold=True)
    parts = [text(10, y + 5, heading, "heading", **sized(size))]
    for index in range(resolved + left):
        done = index < resolved
        parts.append(
            svg.element(
                "circle",
                {
                    "cx": CHECKS_X + index * 26,
                    "cy": y,
                    "r": 9,
                    "fill": "#2b2118" if done else "#ffffff",
                    "stroke": "#2b2118",
                    "stroke-width": 2,
                },
            )
        )
        if done:
            parts.append(text(CHECKS_X + index * 26, y + 4.5, "✓", "on-dark", font_size=12))
    said = words("%(resolved)s resolved, %(left)s to come", resolved=resolved, left=left)
    parts.append(text(200 + (resolved + left) * 26, y + 5, said, "start"))
    return svg.group(
        {"class": "checks", "data-resolved": resolved, "data-left": left},
        svg.title(words("Dominance Checks: %(checks)s", checks=said)),
        *parts,
    )


def vp_track(view: View, seats: Seats, y: float, words: Words) -> tuple[str, float]:
    scores = [(str(p["name"]), int(p.get("vp") or 0)) for p in view["players"]]
    return _track(scores, seats, y, words)


@kept
def _track(
    scores: list[tuple[str, int]], seats: Seats, y: float, words: Words
) -> tuple[str, float]:
    cells = max(VP_CELLS, max((vp for _, vp in scores), default=0) + 1)
    width = (WIDTH - 20) / cells
    stacked: dict[int, int] = {}
    for _, vp in scores:
        stacked[vp] = stacked.get(vp, 0) + 1
    height = 22 + 20 * max(stacked.values(), default=1)
    parts = [text(10, y + 5, words("Victory points"), "heading")]
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
        parts.append(text(x + width / 2, top + height - 6, str(cell), fill="#5a5a5a", font_size=11))
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
                seat_marker(cx, cy, seats, player, r=min(9, width / 2 - 1)),
            )
        )
    return svg.group({"class": "vp-track"}, *parts), height + 36


def supply(view: View, y: float, words: Words) -> str:
    return _supply_of(view.get("block_supply") or {}, y, words)


@kept
def _supply_of(supply: Mapping[Coalition, int], y: float, words: Words) -> str:
    parts = [text(10, y + 5, words("Blocks in supply"), "heading")]
    for index, coalition in enumerate(COALITIONS):
        x = 190 + index * 150
        count = int(supply.get(coalition, 0))
        parts.append(
            svg.group(
                {"class": "supply", "data-coalition": coalition, "data-count": count},
                svg.title(words.plural(*IN_SUPPLY, count, coalition=name(coalition, words))),
                block(x, y, coalition),
                text(x + 16, y + 5, f"{name(coalition, words)} {count}", "start"),
            )
        )
    return svg.group({"class": "supplies"}, *parts)


def item_lines(
    heading: str, items: list[str], y: float, css: str, words: Words
) -> tuple[str, float]:
    """A heading and one line per item ("none" for none); the height used."""
    parts = [text(10, y + 5, heading, "heading")]
    for index, item in enumerate(items or [words("none")]):
        parts.append(text(180, y + 5 + index * 20, item, "start"))
    return svg.group({"class": css}, *parts), 20 * max(1, len(items)) + 12
