"""A game as its repository holds it at one commit, and replaying it from its seed.

The repository is the source of truth: `game.toml`, the move files, `rollbacks.toml`.
Replaying them from the seed gives the full position (the seed comes from the service's
secret, or from `reveal.toml` once the game is over).

Every file is checked as it is read: a game.toml, state.json, rollbacks.toml or reveal.toml
that cannot be read (not text, not TOML or JSON, the wrong shape) is a `GameError` naming
the file, as is a tree that `repo.GameRepo` cannot read (GameError is defined in repo.py
for that reason, and exported from here as always).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from operator import attrgetter
from pathlib import Path
from typing import Any

import tomli_w

import engine
from adjudicator.games.gamefile import GAME_FILE, GameFile, GameFileError, parse_game_file
from adjudicator.games.moves import (
    MOVES_DIR,
    MoveName,
    Outcome,
    apply_submission,
    decode_move,
    parse_name,
    resigns_to_end,
    rollback_request,
)
from adjudicator.games.objects import GameError as GameError
from adjudicator.games.repo import GameRepo
from adjudicator.games.seeds import commitment, load_secret, seed_from

STATE_FILE = "state.json"
ROLLBACKS_FILE = "rollbacks.toml"
REVEAL_FILE = "reveal.toml"
REPORTS_DIR = "reports"
_NUMBER = attrgetter("number")


@dataclass
class Rollbacks:
    """Rollbacks done (moves undone, with reasons) and the open proposal, if any."""

    done: list[dict[str, Any]] = field(default_factory=list)
    proposal: dict[str, Any] | None = None
    refused: list[int] = field(default_factory=list)  # pushed moves refused when adjudicated

    @property
    def undone(self) -> set[int]:
        """Moves that replays skip: undone by a rollback, or refused."""
        return {int(n) for r in self.done for n in r["undone"]} | set(self.refused)

    def dump(self) -> str:
        data: dict[str, Any] = {"rollback": self.done}
        if self.proposal is not None:
            data["proposal"] = self.proposal
        if self.refused:
            data["refused"] = self.refused
        return tomli_w.dumps(data)

    @classmethod
    def parse(cls, text: str | None) -> Rollbacks:
        """The rollbacks file's contents; GameError when it is not TOML of that shape."""
        if not text:
            return cls()
        try:
            data = tomllib.loads(text)
            done, proposal, refused = (
                data.get("rollback", []),
                data.get("proposal"),
                data.get("refused", []),
            )
            if not (
                isinstance(done, list)
                and all(isinstance(r, dict) for r in done)
                and all(isinstance(n, int) for r in done for n in r.get("undone", []))
                and (proposal is None or isinstance(proposal, dict))
                and isinstance(refused, list)
                and all(isinstance(n, int) for n in refused)
            ):
                raise ValueError("not the shape docs/game-repository.md gives")
        except (tomllib.TOMLDecodeError, ValueError, TypeError) as error:
            raise GameError(f"{ROLLBACKS_FILE} is not valid: {error}") from None
        return cls(list(done), proposal, list(refused))


@dataclass
class Snapshot:
    """The game's files at one commit."""

    repo: GameRepo
    commit: str | None
    game: GameFile
    moves: list[MoveName]
    rollbacks: Rollbacks
    adjudicated: int  # the number of the last adjudicated move (0: none yet)
    # state.json at the commit as `read_state` parsed it (None: none there).
    document: dict[str, Any] | None = field(default=None, repr=False)

    def data(self, move: MoveName) -> bytes:
        """A move file's bytes, as pushed (checked by `moves.read_submission`): only that
        file is read, so replaying the moves after a commit's costs no more as the game
        grows."""
        return self.repo.data(move.path, self.commit) or b""

    def text(self, move: MoveName) -> str:
        """A move file's text; NotationError if it is not UTF-8 (such a file is refused
        when it comes in, so replays never read it)."""
        return decode_move(self.data(move))

    @property
    def next_number(self) -> int:
        return max((m.number for m in self.moves), default=0) + 1

    def pending(self) -> list[MoveName]:
        """Move files not adjudicated yet (pushed, waiting for the adjudicator)."""
        return [m for m in self.moves if m.number > self.adjudicated]


def game_at(repo: GameRepo, commit: str | None = None) -> GameFile:
    """game.toml at a commit (default: the tip); GameError when it is absent or invalid."""
    text = repo.read(GAME_FILE, commit)
    if text is None:
        raise GameError(f"{repo.path} has no {GAME_FILE}: not a game repository")
    try:
        return _parsed_game_file(text)
    except GameFileError as error:
        raise GameError(str(error)) from None


@lru_cache(maxsize=64)
def _parsed_game_file(text: str) -> GameFile:
    """game.toml parsed and validated once per text (a GameFile is frozen): `pamir verify`
    reads it at every commit, and it seldom changes."""
    return parse_game_file(text)


def snapshot(repo: GameRepo, commit: str | None = None) -> Snapshot:
    at = commit or repo.head()
    game = game_at(repo, at)
    moves = _moves(game, repo.names(MOVES_DIR, at))
    document = read_state(repo, at)
    adjudicated = int(document.get("move", 0)) if document else 0
    rollbacks = Rollbacks.parse(repo.read(ROLLBACKS_FILE, at))
    return Snapshot(repo, at, game, moves, rollbacks, adjudicated, document)


def _moves(game: GameFile, names: list[str]) -> list[MoveName]:
    """The move files of a listing in number order, each author spelt as the game spells
    it (a move file names its author case-insensitively)."""
    moves = sorted([m for m in map(parse_name, names) if m is not None], key=_NUMBER)
    spelling: dict[str, str] = {}
    for entry in game.players:
        spelling.setdefault(entry.name.lower(), entry.name)  # as GameFile.player finds it
    spelt = set(spelling.values())
    return [m if m.player in spelt else _spelt(m, spelling.get(m.player.lower())) for m in moves]


def _spelt(move: MoveName, name: str | None) -> MoveName:
    """The move with its author spelt `name` (None: not a player of the game, kept)."""
    return move if name is None or name == move.player else MoveName(move.number, name, move.file)


def state_record(repo: GameRepo, commit: str | None) -> dict[str, Any]:
    """state.json at a commit, or an empty mapping when there is none or it is not a state
    document: for reading a commit's record where a player's commit on a forge may hold
    anything (the history, the mail ledger), and no error should follow from it."""
    try:
        return read_state(repo, commit) or {}
    except GameError:
        return {}


def read_state(repo: GameRepo, commit: str | None) -> dict[str, Any] | None:
    """state.json at a commit (None when absent); GameError when it is not a state
    document: a JSON object whose `move` is a number and whose `view` is an object."""
    text = repo.read(STATE_FILE, commit)
    if not text:
        return None
    try:
        document = json.loads(text)
    except ValueError as error:
        raise GameError(f"{STATE_FILE} is not valid: {error}") from None
    except RecursionError:
        raise GameError(f"{STATE_FILE} is not valid: nested too deep") from None
    if not isinstance(document, dict):
        raise GameError(f"{STATE_FILE} is not valid: not a JSON object")
    move = document.get("move", 0)
    if not isinstance(move, int) or isinstance(move, bool) or move < 0:
        raise GameError(f"{STATE_FILE} is not valid: `move` is not a move number")
    if not isinstance(document.get("view", {}), dict):
        raise GameError(f"{STATE_FILE} is not valid: `view` is not an object")
    return document


def game_seed(snap: Snapshot, home: Path, *, reveal_at: str | None = None) -> int:
    """The engine seed: from the revealed secret, else from the secret the service whose
    data folder is `home` keeps.

    The reveal is looked for at `reveal_at` (default: the snapshot's commit); verify looks
    at the tip, since the secret revealed at the end seeds every earlier position too.
    """
    revealed = snap.repo.read(REVEAL_FILE, reveal_at or snap.commit)
    secret = _revealed_secret(revealed) if revealed else load_secret(home, snap.game.id)
    if secret is None:
        raise GameError(
            f"the secret seed of game {snap.game.id!r} is not in this service's PAMIR_HOME "
            "and has not been revealed yet"
        )
    if commitment(secret) != snap.game.seed_commitment:
        raise GameError(f"the secret of game {snap.game.id!r} does not match its commitment")
    return seed_from(secret)


def _revealed_secret(text: str) -> str:
    try:
        secret = tomllib.loads(text)["secret"]
    except (tomllib.TOMLDecodeError, KeyError) as error:
        raise GameError(f"{REVEAL_FILE} is not valid: {error}") from None
    if not isinstance(secret, str):
        raise GameError(f"{REVEAL_FILE} is not valid: `secret` is not text")
    return secret


def initial_state(game: GameFile, seed: int) -> engine.State:
    """The position after setup, with the standing policies of game.toml in force."""
    options: dict[str, object] = {"wakhan": True} if game.wakhan else {}
    backs = game.options.get("wakhan_backs")
    if backs is not None:
        options["wakhan_backs"] = backs
    state = engine.new_game(game.names, seed, options)
    for entry in game.players:
        for policy in entry.policies:
            action = engine.read_action(f"policy {policy}")[0]
            state = engine.apply(state, entry.name, action)
    state.log, state.said = [], []
    return state


class ReplayError(GameError):
    """A move file that no longer replays: the repository was edited by hand."""

    def __init__(self, move: MoveName, error: engine.MoveError) -> None:
        super().__init__(
            f"move {move.number} by {move.player} no longer replays ({error}): the "
            "repository was edited by hand; `pamir verify` shows where"
        )
        self.move = move
        self.error = error


@dataclass(frozen=True)
class Step:
    """One effective move file as a replay plays it. `outcome` is None for a rollback
    request, which asks the adjudicator for something and changes no position."""

    move: MoveName
    text: str
    outcome: Outcome | None


def replay_steps(
    snap: Snapshot, state: engine.State, *, after: int = 0, upto: int | None = None
) -> Iterator[Step]:
    """Play the effective moves numbered after `after` (up to `upto`) on `state`, in order.

    The one replay loop: `replay` starts it from the seed, `pamir verify` resumes it from
    where the previous commit left off. Moves undone by a rollback or refused are skipped.
    Raises ReplayError at the first move that no longer replays.
    """
    undone = snap.rollbacks.undone
    for move in snap.moves:
        if upto is not None and move.number > upto:
            break
        if move.number <= after or move.number in undone:
            continue
        try:
            text = snap.text(move)
            if rollback_request(text) is not None:
                yield Step(move, text, None)
                continue
            may_resign = resigns_to_end(snap.game, move.player)
            outcome = apply_submission(state, move.player, text, may_resign=may_resign)
        except engine.MoveError as error:
            raise ReplayError(move, error) from None
        state = outcome.state
        yield Step(move, text, outcome)


def replay(
    snap: Snapshot, home: Path, *, upto: int | None = None
) -> tuple[engine.State, dict[int, Outcome]]:
    """The full position after every effective move (up to move `upto`), and each outcome.

    `home` is the data folder of the service that holds the game's secret (unless the
    game revealed it).
    """
    state = initial_state(snap.game, game_seed(snap, home))
    outcomes: dict[int, Outcome] = {}
    for step in replay_steps(snap, state, upto=upto):
        if step.outcome is not None:
            outcomes[step.move.number] = step.outcome
            state = step.outcome.state
    return state, outcomes
