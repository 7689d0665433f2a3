"""Self-hosted games: players clone a bare game repository and push move files.

The pre-receive hook refuses anything but legal, correctly numbered move files on `main`;
the post-receive hook adjudicates them with adjudicator commits. Real `git clone` and
`git push` over the local filesystem, hooks installed by the real `pamir hook install`.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
from pathlib import Path

import pytest
from gitgame import (
    MAIN,
    changed_files,
    count_commits,
    create,
    current_home,
    decider,
    full_state,
    git,
    head,
    next_number,
    pamir_ok,
    push,
    refs,
    run,
    show,
    state_json,
    trailer,
    write_move,
)

import engine
from adjudicator.drawing.board import board_svg
from adjudicator.games.moves import apply_submission
from adjudicator.games.pipeline import adjudicate_pending
from adjudicator.games.repo import GameRepo
from adjudicator.hooks import receive

ADJUDICATOR = "pamir adjudicator <adjudicator@pamir.invalid>"


pytestmark = pytest.mark.usefixtures("home")


@pytest.fixture
def bare(tmp_path: Path) -> Path:
    """A bare game with the hooks installed (in-process; the CLI path has its own test)."""
    path = create(tmp_path / "game.git", bare=True)
    receive.install(path, current_home())
    return path


def clone(bare: Path, name: str) -> Path:
    target = bare.parent / name
    git(bare.parent, "clone", "-q", str(bare), str(target))
    return target


def pull(repo: Path) -> None:
    git(repo, "pull", "-q", "--ff-only", "origin", "main")


def author(repo: Path, rev: str = MAIN) -> str:
    return git(repo, "log", "-1", "--format=%an <%ae>", rev).strip()


def test_pushed_moves_from_two_clones_are_adjudicated(tmp_path: Path) -> None:
    bare = tmp_path / "shared.git"
    pamir_ok(
        "new", bare, "--bare", "--player", "alice:a@example.org", "--player", "bob:b@example.org"
    )
    installed = pamir_ok("hook", "install", bare)
    for name in ("pre-receive", "post-receive"):
        assert f"installed {bare / 'hooks' / name}" in installed
        assert (bare / "hooks" / name).stat().st_mode & 0o111
    clones = {"alice": clone(bare, "alice"), "bob": clone(bare, "bob")}
    rng = random.Random(4)
    pushed_by = set()
    for number in (1, 2, 3):
        player, options = decider(full_state(bare))
        mine = clones[player]
        pull(mine)
        name = write_move(mine, number, player, rng.choice(options) + "\n")
        pushed = head(mine)
        done = push(mine)
        assert done.returncode == 0, done.stderr
        assert "1 move accepted" in done.stderr
        assert f"move {number} adjudicated" in done.stderr
        pushed_by.add(player)

        # The bare repository's main is now an adjudicator commit on top of the push.
        tip = head(bare)
        assert tip != pushed
        assert git(bare, "rev-parse", f"{MAIN}^").strip() == pushed
        assert author(bare) == ADJUDICATOR
        # board.svg changes only when the board does (a purchase changes only the market)
        changed = changed_files(bare) - {"board.svg"}
        assert changed == {"state.json", f"reports/{number:04d}.md"}
        assert show(bare, MAIN, "board.svg") == board_svg(state_json(bare)["view"])
        assert trailer(bare, "Pamir-Move") == str(number)
        assert state_json(bare)["move"] == number
        assert show(bare, MAIN, name) == show(mine, "HEAD", name)
    assert pushed_by == {"alice", "bob"}
    assert count_commits(bare) == 1 + 2 * 3

    # A player pulling sees the adjudicated state; the service can verify the game.
    pull(clones["alice"])
    assert head(clones["alice"]) == head(bare)
    assert (clones["alice"] / "reports" / "0003.md").exists()
    assert "ok:" in pamir_ok("verify", bare)


def test_an_illegal_push_is_refused_with_the_engine_message(bare: Path) -> None:
    before = refs(bare)
    player, options = decider(full_state(bare))
    mine = clone(bare, player)
    text = "purchase 20\n"
    with pytest.raises(engine.MoveError) as expected:
        apply_submission(full_state(bare), player, text)
    write_move(mine, 1, player, text)
    done = push(mine)
    assert done.returncode != 0
    assert "pre-receive hook declined" in done.stderr
    assert str(expected.value) in done.stderr
    assert "wrong-decision" in done.stderr and "[Setup, p. 4]" in done.stderr
    assert "legal now: " + ", ".join(options) in done.stderr
    assert refs(bare) == before
    assert count_commits(bare) == 1


def test_a_stale_push_is_refused(bare: Path) -> None:
    first, options = decider(full_state(bare))
    second = next(n for n in ("alice", "bob") if n != first)
    ahead, behind = clone(bare, first), clone(bare, second)

    # Wrong number: the next move is 0001.
    write_move(ahead, 2, first, options[0] + "\n")
    done = push(ahead)
    assert done.returncode != 0
    assert "the next move is number 0001" in done.stderr
    git(ahead, "reset", "-q", "--hard", "origin/main")

    write_move(ahead, 1, first, options[0] + "\n")
    assert push(ahead).returncode == 0
    adjudicated = refs(bare)
    assert count_commits(bare) == 3

    # A clone behind the game: Git refuses the non-fast-forward push...
    _, later = decider(full_state(bare))
    write_move(behind, 1, second, later[0] + "\n")
    done = push(behind)
    assert done.returncode != 0
    assert "rejected" in done.stderr
    assert refs(bare) == adjudicated
    # ...and forcing it past Git is refused by the hook: it would rewrite the game.
    done = push(behind, "--force", "main")
    assert done.returncode != 0
    assert "pre-receive hook declined" in done.stderr
    assert "history cannot be rewritten" in done.stderr
    assert refs(bare) == adjudicated


@pytest.mark.parametrize("path", ["state.json", "board.svg", "game.toml"])
def test_a_push_that_edits_the_adjudicator_files_is_refused(bare: Path, path: str) -> None:
    before = refs(bare)
    player, options = decider(full_state(bare))
    mine = clone(bare, player)
    target = mine / path
    target.write_text(target.read_text(encoding="utf-8").replace("alice", "mallory"), "utf-8")
    (mine / "moves").mkdir()
    (mine / "moves" / f"0001-{player}.txt").write_text(options[0] + "\n", encoding="utf-8")
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "-m", "a legal move, and a little extra")
    done = push(mine)
    assert done.returncode != 0
    assert f"{path}: a push may only add move files" in done.stderr
    assert refs(bare) == before


def test_a_push_to_another_branch_is_refused(bare: Path) -> None:
    before = refs(bare)
    player, options = decider(full_state(bare))
    mine = clone(bare, player)
    write_move(mine, 1, player, options[0] + "\n")
    done = push(mine, "HEAD:refs/heads/side")
    assert done.returncode != 0
    assert "only the main branch" in done.stderr
    assert refs(bare) == before
    assert "refs/heads/side" not in refs(bare)


def test_a_pushed_rollback_request_that_is_refused_does_not_block_the_game(bare: Path) -> None:
    player, _ = decider(full_state(bare))
    mine = clone(bare, player)
    write_move(mine, 1, player, "agree rollback\n")  # there is no proposal to agree to
    done = push(mine)
    assert "Traceback" not in done.stderr
    if done.returncode != 0:  # refused up front: fine too
        git(mine, "reset", "-q", "--hard", "origin/main")
    pull(mine)
    # The game goes on: the next legal move is pushed and adjudicated.
    number = next_number(bare)
    player, options = decider(full_state(bare))
    write_move(mine, number, player, options[0] + "\n")
    done = push(mine)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert author(bare) == ADJUDICATOR
    assert state_json(bare)["move"] == number


def test_the_bare_repository_stays_sound_after_adjudicating(bare: Path) -> None:
    player, options = decider(full_state(bare))
    mine = clone(bare, player)
    write_move(mine, 1, player, options[0] + "\n")
    assert push(mine).returncode == 0
    assert state_json(bare)["move"] == 1
    changed = git(bare, "diff-tree", "--no-commit-id", "--name-only", "-r", MAIN).split()
    assert [name for name in changed if name != "board.svg"] == ["reports/0001.md", "state.json"]
    git(bare, "fsck", "--no-progress")
    git(bare, "gc", "--quiet")
    assert not (bare / "index").exists()


def test_a_move_file_committed_by_someone_else_is_refused(bare: Path) -> None:
    """A move file names its author; the commit adding it must carry that player's email."""
    player, options = decider(full_state(bare))
    mine = clone(bare, "someone")
    before = refs(bare)
    write_move(mine, 1, player, options[0] + "\n", email="intruder@example.org")
    done = push(mine)
    assert done.returncode != 0
    assert "must be committed by its player" in done.stderr
    assert refs(bare) == before


def test_history_cannot_be_rewritten_by_a_forced_push(bare: Path) -> None:
    player, options = decider(full_state(bare))
    mine = clone(bare, player)
    write_move(mine, 1, player, options[0] + "\n")
    assert push(mine).returncode == 0
    before = refs(bare)
    git(mine, "reset", "-q", "--hard", "HEAD~1")  # drop the move, then push over it
    write_move(mine, 2, player, "pass\n")
    done = push(mine, "--force", "main")
    assert done.returncode != 0
    assert refs(bare) == before


def test_a_move_pushed_in_polish_words_is_refused_with_its_canonical_form(
    bare: Path, tmp_path: Path
) -> None:
    """Move files hold the canonical notation (docs/game-repository.md#move-files): the
    service writes it for a move sent in Polish by mail, but cannot rewrite a pushed
    commit, so the hook refuses one, saying in English and Polish what to write."""
    player, _ = decider(full_state(bare))
    mine = clone(bare, player)
    write_move(mine, 1, player, "# mój ruch\nlojalność afgański\n")
    before = refs(bare)
    done = push(mine)
    assert done.returncode != 0 and refs(bare) == before
    assert "line 2: not-canonical: `lojalność afgański` is in Polish words" in done.stderr
    assert "write `loyalty afghan`" in done.stderr and "notacji kanonicznej" in done.stderr
    git(mine, "reset", "-q", "--hard", "HEAD~1")
    write_move(mine, 1, player, "loyalty afghan\n")
    assert push(mine).returncode == 0
    # A game on a forge runs no hook: the service records the refusal instead.
    path = create(tmp_path / "forge-like", bare=False)
    player, _ = decider(full_state(path))
    write_move(path, 1, player, "lojalnosc afganski\n")
    repo = GameRepo(path)
    (refused,) = adjudicate_pending(repo, current_home())
    state = json.loads(repo.read("state.json") or "{}")
    assert "not-canonical" in state["last"]["refused"] and refused.number == 1
    repo.repo.close()


# The adjudicator's identity, as a player might claim it: exactly, or by a look-alike that
# Git would show the same (case, spaces, a trailing dot, a Cyrillic letter).
CLAIMS = {
    "committer": {"GIT_COMMITTER_NAME": "x", "GIT_COMMITTER_EMAIL": "adjudicator@pamir.invalid"},
    "committer name": {"GIT_COMMITTER_NAME": "pamir adjudicator"},
    "author name": {"GIT_AUTHOR_NAME": "Pamir  Adjudicator"},
    "shouted": {"GIT_COMMITTER_EMAIL": "ADJUDICATOR@PAMIR.INVALID"},
    "cyrillic": {"GIT_COMMITTER_EMAIL": "\u0430djudicator@pamir.invalid"},
    "service domain": {"GIT_COMMITTER_EMAIL": "referee@pamir.invalid."},
    "spaced": {},  # a committer line written by hand: see below
}


@pytest.mark.parametrize("claim", list(CLAIMS))
def test_a_push_that_claims_the_adjudicators_identity_is_refused(bare: Path, claim: str) -> None:
    """A pushed commit committed as the adjudicator would be taken for the service's own
    by `pamir verify` for ever after: the hook refuses it, saying why."""
    player, options = decider(full_state(bare))
    mine = clone(bare, player)
    before = refs(bare)
    name = f"moves/0001-{player}.txt"
    (mine / "moves").mkdir()
    (mine / name).write_text(options[0] + "\n", encoding="utf-8")
    git(mine, "add", name)
    claimed = f"{CLAIMS[claim].get('GIT_AUTHOR_NAME', player)} <{player}@example.org>"
    done = run(["git", "commit", "-q", "--author", claimed, "-m", "m"], mine, env=CLAIMS[claim])
    assert done.returncode == 0, done.stderr
    if claim == "spaced":
        # Git trims an address it is given; a commit object written by hand need not be.
        rewrite_committer(mine, "Adjudicator <adjudicator@pamir.invalid >")
    done = push(mine)
    assert done.returncode != 0
    assert "pre-receive hook declined" in done.stderr
    assert "the adjudicator's identity" in done.stderr and "only the service" in done.stderr
    assert refs(bare) == before
    # The same move, committed as the player, goes in.
    yourself = f"{player} <{player}@example.org>"
    git(mine, "commit", "-q", "--amend", "--no-edit", "--author", yourself)
    done = push(mine)
    assert done.returncode == 0, done.stderr
    assert state_json(bare)["move"] == 1


def rewrite_committer(clone: Path, committer: str) -> None:
    """Write HEAD again by hand with another committer line, as Git would never write it."""
    raw = git(clone, "cat-file", "commit", "HEAD")
    raw = re.sub(
        r"^committer .*? (\d+ [+-]\d{4})$", f"committer {committer} \\1", raw, count=1, flags=re.M
    )
    done = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--literally", "--stdin"],
        cwd=clone, input=raw, capture_output=True, text=True, check=True,
    )  # fmt: skip
    git(clone, "reset", "-q", "--soft", done.stdout.strip())
    assert f"committer {committer} " in git(clone, "cat-file", "commit", "HEAD")


def test_a_move_file_pushed_as_a_symbolic_link_is_refused(bare: Path) -> None:
    player, _ = decider(full_state(bare))
    mine = clone(bare, player)
    before = refs(bare)
    (mine / "moves").mkdir()
    os.symlink("../state.json", mine / "moves" / f"0001-{player}.txt")
    git(mine, "add", "-A")
    git(mine, "commit", "-q", "--author", f"{player} <{player}@example.org>", "-m", "m")
    done = push(mine)
    assert done.returncode != 0 and refs(bare) == before
    assert f"moves/0001-{player}.txt: a move file must be a plain file" in done.stderr
