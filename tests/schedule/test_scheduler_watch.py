"""A running scheduler follows a host's change of deadlines when it is committed.

A real scheduler (APScheduler, started, with an injected clock) runs beside a host who
shortens the deadlines with the real `pamir deadlines` command. The change must be
scheduled within seconds, by the watch on the games' branches, and not at the next poll
(minutes away).
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from gitgame import PAMIR, SECRET, TWO, run

from adjudicator.games.newgame import create_game
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.schedule import scheduler as sched

pytestmark = pytest.mark.usefixtures("home")


def new_game(settings: Settings, game_id: str) -> Path:
    path = settings.games_dir / game_id
    players = [(n, f"{n}@example.org") for n in TWO]
    create_game(path, players, home=settings.home, secret=SECRET, turn_hours=48).repo.close()
    return path


def test_a_shortened_deadline_is_scheduled_within_seconds_not_at_the_next_poll(
    settings: Settings,
) -> None:
    path = new_game(settings, "tt")
    assert settings.poll_minutes >= 5
    # The clock runs an hour ahead: a 1-hour turn that starts now is due at once, while
    # the 48-hour turn the jobs were built for is not.
    scheduler = sched.build_scheduler(
        settings, clock=lambda: datetime.now(UTC) + timedelta(hours=1)
    )
    scheduler.start()
    repo = GameRepo(path)
    try:
        time.sleep(0.5)
        assert snapshot(repo).adjudicated == 0
        changed = run([str(PAMIR), "deadlines", str(path), "--turn-hours", "1"])
        assert changed.returncode == 0, changed.stderr
        started = time.monotonic()
        while snapshot(repo).adjudicated < 1 and time.monotonic() - started < 15:
            time.sleep(0.1)
        took = time.monotonic() - started
    finally:
        scheduler.shutdown(wait=True)
        repo.repo.close()
    assert snapshot(GameRepo(path)).adjudicated >= 1, "the change waited for the next poll"
    assert took < sched.WATCH_SECONDS + 5
    summary = str(GameRepo(path).repo.commit("refs/heads/main~0").summary)
    assert "(deadline passed)" in summary


def test_the_watch_refreshes_only_the_games_whose_branch_moved(settings: Settings) -> None:
    new_game(settings, "tt")
    other = new_game(settings, "uu")
    now = datetime.now(UTC)
    scheduler = sched.build_scheduler(settings, clock=lambda: now)
    scheduler.start()
    try:
        assert sched.watch(scheduler, settings) == []
        run([str(PAMIR), "deadlines", str(other), "--turn-hours", "12"])
        assert sched.watch(scheduler, settings) == ["uu"]
        assert sched.watch(scheduler, settings) == []
        job = scheduler.get_job("deadline:uu")
        assert job is not None and "deadline of uu" in job.name
    finally:
        scheduler.shutdown(wait=True)
