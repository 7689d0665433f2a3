"""When the clock of a game's pending decision started, read from its repository.

The clock starts at the commit time of the last commit that changed the game: its position
(the `view` of `state.json`) or its rollback proposal (`rollbacks.toml`), or the
`[deadlines]` table of game.toml (docs/scheduler.md). A commit that rewrites `state.json`
and changes neither, a refused pushed move being the case, keeps the clock running: a
player who could restart it without playing could stall the game for ever. The rule is
read from the files themselves, so `pamir verify` and anyone with a clone compute the same
start without trusting a trailer.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from git.objects.commit import Commit

from adjudicator.games.gamefile import GAME_FILE, Deadlines, GameFileError, parse_game_file
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import ROLLBACKS_FILE, STATE_FILE, GameError, Rollbacks, read_state


def _when(commit: Commit) -> datetime:
    return commit.committed_datetime.astimezone(UTC)


def _deadlines_table(repo: GameRepo, commit: str) -> Deadlines | None:
    """The `[deadlines]` table at `commit`; None when game.toml cannot be read there (a
    push to a forge may have left a folder, a link or bytes that are not text, which the
    service put back: the history keeps them for ever)."""
    try:
        return parse_game_file(repo.read(GAME_FILE, commit) or "").deadlines
    except (GameFileError, GameError):
        return None


def _what_counts(repo: GameRepo, commit: str) -> tuple[Any, Any] | None:
    """The position and the rollback proposal at `commit`; None when unreadable."""
    try:
        view = (read_state(repo, commit) or {}).get("view")
        proposal = Rollbacks.parse(repo.read(ROLLBACKS_FILE, commit)).proposal
    except GameError:
        return None
    return view, proposal


def restarts_clock(repo: GameRepo, commit: Commit) -> bool:
    """Whether `commit`, which changed `state.json`, changed the position or the proposal
    (anything unreadable counts as a change: the clock then starts, as it always did)."""
    if not commit.parents:
        return True
    after = _what_counts(repo, commit.hexsha)
    return after is None or after != _what_counts(repo, commit.parents[0].hexsha)


def clock_started(repo: GameRepo, commit: str | None = None) -> datetime:
    """When the clock of the decision pending at `commit` (default: the tip) started."""
    at = commit or repo.head()
    if at is None:
        raise ValueError(f"{repo.path} has no commit yet")
    found: list[datetime] = []
    for change in repo.touching(at, STATE_FILE):
        if restarts_clock(repo, change):
            found.append(_when(change))
            break
    for change in repo.touching(at, GAME_FILE):
        parents = change.parents
        table = _deadlines_table(repo, change.hexsha)
        if not parents or table != _deadlines_table(repo, parents[0].hexsha):
            found.append(_when(change))
            break
    return max(found)
