"""`pamir verify`: replay the game and check every committed state and report.

Walks the game branch from its first commit. At each commit, `state.json` must be what
the replay gives after the moves adjudicated by then (with the rollbacks recorded by
then); each report must be what the replay renders at the commit that adjudicated it, and
must not have changed since. With `reveal.toml` the secret is checked against the
commitment; before the reveal only the service holding the secret can verify.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import engine
from adjudicator.games.outputs import report_for
from adjudicator.games.repo import GameRepo
from adjudicator.games.rollback import rollback_note
from adjudicator.games.snapshot import (
    REPORTS_DIR,
    REVEAL_FILE,
    STATE_FILE,
    GameError,
    ReplayError,
    Snapshot,
    game_seed,
    initial_state,
    replay_steps,
    snapshot,
)


@dataclass
class Verification:
    commits: int = 0
    moves: int = 0
    revealed: bool = False
    divergence: str | None = None
    checked_reports: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.divergence is None


class _Replayer:
    """Replays incrementally while the rollbacks stay the same; from scratch otherwise.

    The moves are played by `replay_steps`, the loop every replay uses; this only keeps
    its place between commits and what each move did."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.texts: dict[int, str] = {}  # the text each move was replayed with
        self.key: str | None = None
        self.number = 0
        self.state: engine.State | None = None
        self.logs: dict[int, list[str]] = {}
        self.actions: dict[int, list[str]] = {}

    def state_after(self, snap: Snapshot, number: int) -> engine.State:
        key = snap.rollbacks.dump()
        if self.state is None or key != self.key or number < self.number:
            self.key, self.number = key, 0
            self.state = initial_state(snap.game, self.seed)
        for step in replay_steps(snap, self.state, after=self.number, upto=number):
            self.texts[step.move.number] = step.text
            if step.outcome is not None:
                self.state = step.outcome.state
                self.logs[step.move.number] = step.outcome.log
                self.actions[step.move.number] = step.outcome.actions
        self.number = number
        return self.state


def verify(repo: GameRepo, home: Path) -> Verification:
    """Check the whole history; raise GameError when the game cannot be replayed at all
    (no secret before the reveal, or a revealed secret that does not match). Before the
    reveal the secret is looked for in the service's data folder `home`."""
    result = Verification()
    head = repo.head()
    # The secret revealed at the tip seeds every position of the game; checked here
    # against the commitment before anything is replayed.
    try:
        seed = game_seed(snapshot(repo), home, reveal_at=head)
    except GameError as error:
        if repo.read(REVEAL_FILE, head) is None:
            raise  # no secret at all: this service cannot verify before the reveal
        result.divergence = f"reveal.toml: {error}"
        return result
    replayer = _Replayer(seed)
    commits = repo.log()
    lasts: dict[int, dict[str, object]] = {}  # the 'last' each engine move must show
    for commit in commits:
        snap = snapshot(repo, commit.hexsha)
        result.commits += 1
        try:
            state = replayer.state_after(snap, snap.adjudicated)
        except ReplayError as error:
            result.divergence = (
                f"commit {commit.hexsha[:10]}: move cannot be replayed: {error.error}"
            )
            return result
        committed = json.loads(repo.read(STATE_FILE, commit.hexsha) or "{}")
        expected = {"game": snap.game.id, "move": snap.adjudicated, "view": engine.view(state)}
        found = {key: committed.get(key) for key in expected}
        if found != expected:
            where = [k for k in expected if found[k] != expected[k]]
            result.divergence = (
                f"commit {commit.hexsha[:10]} ({_text(commit.summary)}): {STATE_FILE} differs "
                "from the "
                f"replay after move {snap.adjudicated} in {', '.join(where)}"
            )
            return result
        number = _adjudicated_move(_text(commit.message))
        if number is not None and number in replayer.actions:
            lasts[number] = {
                "number": number,
                "player": _author(snap, number),
                "actions": replayer.actions[number],
                "log": replayer.logs[number],
            }
        if "Pamir-Rollback:" in _text(commit.message) and snap.rollbacks.done:
            record = snap.rollbacks.done[-1]
            lasts[snap.adjudicated] = {
                "rollback": [rollback_note(int(record["to"]), str(record["reason"]))]
            }
        want_last = lasts.get(snap.adjudicated)
        if want_last is not None and committed.get("last") != want_last:
            result.divergence = (
                f"commit {commit.hexsha[:10]}: {STATE_FILE} 'last' differs from move "
                f"{snap.adjudicated} as the replay plays it"
            )
            return result
        if number is not None:
            path = f"{REPORTS_DIR}/{number:04d}.md"
            report = repo.read(path, commit.hexsha)
            happened = replayer.logs.get(number, state.log if number == 0 else None)
            if happened is not None and report is not None:
                title = "a new game" if number == 0 else f"move {number} by {_author(snap, number)}"
                want = report_for(snap, number, title, state, happened, commit.committed_datetime)
                if report != want:
                    result.divergence = (
                        f"commit {commit.hexsha[:10]}: {path} differs from the replay's report"
                    )
                    return result
            if report is not None:
                result.checked_reports[path] = report
            result.moves = max(result.moves, number)
    for path, text in result.checked_reports.items():
        if repo.read(path, head) != text:
            result.divergence = f"{path} was changed after its move was adjudicated"
            return result
    final = snapshot(repo, head)
    for move in final.moves:
        replayed = replayer.texts.get(move.number)
        if replayed is not None and final.text(move) != replayed:
            result.divergence = f"{move.path} was changed after it was adjudicated"
            return result
    result.revealed = repo.read("reveal.toml", head) is not None
    return result


def _text(value: str | bytes) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _adjudicated_move(message: str) -> int | None:
    for line in message.splitlines():
        if line.startswith("Pamir-Move: "):
            return int(line.removeprefix("Pamir-Move: ").strip())
    return None


def _author(snap: Snapshot, number: int) -> str:
    return next(m.player for m in snap.moves if m.number == number)
