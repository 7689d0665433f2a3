"""Why a game that reads cannot be scheduled (docs/scheduler.md#a-game-that-needs-its-host).

A game can read well enough for its pages and still leave the scheduler nothing to do:
its `state.json` says no decision is pending though the game is not over, or is gone, or
a move file names a player the game does not have (no hook ran to refuse it, and nobody
may answer for a stranger). Left alone, such a game would wait for ever without a word;
instead the scheduler marks it as needing its host with the reason found here.

The other causes are found elsewhere: a game.toml or deadlines.toml no deadline can be
computed from fails to read (`waiting` raises), and pushed moves no hook adjudicated are
adjudicated by the scheduler itself.
"""

from __future__ import annotations

from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import STATE_FILE, Snapshot, read_state
from adjudicator.schedule.clock import Waiting


def stalled(repo: GameRepo, snap: Snapshot, pending: Waiting | None) -> str | None:
    """Why the game at `snap` cannot be scheduled though it reads, or None when it can
    (or is over). `pending` is `waiting(repo, snap.commit)`."""
    strangers = [m for m in snap.pending() if m.player not in snap.game.names]
    if strangers:
        move = strangers[0]
        return (
            f"{move.path} is a move for {move.player!r}, who is not a player of this game: "
            "the host removes the file"
        )
    if pending is not None:
        return None
    document = read_state(repo, snap.commit)
    if document is None:
        return f"{STATE_FILE} is missing: no decision can be waited for"
    if (document.get("view") or {}).get("phase") != "over":
        return f"{STATE_FILE} shows no decision pending, yet the game is not over"
    return None
