"""`pamir move --dry-run`: a move's outcome and the position after, and nothing committed.

Real Git repositories, the installed `pamir` console script, a fresh PAMIR_HOME each test.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from gitgame import create, decider, full_state, head, pamir, status

from adjudicator.home.paths import positions_dir

pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return create(tmp_path / "game")


def move_file(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "move.txt"
    path.write_text(text, encoding="utf-8")
    return path


def listing(folder: Path) -> dict[str, tuple[int, str]]:
    """Every file under `folder`, with its modification time and its content's hash."""
    return {
        str(path.relative_to(folder)): (
            path.stat().st_mtime_ns,
            hashlib.sha256(path.read_bytes()).hexdigest(),
        )
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def dry_run(game: Path, player: str, path: Path) -> tuple[int, str, str]:
    done = pamir("move", game, "--dry-run", "--as", player, path)
    assert "Traceback" not in done.stderr
    return done.returncode, done.stdout, done.stderr


def test_a_refused_move_exits_2_with_its_reason_and_changes_nothing(
    tmp_path: Path, game: Path, home: Path
) -> None:
    player, options = decider(full_state(game))
    before, files = head(game), listing(home)
    code, out, err = dry_run(game, player, move_file(tmp_path, "purchase 99\n"))
    assert code == 2
    assert out == ""
    assert "line 1" in err
    assert options[0] in err  # the author's own legal actions, as `pamir move` lists them
    assert head(game) == before
    assert listing(home) == files
    assert status(game) == ""


def test_an_accepted_move_says_its_actions_and_the_position_after(
    tmp_path: Path, game: Path, home: Path
) -> None:
    player, options = decider(full_state(game))
    loyalty = next(option for option in options if option == "loyalty afghan")
    before, files = head(game), listing(home)
    code, out, err = dry_run(game, player, move_file(tmp_path, f"{loyalty}\n"))
    assert (code, err) == (0, ""), err
    assert f"Preview of move 1 by {player}" in out
    assert "Actions: Choose Afghan loyalty." in out
    assert "After the move:" in out
    assert "Your rupees: 4" in out
    assert "Your hand: empty" in out
    assert "The board: " in out and "favored suit" in out
    assert "Then the game waits for " in out
    assert head(game) == before
    assert listing(home) == files  # no outbox file, no private section, no position cached
    assert not (home / "outbox").exists() or not list((home / "outbox").rglob("*.eml"))
    assert status(game) == ""


def test_polish_words_are_read_as_a_move_reads_them(tmp_path: Path, game: Path, home: Path) -> None:
    player, _ = decider(full_state(game))
    before = head(game)
    code, out, err = dry_run(game, player, move_file(tmp_path, "lojalność afgańczycy\n"))
    assert (code, err) == (0, ""), err
    assert "Actions: Choose Afghan loyalty." in out
    assert head(game) == before


def test_a_rollback_request_is_previewed_not_made(tmp_path: Path, game: Path, home: Path) -> None:
    player, options = decider(full_state(game))
    first = pamir("move", game, "--as", player, move_file(tmp_path, options[0] + "\n"))
    assert first.returncode == 0, first.stderr
    nxt, _ = decider(full_state(game))
    before, files = head(game), listing(home)
    code, out, err = dry_run(game, nxt, move_file(tmp_path, "rollback 0 misclick\n"))
    assert (code, err) == (0, ""), err
    assert "This rollback request would do this:" in out
    assert "rollback" in out.split("would do this:")[1]
    assert head(game) == before
    assert listing(home) == files


def test_an_unknown_player_is_refused(tmp_path: Path, game: Path) -> None:
    code, out, err = dry_run(game, "zoe", move_file(tmp_path, "pass\n"))
    assert out == ""
    assert code == 2
    assert "no player is called 'zoe'" in err


def test_a_position_replayed_for_the_preview_is_not_cached(
    tmp_path: Path, game: Path, home: Path
) -> None:
    """`pamir move` caches a position it had to replay; its preview caches nothing."""
    player, _ = decider(full_state(game))
    cached = positions_dir(home, "game")
    shutil.rmtree(cached)
    files = listing(home)
    code, _, err = dry_run(game, player, move_file(tmp_path, "loyalty russian\n"))
    assert (code, err) == (0, ""), err
    assert not cached.exists()
    assert listing(home) == files
