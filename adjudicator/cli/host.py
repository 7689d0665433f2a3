"""`pamir deadlines` and `pamir email`: the host changes a game's deadlines or a player's
address, with a commit made as the adjudicator (docs/cli.md)."""

from __future__ import annotations

import argparse
from pathlib import Path

from adjudicator.cli.refusal import Refused
from adjudicator.games.deadlines import DeadlineError
from adjudicator.games.gamefile import GameFileError
from adjudicator.games.host import HostRefused, change_deadlines, change_email
from adjudicator.games.registry import game_lock
from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home.settings import SettingsError, load_settings

REFUSALS = (SettingsError, RepoError, GameError, GameFileError, DeadlineError, HostRefused)


def _open(game_dir: str) -> tuple[GameRepo, str]:
    repo = GameRepo(Path(game_dir))
    return repo, snapshot(repo).game.id


def cmd_deadlines(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            commit, table = change_deadlines(
                repo,
                timezone=args.timezone,
                turn_hours=args.turn_hours,
                reminder_hours=args.reminder_hours,
                on_timeout=args.on_timeout,
            )
    except REFUSALS as error:
        raise Refused(str(error)) from None
    print(
        f"{game_id}: deadlines now timezone {table.timezone}, {table.turn_hours} hours a "
        f"decision, reminders {table.reminder_hours} hours before, at a timeout "
        f"{table.on_timeout} ({commit[:10]}); the pending decision's clock restarts"
    )


def cmd_email(args: argparse.Namespace) -> None:
    try:
        settings = load_settings()
        repo, game_id = _open(args.game_dir)
        with game_lock(settings, game_id):
            commit = change_email(repo, args.player, args.address)
    except REFUSALS as error:
        raise Refused(str(error)) from None
    print(f"{game_id}: {args.player} is now mailed at {args.address} ({commit[:10]})")
