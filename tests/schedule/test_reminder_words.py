"""A reminder's words: the deadline once for a game on UTC time, twice (local, then UTC)
elsewhere, and "about 1 hour", not "about 1 hours"."""

from __future__ import annotations

from datetime import timedelta

from gitgame import SECRET, TWO

from adjudicator.games.host import change_deadlines
from adjudicator.games.newgame import create_game
from adjudicator.games.repo import GameRepo
from adjudicator.home.settings import Settings
from adjudicator.schedule.clock import waiting
from adjudicator.schedule.reminders import compose_reminder


def game(settings: Settings) -> GameRepo:
    players = [(n, f"{n}@example.org") for n in TWO]
    path = settings.games_dir / "words"
    return create_game(path, players, home=settings.home, secret=SECRET, turn_hours=48)


def reminder_text(settings: Settings, repo: GameRepo, hours_left: float) -> str:
    pending = waiting(repo)
    assert pending is not None
    now = pending.clock.deadline - timedelta(hours=hours_left)
    player = pending.players[0]
    return str(compose_reminder(settings, repo, pending, player, now).get_content())


def test_a_utc_game_shows_its_deadline_once_and_counts_hours_right(settings: Settings) -> None:
    repo = game(settings)
    text = reminder_text(settings, repo, 1)
    line = next(line for line in text.splitlines() if line.startswith("Your deadline:"))
    assert line.count("UTC") == 1 and "(" not in line
    assert line.endswith("about 1 hour from now.")
    assert reminder_text(settings, repo, 5).count("about 5 hours from now.") == 1


def test_a_game_on_local_time_shows_local_then_utc(settings: Settings) -> None:
    repo = game(settings)
    change_deadlines(repo, timezone="Europe/Warsaw")
    line = next(
        line
        for line in reminder_text(settings, repo, 30).splitlines()
        if line.startswith("Your deadline:")
    )
    assert ("CET" in line or "CEST" in line) and line.count("UTC") == 1
    pending = waiting(repo)
    assert pending is not None
    now = pending.clock.deadline - timedelta(hours=30)
    subject = compose_reminder(settings, repo, pending, pending.players[0], now)["Subject"]
    assert "UTC" not in subject  # the subject keeps to the game's own time
