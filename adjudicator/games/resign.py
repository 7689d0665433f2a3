"""A player's resignation: the stand-in (engine/standin.py) takes the seat, or the game
ends, as the host chose (`on_resign` in game.toml).

Players may discuss and leave a game as they see fit. A resignation is the adjudicator's
commit that marks the player `resigned` in game.toml, authored by the player. Then:
- `on_resign = "standin"` (the default): the game goes on, and every decision of that seat
  is the stand-in's, played as soon as it is pending (`pipeline.play_resigned`) right after
  the move before it, whichever way that came in, and by the scheduler,
  for which such a decision is due at once (games/waiting.py);
- `on_resign = "end"`: the game ends at once (`pipeline.end_resigned`), by an adjudicator move for
  the player holding the line `resign`, scored as engine/resignation.py says: the rulebook
  has no resignation, so this is the host's outcome, scored by the rulebook's end of game
  on the position as it stands. Its commit reveals the secret like any game's end, and
  `pamir verify` replays it.
The seat is no longer the player's on any way in: the pipeline refuses a move in their
name, the contract a pushed one (games/contract.py), mail their press and pauses, and
their reply address and page link are replaced (home/credentials.py), the page giving
410 Gone. The caller holds the game's lock.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from adjudicator.games.players import commit_player_change
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import REVEAL_FILE, snapshot
from adjudicator.games.waiting import waiting
from adjudicator.home import credentials
from engine.phrases import P, Phrase


class ResignRefused(ValueError):
    """A resignation that cannot be recorded; `code` is stable. Nothing was committed.
    `message` is a phrase, its English the text."""

    def __init__(self, code: str, message: Phrase) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    def said(self) -> Phrase:
        """The refusal as a phrase: `CODE: reason`, its English `str(self)`."""
        return P("%(code)s: %(reason)s", code=self.code, reason=self.message)


def record_resignation(
    repo: GameRepo, player: str, when: datetime, *, home: Path, inbound: str | None = None
) -> str:
    """Commit that `player` resigned; return the commit. Raises ResignRefused. Their reply
    address and page link are replaced (in the store of the service whose data folder is
    `home`): nothing they held before acts for the seat any more."""
    repo.sync_worktree()
    snap = snapshot(repo)
    try:
        entry = snap.game.player(player)
    except KeyError:
        raise ResignRefused(
            "unknown-player", P("no player is called %(name)s", name=repr(player))
        ) from None
    if entry.resigned:
        raise ResignRefused("resigned", P("%(player)s has resigned already", player=entry.name))
    if repo.read(REVEAL_FILE, snap.commit) is not None or waiting(repo, snap.commit) is None:
        raise ResignRefused("game-over", P("the game is over"))
    then = "the game ends" if snap.game.on_resign == "end" else "the stand-in plays the seat"
    message = f"{entry.name} resigns: {then}\n\nPamir-Resign: {entry.name}\n"
    made = commit_player_change(
        repo, snap, entry, {"resigned": True}, message, when, inbound=inbound
    )
    credentials.revoke_in(home, snap.game.id, entry.name)
    return made
