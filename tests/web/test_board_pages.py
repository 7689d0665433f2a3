"""The board and the card faces on the web pages, and the card pages, over real HTTP and in
headless Chromium (as tests/web/test_browser.py runs it)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import THREE, create, isolate, play, state_json
from liveserver import fetch, serving
from test_browser import chromium, needs_chromium

from adjudicator.drawing.board import board_svg
from adjudicator.home.settings import load_settings
from adjudicator.mail.links import page_links
from adjudicator.web import create_app
from engine.cards import BORDERS, COURT_CARDS, EVENT_CARDS, REGION_IDS

GAME = "board-game"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        root = isolate(tmp_path_factory.mktemp("board"), patch)
        create(root / "games" / GAME, THREE)
        play(root / "games" / GAME, 10, seed=3, whole_turn=True)
        yield root


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[str]:
    with serving(create_app({"home": home})) as url:
        yield url


def inline_svg(html: str) -> str:
    match = re.search(r"<svg\b.*?</svg>", html, re.S)
    assert match, "no inline SVG"
    return match.group(0)


def test_the_game_page_shows_the_board_drawn_above_the_tables(site: str, home: Path) -> None:
    html = fetch(f"{site}/games/{GAME}").text
    view = state_json(home / "games" / GAME)["view"]
    drawn = inline_svg(html)
    assert drawn == board_svg(view).strip()  # the public view, drawn by our own code
    root = ET.fromstring(drawn)
    ids = {e.get("id") for e in root.iter()}
    assert {f"region-{r}" for r in REGION_IDS} | {f"border-{b}" for b in BORDERS} <= ids
    board = html.index('<h2 id="board">')
    assert board < html.index("<svg") < html.index("<caption>Regions, west to east")
    assert "style=" not in drawn and "<style" not in drawn  # the CSP allows no inline style
    assert "<script" not in html.replace('<script src="/live.js"', "", 1)  # its own only


def test_the_game_page_shows_card_faces_linked_to_card_pages(site: str, home: Path) -> None:
    html = fetch(f"{site}/games/{GAME}").text
    view = state_json(home / "games" / GAME)["view"]
    for row in view["market"]:
        for slot in row:
            if slot and slot["card"]:
                assert f'<a href="/cards/{slot["card"]}">' in html
    assert "top row, column 0" in html and "bottom row, column 5" in html
    assert '<th scope="col">Column 0</th>' in html and "Column 6" not in html
    for player in view["players"]:
        for entry in player["court"]:
            assert f'aria-label="{entry["card"]} ' in html  # its face
    assert html.count('class="card card-') >= 12


def test_the_turn_page_shows_the_board_of_that_move(site: str, home: Path) -> None:
    path = home / "games" / GAME
    html = fetch(f"{site}/games/{GAME}/turns/4").text
    from gitgame import git

    sha = git(path, "log", "--reverse", "--format=%H", "--", "reports/0004.md").split()[0]
    view = json.loads(git(path, "show", f"{sha}:state.json"))["view"]
    assert inline_svg(html) == board_svg(view).strip()


@pytest.mark.parametrize("number", [1, 76, 111, 116])
def test_a_card_page_gives_the_full_text_and_the_attribution(site: str, number: int) -> None:
    reply = fetch(f"{site}/cards/{number}")
    assert reply.status == 200
    if number in COURT_CARDS:
        card = COURT_CARDS[number]
        assert f"<h1>{number} {card.name}</h1>" in reply.text
        if card.ability is not None:
            assert card.ability.text in reply.text
    else:
        event = EVENT_CARDS[number]
        assert event.if_discarded.text in reply.text and event.if_purchased.text in reply.text
    assert "Cole Wehrle / Wehrlegig Games" in reply.text and "CC BY-NC-SA 4.0" in reply.text


@pytest.mark.parametrize("path", ["/cards/0", "/cards/117", "/cards/x", "/cards/-3"])
def test_a_card_that_does_not_exist_is_a_404(site: str, path: str) -> None:
    assert fetch(f"{site}{path}").status == 404


def test_the_card_index_links_every_card(site: str) -> None:
    html = fetch(f"{site}/cards").text
    for number in (*COURT_CARDS, *EVENT_CARDS):
        assert f'href="/cards/{number}"' in html
    assert "Cole Wehrle / Wehrlegig Games" in html


# -- in a real browser --------------------------------------------------------------------

# The pages run no script and may not be framed (the CSP), and a headless window is never
# narrower than 500 px. So the measurement runs on a copy: the page's own HTML, saved to a
# file with its stylesheet linked from the live service, shown in a frame exactly `width`
# pixels wide by a second file whose one script writes what it measures into the DOM,
# which Chromium prints (--dump-dom).
MEASURE = """<!doctype html><html><body>
<iframe id="page" src="page.html" width="{width}" height="900"></iframe>
<script>
window.addEventListener("load", function () {{
  var frame = document.getElementById("page");
  var inner = frame.contentDocument;
  var svg = inner.querySelector("svg.board");
  var board = svg ? svg.getBoundingClientRect().width : 0;
  document.body.setAttribute("data-measured", [inner.documentElement.scrollWidth,
    frame.contentWindow.innerWidth, board].join(" "));
}});
</script></body></html>"""


def measured(site: str, tmp_path: Path, width: int, page: str) -> tuple[int, int, float, str]:
    """(scrollWidth, innerWidth, the board's width or 0, the HTML) of `page` in a frame
    `width` pixels wide."""
    html = fetch(f"{site}{page}").text
    assert 'href="/style.css"' in html
    styled = html.replace('href="/style.css"', f'href="{site}/style.css"')
    (tmp_path / "page.html").write_text(styled, encoding="utf-8")
    measure = tmp_path / "measure.html"
    measure.write_text(MEASURE.format(width=width), encoding="utf-8")
    done = chromium(
        tmp_path / "profile",
        "--allow-file-access-from-files",
        "--window-size=1600,1000",
        "--virtual-time-budget=5000",
        "--dump-dom",
        measure.as_uri(),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(r'data-measured="(\d+) (\d+) ([\d.]+)"', done.stdout)
    assert found, (done.stdout[-2000:], done.stderr[-2000:])
    return int(found[1]), int(found[2]), float(found[3]), styled


@needs_chromium
@pytest.mark.parametrize("width", [420, 1400])
@pytest.mark.parametrize("page", [f"/games/{GAME}", f"/games/{GAME}/turns/4"])
def test_chromium_shows_the_board_and_cards_without_overflow(
    site: str, tmp_path: Path, width: int, page: str
) -> None:
    scroll, inner, board, styled = measured(site, tmp_path, width, page)
    assert inner == width
    assert scroll <= inner  # scrollWidth <= innerWidth: nothing sticks out sideways
    assert board > 0  # the board was laid out
    assert 'id="region-kabul"' in styled and 'id="border-herat-kabul"' in styled
    if page == f"/games/{GAME}":
        assert 'class="card card-' in styled


@needs_chromium
@pytest.mark.parametrize("width", [420, 1400])
@pytest.mark.parametrize("page", ["private", "/help"])
def test_chromium_shows_the_private_page_and_help_without_overflow(
    site: str, home: Path, tmp_path: Path, width: int, page: str
) -> None:
    if page == "private":
        link = page_links(load_settings({"home": home}), GAME, "alice").private
        page = "/" + link.split("/", 3)[3]
    scroll, inner, board, styled = measured(site, tmp_path, width, page)
    assert inner == width
    assert scroll <= inner  # scrollWidth <= innerWidth: nothing sticks out sideways
    if page.startswith("/play/"):
        assert board > 0 and "<textarea" in styled and 'class="card card-' in styled
