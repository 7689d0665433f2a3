"""Changes the host makes to a game: its deadlines, a player's address and signing key,
and whether pushed moves must be signed.

`game.toml` belongs to the service: a player's push may only add move files
(`contract.py`), so the host changes it here, with a commit made as the adjudicator on top
of the game's tip. A change of `[deadlines]` restarts the clock of the decision pending
then (docs/scheduler.md). Nothing that decides how the game was set up (the players' names
and order, Wakhan, the options) can be changed: the game would no longer replay.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import ValidationError

from adjudicator.games.deadlines import zone
from adjudicator.games.gamefile import GAME_FILE, Deadlines, GameFile, PlayerEntry, dump_game_file
from adjudicator.games.repo import GameRepo
from adjudicator.games.snapshot import Snapshot, snapshot
from adjudicator.games.sshkeys import check_key_line
from engine.errors import describe_validation

OnTimeout = Literal["default", "standin"]


class HostRefused(ValueError):
    """A change the host asked for that cannot be made; nothing was committed."""


def change_deadlines(
    repo: GameRepo,
    *,
    timezone: str | None = None,
    turn_hours: int | None = None,
    reminder_hours: int | None = None,
    on_timeout: OnTimeout | None = None,
    when: datetime | None = None,
) -> tuple[str, Deadlines]:
    """Commit new `[deadlines]` (only the values given change); return the commit and the
    table. Raises HostRefused, DeadlineError (an unknown time zone) or GameError."""
    repo.sync_worktree()
    snap = snapshot(repo)
    asked = {
        "timezone": timezone,
        "turn_hours": turn_hours,
        "reminder_hours": reminder_hours,
        "on_timeout": on_timeout,
    }
    changes = {key: value for key, value in asked.items() if value is not None}
    if timezone is not None:
        zone(timezone)  # an unknown zone is refused with its own message
    try:
        table = Deadlines.model_validate(snap.game.deadlines.model_dump() | changes)
    except ValidationError as error:
        raise HostRefused(f"bad deadlines: {describe_validation(error)}") from None
    if table == snap.game.deadlines:
        raise HostRefused("nothing to change: the deadlines are already so")
    said = ", ".join(f"{key} = {value}" for key, value in changes.items())
    game = snap.game.model_copy(update={"deadlines": table})
    made = _commit(repo, snap.commit, game, f"Deadlines: {said}", when)
    return made, table


def _player_at_tip(repo: GameRepo, player: str) -> tuple[Snapshot, PlayerEntry]:
    """The game at its tip, and the entry game.toml has for `player`."""
    repo.sync_worktree()
    snap = snapshot(repo)
    try:
        return snap, snap.game.player(player)
    except KeyError:
        raise HostRefused(f"no player is called {player!r}") from None


def _players_with(
    game: GameFile, entry: PlayerEntry, changed: PlayerEntry
) -> tuple[PlayerEntry, ...]:
    return tuple(changed if p is entry else p for p in game.players)


def change_email(repo: GameRepo, player: str, email: str, when: datetime | None = None) -> str:
    """Commit a player's new address (mail goes there from the next message on)."""
    snap, entry = _player_at_tip(repo, player)
    try:
        changed = entry.model_validate(entry.model_dump() | {"email": email})
    except ValidationError as error:
        raise HostRefused(f"bad address: {describe_validation(error)}") from None
    if changed == entry:
        raise HostRefused(f"nothing to change: {entry.name}'s address is already {email}")
    game = snap.game.model_copy(update={"players": _players_with(snap.game, entry, changed)})
    return _commit(repo, snap.commit, game, f"Address of {entry.name}: {email}", when)


def change_plays_by(
    repo: GameRepo, player: str, plays_by: str, when: datetime | None = None
) -> str:
    """Commit how a player sends moves (`email`, `git` or `both`): their messages explain
    only that way from the next one on."""
    snap, entry = _player_at_tip(repo, player)
    if plays_by == entry.plays_by:
        raise HostRefused(f"nothing to change: {entry.name} already plays by {plays_by}")
    try:
        changed = entry.model_validate(entry.model_dump() | {"plays_by": plays_by})
    except ValidationError as error:
        raise HostRefused(f"bad setting: {describe_validation(error)}") from None
    game = snap.game.model_copy(update={"players": _players_with(snap.game, entry, changed)})
    return _commit(repo, snap.commit, game, f"{entry.name} plays by {plays_by}", when)


def change_signing_key(
    repo: GameRepo, player: str, key: str | None, when: datetime | None = None
) -> str:
    """Commit a player's new SSH signing key (None removes it): their pushed commits are
    checked against it from the next push on (docs/signing.md)."""
    snap, entry = _player_at_tip(repo, player)
    try:
        line = None if key is None else check_key_line(key)
    except ValueError as error:
        raise HostRefused(f"not an SSH public key: {error}") from None
    if line == entry.signing_key:
        raise HostRefused(f"nothing to change: {entry.name}'s signing key is already so")
    changed = entry.model_copy(update={"signing_key": line})
    game = _validated(snap.game, {"players": _players_with(snap.game, entry, changed)})
    said = "removed" if line is None else line.split()[0]
    return _commit(repo, snap.commit, game, f"Signing key of {entry.name}: {said}", when)


def change_require_signatures(repo: GameRepo, required: bool, when: datetime | None = None) -> str:
    """Commit whether pushed moves must be signed by their player's key."""
    repo.sync_worktree()
    snap = snapshot(repo)
    if snap.game.require_signatures == required:
        raise HostRefused(f"nothing to change: require_signatures is already {_onoff(required)}")
    game = _validated(snap.game, {"require_signatures": required})
    return _commit(repo, snap.commit, game, f"Signatures required: {_onoff(required)}", when)


def _onoff(value: bool) -> str:
    return "on" if value else "off"


def _validated(game: GameFile, update: dict[str, object]) -> GameFile:
    """`game` with `update`, checked as a whole (keys differ; every player has one when
    signatures are required)."""
    data = game.model_dump() | update
    try:
        return GameFile.model_validate(data)
    except ValidationError as error:
        raise HostRefused(describe_validation(error)) from None


def _commit(
    repo: GameRepo, parent: str | None, game: GameFile, message: str, when: datetime | None
) -> str:
    return repo.commit(
        {GAME_FILE: dump_game_file(game).encode()}, message, parent=parent, when=when
    )
