"""Each player is told only their own way of playing (game.toml's `plays_by`): a player who
plays by email never gets Git instructions, one who plays by Git never gets instructions to
reply by mail; `both` (the default) gets both."""

from __future__ import annotations

import email
import email.policy
import tomllib
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from gitgame import SECRET, TWO

import engine
from adjudicator.cli import main
from adjudicator.games.gamefile import GAME_FILE
from adjudicator.games.newgame import create_game
from adjudicator.games.pipeline import position, submit
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import snapshot
from adjudicator.home.settings import Settings
from adjudicator.mail import report_mails
from adjudicator.schedule.clock import waiting
from adjudicator.schedule.reminders import compose_reminder


def game(settings: Settings) -> GameRepo:
    players = [(n, f"{n}@example.org") for n in TWO]
    return create_game(settings.games_dir / "ways", players, home=settings.home, secret=SECRET)


def mails(settings: Settings, repo: GameRepo) -> dict[str, str]:
    """Each player's mail of the latest adjudication, as plain text."""
    state = position(snapshot(repo), settings.home)
    player, action = engine.legal_actions(state)[0]
    done = submit(repo, player, engine.format_action(action) + "\n", home=settings.home)
    texts: dict[str, str] = {}
    for path in report_mails.notify(settings, repo, [done], deliver_now=False):
        message = email.message_from_bytes(path.read_bytes(), policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        body = message.get_body(preferencelist=("plain",))
        assert body is not None
        texts[str(message["X-Pamir-Player"])] = str(body.get_content())
    return texts


def test_each_player_is_told_only_their_own_way(settings: Settings, tmp_path: Path) -> None:
    repo = game(settings)
    alice, bob = TWO[0], TWO[1]
    assert main(["plays-by", str(repo.path), alice, "email"]) == 0
    assert main(["plays-by", str(repo.path), bob, "git"]) == 0
    for _ in range(4):  # until each has had a decision in their section
        texts = mails(settings, repo)
    by_mail, by_git = texts[alice.lower()], texts[bob.lower()]
    assert "Playing by email" in by_mail and "/help" in by_mail
    assert "moves/" not in by_mail and "push" not in by_mail
    assert "Playing by Git" in by_git
    assert "Playing by email" not in by_git and "Reply to this message" not in by_git


def test_both_is_the_default_and_leaves_game_toml_as_it_was(settings: Settings) -> None:
    repo = game(settings)
    before = repo.read(GAME_FILE) or ""
    assert "plays_by" not in before
    texts = mails(settings, repo)
    deciding = [t for t in texts.values() if "To play by Git" in t]
    assert deciding and all("Playing by email" in t for t in deciding)
    main(["plays-by", str(repo.path), TWO[0], "git"])
    players = tomllib.loads(repo.read(GAME_FILE) or "")["players"]
    assert [p.get("plays_by") for p in players] == ["git", None]


def test_reminders_explain_the_players_own_way(settings: Settings) -> None:
    repo = game(settings)
    pending = waiting(repo)
    assert pending is not None
    player = pending.players[0]
    now = pending.clock.deadline - timedelta(hours=2)
    for way, said, unsaid in (
        ("email", "Reply to this message", "repository"),
        ("git", "Push your move file", "Reply to this message"),
    ):
        main(["plays-by", str(repo.path), player, way])
        pending = waiting(repo)
        assert pending is not None
        text = str(compose_reminder(settings, repo, pending, player, now).get_content())
        assert said in text and unsaid not in text, way
