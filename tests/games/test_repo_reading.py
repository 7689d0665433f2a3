"""Reading a game's Git objects in-process (adjudicator/games/repo.py): trees parsed once
and kept, names no Git tree may hold refused, and SSH signatures checked without a
process for Ed25519 and RSA keys, by ssh-keygen for the others."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from adjudicator.games import signatures
from adjudicator.games.objects import GameError
from adjudicator.games.repo import GameRepo


def git(path: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(
        ["git", "-C", str(path), *args], input=data, capture_output=True, check=True
    )
    return done.stdout.decode().strip()


def repo_with_tree(tmp_path: Path, raw_tree: bytes) -> tuple[GameRepo, str]:
    path = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    tree = git(path, "hash-object", "-t", "tree", "-w", "--stdin", "--literally", data=raw_tree)
    commit = git(path, "commit-tree", tree, "-m", "odd")
    return GameRepo(path), commit


def test_files_and_folders_are_read_from_the_parsed_trees(tmp_path: Path) -> None:
    path = tmp_path / "r"
    git(tmp_path, "init", "-q", "-b", "main", str(path))
    (path / "moves").mkdir()
    (path / "moves" / "0001-alice.txt").write_text("pass\n")
    (path / "game.toml").write_text("id = 'g'\n")
    git(path, "add", ".")
    git(path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c")
    repo = GameRepo(path)
    head = repo.head()
    assert head is not None
    assert repo.read("moves/0001-alice.txt", head) == "pass\n"
    assert repo.read("moves/0002-bob.txt", head) is None
    assert repo.read("game.toml/inside", head) is None
    assert repo.names("moves", head) == ["0001-alice.txt"]
    with pytest.raises(GameError, match="moves is a folder, not a file"):
        repo.read("moves", head)
    with pytest.raises(GameError, match=r"game\.toml is a file, not a folder"):
        repo.names("game.toml", head)


@pytest.mark.parametrize("name", [b"a/b", b"..", b"."])
def test_a_name_no_git_tree_may_hold_is_refused(tmp_path: Path, name: bytes) -> None:
    blob = bytes(20)
    repo, commit = repo_with_tree(tmp_path, b"100644 " + name + b"\0" + blob)
    with pytest.raises(GameError, match="cannot be read"):
        repo.read("game.toml", commit)


def keypair(tmp_path: Path, kind: str) -> tuple[Path, str]:
    key = tmp_path / f"id_{kind}"
    subprocess.run(["ssh-keygen", "-q", "-t", kind, "-N", "", "-f", str(key)], check=True)
    kind_name, b64 = key.with_suffix(".pub").read_text().split()[:2]
    return key, f"{kind_name} {b64}"


def signed(tmp_path: Path, key: Path, payload: bytes) -> str:
    message = tmp_path / "payload"
    message.write_bytes(payload)
    subprocess.run(["ssh-keygen", "-q", "-Y", "sign", "-n", "git", "-f", str(key), str(message)])
    return message.with_suffix(".sig").read_text()


@pytest.mark.parametrize("kind", ["ed25519", "rsa", "ecdsa"])
def test_signatures_verify_in_process_or_by_ssh_keygen_alike(tmp_path: Path, kind: str) -> None:
    key, line = keypair(tmp_path, kind)
    signature = signed(tmp_path, key, b"tree 1234\n\nmove 1\n")
    for payload, good in ((b"tree 1234\n\nmove 1\n", True), (b"tree 1234\n\nmove 2\n", False)):
        assert signatures._verifies(payload, signature, "alice", line) is good
        assert signatures._ssh_keygen_verifies(payload, signature, "alice", line) is good
    (tmp_path / "other").mkdir()
    _, other = keypair(tmp_path / "other", kind)
    assert not signatures._verifies(b"tree 1234\n\nmove 1\n", signature, "alice", other)
