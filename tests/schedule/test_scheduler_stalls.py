"""Games the scheduler cannot schedule are never skipped in silence.

Each cause of a stall seen in practice is committed to a real game repository: a
`turn_hours = 0`, a `state.json` that says nothing is pending in a game that is not over
(or is gone), a move file for a player the game does not have, and a pushed move that no
hook adjudicated. The scheduler either resolves the stall on its next tick (it adjudicates
what was pushed) or logs the game, with the reason, on every tick and marks it as needing
its host, which `pamir games`, the index page and the operator's mail show.
"""

from __future__ import annotations

import logging
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from gitgame import PAMIR, SECRET, TWO, git

from adjudicator.games import needs_host
from adjudicator.games.newgame import create_game
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.games.verify import verify
from adjudicator.home.settings import Settings, load_settings
from adjudicator.schedule import jobs
from adjudicator.schedule import scheduler as sched
from adjudicator.schedule.clock import waiting
from adjudicator.web import create_app

pytestmark = pytest.mark.usefixtures("home")

LOGGER = "adjudicator.schedule.jobs"
TWO_GAMES = ("stuck", "fine")


@pytest.fixture
def settings(home: Path) -> Settings:
    return load_settings({"home": home, "operator_email": "host@example.org"})


def new_game(settings: Settings, game_id: str, *, bare: bool = False) -> Path:
    path = settings.games_dir / (f"{game_id}.git" if bare else game_id)
    players = [(n, f"{n}@example.org") for n in TWO]
    create_game(path, players, home=settings.home, secret=SECRET, bare=bare).repo.close()
    return path


def commit_all(tree: Path, message: str) -> None:
    git(tree, "add", "-A")
    git(tree, "commit", "-q", "-m", message)


def zero_turn_hours(tree: Path) -> None:
    text = (tree / "game.toml").read_text(encoding="utf-8")
    (tree / "game.toml").write_text(text.replace("turn_hours = 48", "turn_hours = 0"))
    commit_all(tree, "deadlines by hand")


def state_without_decision(tree: Path) -> None:
    (tree / "state.json").write_text('{"move": 0, "view": {}}\n', encoding="utf-8")
    commit_all(tree, "state by hand")


def state_removed(tree: Path) -> None:
    git(tree, "rm", "-q", "state.json")
    git(tree, "commit", "-q", "-m", "no state")


def unknown_player_move(tree: Path) -> None:
    (tree / "moves").mkdir(exist_ok=True)
    (tree / "moves" / "0001-zed.txt").write_text("loyalty british\n", encoding="utf-8")
    commit_all(tree, "a move for nobody")


CAUSES = {
    "turn-hours-zero": (zero_turn_hours, "turn_hours"),
    "state-without-decision": (state_without_decision, "state.json"),
    "state-removed": (state_removed, "state.json"),
    "unknown-player-move": (unknown_player_move, "zed"),
}


def games_output(settings: Settings) -> str:
    done = subprocess.run(
        [str(PAMIR), "games"],
        env={"PAMIR_HOME": str(settings.home), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return done.stdout


def warnings_about(caplog: pytest.LogCaptureFixture, game_id: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == LOGGER and r.levelno >= logging.WARNING and f"game {game_id}" in r.getMessage()
    ]


@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_a_game_that_cannot_be_scheduled_is_logged_every_tick_and_needs_its_host(
    settings: Settings, caplog: pytest.LogCaptureFixture, cause: str
) -> None:
    edit, words = CAUSES[cause]
    edit(new_game(settings, "stuck"))
    new_game(settings, "fine")
    caplog.set_level(logging.INFO)
    scheduler = sched.build_scheduler(settings)
    ids = {job.id for job in scheduler.get_jobs()}
    assert "deadline:fine" in ids and "deadline:stuck" not in ids
    first = warnings_about(caplog, "stuck")
    assert first and all(words in line for line in first), first
    caplog.clear()
    sched.poll(scheduler, settings)  # the next tick says it again
    again = warnings_about(caplog, "stuck")
    assert again and words in again[0]
    mark = needs_host.marked(settings.home, "stuck")
    assert mark is not None and words in mark.reason
    listing = games_output(settings)
    assert any(
        line.startswith("stuck") and "needs the host" in line for line in listing.splitlines()
    )
    assert "fine  ok" in listing or any(
        line.split() == ["fine", "ok"] for line in listing.splitlines()
    )
    index = create_app({"home": settings.home}).test_client().get("/").get_data(as_text=True)
    rows = {game: row for row in index.split("<tr")[1:] for game in TWO_GAMES if f">{game}<" in row}
    assert "needs the host" in rows["stuck"] and "needs the host" not in rows["fine"]
    outbox = list((settings.outbox_dir / "pending").glob("*.eml"))
    mails = [p.read_text(encoding="utf-8", errors="replace") for p in outbox]
    assert any("[stuck] The game needs its host" in m for m in mails)
    assert not any("[fine]" in m for m in mails)


def push_move_without_hooks(tmp_path: Path, bare: Path, player: str, text: str) -> None:
    """A push into the bare repository as if its hooks were missing: the move file lands
    on the branch and nobody adjudicates it."""
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(bare), str(clone))
    (clone / "moves").mkdir(exist_ok=True)
    (clone / "moves" / f"0001-{player}.txt").write_text(text, encoding="utf-8")
    git(clone, "add", "moves")
    git(clone, "commit", "-q", "--author", f"{player} <{player}@example.org>", "-m", "move 1")
    git(clone, "push", "-q", "--no-verify", "origin", "main")


def test_a_pushed_move_no_hook_adjudicated_is_adjudicated_on_the_next_tick(
    tmp_path: Path, settings: Settings
) -> None:
    bare = new_game(settings, "pushed", bare=True)
    repo = GameRepo(bare)
    pending = waiting(repo)
    assert pending is not None
    (player,) = pending.players
    push_move_without_hooks(tmp_path, bare, player, "loyalty british\n")
    stuck = waiting(repo)
    assert stuck is not None and stuck.pushed
    scheduler = sched.build_scheduler(settings, clock=lambda: datetime.now(UTC))
    sched.poll(scheduler, settings)
    snap = snapshot(repo)
    assert snap.adjudicated == 1 and not snap.pending()
    assert str(repo.repo.commit("refs/heads/main").summary).startswith("Adjudicate move 1")
    assert verify(repo, settings.home).ok
    assert needs_host.marked(settings.home, "pushed") is None
    assert "deadline:pushed" in {job.id for job in scheduler.get_jobs()}
    repo.repo.close()


def test_pamir_scheduler_once_adjudicates_a_pushed_move_too(
    tmp_path: Path, settings: Settings
) -> None:
    bare = new_game(settings, "pushed", bare=True)
    repo = GameRepo(bare)
    pending = waiting(repo)
    assert pending is not None
    push_move_without_hooks(tmp_path, bare, pending.players[0], "loyalty british\n")
    jobs.run_once(settings, datetime.now(UTC) + timedelta(minutes=1))
    assert snapshot(repo).adjudicated == 1
    repo.repo.close()
