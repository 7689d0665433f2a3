"""A player's change to their own entry of game.toml (a resignation, a language): one
commit of game.toml, authored by the player, with trailers that say what it was."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from adjudicator.games.gamefile import GAME_FILE, PlayerEntry, dump_game_file
from adjudicator.games.objects import Person
from adjudicator.games.outputs import INBOUND_TRAILER
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import Snapshot


def commit_player_change(
    repo: GameRepo,
    snap: Snapshot,
    entry: PlayerEntry,
    update: dict[str, Any],
    message: str,
    when: datetime,
    *,
    inbound: str | None = None,
) -> str:
    """Commit game.toml with `entry` changed by `update`; return the commit. `message` ends
    with its trailers; `inbound` names the email that asked for it (docs/email.md)."""
    changed = entry.model_copy(update=update)
    players = tuple(changed if p is entry else p for p in snap.game.players)
    game = snap.game.model_copy(update={"players": players})
    if inbound is not None:
        message += f"{INBOUND_TRAILER}: {inbound}\n"
    return repo.commit(
        {GAME_FILE: dump_game_file(game).encode()},
        message,
        parent=snap.commit,
        author=Person(entry.name, entry.email),
        when=when,
    )
