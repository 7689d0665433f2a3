"""`pamir verify` of a game whose reports the engine wrote in its earlier English wording
("1 rupee(s)", "2 victory point(s)"): such a game still verifies, and a report changed in
any other way still does not (adjudicator/games/verify.py, EARLIER_WORDING)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from gitgame import THREE, create, git, opened, play

from adjudicator.games.verify import earlier_wording, verify

pytestmark = pytest.mark.usefixtures("home")

# The log lines as the engine wrote them before it counted in proper plurals, written out
# here apart from the code under test: each turns the replay's line into the earlier one.
AS_WRITTEN_BEFORE = (
    r"s/(purchased .+ for [0-9]+) rupees?( and took the [0-9]+) rupees? on it/"
    r"\1 rupee(s)\2 rupee(s) on it/",
    r"s/(purchased .+ for [0-9]+) rupees?$/\1 rupee(s)/",
    r"s/(scored [0-9]+) victory points?$/\1 victory point(s)/",
)


def rewrite_reports(path: Path, *expressions: str) -> None:
    """Rewrite every report of the game's history with sed, as if written so at the time;
    each commit signed again with the adjudicator's key (the repository's own signing
    configuration)."""
    script = " ".join(f"-e '{e}'" for e in expressions)
    subprocess.run(
        [
            "git",
            "filter-branch",
            "-f",
            "--tree-filter",
            f"if [ -d reports ]; then sed -i -E {script} reports/*.md; fi",
            "--commit-filter",
            'git -c gpg.format=ssh -c user.signingKey="$(git config pamir.signingKey)" '
            'commit-tree -S "$@"',
            "HEAD",
        ],
        cwd=path,
        check=True,
        capture_output=True,
        env={**os.environ, "FILTER_BRANCH_SQUELCH_WARNING": "1"},
    )


@pytest.fixture
def game(tmp_path: Path) -> Path:
    path = create(tmp_path / "worded", THREE)
    play(path, 40, seed=11, whole_turn=True)
    return path


def reports_text(path: Path) -> str:
    return git(path, "log", "-p", "--format=", "--", "reports")


def test_a_game_reported_in_the_earlier_wording_still_verifies(game: Path, home: Path) -> None:
    rewrite_reports(game, *AS_WRITTEN_BEFORE)
    assert "rupee(s)" in reports_text(game)  # the history now says it the earlier way
    with opened(game) as repo:
        result = verify(repo, home)
    assert result.ok, result


def test_a_count_changed_with_the_wording_is_still_caught(game: Path, home: Path) -> None:
    rewrite_reports(game, r"s/(purchased .+ for )([0-9]+) rupees?$/\19 rupee(s)/")
    assert "for 9 rupee(s)" in reports_text(game)
    with opened(game) as repo:
        result = verify(repo, home)
    assert not result.ok


def test_the_earlier_wording_of_each_line() -> None:
    assert earlier_wording("- bob purchased Cossacks for 1 rupee") == (
        "- bob purchased Cossacks for 1 rupee(s)"
    )
    assert earlier_wording("- bob purchased X for 0 rupees and took the 2 rupees on it") == (
        "- bob purchased X for 0 rupee(s) and took the 2 rupee(s) on it"
    )
    assert earlier_wording("- alice scored 1 victory point") == "- alice scored 1 victory point(s)"
    assert earlier_wording("- Wakhan repaid 2 rupees of leverage on Y") == (
        "- Wakhan repaid 2 rupee(s) of leverage on Y"
    )
    assert earlier_wording("- alice took 2 rupees of leverage from the bank") == (
        "- alice took 2 rupees of leverage from the bank"
    )
