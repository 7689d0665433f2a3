"""A whole turn played by clicks on the private page, in a real browser (Playwright driving
Debian's chromium), against the application on a real port and real Git.

The draft's buttons answer through live.js without a full reload (a mark set on `window`
survives them), an undo by click takes its step away, the submit button commits the move;
without JavaScript the same buttons are plain forms; the game's page reloads itself when
the game moves by another way in. Playwright's own browsers are never downloaded: the
machine's chromium is launched by its path. Without chromium these tests skip, except
under CI, where they fail (as in test_browser.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import (
    THREE,
    count_commits,
    create,
    decider,
    full_state,
    isolate,
    opened,
    play,
    show,
)
from liveserver import serving
from playwright.sync_api import Browser, Page, expect, sync_playwright
from test_browser import CHROMIUM, FLAGS, MISSING, needs_chromium
from test_private_page import private_path

from adjudicator.games.choices import HEADINGS
from adjudicator.games.pipeline import submit
from adjudicator.web import create_app

pytestmark = needs_chromium
POLL_MS = 400  # the live pages' poll, quick for the tests (5000 by default)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        yield isolate(tmp_path_factory.mktemp("clicks"), patch)


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[str]:
    with serving(create_app({"home": home, "LIVE_POLL_MS": POLL_MS})) as url:
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if CHROMIUM is None:
        pytest.fail(f"{MISSING}; under CI the browser tests must run")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield launched
        launched.close()


def new_game(home: Path, name: str) -> Path:
    """A game 8 moves in (seed 5): bob may purchase or play, and must then discard."""
    path = home / "games" / name
    create(path, THREE)
    play(path, 8, seed=5, whole_turn=True)
    return path


def steps(page: Page) -> list[str]:
    return page.locator("ol.draft-steps > li > code").all_inner_texts()


def first_choice(page: Page) -> str:
    """The line of the first button that is not `pass`, as the page offers it."""
    lines = [line or "" for line in _choice_lines(page)]
    return next(line for line in lines if line != "pass")


def _choice_lines(page: Page) -> list[str | None]:
    return [b.get_attribute("data-line") for b in page.locator("button.choice").all()]


def click_line(page: Page, line: str, expected: list[str]) -> None:
    page.locator(f'button.choice[data-line="{line}"]').first.click()
    expect(page.locator("ol.draft-steps > li")).to_have_count(len(expected))
    assert steps(page) == expected


def test_a_whole_turn_is_played_by_clicks_undone_and_submitted(
    home: Path, site: str, browser: Browser, tmp_path: Path
) -> None:
    path = new_game(home, "clicked")
    player, _ = decider(full_state(path))
    page = browser.new_page()
    page.goto(site + private_path(home, "clicked", player))
    page.evaluate("window.pamirMark = 'kept'")  # gone if the page loads anew
    first = first_choice(page)
    click_line(page, first, [first])
    second = first_choice(page)
    click_line(page, second, [first, second])
    page.screenshot(path=str(tmp_path / "draft.png"), full_page=True)
    headings = page.locator("#draft-section h3").all_inner_texts()
    assert headings and set(headings) <= {h.message for h in HEADINGS.values()}  # in words
    page.locator("ol.draft-steps > li").nth(1).locator("button.undo").click()
    expect(page.locator("ol.draft-steps > li")).to_have_count(1)
    assert steps(page) == [first]
    click_line(page, second, [first, second])
    drafted = [first, second]
    while page.locator("button.choice").count() and len(drafted) < 12:
        line = first_choice(page) if _choice_lines(page) != ["pass"] else "pass"
        drafted.append(line)
        click_line(page, line, drafted)
    assert page.locator("button.choice").count() == 0  # the turn is whole
    assert page.evaluate("window.pamirMark") == "kept"
    number = int(page.locator("input[name=expected]").first.input_value())
    commits = count_commits(path)
    page.locator("button.submit-draft").click()
    expect(page.locator("p.accepted")).to_contain_text(f"Move {number} adjudicated.")
    assert count_commits(path) == commits + 1
    moved = show(path, "main", f"moves/{number:04d}-{player}.txt")
    assert moved.splitlines() == drafted
    assert page.locator("ol.draft-steps").count() == 0  # the draft is cleared
    assert decider(full_state(path))[0] != player  # the new position: another's turn
    assert f"waits for {player}" not in page.locator("#decision + p").inner_text()
    page.wait_for_timeout(3 * POLL_MS)  # the poll sees the page's own move: no reload
    assert page.evaluate("window.pamirMark") == "kept"
    assert page.locator("p.accepted").count() == 1
    page.close()


def test_without_javascript_the_buttons_are_plain_forms(
    home: Path, site: str, browser: Browser
) -> None:
    path = new_game(home, "plain")
    player, _ = decider(full_state(path))
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(site + private_path(home, "plain", player))
    first = first_choice(page)
    with page.expect_navigation():
        page.locator(f'button.choice[data-line="{first}"]').first.click()
    assert steps(page) == [first]
    assert page.url.endswith("#draft")  # the redirect back to the page
    context.close()


def test_the_game_page_reloads_itself_when_the_game_moves(
    home: Path, site: str, browser: Browser
) -> None:
    path = new_game(home, "watched")
    player, options = decider(full_state(path))
    page = browser.new_page()
    page.goto(f"{site}/games/watched")
    page.evaluate("window.pamirMark = 'kept'")
    with opened(path) as repo:  # another way in: the pipeline, as a mail would
        done = submit(repo, player, options[0] + "\n", home=home)
    expect(page.locator("main")).to_contain_text(f"move {done.number} by {player}", timeout=15_000)
    assert page.evaluate("window.pamirMark") is None  # loaded anew
    page.close()
