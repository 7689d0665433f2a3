"""The board in words: what the drawing's `<desc>` says to a screen reader (`describe`), and
the sentences of the regions and borders, which their `<title>`s say too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from adjudicator.drawing import svg
from adjudicator.drawing.labels import BLOCKS, ENGLISH, card_in_words, counted, name
from adjudicator.home.translations import Words
from engine.cards import BORDERS, COALITIONS, REGION_IDS, Coalition
from engine.view_types import View


def region_text(region_id: str, region: Mapping[str, Any], words: Words) -> str:
    ruler = region.get("ruler")
    parts = [words("ruled by %(player)s", player=ruler) if ruler else words("no ruler")]
    tribes = region.get("tribes") or {}
    armies = region.get("armies") or {}
    if any(tribes.values()):
        listed = ", ".join(f"{n} {who}" for who, n in tribes.items() if n)
        parts.append(words("tribes: %(list)s", list=listed))
    if any(armies.values()):
        listed = ", ".join(counted(BLOCKS, c, n, words) for c, n in armies.items() if n)
        parts.append(words("armies: %(list)s", list=listed))
    return f"{name(region_id, words)}: " + "; ".join(parts)


def border_text(border_id: str, roads: Mapping[Coalition, int], words: Words) -> str:
    first, second = BORDERS[border_id].regions
    names = f"{name(first, words)}–{name(second, words)}"
    built = ", ".join(counted(BLOCKS, c, n, words) for c, n in roads.items() if n)
    if built:
        return words("border %(regions)s: roads %(roads)s", regions=names, roads=built)
    return words("border %(regions)s: no roads", regions=names)


def roads_of(view: View, border_id: str) -> Mapping[Coalition, int]:
    found: Mapping[Coalition, int] = (view.get("roads") or {}).get(border_id) or {}
    return found


def events_in_force(view: View, words: Words) -> list[str]:
    found = []
    for effect in view.get("effects") or []:
        owner = f" ({effect['player']})" if effect.get("player") else ""
        found.append(svg.shorten(f"{card_in_words(int(effect['card']), words)}{owner}", 70))
    return found


def viewer_hand(view: View, words: Words) -> list[str] | None:
    """The viewer's own hand, in a player's view; None in the public view."""
    viewer = view.get("viewer")
    for player in view["players"]:
        hand = player.get("hand")
        if viewer is not None and player["name"] == viewer and hand is not None:
            return [card_in_words(int(card), words) for card in hand]
    return None


def describe(view: View, words: Words = ENGLISH) -> str:
    """The drawing in words: what the `<desc>` says to a screen reader."""
    regions = view.get("regions") or {}
    sentences = [region_text(r, regions[r], words) for r in REGION_IDS if r in regions]
    roads = [
        border_text(b, roads_of(view, b), words)
        for b in sorted(BORDERS)
        if any(roads_of(view, b).values())
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
    events = ", ".join(events_in_force(view, words)) or words("none")
    sentences.append(words("events in force: %(events)s", events=events))
    hand = viewer_hand(view, words)
    if hand is not None:
        cards = ", ".join(hand) or words("empty")
        sentences.append(words("%(player)s's hand: %(cards)s", player=view["viewer"], cards=cards))
    return ". ".join(sentences) + "."
