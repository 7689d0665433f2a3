"""The game's page stays small: the newest report only, the history twenty moves a page,
and a paused clock said in words."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from gitgame import THREE, create, isolate, opened, play
from liveserver import fetch, serving
from test_web import text_of

from adjudicator.schedule.clock import record_pause
from adjudicator.web import create_app

LONG = "long"
PAUSED = "paused"
MOVES = 25


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with pytest.MonkeyPatch.context() as patch:
        root = isolate(tmp_path_factory.mktemp("history"), patch)
        create(root / "games" / LONG, THREE)
        assert play(root / "games" / LONG, MOVES, seed=3) == MOVES
        create(root / "games" / PAUSED, THREE)
        with opened(root / "games" / PAUSED) as repo:
            record_pause(repo, "bob", 72, "sailing, no <internet>", datetime.now(UTC))
        yield root


@pytest.fixture(scope="module")
def site(home: Path) -> Iterator[str]:
    with serving(create_app({"home": home})) as url:
        yield url


def title(home: Path, number: int) -> str:
    report = home / "games" / LONG / "reports" / f"{number:04d}.md"
    return report.read_text(encoding="utf-8").splitlines()[0].removeprefix("# ")


def test_the_first_page_has_the_twenty_newest_moves_and_only_the_newest_report(
    site: str, home: Path
) -> None:
    html = fetch(f"{site}/games/{LONG}").text
    for number in range(MOVES, MOVES - 20, -1):
        assert f'href="/games/{LONG}/turns/{number}"' in html, number
    assert f'href="/games/{LONG}/turns/{MOVES - 20}"' not in html
    assert html.count("<details") == 1 and f"<h3>{title(home, MOVES)}</h3>" in html
    for number in range(MOVES):
        assert title(home, number) not in html, number  # linked, not inlined
    assert f'href="/games/{LONG}?page=2#history" rel="next">Older moves' in html
    assert "Newer moves" not in html and "page 1 of 2" in text_of(html)


def test_the_second_page_has_the_older_moves(site: str) -> None:
    reply = fetch(f"{site}/games/{LONG}?page=2")
    assert reply.status == 200
    html = reply.text
    for number in range(MOVES - 20, -1, -1):
        assert f'href="/games/{LONG}/turns/{number}"' in html, number
    assert f'<th scope="row"><a href="/games/{LONG}/turns/{MOVES - 19}">' not in html
    assert "<details" not in html
    assert f'href="/games/{LONG}?page=1#history" rel="prev">Newer moves' in html
    assert "Older moves" not in html and "page 2 of 2" in text_of(html)
    # The position is on every page.
    assert '<h2 id="board">Board</h2>' in html


def test_a_page_past_the_last_is_the_last_and_a_bad_one_is_404(site: str) -> None:
    assert "page 2 of 2" in text_of(fetch(f"{site}/games/{LONG}?page=9").text)
    for page in ("0", "x", "-1", "99999999999"):
        assert fetch(f"{site}/games/{LONG}?page={page}").status == 404, page


def test_a_short_game_has_one_page(site: str) -> None:
    html = fetch(f"{site}/games/{PAUSED}").text
    assert "Older moves" not in html and "page 1 of" not in html


def test_a_paused_clock_is_shown_with_who_paused_it_and_until_when(site: str) -> None:
    html = fetch(f"{site}/games/{PAUSED}").text
    page = text_of(html)
    assert "The clock is paused for bob from " in page
    assert ": sailing, no &lt;internet&gt;" in page  # the reason, as text
    paused = page[page.index("The clock is paused for bob") :]
    assert " until " in paused and " UTC" in paused[:80]
    assert "The clock" not in text_of(fetch(f"{site}/games/{LONG}").text)
