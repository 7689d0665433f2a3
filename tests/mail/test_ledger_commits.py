"""The mail ledger's commits since its last entry: read in this process when the history
since is a short line of single-parent commits, as `git rev-list --reverse` gives them;
otherwise left to git (adjudicator/mail/ledger.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from gitgame import git

from adjudicator.games.repo import GameRepo
from adjudicator.mail import ledger

pytestmark = pytest.mark.usefixtures("home")


def commit(path: Path, message: str) -> str:
    git(path, "commit", "-q", "--allow-empty", "-m", message)
    return git(path, "rev-parse", "HEAD").strip()


def rev_list(path: Path, last: str, head: str) -> list[str]:
    return git(path, "rev-list", "--reverse", f"{last}..{head}").split()


@pytest.fixture
def line(tmp_path: Path) -> tuple[Path, list[str]]:
    path = tmp_path / "game"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    return path, [commit(path, f"commit {n}") for n in range(6)]


def test_a_line_of_commits_is_read_as_git_lists_it(line: tuple[Path, list[str]]) -> None:
    path, commits = line
    repo = GameRepo(path)
    for last in commits:
        found = ledger._linear_since(repo, last, commits[-1])
        assert found == rev_list(path, last, commits[-1])
    assert ledger._linear_since(repo, commits[-1], commits[-1]) == []


def test_a_merge_or_a_history_that_left_the_ledgers_commit_goes_to_git(
    line: tuple[Path, list[str]],
) -> None:
    path, commits = line
    git(path, "checkout", "-q", "-b", "side", commits[2])
    side = commit(path, "on the side")
    repo = GameRepo(path)
    # `side` does not descend from commits[-1]: the walk never meets it.
    assert ledger._linear_since(repo, commits[-1], side) is None
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-ff", "-m", "merge", "side")
    merged = git(path, "rev-parse", "HEAD").strip()
    assert ledger._linear_since(GameRepo(path), commits[-1], merged) is None


def test_a_long_line_goes_to_git(line: tuple[Path, list[str]]) -> None:
    path, commits = line
    more = [commit(path, f"more {n}") for n in range(ledger.LINEAR_STEPS)]
    repo = GameRepo(path)
    assert ledger._linear_since(repo, commits[0], more[-1]) is None
    assert ledger._linear_since(repo, commits[-1], more[-1]) == rev_list(
        path, commits[-1], more[-1]
    )
