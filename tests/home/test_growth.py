"""PostgreSQL mode's costs that must not grow with the number of games: what a node does
for one game never clones, reads or locks the others (docs/cluster.md#many-games).

Each test has a node `b` that starts empty beside the games another node (`a`) set up, and
checks that a piece of work about something else leaves their clones unmade: before, each
of these cloned (and read) every registered game first.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from pgserver import SECRET_KEY, scratch_database
from test_store import node_settings
from test_webhooks import host_game, push_move

from adjudicator.forge import remote
from adjudicator.games import hosting
from adjudicator.games.repo import GameRepo
from adjudicator.mail import ledger
from adjudicator.schedule import scheduler as sched
from adjudicator.web import create_app

pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def database_url() -> Iterator[str]:
    with scratch_database() as url:
        yield url


def clones(path: Path) -> list[str]:
    return sorted(p.name for p in path.iterdir()) if path.is_dir() else []


def test_reconciling_every_game_clones_none(tmp_path: Path, database_url: str) -> None:
    a = node_settings(tmp_path / "a", database_url)
    game = host_game(tmp_path, a)
    b = node_settings(tmp_path / "b", database_url)
    assert ledger.reconcile_all(b) == 0
    assert clones(b.games_dir) == []  # an uncloned game has no commit of b's to mail
    assert hosting.registered(b) == {game.game_id: str(game.origin)}


def test_a_webhook_game_is_found_by_its_url_and_an_unknown_one_costs_no_survey(
    tmp_path: Path, database_url: str
) -> None:
    a = node_settings(tmp_path / "a", database_url)
    game = host_game(tmp_path, a)
    b = node_settings(tmp_path / "b", database_url)
    unknown = ["https://forge.example/someone/else.git", "git@forge.example:someone/else.git"]
    assert remote.find_game(b, "someone/else", unknown) is None
    assert clones(b.games_dir) == []  # nothing cloned to look for it
    # The forge's URL in another spelling (file:// and .git) finds the game, cloned now.
    spelled = f"file://{game.origin}"
    assert remote.find_game(b, "players/game", [spelled]) == game.game_id
    assert clones(b.games_dir) == [game.game_id]


def test_rows_registered_before_the_url_key_are_found(tmp_path: Path, database_url: str) -> None:
    a = node_settings(tmp_path / "a", database_url)
    game = host_game(tmp_path, a)
    with psycopg.connect(database_url, autocommit=True) as connection:
        connection.execute("UPDATE pamir_games SET url_key = NULL")
    hosting._keyed.clear()  # a process that has not filled the keys in yet
    assert hosting.find(a, [str(game.origin)]) == (game.game_id, str(game.origin))
    with psycopg.connect(database_url, autocommit=True) as connection:
        row = connection.execute("SELECT count(*) FROM pamir_games WHERE url_key IS NULL")
        assert row.fetchone() == (0,)


def test_a_new_leader_starts_from_the_stored_jobs_and_rebuilds_beside_them(
    tmp_path: Path, database_url: str
) -> None:
    a = node_settings(tmp_path / "a", database_url)
    game = host_game(tmp_path, a)
    b = node_settings(tmp_path / "b", database_url)
    scheduler = sched.build_scheduler(b)
    try:
        # Built without reading a game: the due jobs the last leader stored run first.
        assert clones(b.games_dir) == []
        assert sched.REBUILD_JOB in {job.id for job in scheduler.get_jobs()}
    finally:
        sched.stop_leading(scheduler)
    sched.rebuild_jobs(scheduler, b)  # the rebuild, as the started scheduler runs it
    assert clones(b.games_dir) == [game.game_id]


def test_a_page_on_a_node_that_did_not_adjudicate_is_as_current_as_the_forge(
    tmp_path: Path, home: Path, database_url: str
) -> None:
    """Node a adjudicates a pushed move (its webhook); node b, which had served the game
    before, serves the game after it at once, with no poll in between."""
    a = node_settings(home, database_url)  # the players' helpers read the game from it
    game = host_game(tmp_path, a)
    b = node_settings(tmp_path / "b", database_url)
    client = create_app(
        {"home": b.home, "database_url": database_url, "secret_key": SECRET_KEY}
    ).test_client()
    assert client.get(f"/games/{game.game_id}/version").get_json()["number"] == 0
    push_move(game)
    repo = GameRepo(game.service)
    try:
        ledger.announce(a, repo, ledger.forge_update(a, repo))  # as node a's webhook does
        adjudicated = repo.head()
    finally:
        repo.repo.close()
    seen = client.get(f"/games/{game.game_id}/version").get_json()
    assert seen == {"number": 1, "head": adjudicated}
    assert hosting.forge_head(b, game.game_id) == adjudicated
