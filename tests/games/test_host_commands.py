"""The host's commands on a game: `pamir deadlines` and `pamir email` (docs/cli.md).

game.toml belongs to the service: players may only push move files, so the host changes it
with these commands, each a commit made as the adjudicator that `pamir verify` accepts.
"""

from __future__ import annotations

import tomllib
from datetime import timedelta

from gitgame import SECRET, TWO, pamir, pamir_ok

from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.schedule.clock import waiting


def new_game(settings: Settings) -> GameRepo:
    players = [(name, f"{name}@example.org") for name in TWO]
    return create_game(settings.games_dir / "tt", players, home=settings.home, secret=SECRET)


def game_toml(repo: GameRepo) -> dict[str, object]:
    text = repo.read("game.toml")
    assert text is not None
    return tomllib.loads(text)


def test_pamir_deadlines_commits_the_change_and_restarts_the_clock(settings: Settings) -> None:
    repo = new_game(settings)
    before = waiting(repo)
    assert before is not None
    submit(repo, before.players[0], "loyalty british\n", home=settings.home)
    out = pamir_ok(
        "deadlines",
        repo.path,
        "--timezone",
        "Europe/Warsaw",
        "--turn-hours",
        "24",
        "--on-timeout",
        "standin",
    )
    assert out.startswith("tt: deadlines now timezone Europe/Warsaw, 24 hours a decision")
    table = game_toml(repo)["deadlines"]
    assert table == {
        "timezone": "Europe/Warsaw",
        "turn_hours": 24,
        "reminder_hours": 12,
        "on_timeout": "standin",
    }
    head = repo.repo.commit("HEAD")
    assert head.committer.email == "adjudicator@pamir.invalid"
    after = waiting(repo)
    assert after is not None and after.clock.started == head.committed_datetime
    assert after.clock.deadline - after.clock.started in (
        timedelta(hours=23),  # a change of summer time within the day counts on the wall clock
        timedelta(hours=24),
        timedelta(hours=25),
    )
    assert pamir_ok("verify", repo.path).startswith("ok")


def test_pamir_deadlines_refuses_bad_values_and_commits_nothing(settings: Settings) -> None:
    repo = new_game(settings)
    head = repo.head()
    for args, reason in (
        (["--timezone", "Mars/Olympus"], "unknown time zone 'Mars/Olympus'"),
        (["--turn-hours", "0"], "turn_hours"),
        (["--reminder-hours", "-1"], "reminder_hours"),
        (["--turn-hours", "48"], "nothing to change"),
        ([], "nothing to change"),
    ):
        done = pamir("deadlines", repo.path, *args)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert reason in done.stderr
        assert repo.head() == head


def test_pamir_email_changes_one_address(settings: Settings) -> None:
    repo = new_game(settings)
    out = pamir_ok("email", repo.path, "--as", "Bob", "robert@example.net")
    assert out.startswith("tt: Bob is now mailed at robert@example.net")
    players = snapshot(repo).game.players
    assert [(p.name, p.email) for p in players] == [
        ("alice", "alice@example.org"),
        ("bob", "robert@example.net"),
    ]
    assert pamir_ok("verify", repo.path).startswith("ok")
    head = repo.head()
    for args, reason in (
        (["--as", "zoe", "z@example.org"], "no player is called 'zoe'"),
        (["--as", "bob", "not an address"], "bad address"),
        (["--as", "bob", "robert@example.net"], "nothing to change"),
    ):
        done = pamir("email", repo.path, *args)
        assert done.returncode == 2 and reason in done.stderr, (args, done.stderr)
    assert repo.head() == head
