"""The service's view of its games: where they live, and one lock per game.

Games live in PAMIR_HOME/games/<id> (a working repository the service owns, possibly a
clone of a game hosted on a forge) or PAMIR_HOME/games/<id>.git (a bare repository players
push to). Everything that changes a game (a webhook delivery, an email, a deadline) takes
the game's lock first, so deliveries for one game are serialized across threads and
processes while different games proceed in parallel. Taking it also removes the lock
files a killed process left in the game's repository (`leftover_locks`), which would
otherwise refuse every later update of the game.

In PostgreSQL mode (docs/cluster.md) the games are those of the registry
(adjudicator/games/hosting.py): a game this node has no clone of yet is cloned from its
forge when it is asked for.

`survey` reads every game once and marks those that cannot be read as needing their host
(`needs_host`), so that one broken game is listed as such instead of breaking the list.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from adjudicator.games import hosting, leftover_locks, needs_host
from adjudicator.games.refs import tip_of
from adjudicator.games.repo import REF, GameRepo, RepoError
from adjudicator.games.snapshot import GameError, Snapshot, snapshot
from adjudicator.home import locks
from adjudicator.home.settings import Settings

log = logging.getLogger(__name__)


def game_path(settings: Settings, game_id: str) -> Path | None:
    """The repository of a game, or None if this service has no such game."""
    for candidate in (settings.games_dir / game_id, settings.games_dir / f"{game_id}.git"):
        if candidate.is_dir():
            return candidate
    if not game_id.startswith("."):  # in PostgreSQL mode, a clone of the forge's
        try:
            return hosting.clone(settings, game_id)
        except RepoError as error:  # the forge is away: the game cannot be had right now
            log.warning("game %s: %s", game_id, error)
    return None


def open_game(settings: Settings, game_id: str) -> GameRepo:
    path = game_path(settings, game_id)
    if path is None:
        raise GameError(f"no game {game_id!r} in {settings.games_dir}")
    return GameRepo(path)


KEPT_OPEN = 64  # games a long-running process keeps open
_kept: OrderedDict[Path, GameRepo] = OrderedDict()
_kept_lock = threading.Lock()


def kept_game(settings: Settings, game_id: str) -> GameRepo:
    """The game's repository, kept open by this process between requests (the caller
    holds the game's lock and does not close it). An open repository keeps its two `git
    cat-file` processes, so a webhook delivery starts only the git processes of its own
    work; the least recently used beyond KEPT_OPEN are let go (closed when no longer used)."""
    path = game_path(settings, game_id)
    if path is None:
        raise GameError(f"no game {game_id!r} in {settings.games_dir}")
    with _kept_lock:
        repo = _kept.pop(path, None) or GameRepo(path)
        _kept[path] = repo
        while len(_kept) > KEPT_OPEN:
            _kept.popitem(last=False)
    return repo


@dataclass
class Listed:
    """A game folder of PAMIR_HOME/games, and whether the game can be read. The caller
    closes `repo`."""

    id: str  # game.toml's id; the folder's name when the game cannot be read
    repo: GameRepo
    snap: Snapshot | None  # None when the game cannot be read
    problem: str | None  # why it needs its host (also when it reads, but cannot be played)


def folder_id(path: Path) -> str:
    """The id a game folder stands for (folders are named after their game)."""
    return path.name.removesuffix(".git")


def mark_needs_host(settings: Settings, game_id: str, repo: GameRepo, reason: str) -> None:
    """Mark a game as needing its host, and log it the first time for this reason."""
    try:
        tip = repo.head()
    except Exception:  # the tip is only a hint for clearing the mark later
        tip = None
    if needs_host.mark(settings, game_id, reason, tip):
        log.warning("game %s needs its host: %s", game_id, reason)


def check_game(settings: Settings, repo: GameRepo) -> Listed:
    """Read a game, marking it as needing its host when it cannot be read, and clearing
    the mark when it reads again at a new commit."""
    try:
        snap = snapshot(repo)
    except GameError as error:
        problem = str(error)
    except Exception as error:  # an unforeseen failure still concerns this game alone
        log.exception("game %s cannot be read", repo.path.name)
        problem = f"the game cannot be read ({type(error).__name__}: {error})"
    else:
        game_id = folder_id(repo.path)
        needs_host.clear(settings, game_id, unless_at=snap.commit)
        # A mark that stays was made at this very commit by work that reads further than
        # a snapshot (the scheduler, an adjudication): the game still needs its host.
        mark = needs_host.marked(settings.home, game_id)
        return Listed(snap.game.id, repo, snap, mark.reason if mark is not None else None)
    game_id = folder_id(repo.path)
    mark_needs_host(settings, game_id, repo, problem)
    return Listed(game_id, repo, None, problem)


def survey(settings: Settings) -> list[Listed]:
    """Every game repository under PAMIR_HOME/games, by folder name, read once: those
    that can be read and those that need their host (folders that are not Git
    repositories are passed over)."""
    found: list[Listed] = []
    hosting.rebuild(settings)  # PostgreSQL mode: the registry's games this node lacks
    if not settings.games_dir.is_dir():
        return found
    for path in sorted(settings.games_dir.iterdir()):
        # A hidden folder is a game still being built by `create_game`, not yet a game.
        if not path.is_dir() or path.name.startswith("."):
            continue
        if (listed := _listed(settings, path)) is not None:
            found.append(listed)
    return found


def _listed(settings: Settings, path: Path) -> Listed | None:
    """The game at `path` read (`check_game`); None when it is not a Git repository."""
    try:
        repo = GameRepo(path)
    except RepoError:
        return None
    return check_game(settings, repo)


def game_ids(settings: Settings) -> list[str]:
    """Every game's id, sorted, with no game read or cloned: the folders of PAMIR_HOME/games
    and, in PostgreSQL mode, the registry's games (one query)."""
    ids = set(hosting.registered(settings))
    if settings.games_dir.is_dir():
        for path in settings.games_dir.iterdir():
            if path.is_dir() and not path.name.startswith("."):
                ids.add(folder_id(path))
    return sorted(ids)


def survey_of(settings: Settings, ids: list[str]) -> list[Listed]:
    """The games `ids` read as `survey` reads them (cloned first in PostgreSQL mode when
    this node has no clone); an id that is no game here is passed over."""
    found: list[Listed] = []
    for game_id in ids:
        path = game_path(settings, game_id)
        if path is not None and (listed := _listed(settings, path)) is not None:
            found.append(listed)
    return found


def list_games(settings: Settings) -> list[tuple[str, GameRepo]]:
    """Every game under PAMIR_HOME/games that can be read, by id (the caller closes the
    repositories). Those that cannot are marked as needing their host and left out."""
    found: list[tuple[str, GameRepo]] = []
    for entry in survey(settings):
        if entry.problem is None:
            found.append((entry.id, entry.repo))
        else:
            entry.repo.repo.close()
    return found


@contextmanager
def game_lock(settings: Settings, game_id: str) -> Iterator[None]:
    """Hold the game's lock while changing it: an flock on PAMIR_HOME/locks/<id>.lock, or
    with a database the game's advisory lock, which excludes every node
    (adjudicator/home/locks.py)."""
    with locks.exclusive(settings, f"game:{game_id}", settings.home / "locks" / f"{game_id}.lock"):
        _clear_leftover_locks(settings, game_id)
        yield


LEFTOVER_REASON = "was left by a process that died while it held it, and cannot be removed"


def _clear_leftover_locks(settings: Settings, game_id: str) -> None:
    """Remove the lock files a killed process left in the game's repository, now that no
    writer of this service is at work on it (games/leftover_locks.py); mark the game as
    needing its host, naming the file, when one cannot be removed, and clear that mark
    once none is left (the host removed it by hand)."""
    for candidate in (settings.games_dir / game_id, settings.games_dir / f"{game_id}.git"):
        if not candidate.is_dir():
            continue
        _, failed = leftover_locks.clear(candidate)
        for stuck in failed:
            reason = f"{stuck.path} {LEFTOVER_REASON} ({stuck.error}): remove it by hand"
            # Marked at the game's tip: a read of the game, which succeeds, keeps the mark
            # while the branch stays there (needs_host.clear's `unless_at`).
            if needs_host.mark(settings, game_id, reason, tip_of(candidate, REF)):
                log.error("game %s: %s", game_id, reason)
        if not failed:
            mark = needs_host.marked(settings.home, game_id)
            if mark is not None and LEFTOVER_REASON in mark.reason:
                needs_host.clear(settings, game_id)
