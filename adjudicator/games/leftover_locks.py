"""Lock files a killed process left in a game's repository, and their removal.

Git takes a lock by creating `<file>.lock` (`HEAD.lock`, `refs/heads/main.lock`,
`index.lock`, `packed-refs.lock`, `config.lock`, ...) and ends it by renaming the lock over
the file or removing it. A process killed in between (kill -9, the machine's OOM killer, a
node of the service dying while its `git push` or ref update ran) leaves the lock behind,
and git, like `adjudicator.games.refs`, then refuses every later update of that file: the
game is wedged until someone removes it by hand.

`clear` removes such leftovers. It is called with the game's lock held (`registry.
game_lock`), so no writer of this service is at work on the game; other writers of the
same repository (a player's `git push` into a hosted bare game, its hooks, git gc) hold
their locks for milliseconds, so a lock older than `LEFTOVER_AFTER` is no live writer's.
A younger one is left alone: the writer holding it is still at work. A lock that cannot be
removed (its folder is not the service's to write) is reported with its path, so that the
game is marked as needing its host rather than failing with a misleading message.
"""

from __future__ import annotations

import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

LOCK_SUFFIX = ".lock"
# Git holds a ref's lock for milliseconds (its own wait for one is 100 ms, core.
# filesRefLockTimeout; 1 s for packed-refs); a minute is no live writer's.
LEFTOVER_AFTER = 60.0
# Where git keeps the files it locks: the git folder itself and its refs.
_TREES = ("refs",)


@dataclass(frozen=True)
class Unremovable:
    """A leftover lock that could not be removed, and why."""

    path: Path
    error: str


def git_dir(repo_path: Path) -> Path:
    """The repository's git folder: `.git` of a clone with a work tree, else itself."""
    dot_git = repo_path / ".git"
    return dot_git if dot_git.is_dir() else repo_path


def leftovers(folder: Path, *, now: float | None = None) -> list[Path]:
    """The lock files in a git folder older than LEFTOVER_AFTER, oldest first."""
    now = time.time() if now is None else now
    found: list[tuple[float, Path]] = []
    for path in _lock_files(folder):
        try:
            changed = path.lstat().st_mtime
        except FileNotFoundError:  # its writer ended meanwhile
            continue
        if now - changed > LEFTOVER_AFTER:
            found.append((changed, path))
    return [path for _, path in sorted(found)]


def clear(repo_path: Path, *, now: float | None = None) -> tuple[list[Path], list[Unremovable]]:
    """Remove the leftover lock files of a repository (the game's lock is held): the ones
    removed, and the ones that could not be."""
    removed: list[Path] = []
    failed: list[Unremovable] = []
    for path in leftovers(git_dir(repo_path), now=now):
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as error:
            failed.append(Unremovable(path, error.strerror or str(error)))
            continue
        log.warning("removed %s, left by a process that died while it held it", path)
        removed.append(path)
    return removed, failed


def _lock_files(folder: Path) -> list[Path]:
    """Every `*.lock` file directly in the git folder and anywhere under its refs."""
    found: list[Path] = []
    try:
        with os.scandir(folder) as entries:
            found += [Path(e.path) for e in entries if e.name.endswith(LOCK_SUFFIX) and e.is_file()]
    except OSError:
        return []
    for tree in _TREES:
        for root, _, names in os.walk(folder / tree):
            found += [Path(root, name) for name in names if name.endswith(LOCK_SUFFIX)]
    return found
