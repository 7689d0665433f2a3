"""board.svg in the game repository: written by every adjudicator commit, shown by every
report through a relative link, checked by `pamir verify`, and never a player's to change.

Real Git repositories, played by seeded random bots through the pipeline.
"""

from __future__ import annotations

import json
import posixpath
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from gitgame import MAIN, THREE, create, git, head, pamir, play, show

from adjudicator.drawing.board import board_svg

pytestmark = pytest.mark.usefixtures("home")
ADJUDICATOR = ("pamir adjudicator", "adjudicator@pamir.invalid")


@pytest.fixture
def played(tmp_path: Path) -> Path:
    path = create(tmp_path / "game", THREE)
    play(path, 6, seed=7, whole_turn=True)
    return path


def commits(path: Path) -> list[tuple[str, str]]:
    """(sha, committer email) of the main branch, oldest first."""
    lines = git(path, "log", "--reverse", "--format=%H %ce", MAIN).split("\n")
    return [tuple(line.split(" ", 1)) for line in lines if line]  # type: ignore[misc]


def test_every_adjudicator_commit_writes_the_public_position_drawn(played: Path) -> None:
    adjudicated = [sha for sha, email in commits(played) if email == ADJUDICATOR[1]]
    assert len(adjudicated) == 7  # the new game and six moves
    for sha in adjudicated:
        board = show(played, sha, "board.svg")
        view = json.loads(show(played, sha, "state.json"))["view"]
        assert view["viewer"] is None  # the public view, never a player's
        assert board == board_svg(view)
        ET.fromstring(board)


def test_every_report_embeds_the_board_by_a_link_relative_to_itself(played: Path) -> None:
    for number in range(7):
        path = f"reports/{number:04d}.md"
        report = show(played, MAIN, path)
        links = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", report)
        assert links == ["../board.svg"]
        # a forge resolves a relative image link against the file's own folder
        target = posixpath.normpath(posixpath.join(posixpath.dirname(path), links[0]))
        assert target == "board.svg"
        assert (played / target).is_file()


def test_verify_checks_the_board_of_every_adjudicator_commit(played: Path) -> None:
    assert pamir("verify", played).returncode == 0
    board = played / "board.svg"
    board.write_text(board.read_text(encoding="utf-8").replace("Kabul", "Kabol"), "utf-8")
    name, email = ADJUDICATOR
    git(played, "-c", f"user.name={name}", "-c", f"user.email={email}",
        "commit", "-q", "-am", "A board that is not the position")  # fmt: skip
    done = pamir("verify", played)
    assert done.returncode == 3, (done.stdout, done.stderr)
    assert f"commit {head(played)[:10]}: board.svg differs from the replay's board" in done.stderr


def test_a_player_commit_may_not_change_the_board(played: Path) -> None:
    board = played / "board.svg"
    board.write_text("<svg xmlns='http://www.w3.org/2000/svg'/>", "utf-8")
    git(played, "-c", "user.name=bob", "-c", "user.email=bob@example.org",
        "commit", "-q", "-am", "my own board")  # fmt: skip
    done = pamir("verify", played)
    assert done.returncode == 3, (done.stdout, done.stderr)
    # Named like a changed state.json: the replay's words come first (verify.py)
    assert f"commit {head(played)[:10]}: board.svg differs" in done.stderr
