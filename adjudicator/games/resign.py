"""A player's resignation: the stand-in (engine/standin.py) takes the seat, or the game
ends, as the host chose (`on_resign` in game.toml).

Players may discuss and leave a game as they see fit. A resignation is the adjudicator's
commit that marks the player `resigned` in game.toml, authored by the player. Then:
- `on_resign = "standin"` (the default): the game goes on, and every decision of that seat
  is the stand-in's, played as soon as it is pending (`play_resigned`) right after the
  move before it, whichever way that came in (games/pipeline.py), and by the scheduler,
  for which such a decision is due at once (games/waiting.py);
- `on_resign = "end"`: the game ends at once (`end_resigned`), by an adjudicator move for
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

from contextlib import suppress
from datetime import datetime
from pathlib import Path

import engine
from adjudicator.games.moves import ON_RESIGNED, RESIGN
from adjudicator.games.outputs import Adjudication, Refusal
from adjudicator.games.pipeline import position, submit
from adjudicator.games.players import commit_player_change
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import REVEAL_FILE, snapshot
from adjudicator.games.waiting import standin_lines, waiting
from adjudicator.home import credentials
from engine.phrases import P, Phrase

ON_BEHALF = ON_RESIGNED
MAX_STANDIN_MOVES = 50  # per call; the scheduler plays on if every seat has resigned


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


def end_resigned(repo: GameRepo, home: Path, player: str) -> Adjudication:
    """End the game for `player`, who resigned from a game with `on_resign = "end"`: one
    adjudicator commit, whose move file holds the line `resign`. Raises Refusal when the
    game cannot take a move now (pushed move files wait: adjudicate them first)."""
    snap = snapshot(repo)
    name = snap.game.player(player).name
    text = f"# note: {name} resigned, and the host chose that the game then ends\n{RESIGN}\n"
    return submit(repo, name, text, home=home, on_behalf=ON_BEHALF)


def play_resigned(repo: GameRepo, home: Path) -> list[Adjudication]:
    """Play the stand-in for every resigned seat that must decide now, one adjudicator
    commit each, until no resigned seat must (or a bound is reached)."""
    done: list[Adjudication] = []
    while len(done) < MAX_STANDIN_MOVES:
        snap = snapshot(repo)
        if snap.pending() or repo.read(REVEAL_FILE, snap.commit) is not None:
            break  # pushed moves come first; their adjudication calls this again
        if snap.game.on_resign == "end" and (gone := snap.game.resigned_players):
            with suppress(Refusal):  # logged by the caller's next try
                done.append(end_resigned(repo, home, gone[0]))  # an end that had to wait
            break
        if not snap.game.resigned_players:
            break  # nobody left the game: no seat is the stand-in's, and no position is read
        state = position(snap, home)
        decision = engine.pending(state)
        if decision is None:
            break
        seats = [s for s in decision.seats if snap.game.has_resigned(state.name(s))]
        played = _play_seat(repo, home, state, seats[0]) if seats else None
        if played is None:
            break
        done.append(played)
    return done


def _play_seat(repo: GameRepo, home: Path, state: engine.State, seat: int) -> Adjudication | None:
    lines = standin_lines(state, seat)
    if not lines:
        return None
    who = state.name(seat)
    text = f"# note: {who} resigned: the stand-in plays for them\n" + "\n".join(lines) + "\n"
    try:
        return submit(repo, who, text, home=home, on_behalf=ON_BEHALF)
    except Refusal:
        return None  # the game moved meanwhile; whoever moved it plays on
