"""The board drawn as SVG from a view (adjudicator/drawing/board.py).

The positions come from seeded random games played through the engine; the SVG is read
back with xml.etree, as a forge or a browser would parse it.
"""

from __future__ import annotations

import copy
import itertools
import random
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.drawing.cards import card_label
from adjudicator.drawing.layout import REGION_BOXES, shared_edge
from engine.cards import BORDERS, REGION_IDS
from engine.game import legal_seat_actions, step

NS = "{http://www.w3.org/2000/svg}"
NAMES = ["alice", "bob", "carol", "dave", "erin"]


def played(players: int, seed: int, steps: int) -> engine.State:
    """A position `steps` random legal decisions into a game (or at its end)."""
    state = engine.new_game(NAMES[:players], seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.phase == "over":
            break
        seat, action = rng.choice(legal_seat_actions(state))
        step(state, seat, action)
    return state


POSITIONS = [(2, 1, 0), (3, 5, 120), (4, 3, 200), (5, 9, 400), (5, 5, 400)]


@pytest.fixture(
    scope="module", params=POSITIONS, ids=lambda p: "players{}-seed{}-steps{}".format(*p)
)
def state(request: pytest.FixtureRequest) -> engine.State:
    players, seed, steps = request.param
    return played(players, seed, steps)


def parsed(text: str) -> ET.Element:
    return ET.fromstring(text)


def by_id(root: ET.Element) -> dict[str, ET.Element]:
    return {e.get("id", ""): e for e in root.iter() if e.get("id")}


def test_the_board_is_svg_with_an_element_per_region_and_per_border(state: engine.State) -> None:
    root = parsed(board_svg(engine.view(state)))
    assert root.tag == f"{NS}svg"
    ids = by_id(root)
    for region in REGION_IDS:
        assert f"region-{region}" in ids
    for border in BORDERS:
        assert f"border-{border}" in ids
        assert ids[f"border-{border}"].find(f"{NS}line") is not None  # a visible edge


def test_regions_touch_along_an_edge_exactly_where_the_map_has_a_border() -> None:
    for first, second in itertools.combinations(REGION_IDS, 2):
        border = "-".join(sorted((first, second)))
        edge = shared_edge(REGION_BOXES[first], REGION_BOXES[second])
        assert (edge is not None) == (border in BORDERS), border


def pieces(root: ET.Element, where: str, kind: str, key: str) -> Counter[str]:
    group = by_id(root)[where]
    found: Counter[str] = Counter()
    for element in group.iter(f"{NS}g"):
        if f"piece {kind}" == element.get("class"):
            found[element.get(key, "")] += int(element.get("data-count", "0"))
    return found


def test_the_pieces_drawn_are_the_views_pieces(state: engine.State) -> None:
    view = engine.view(state)
    root = parsed(board_svg(view))
    for region_id, region in view["regions"].items():
        where = f"region-{region_id}"
        assert pieces(root, where, "tribe", "data-player") == Counter(region["tribes"])
        assert pieces(root, where, "army", "data-coalition") == Counter(region["armies"])
    for border, roads in view["roads"].items():
        drawn = pieces(root, f"border-{border}", "road", "data-coalition")
        assert drawn == Counter({c: n for c, n in roads.items() if n})


def test_the_tracks_show_the_views_scores_supply_and_checks(state: engine.State) -> None:
    view = engine.view(state)
    root = parsed(board_svg(view))
    groups = list(root.iter(f"{NS}g"))
    markers = {
        g.get("data-player"): int(g.get("data-vp", "-1"))
        for g in groups
        if g.get("class") == "vp-marker"
    }
    assert markers == {p["name"]: p["vp"] for p in view["players"]}
    supply = {
        g.get("data-coalition"): int(g.get("data-count", "-1"))
        for g in groups
        if g.get("class") == "supply"
    }
    assert supply == view["block_supply"]
    checks = next(g for g in groups if g.get("class") == "checks")
    assert int(checks.get("data-resolved", "-1")) == view["checks_resolved"]
    assert int(checks.get("data-left", "-1")) == view["checks_left"]
    favored = next(g for g in groups if g.get("class") == "favored")
    assert favored.get("data-suit") == view["favored"]


def test_the_same_view_gives_the_same_bytes(state: engine.State) -> None:
    view = engine.view(state)
    assert board_svg(view) == board_svg(copy.deepcopy(view))
    again = played(*POSITIONS[-1])
    assert board_svg(engine.view(again)) == board_svg(engine.view(played(*POSITIONS[-1])))


def test_a_hand_is_drawn_only_in_its_players_view() -> None:
    state = played(3, 5, 120)
    holder = next(p for p in state.players if p.hand)
    card = holder.hand[0]
    mine = board_svg(engine.view(state, holder.name))
    public = board_svg(engine.view(state))
    assert f"{holder.name}&#x27;s hand" in mine or f"{holder.name}'s hand" in mine
    assert card_label(card) in mine
    assert "s hand" not in public
    for other in state.players:
        if other.name != holder.name:
            assert (
                card_label(card) not in board_svg(engine.view(state, other.name)).split("<desc")[0]
            )


def test_the_board_says_in_words_what_it_shows(state: engine.State) -> None:
    view = engine.view(state)
    root = parsed(board_svg(view))
    assert root.get("role") == "img"
    assert root.get("aria-labelledby") == "board-title board-desc"
    assert (root.find(f"{NS}title") is not None) and root.find(f"{NS}desc") is not None
    desc = root.find(f"{NS}desc")
    assert desc is not None and desc.text is not None
    for region in view["regions"].values():
        if region["ruler"]:
            assert f"ruled by {region['ruler']}" in desc.text
    for region_id in REGION_IDS:
        title = by_id(root)[f"region-{region_id}"].find(f"{NS}title")
        assert title is not None and title.text
    # colour is never the only mark: coalition letters on the blocks, seat numbers on markers
    texts = {t.text for t in root.iter(f"{NS}text")}
    assert {"A", "B", "R"} <= texts


def renamed(view: engine.View, names: dict[str, str]) -> engine.View:
    """The view with players renamed everywhere a name appears (as the state reader would
    allow: it checks only that names differ)."""
    import json

    text = json.dumps(view)
    for old, new in names.items():
        text = text.replace(f'"{old}"', json.dumps(new))
    result: engine.View = json.loads(text)
    return result


def test_names_are_escaped() -> None:
    state = played(3, 5, 200)
    view = renamed(engine.view(state, "alice"), {"alice": "<script>", "bob": "a&b", "carol": 'c"d'})
    text = board_svg(view)
    root = parsed(text)  # still well-formed XML
    assert "<script>" not in text and "a&b" not in text
    words = " ".join(t.text or "" for t in root.iter(f"{NS}text"))
    assert "<script>" in words and "a&b" in words
    desc = root.find(f"{NS}desc")
    assert desc is not None and "<script>'s hand" in (desc.text or "")


def test_the_board_of_a_long_game_stays_small() -> None:
    text = board_svg(engine.view(played(5, 9, 400), "alice"))
    assert len(text.encode()) < 40_000
