"""The contract of a game repository as the hooks and `pamir verify` enforce it.

Every commit is either the adjudicator's, agreeing with the replay, or a player's that
adds only the next move file, by that player. The pre-receive hook of a bare repository
refuses anything else; `pamir verify` names any commit in the history that breaks it.
Real Git and the real `pamir` script.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from gitgame import (
    create,
    current_home,
    decider,
    full_state,
    git,
    head,
    next_number,
    opened,
    pamir,
    play,
    push,
    refs,
)

from adjudicator.hooks import receive
from adjudicator.schedule.clock import record_pause

PLAYER = {"GIT_COMMITTER_NAME": "bob", "GIT_COMMITTER_EMAIL": "bob@example.org"}


# The shared `home` fixture (conftest.py) isolates PAMIR_HOME for every test here.
pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def played(tmp_path: Path) -> Path:
    path = create(tmp_path / "game")
    play(path, 4, seed=11)
    return path


def player_commit(path: Path, message: str, author: str = "bob <bob@example.org>") -> str:
    """Commit what is staged in the game's working tree as a player would."""
    git(path, "-c", "user.name=bob", "-c", "user.email=bob@example.org", "commit", "-q",
        "--allow-empty", "--author", author, "-m", message)  # fmt: skip
    return head(path)


def verify_fails(path: Path) -> str:
    done = pamir("verify", path)
    assert done.returncode == 3, (done.stdout, done.stderr)
    return done.stderr


def test_a_player_commit_that_changes_game_toml_is_named(played: Path) -> None:
    toml = played / "game.toml"
    toml.write_text(toml.read_text().replace("alice@example.org", "bob@example.org"))
    git(played, "add", "game.toml")
    bad = player_commit(played, "my address for alice")
    error = verify_fails(played)
    assert bad[:10] in error and "game.toml" in error and "bob@example.org" in error


def test_a_player_commit_that_deletes_a_move_file_is_named(played: Path) -> None:
    git(played, "rm", "-q", "moves/0002-*.txt")
    bad = player_commit(played, "forget move 2")
    error = verify_fails(played)
    assert bad[:10] in error and "moves/0002-" in error


def test_a_player_commit_that_edits_the_move_number_is_named(played: Path) -> None:
    state = json.loads((played / "state.json").read_text())
    state["move"] = 9
    (played / "state.json").write_text(json.dumps(state))
    git(played, "add", "state.json")
    bad = player_commit(played, "skip ahead")
    error = verify_fails(played)
    assert bad[:10] in error and "state.json" in error


def test_a_player_commit_with_a_reveal_of_their_own_is_named(played: Path) -> None:
    (played / "reveal.toml").write_text('secret = "' + "f" * 64 + '"\n')
    git(played, "add", "reveal.toml")
    bad = player_commit(played, "my deck")
    error = verify_fails(played)
    assert bad[:10] in error and "reveal.toml" in error


def test_a_move_file_committed_for_another_player_is_named(played: Path) -> None:
    player, options = decider(full_state(played))
    other = "alice" if player == "bob" else "bob"
    name = f"moves/{next_number(played):04d}-{player}.txt"
    (played / name).write_text(options[0] + "\n")
    git(played, "add", name)
    bad = player_commit(played, "for them", author=f"{other} <{other}@example.org>")
    error = verify_fails(played)
    assert bad[:10] in error and name in error


def test_an_empty_player_commit_is_named(played: Path) -> None:
    bad = player_commit(played, "nothing")
    assert bad[:10] in verify_fails(played)


def test_a_pause_and_a_rollback_by_the_service_verify(played: Path) -> None:
    with opened(played) as repo:
        record_pause(repo, "alice", 24, "travelling", datetime.now(UTC).replace(microsecond=0))
    assert pamir("rollback", played, "--to", "2", "--reason", "a slip").returncode == 0
    done = pamir("verify", played)
    assert done.returncode == 0, done.stderr


def test_a_legal_pushed_move_by_its_player_verifies(played: Path) -> None:
    player, options = decider(full_state(played))
    name = f"moves/{next_number(played):04d}-{player}.txt"
    (played / name).write_text(options[0] + "\n")
    git(played, "add", name)
    player_commit(played, "my move", author=f"{player} <{player}@example.org>")
    done = pamir("verify", played)
    assert done.returncode == 0, done.stderr


def test_the_pre_receive_hook_refuses_an_empty_commit(tmp_path: Path) -> None:
    bare = create(tmp_path / "game.git", bare=True)
    receive.install(bare, current_home())
    mine = tmp_path / "mine"
    git(tmp_path, "clone", "-q", str(bare), str(mine))
    before = refs(bare)
    git(mine, "commit", "-q", "--allow-empty", "-m", "nothing at all")
    done = push(mine)
    assert done.returncode != 0
    assert "empty commit" in done.stderr
    assert refs(bare) == before
