"""A process killed while it held the branch's lock file leaves `refs/heads/main.lock`
behind: the game is served again once the lock is older than any live writer's, and a
younger lock, a writer's at work, is left alone (adjudicator/games/leftover_locks.py).

The kill is real: `pamir move` dies at the fault point `ref-locked`, with the lock file
created and the branch not yet moved, as a kill -9 there would leave it."""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from gitgame import THREE, create, decider, full_state, head, isolate, opened, pamir
from liveserver import fetch, serving
from mailserver import mail_server, reply_to, settings_for
from test_private_page import form_fields, post, private_path

from adjudicator.games import leftover_locks, needs_host
from adjudicator.games.outputs import Adjudication
from adjudicator.games.registry import game_lock
from adjudicator.home.faults import FAULT_EXIT
from adjudicator.home.settings import load_settings
from adjudicator.mail import report_mails
from adjudicator.web import create_app

GAME = "locked"


@pytest.fixture
def game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    root = isolate(tmp_path, monkeypatch)
    path = create(root / "games" / GAME, THREE)
    yield root, path


def crash_holding_the_branch_lock(root: Path, path: Path, tmp_path: Path) -> Path:
    """Die with the branch's lock file created: the file it leaves."""
    player, options = decider(full_state(path))
    move = tmp_path / "move.txt"
    move.write_text(options[0] + "\n")
    env = {**os.environ, "PAMIR_HOME": str(root), "PAMIR_FAULT": "ref-locked"}
    crashed = pamir("move", path, "--as", player, move, env=env)
    assert crashed.returncode == FAULT_EXIT, crashed.stderr
    lock = path / ".git" / "refs" / "heads" / "main.lock"
    assert lock.is_file()
    return lock


def age(path: Path, seconds: float) -> None:
    """The file as it would be `seconds` after it was left."""
    then = time.time() - seconds
    os.utime(path, (then, then))


def test_a_lock_left_by_a_killed_process_is_removed_once_old_and_the_move_is_played(
    game: tuple[Path, Path], tmp_path: Path
) -> None:
    root, path = game
    lock = crash_holding_the_branch_lock(root, path, tmp_path)
    before = head(path)
    with serving(create_app({"home": root})) as site:
        player, options = decider(full_state(path))
        url = f"{site}{private_path(root, GAME, player)}"
        # A lock just left could still be a live writer's: the move is not taken, and the
        # page says the repository is busy (not that the game moved on).
        reply = post(url, {**form_fields(fetch(url).text), "move": options[0]})
        assert reply.status == 503, reply.text
        assert "busy" in reply.text and "moved on" not in reply.text
        assert head(path) == before and lock.exists()
        # A minute later it is no live writer's: it goes, and the move is played.
        age(lock, leftover_locks.LEFTOVER_AFTER + 5)
        reply = post(url, {**form_fields(fetch(url).text), "move": options[0]})
        assert reply.status == 200 and "Move 1 adjudicated." in reply.text
    assert not lock.exists() and head(path) != before


def test_a_young_lock_is_a_writers_at_work_and_is_left_alone(game: tuple[Path, Path]) -> None:
    root, path = game
    lock = path / ".git" / "HEAD.lock"
    lock.write_text("")
    settings = load_settings({"home": root})
    with game_lock(settings, GAME):
        assert lock.exists()
    age(lock, leftover_locks.LEFTOVER_AFTER + 5)
    with game_lock(settings, GAME):
        assert not lock.exists()


def test_only_lock_files_are_removed(game: tuple[Path, Path]) -> None:
    _, path = game
    kept = [path / ".git" / "HEAD", path / ".git" / "refs" / "heads" / "main"]
    for file in kept:
        age(file, 3600)
    removed, failed = leftover_locks.clear(path)
    assert removed == [] and failed == []
    assert all(file.exists() for file in kept)


def test_an_email_meeting_a_young_lock_is_answered_as_temporary(
    game: tuple[Path, Path], tmp_path: Path
) -> None:
    """The gateway is told to post the message again (503), and nothing is played."""
    root, path = game
    lock = crash_holding_the_branch_lock(root, path, tmp_path)
    before = head(path)
    with mail_server() as server:
        settings = settings_for(root, server.port)
        with opened(path) as repo:
            report_mails.notify(settings, repo, [Adjudication(0, before, "")])
        player, options = decider(full_state(path))
        mail = next(m for m in server.messages if str(m["X-Pamir-Player"]) == player)
        raw = reply_to(mail, options[0] + "\n")
        with serving(create_app({"home": root, "smtp_port": server.port})) as site:
            reply = fetch(f"{site}/inbound/email", raw, {"Content-Type": "message/rfc822"})
    assert reply.status == 503 and "try again later" in reply.text
    assert "main.lock" in reply.text and str(root) not in reply.text
    assert head(path) == before and lock.exists()


def test_a_lock_that_cannot_be_removed_marks_the_game_and_shows_on_healthz(
    game: tuple[Path, Path],
) -> None:
    """The branch's folder made immutable (as a file system gone read-only would make it):
    the old lock stays, the game is marked as needing its host with the file named, and
    the health check lists it."""
    root, path = game
    heads = path / ".git" / "refs" / "heads"
    lock = heads / "main.lock"
    lock.write_text("")
    age(lock, leftover_locks.LEFTOVER_AFTER + 5)
    if subprocess.run(["chattr", "+i", str(heads)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not allowed here: no way to make a lock unremovable")
    try:
        settings = load_settings({"home": root})
        with game_lock(settings, GAME):
            assert lock.exists()
        mark = needs_host.marked(root, GAME)
        assert mark is not None and str(lock) in mark.reason
        with serving(create_app({"home": root})) as site:
            assert fetch(f"{site}/healthz").json()["needs_host"] == [GAME]
        listed = pamir("games", env={**os.environ, "PAMIR_HOME": str(root)})
        assert "main.lock" in listed.stdout, listed.stdout
    finally:
        subprocess.run(["chattr", "-i", str(heads)], check=True)
    lock.unlink()  # the host removes it by hand: the next use of the game clears the mark
    with game_lock(settings, GAME):
        pass
    assert needs_host.marked(root, GAME) is None
