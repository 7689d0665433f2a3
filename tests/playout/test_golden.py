"""Golden playthroughs: complete games replayed from their files and compared line by line.

Each file in tests/playout/golden/ holds one game: its seed and players, then for every step the
move as `PLAYER: ACTION` followed by the engine's log lines for that step (indented), and
at the end the final public view as JSON. The test replays the listed moves through
`engine.parse_line` and `engine.apply` and diffs the text it gets against the file.

    PAMIR_UPDATE_GOLDEN=1 .venv/bin/pytest tests/playout/test_golden.py

rewrites the files instead: each game is played afresh with random legal moves drawn from
its seed. Read the diff (git diff tests/playout/golden) before keeping a rewrite.
"""

from __future__ import annotations

import difflib
import json
import os
from pathlib import Path

import pytest

import engine
from engine.game import legal_seat_actions
from engine.rng import below, seed_state

GOLDEN = Path(__file__).parent / "golden"
UPDATE = os.environ.get("PAMIR_UPDATE_GOLDEN") == "1"
# file name -> (players, seed)
GAMES = {
    "two_players.txt": (("alice", "bob"), 20),
    "four_players.txt": (("alice", "bob", "carol", "dave"), 28),
}
HEADER = [
    "# Pax Pamir: Second Edition, a complete game replayed by tests/playout/test_golden.py.",
    "# Each move is `PLAYER: ACTION`; the engine's log lines for it follow, indented.",
    "# PAMIR_UPDATE_GOLDEN=1 rewrites this file from its seed with random legal moves.",
]
INDENT = "    "
FINAL = "final view"
MAX_STEPS = 5000


def play(players: tuple[str, ...], seed: int, moves: list[str] | None) -> list[str]:
    """The text of a game: replay `moves`, or pick random legal moves when it is None."""
    state = engine.new_game(list(players), seed)
    lines = [*HEADER, f"seed {seed}", f"players {' '.join(players)}"]
    lines += [INDENT + line for line in state.log]
    rng = seed_state(seed)
    pending = list(moves) if moves is not None else None
    for _ in range(MAX_STEPS):
        if pending is None:
            if state.phase == "over":
                break
            choices = legal_seat_actions(state)
            assert choices, "dead end"
            rng, pick = below(rng, len(choices))
            seat, action = choices[pick]
        else:
            if not pending:
                break
            line = pending.pop(0)
            try:
                parsed = engine.parse_line(line, state)
            except engine.MoveError as error:
                lines.append(f"{line}  <- refused: {error}")
                break
            assert parsed is not None, line
            seat, action = parsed
        state = engine.apply(state, seat, action)
        lines.append(f"{state.name(seat)}: {engine.format_action(action)}")
        lines += [INDENT + line for line in state.log]
    lines.append(FINAL)
    lines += json.dumps(engine.view(state), indent=2, ensure_ascii=False).splitlines()
    return lines


def read_game(path: Path) -> tuple[tuple[str, ...], int, list[str]]:
    """(players, seed, move lines) of a golden file."""
    players: tuple[str, ...] = ()
    seed: int | None = None
    moves: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line == FINAL:
            break
        if not line.strip() or line.startswith(("#", " ")):
            continue
        if line.startswith("seed "):
            seed = int(line.split()[1])
        elif line.startswith("players "):
            players = tuple(line.split()[1:])
        else:
            moves.append(line)
    assert seed is not None and players, f"{path}: no seed or players"
    return players, seed, moves


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough(name: str) -> None:
    path = GOLDEN / name
    players, seed = GAMES[name]
    if UPDATE:
        lines = play(players, seed, None)
        assert lines[lines.index(FINAL) + 1 :], "no final view"
        GOLDEN.mkdir(exist_ok=True)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert path.exists(), f"{path} is missing: run with PAMIR_UPDATE_GOLDEN=1"
    expected = path.read_text(encoding="utf-8").splitlines()
    file_players, file_seed, moves = read_game(path)
    assert (file_players, file_seed) == (players, seed)
    actual = play(players, seed, moves)
    if actual != expected:
        diff = list(
            difflib.unified_diff(expected, actual, f"{name} (file)", f"{name} (replayed)", n=2)
        )
        shown = "\n".join(line.rstrip("\n") for line in diff[:300])
        more = f"\n... {len(diff) - 300} more diff lines" if len(diff) > 300 else ""
        pytest.fail(
            f"the replay of {name} differs from the file "
            f"(PAMIR_UPDATE_GOLDEN=1 rewrites it):\n{shown}{more}",
            pytrace=False,
        )


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_games_are_complete(name: str) -> None:
    text = (GOLDEN / name).read_text(encoding="utf-8")
    final = json.loads(text.split(f"\n{FINAL}\n", 1)[1])
    assert final["phase"] == "over"
    assert final["winners"]
    assert final["format"] == "pamir-view/1" and final["viewer"] is None
    assert "deck" not in final
