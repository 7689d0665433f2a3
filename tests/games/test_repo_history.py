"""GameRepo's in-process answers about history agree with git's own: ancestry, merge
bases, the commits between two, what a commit changed, every file of a commit. A small
history with a merge and a file turned into a folder, built with real git."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from adjudicator.games.registry import kept_game
from adjudicator.games.repo import GameRepo
from adjudicator.home.settings import Settings


def git(path: Path, *args: str) -> str:
    command = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@t", *args]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout.strip()


def commit(path: Path, message: str, files: dict[str, str | None]) -> str:
    for name, text in files.items():
        target = path / name
        if text is None:
            git(path, "rm", "-q", "-r", name)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        git(path, "add", name)
    git(path, "commit", "-q", "--allow-empty", "-m", message)
    return git(path, "rev-parse", "HEAD")


@pytest.fixture
def history(tmp_path: Path) -> tuple[GameRepo, dict[str, str]]:
    path = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    c: dict[str, str] = {}
    c["a"] = commit(path, "a", {"game.toml": "1", "moves/0001-x.txt": "pass"})
    c["b"] = commit(path, "b", {"moves/0002-y.txt": "pass", "state.json": "{}"})
    git(path, "checkout", "-q", "-b", "side", c["a"])
    c["s"] = commit(path, "s", {"notes": "file", "game.toml": "2"})
    git(path, "checkout", "-q", "main")
    git(path, "merge", "-q", "--no-edit", "side")
    c["m"] = git(path, "rev-parse", "HEAD")
    c["d"] = commit(path, "d", {"notes": None, "moves/0001-x.txt": None})
    c["e"] = commit(path, "e", {"notes/inside.txt": "now a folder", "state.json": "{1}"})
    return GameRepo(path), c


def test_ancestry_and_merge_bases_agree_with_git(history: tuple[GameRepo, dict[str, str]]) -> None:
    repo, c = history
    path = repo.path
    for old in c.values():
        for new in c.values():
            done = subprocess.run(["git", "-C", str(path), "merge-base", "--is-ancestor", old, new])
            assert repo.is_ancestor(old, new) is (done.returncode == 0), (old, new)
            assert repo.merge_base(old, new) == git(path, "merge-base", old, new)
            listed = git(path, "rev-list", "--reverse", "--topo-order", f"{old}..{new}")
            assert repo.commits_between(old, new) == listed.split(), (old, new)


def test_changes_and_files_agree_with_git(history: tuple[GameRepo, dict[str, str]]) -> None:
    repo, c = history
    path = repo.path
    pairs = [
        (c["a"], c["b"]),
        (c["b"], c["m"]),
        (c["m"], c["d"]),
        (c["d"], c["e"]),
        (c["a"], c["e"]),
    ]
    for parent, child in pairs:
        out = git(path, "diff-tree", "-r", "--name-status", "--no-renames", parent, child)
        found = [(line[:1], line.split("\t")[1]) for line in out.splitlines()]
        want = sorted(found, key=lambda change: change[1])
        assert repo.changes(parent, child) == want, (parent, child)
    for sha in c.values():
        listing = git(path, "ls-tree", "-r", sha).splitlines()
        want_files = {
            line.split("\t")[1]: (line.split()[2], int(line.split()[0], 8)) for line in listing
        }
        assert repo.tree_files(sha) == want_files


def test_a_kept_game_is_the_same_open_repository(settings: Settings) -> None:
    (settings.games_dir / "g1").mkdir(parents=True)
    git(settings.games_dir / "g1", "init", "-q", "-b", "main")
    first = kept_game(settings, "g1")
    assert kept_game(settings, "g1") is first


@pytest.mark.parametrize("path", [None, "game.toml", "state.json", "notes", "moves/0002-y.txt"])
def test_the_commits_touching_a_file_agree_with_git_log(
    history: tuple[GameRepo, dict[str, str]], path: str | None
) -> None:
    repo, c = history
    for tip in (c["b"], c["e"]):  # a line of commits, and one through a merge
        args = ["log", "--format=%H", tip] + (["--", path] if path else [])
        want = git(repo.path, *args).split()
        assert [commit.hexsha for commit in repo.touching(tip, path)] == want, (tip, path)
