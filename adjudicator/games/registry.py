"""The service's view of its games: where they live, and one lock per game.

Games live in PAMIR_HOME/games/<id> (a working repository the service owns, possibly a
clone of a game hosted on a forge) or PAMIR_HOME/games/<id>.git (a bare repository players
push to). Everything that changes a game (a webhook delivery, an email, a deadline) takes
the game's lock first, so deliveries for one game are serialized across threads and
processes while different games proceed in parallel.
"""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from adjudicator.games.repo import GameRepo, RepoError
from adjudicator.games.snapshot import GameError, snapshot
from adjudicator.home.settings import Settings


def game_path(settings: Settings, game_id: str) -> Path | None:
    """The repository of a game, or None if this service has no such game."""
    for candidate in (settings.games_dir / game_id, settings.games_dir / f"{game_id}.git"):
        if candidate.is_dir():
            return candidate
    return None


def open_game(settings: Settings, game_id: str) -> GameRepo:
    path = game_path(settings, game_id)
    if path is None:
        raise GameError(f"no game {game_id!r} in {settings.games_dir}")
    return GameRepo(path)


def list_games(settings: Settings) -> list[tuple[str, GameRepo]]:
    """Every game repository under PAMIR_HOME/games, by id (folders that are not games
    are passed over)."""
    found: list[tuple[str, GameRepo]] = []
    if not settings.games_dir.is_dir():
        return found
    for path in sorted(settings.games_dir.iterdir()):
        # A hidden folder is a game still being built by `create_game`, not yet a game.
        if not path.is_dir() or path.name.startswith("."):
            continue
        try:
            repo = GameRepo(path)
            found.append((snapshot(repo).game.id, repo))
        except (RepoError, GameError, ValueError):
            continue
    return found


@contextmanager
def game_lock(settings: Settings, game_id: str) -> Iterator[None]:
    """Hold the game's lock (an flock on PAMIR_HOME/locks/<id>.lock) while changing it."""
    folder = settings.home / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / f"{game_id}.lock", "w", encoding="ascii") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
