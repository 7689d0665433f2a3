"""A repository whose objects are not named by SHA-1 is refused when it is opened, with a
message that says so: read as SHA-1 its commits are not found, and a game with moves would
look like a game with none."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from adjudicator.games.repo import GameRepo, RepoError


def git(path: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(path), *args], capture_output=True, check=True)
    return done.stdout.decode().strip()


def committed(path: Path, *init: str) -> Path:
    git(path.parent, "init", "-q", "-b", "main", *init, str(path))
    (path / "game.toml").write_text("id = 'g'\n")
    git(path, "add", ".")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c")
    return path


def test_a_sha256_repository_is_refused_as_such(tmp_path: Path) -> None:
    path = committed(tmp_path / "r", "--object-format=sha256")
    with pytest.raises(RepoError, match="uses the sha256 object format") as refused:
        GameRepo(path)
    assert "SHA-1 repositories only" in str(refused.value)


def test_an_empty_bare_sha256_repository_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "r.git"
    git(tmp_path, "init", "-q", "--bare", "--object-format=sha256", str(path))
    with pytest.raises(RepoError, match="sha256"):
        GameRepo(path)


def test_a_repository_that_names_sha1_is_read(tmp_path: Path) -> None:
    path = committed(tmp_path / "r", "--object-format=sha1")
    git(path, "config", "core.repositoryformatversion", "1")
    git(path, "config", "extensions.objectFormat", "sha1")
    assert GameRepo(path).head() == git(path, "rev-parse", "HEAD")


def test_the_setting_is_read_in_any_case_as_git_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "r"
    git(tmp_path, "init", "-q", str(path))
    git(path, "config", "core.repositoryformatversion", "1")
    git(path, "config", "Extensions.objectFormat", "sha256")
    with pytest.raises(RepoError, match="uses the sha256 object format"):
        GameRepo(path)
