"""The draft of a turn on the private page, through real HTTP and real Git: a click adds a
line, the page shows the position after it, a step can be undone, and the draft goes in
as one move.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import (
    THREE,
    count_commits,
    create,
    decider,
    full_state,
    head,
    isolate,
    next_number,
    opened,
    play,
    show,
)
from liveserver import fetch, serving
from test_private_page import form_fields, post, private_path

import engine
from adjudicator.games.pipeline import submit
from adjudicator.home.translations import Words
from adjudicator.web import create_app

GAME = "drafted"
ENGLISH = Words()


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A game some turns in, with the service on a real port."""
    root = isolate(tmp_path, monkeypatch)
    create(root / "games" / GAME, THREE)
    play(root / "games" / GAME, 6, seed=5, whole_turn=True)
    with serving(create_app({"home": root})) as url:
        yield root, url


def draft_url(page: str) -> str:
    return page + "/draft"


def lines_of(page: str) -> list[str]:
    """The draft's steps as the page lists them."""
    steps = re.search(r'<ol class="draft-steps">(.*?)</ol>', page, re.S)
    return (
        [html.unescape(s) for s in re.findall(r"<li><code>([^<]*)</code>", steps.group(1))]
        if steps
        else []
    )


def choice_lines(page: str) -> list[str]:
    """The lines of the choices the page offers, `pass` last: it ends a turn."""
    found = [html.unescape(s) for s in re.findall(r'class="choice" data-line="([^"]*)"', page)]
    return sorted(found, key=lambda line: line == "pass")


def add(url: str, line: str) -> str:
    reply = post(draft_url(url), {**form_fields(fetch(url).text), "op": "add", "line": line})
    assert reply.status == 200
    return reply.text


def test_a_draft_is_built_by_clicks_undone_and_submitted_as_one_move(
    game: tuple[Path, str],
) -> None:
    root, site = game
    path = root / "games" / GAME
    player, options = decider(full_state(path))
    url = f"{site}{private_path(root, GAME, player)}"
    page = fetch(url).text
    offered = choice_lines(page)
    assert set(options) <= set(offered) | {"pass"}, (options, offered)
    first = offered[0]
    page = add(url, first)
    assert lines_of(page) == [first]
    second = choice_lines(page)[0]  # an action, or the follow-up the first one asked
    page = add(url, second)
    assert lines_of(page) == [first, second]
    assert fetch(url).text.count('class="undo"') == len(lines_of(page))  # survives a reload
    before = head(path)
    commits = count_commits(path)
    assert head(path) == before  # a draft commits nothing
    # Undo the last step, then submit.
    undo = {**form_fields(fetch(url).text), "op": "undo", "step": str(len(lines_of(page)) - 1)}
    page = post(draft_url(url), undo).text
    assert lines_of(page) == [first]
    number = form_fields(page)["expected"]
    reply = post(draft_url(url), {**form_fields(page), "op": "submit"})
    assert reply.status == 200 and f"Move {number} adjudicated." in reply.text
    assert count_commits(path) == commits + 1
    assert show(path, "main", f"moves/{int(number):04d}-{player}.txt") == f"{first}\n"
    assert lines_of(fetch(url).text) == []  # the draft is cleared


def happened_of(page: str) -> list[list[str]]:
    """What each step of the draft did, as the page says it under the step."""
    steps = re.search(r'<ol class="draft-steps">(.*?)</ol>', page, re.S)
    assert steps is not None
    items = re.split(r"\n\s*<li><code>", steps.group(1))[1:]
    return [
        [html.unescape(said) for said in re.findall(r"<li>([^<]*)</li>", item.split("</ul>")[0])]
        if '<ul class="happened">' in item
        else []
        for item in items
    ]


def test_each_step_of_the_draft_says_what_it_did(game: tuple[Path, str]) -> None:
    """The effect of a step in the engine's words, as the report will say it."""
    root, site = game
    path = root / "games" / GAME
    state = full_state(path)
    player, _ = decider(state)
    url = f"{site}{private_path(root, GAME, player)}"
    first = choice_lines(fetch(url).text)[0]
    after = engine.apply(state, state.seat(player), engine.read_action(first)[0])
    page = add(url, first)
    said = [str(ENGLISH.said(line)) for line in after.said]
    assert said and happened_of(page) == [said]


def test_an_illegal_line_is_shown_as_refused_and_commits_nothing(game: tuple[Path, str]) -> None:
    root, site = game
    path = root / "games" / GAME
    player, _ = decider(full_state(path))
    url = f"{site}{private_path(root, GAME, player)}"
    before = head(path)
    page = add(url, "loyalty martians")
    assert lines_of(page) == ["loyalty martians"]
    assert "unknown-coalition" in page or "martians" in page
    assert 'class="problem"' in page
    assert head(path) == before


def test_a_draft_made_before_the_game_moved_on_is_discarded(game: tuple[Path, str]) -> None:
    root, site = game
    path = root / "games" / GAME
    player, options = decider(full_state(path))
    url = f"{site}{private_path(root, GAME, player)}"
    add(url, options[0])
    with opened(path) as repo:  # the game moves on by another way in
        submit(repo, player, options[0] + "\n", home=root)
    page = fetch(url).text
    assert "it was discarded" in page and lines_of(page) == []
    assert "it was discarded" not in fetch(url).text  # said once


def test_a_draft_form_of_an_old_page_or_a_forged_one_changes_nothing(
    game: tuple[Path, str],
) -> None:
    root, site = game
    path = root / "games" / GAME
    player, options = decider(full_state(path))
    url = f"{site}{private_path(root, GAME, player)}"
    forged = post(
        draft_url(url),
        {**form_fields(fetch(url).text), "token": "0" * 64, "op": "add", "line": options[0]},
    )
    assert forged.status == 403
    assert lines_of(fetch(url).text) == []


def test_no_draft_of_one_player_shows_on_anothers_page(game: tuple[Path, str]) -> None:
    root, site = game
    path = root / "games" / GAME
    player, options = decider(full_state(path))
    url = f"{site}{private_path(root, GAME, player)}"
    add(url, options[0])
    for other in THREE:
        if other != player:
            page = fetch(f"{site}{private_path(root, GAME, other)}").text
            assert lines_of(page) == []


def test_the_version_endpoint_answers_304_until_the_game_moves(game: tuple[Path, str]) -> None:
    root, site = game
    path = root / "games" / GAME
    url = f"{site}/games/{GAME}/version"
    first = fetch(url)
    assert first.status == 200 and first.headers["ETag"] == f'"{head(path)}"'
    assert first.json() == {"number": next_number(path) - 1, "head": head(path)}
    assert fetch(url, headers={"If-None-Match": first.headers["ETag"]}).status == 304
    player, options = decider(full_state(path))
    with opened(path) as repo:
        submit(repo, player, options[0] + "\n", home=root)
    moved = fetch(url, headers={"If-None-Match": first.headers["ETag"]})
    assert moved.status == 200 and moved.json()["head"] == head(path)
    assert fetch(f"{site}/games/nowhere/version").status == 404
    script = fetch(f"{site}/live.js")
    assert script.status == 200 and "If-None-Match" in script.text
